/**
 * The wallet's automations: one actor per wallet (validator node) acting for all its users, driven
 * by ledger updates (reacting at once) and by its own timer every `pollInterval` (work that waits
 * for time to pass; once per step while a long time advance catches up: NetworkPace). Each automation is a module of this folder over the shared state (state.ts),
 * whose queues work.ts fills from the commit listener.
 *
 * On updates: accept offers from configured senders (auto-accept), pay accepted offers the users
 * sent (or abort them when the sender lacks coin), pay buy-traffic requests (or reject them), take
 * on users' merge delegations, accept the preapproval proposals made to the operator (offers.ts,
 * traffic.ts, delegations.ts, preapprovals.ts).
 * On the timer: expire offers, accepted offers, transfer instructions and buy-traffic requests past
 * their expiry (expiry.ts); renew the preapprovals the operator provides and accept the proposals
 * whose fee it could not pay before (preapprovals.ts); collect
 * and mint reward coupons and liveness records of issuing rounds, and record the validator's
 * liveness once per round (rewards.ts); merge the holdings of parties with too many (merge.ts); top
 * up the participant's traffic (traffic.ts); sweep excess balances (sweep.ts).
 */
import { Clock, Effect, Either } from "effect"
import { micros as microsOf, type CommittedUpdate, type Micros } from "@sandnet/core"
import { AutomationGuard, type AutomationStepStatus } from "../../automation-guard.ts"
import { Network, Outgoing, type Actor, type Message } from "../../network/network.ts"
import type { WalletNode } from "../wallet.ts"
import { acceptMergeProposals } from "./delegations.ts"
import { expire } from "./expiry.ts"
import { merge } from "./merge.ts"
import { acceptOffers, completeAccepted } from "./offers.ts"
import { acceptPreapprovalProposals, renew } from "./preapprovals.ts"
import { collectRewards, recordLiveness } from "./rewards.ts"
import { AutomationState } from "./state.ts"
import { sweep } from "./sweep.ts"
import { completeBuyTraffic, topUp } from "./traffic.ts"
import { fileWork } from "./work.ts"

interface WalletWake extends Message {
  readonly _tag: "WalletWake"
  readonly poll: boolean
}

export class WalletAutomation extends AutomationState implements Actor {
  readonly address: string
  private workScheduled = false
  private started = false
  /** No submissions after this time (a simulation winding down lets in-flight work settle). */
  stopAt: Micros = Number.MAX_SAFE_INTEGER
  readonly guard: AutomationGuard
  /** Steps added to the timed work (plug-ins and tests), run under the same guard. */
  readonly extraSteps: Array<{ readonly name: string; readonly run: (now: Micros) => Effect.Effect<void, unknown> }> = []

  constructor(
    wallet: WalletNode,
    private readonly net: { readonly schedule: (to: string, message: Message, at: Micros) => Effect.Effect<void> }
  ) {
    super(wallet)
    this.address = `WALLET-AUTOMATION::${wallet.validator.name}`
    this.guard = new AutomationGuard(this.address)
    // What is already on the ledger (a restart, or users onboarded before the automation started).
    for (const entry of wallet.participant.logic.log) fileWork(this, entry, false)
    wallet.participant.logic.addListener({ onCommitted: (entry, now) => this.onCommitted(entry, now) })
    wallet.onCompletionHook((completion) => this.onCompletion(completion))
  }

  private onCommitted(entry: CommittedUpdate, now: Micros): ReadonlyArray<Outgoing> {
    const urgent = fileWork(this, entry, true)
    if (!urgent || this.workScheduled || !this.started || now > this.stopAt) return []
    this.workScheduled = true
    const wake: WalletWake = { _tag: "WalletWake", poll: false }
    return [Outgoing.timer(this.address, wake, now)]
  }

  start(now: Micros): Effect.Effect<void> {
    this.started = true
    const work: WalletWake = { _tag: "WalletWake", poll: false }
    const poll: WalletWake = { _tag: "WalletWake", poll: true }
    this.workScheduled = true
    return Effect.zipRight(this.net.schedule(this.address, work, now), this.net.schedule(this.address, poll, now + this.config.pollInterval))
  }

  readonly receive = (message: Message): Effect.Effect<void> => {
    if (message._tag !== "WalletWake") return Effect.void
    const { poll } = message as WalletWake
    return Effect.gen(this, function* () {
      const now = microsOf.fromNanos(yield* Clock.currentTimeNanos)
      if (now > this.stopAt) return
      const next: WalletWake = { _tag: "WalletWake", poll: true }
      // While a time advance catches up, the next poll is at the end of the step (once per step).
      if (poll) yield* this.net.schedule(this.address, next, Math.max(now + this.config.pollInterval, this.wallet.network.pace.catchUpUntil ?? 0))
      else this.workScheduled = false
      yield* this.react(now)
      if (poll) yield* this.periodic(now)
    })
  }

  /** The work updates brought: what can be done at once. Each step fails on its own (guard). */
  private react(now: Micros): Effect.Effect<void> {
    const step = (name: string, effect: Effect.Effect<void, unknown>) => this.guard.run(name, now, effect)
    return Effect.gen(this, function* () {
      yield* step("accept-offers", acceptOffers(this, now))
      yield* step("accept-merge-proposals", acceptMergeProposals(this))
      const ref = this.wallet.reference(now)
      if (Either.isLeft(ref)) return
      yield* step("complete-accepted", Effect.suspend(() => Effect.forEach([...this.completeQueue], (cid) => completeAccepted(this, cid, now, ref.right), { discard: true })))
      yield* step("complete-buy-traffic", Effect.suspend(() => Effect.forEach([...this.trafficQueue], (cid) => completeBuyTraffic(this, cid, now, ref.right), { discard: true })))
      yield* step("accept-preapproval-proposals", acceptPreapprovalProposals(this, now, ref.right))
    })
  }

  /** The timed work, every poll interval. */
  private periodic(now: Micros): Effect.Effect<void> {
    const step = (name: string, effect: Effect.Effect<void, unknown>) => this.guard.run(name, now, effect)
    return Effect.gen(this, function* () {
      const ref = this.wallet.reference(now)
      if (this.config.expireOffers) yield* step("expire", expire(this, now))
      yield* step("renew-preapprovals", renew(this, now))
      if (Either.isLeft(ref)) return
      if (this.config.rewardCollection) {
        yield* step("record-liveness", recordLiveness(this, now, ref.right))
        yield* step("collect-rewards", collectRewards(this, now, ref.right))
      }
      // Proposals waiting for the operator's coin to pay their fee.
      yield* step("accept-preapproval-proposals", acceptPreapprovalProposals(this, now, ref.right))
      if (this.config.merge.enabled) yield* step("merge", merge(this, ref.right))
      if (this.config.buyExtraTraffic.targetThroughput > 0) yield* step("top-up-traffic", topUp(this, now, ref.right))
      if (this.config.sweep.length > 0) yield* step("sweep", sweep(this, now, ref.right))
      for (const extra of this.extraSteps) yield* step(extra.name, extra.run(now))
      // Accepted offers that waited for coin held by other commands.
      yield* step("complete-accepted", Effect.suspend(() => Effect.forEach([...this.completeQueue], (cid) => completeAccepted(this, cid, now, ref.right), { discard: true })))
    })
  }

  /** Each step's failures and backoff (the /dev page's automation status). */
  status(): ReadonlyArray<AutomationStepStatus> {
    return this.guard.status()
  }

  /** Outstanding work, for tests and diagnostics. */
  pending(): { readonly accept: number; readonly complete: number; readonly traffic: number; readonly expiring: number; readonly coupons: number } {
    return { accept: this.acceptQueue.size, complete: this.completeQueue.size, traffic: this.trafficQueue.size, expiring: this.expiry.size, coupons: this.coupons.size }
  }
}

/** Registers a wallet's automation with the network and starts its timer. */
export const startWalletAutomation = (wallet: WalletNode): Effect.Effect<WalletAutomation, never, Network> =>
  Effect.gen(function* () {
    const net = yield* Network
    const automation = new WalletAutomation(wallet, net)
    yield* net.register(automation)
    yield* automation.start(microsOf.fromNanos(yield* Clock.currentTimeNanos))
    return automation
  })
