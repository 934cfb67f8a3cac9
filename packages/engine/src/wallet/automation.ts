/**
 * The wallet's automations: one actor per wallet (validator node) acting for all its users, driven
 * by ledger updates (reacting at once) and by its own timer every `pollInterval` (work that waits
 * for time to pass). Nothing here scans the whole ACS: every pending piece of work sits in a queue
 * or a heap keyed by when it falls due, filled by the commit listener.
 *
 * On updates: accept offers from configured senders (auto-accept), pay accepted offers the users
 * sent (or abort them when the sender lacks coin), pay buy-traffic requests (or reject them), take
 * on users' merge delegations.
 * On the timer: expire offers, accepted offers, transfer instructions and buy-traffic requests past
 * their expiry; renew the preapprovals the operator provides; collect and mint reward coupons and
 * liveness records of issuing rounds, and record the validator's liveness once per round; merge the
 * holdings of parties with too many; top up the participant's traffic; sweep excess balances.
 */
import { Clock, Effect, Either } from "effect"
import {
  amountOf,
  divAmount,
  formatAmount,
  micros as microsOf,
  parseIso,
  toIso,
  type ActiveContract,
  type Amount,
  type CommittedUpdate,
  type ContractId,
  type Micros,
  type PartyId
} from "@sandnet/core"
import {
  AcceptedTransferOffer,
  AcceptedTransferOffer_Abort,
  AcceptedTransferOffer_Complete,
  AcceptedTransferOffer_Expire,
  AppRewardCoupon,
  BatchMergeUtility_MergeHoldings,
  BuyTrafficRequest,
  BuyTrafficRequest_Cancel,
  BuyTrafficRequest_Complete,
  BuyTrafficRequest_Expire,
  Coin,
  CoinRules_BuyMemberTraffic,
  CoinRules_DevNet_Tap,
  CoinRules_Transfer,
  CoinTransferInstruction,
  CoinTransferInstruction_Expire,
  MergeDelegationProposal,
  MergeDelegationProposal_Accept,
  TransferOffer,
  TransferOffer_Accept,
  TransferOffer_Expire,
  TransferPreapproval,
  TransferPreapproval_Renew,
  TransferPreapproval_Send,
  ValidatorLicense,
  ValidatorLicense_RecordValidatorLivenessActivity,
  ValidatorLivenessActivityRecord,
  ValidatorRewardCoupon,
  ValidatorRight,
  appRewardOwner,
  configAt,
  mintedByTransfer,
  trafficCostUsd,
  type AcceptedTransferOfferPayload,
  type AppRewardCouponPayload,
  type BuyTrafficRequestPayload,
  type CoinTransferInstructionPayload,
  type TransferInput,
  type TransferOfferPayload,
  type TransferPreapprovalPayload,
  type ValidatorLicensePayload,
  type ValidatorLivenessActivityRecordPayload,
  type ValidatorRewardCouponPayload,
  type ValidatorRightPayload
} from "../coin/index.ts"
import { MinHeap } from "../dso/heap.ts"
import { Commands, type Command } from "../ledger/interpreter.ts"
import { Network, Outgoing, type Actor, type Message } from "../network/network.ts"
import type { Completion } from "../participant/index.ts"
import type { WalletNode } from "./wallet.ts"

export interface WalletAutomationStats {
  offersAutoAccepted: number
  acceptedOffersCompleted: number
  acceptedOffersAborted: number
  offersExpired: number
  instructionsExpired: number
  buyTrafficRequestsCompleted: number
  buyTrafficRequestsRejected: number
  buyTrafficRequestsExpired: number
  preapprovalsRenewed: number
  mergeDelegationsAccepted: number
  rewardCollections: number
  appCouponsCollected: number
  validatorCouponsCollected: number
  livenessRecordsCollected: number
  /** Coin minted from collected rewards, in Numeric-10 units. */
  rewardsMinted: bigint
  livenessRecorded: number
  mergeTransactions: number
  holdingsMerged: number
  trafficPurchases: number
  trafficBytesBought: number
  /** Coin burned for traffic (top-ups and users' requests), in Numeric-10 units. */
  trafficCoinBurned: bigint
  taps: number
  sweeps: number
  commandsFailed: number
}

const emptyStats = (): WalletAutomationStats => ({
  offersAutoAccepted: 0,
  acceptedOffersCompleted: 0,
  acceptedOffersAborted: 0,
  offersExpired: 0,
  instructionsExpired: 0,
  buyTrafficRequestsCompleted: 0,
  buyTrafficRequestsRejected: 0,
  buyTrafficRequestsExpired: 0,
  preapprovalsRenewed: 0,
  mergeDelegationsAccepted: 0,
  rewardCollections: 0,
  appCouponsCollected: 0,
  validatorCouponsCollected: 0,
  livenessRecordsCollected: 0,
  rewardsMinted: 0n,
  livenessRecorded: 0,
  mergeTransactions: 0,
  holdingsMerged: 0,
  trafficPurchases: 0,
  trafficBytesBought: 0,
  trafficCoinBurned: 0n,
  taps: 0,
  sweeps: 0,
  commandsFailed: 0
})

type Expiring = { readonly contractId: ContractId; readonly kind: "offer" | "accepted" | "instruction" | "buyTraffic"; readonly actor: PartyId }

type CouponKind = "app" | "validator" | "liveness"
interface Coupon {
  readonly contractId: ContractId
  readonly kind: CouponKind
  readonly round: number
  /** The party that mints it: the operator for validator coupons and liveness, else the app reward's owner. */
  readonly collector: PartyId
  /** The party whose node-visibility the collector needs (the coupon's user), if not the collector. */
  readonly readAs: PartyId | undefined
}

interface WalletWake extends Message {
  readonly _tag: "WalletWake"
  readonly poll: boolean
}

type StatsUpdate = (completion: Completion) => void

const payloadOf = <P>(c: ActiveContract): P => c.created.createArguments as unknown as P

export class WalletAutomation implements Actor {
  readonly address: string
  readonly stats = emptyStats()
  private readonly acceptQueue = new Set<ContractId>()
  private readonly completeQueue = new Set<ContractId>()
  private readonly trafficQueue = new Set<ContractId>()
  private readonly proposalQueue = new Set<ContractId>()
  private readonly expiry = new MinHeap<Expiring>()
  private readonly renewals = new MinHeap<ContractId>()
  private readonly mergeDirty = new Set<PartyId>()
  private readonly coupons = new Map<ContractId, Coupon>()
  private readonly onDone = new Map<string, StatsUpdate>()
  private workScheduled = false
  private started = false
  /** No submissions after this time (a simulation winding down lets in-flight work settle). */
  stopAt: Micros = Number.MAX_SAFE_INTEGER

  constructor(
    readonly wallet: WalletNode,
    private readonly net: { readonly schedule: (to: string, message: Message, at: Micros) => Effect.Effect<void> }
  ) {
    this.address = `WALLET-AUTOMATION::${wallet.validator.name}`
    // What is already on the ledger (a restart, or users onboarded before the automation started).
    for (const entry of wallet.participant.logic.log) this.index(entry, false)
    wallet.participant.logic.addListener({ onCommitted: (entry, now) => this.onCommitted(entry, now) })
    wallet.onCompletionHook((completion) => this.onCompletion(completion))
  }

  private get config() {
    return this.wallet.config
  }

  private get operator(): PartyId {
    return this.wallet.operator
  }

  private hosts(party: PartyId): boolean {
    return this.wallet.isUserParty(party)
  }

  // ---------------------------------------------------------------- indexing

  private onCommitted(entry: CommittedUpdate, now: Micros): ReadonlyArray<Outgoing> {
    const urgent = this.index(entry, true)
    if (!urgent || this.workScheduled || !this.started || now > this.stopAt) return []
    this.workScheduled = true
    const wake: WalletWake = { _tag: "WalletWake", poll: false }
    return [Outgoing.timer(this.address, wake, now)]
  }

  /** Files the work an update brings; returns whether some of it should run at once. */
  private index(entry: CommittedUpdate, live: boolean): boolean {
    const update = entry.update
    if (update.kind !== "transaction") return false
    const acs = this.wallet.participant.logic.acs
    let urgent = false
    for (const node of update.nodes) {
      if (node.kind === "exercised") {
        if (node.consuming) this.coupons.delete(node.contractId)
        continue
      }
      // Replaying the log: only what is still active matters.
      if (!live && !acs.has(node.contractId)) continue
      const args: unknown = node.createArguments
      switch (node.templateId) {
        case TransferOffer.templateId: {
          const p = args as TransferOfferPayload
          if (this.hosts(p.receiver) && this.autoAccepts(p.receiver, p.sender)) {
            this.acceptQueue.add(node.contractId)
            urgent = true
          }
          if (this.hosts(p.sender)) this.expiry.push(parseIso(p.expiresAt) ?? 0, { contractId: node.contractId, kind: "offer", actor: p.sender })
          break
        }
        case AcceptedTransferOffer.templateId: {
          const p = args as AcceptedTransferOfferPayload
          if (this.hosts(p.sender)) {
            if (this.config.completeAcceptedOffers) {
              this.completeQueue.add(node.contractId)
              urgent = true
            }
            this.expiry.push(parseIso(p.expiresAt) ?? 0, { contractId: node.contractId, kind: "accepted", actor: p.sender })
          }
          break
        }
        case CoinTransferInstruction.templateId: {
          const p = args as CoinTransferInstructionPayload
          if (this.hosts(p.transfer.sender)) this.expiry.push(parseIso(p.transfer.executeBefore) ?? 0, { contractId: node.contractId, kind: "instruction", actor: p.transfer.sender })
          break
        }
        case BuyTrafficRequest.templateId: {
          const p = args as BuyTrafficRequestPayload
          if (this.hosts(p.endUserParty)) {
            if (this.config.completeBuyTrafficRequests) {
              this.trafficQueue.add(node.contractId)
              urgent = true
            }
            this.expiry.push(parseIso(p.expiresAt) ?? 0, { contractId: node.contractId, kind: "buyTraffic", actor: p.endUserParty })
          }
          break
        }
        case MergeDelegationProposal.templateId: {
          const p = args as { delegation: { operator: string } }
          if (p.delegation.operator === this.operator && this.config.acceptMergeDelegations) {
            this.proposalQueue.add(node.contractId)
            urgent = true
          }
          break
        }
        case TransferPreapproval.templateId: {
          const p = args as TransferPreapprovalPayload
          if (p.provider === this.operator && this.config.transferPreapproval.renew) {
            this.renewals.push((parseIso(p.expiresAt) ?? 0) - this.config.transferPreapproval.renewalDuration, node.contractId)
          }
          break
        }
        case Coin.templateId: {
          const owner = (args as { owner: string }).owner
          if (this.hosts(owner)) this.mergeDirty.add(owner)
          break
        }
        case ValidatorRewardCoupon.templateId: {
          const p = args as ValidatorRewardCouponPayload
          if (this.hosts(p.user)) this.coupons.set(node.contractId, { contractId: node.contractId, kind: "validator", round: Number(p.round.number), collector: this.operator, readAs: p.user === this.operator ? undefined : p.user })
          break
        }
        case AppRewardCoupon.templateId: {
          const owner = appRewardOwner(args as AppRewardCouponPayload)
          if (this.hosts(owner)) this.coupons.set(node.contractId, { contractId: node.contractId, kind: "app", round: Number((args as AppRewardCouponPayload).round.number), collector: owner, readAs: undefined })
          break
        }
        case ValidatorLivenessActivityRecord.templateId: {
          const p = args as ValidatorLivenessActivityRecordPayload
          if (p.validator === this.operator) this.coupons.set(node.contractId, { contractId: node.contractId, kind: "liveness", round: Number(p.round.number), collector: this.operator, readAs: undefined })
          break
        }
      }
    }
    return urgent
  }

  private autoAccepts(receiver: PartyId, sender: PartyId): boolean {
    return this.config.autoAcceptTransfers.some((e) => e.receiver === receiver && e.fromParties.some((p) => p === "*" || p === sender))
  }

  private onCompletion(completion: Completion): void {
    const update = this.onDone.get(completion.commandId)
    if (update === undefined) return
    this.onDone.delete(completion.commandId)
    if (completion._tag === "Failed") this.stats.commandsFailed++
    update(completion)
  }

  // ---------------------------------------------------------------- the actor

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
      if (poll) yield* this.net.schedule(this.address, next, now + this.config.pollInterval)
      else this.workScheduled = false
      yield* this.react(now)
      if (poll) yield* this.periodic(now)
    })
  }

  /** Fire-and-forget submission; `update` runs on the completion (stats). */
  private run(actAs: ReadonlyArray<PartyId>, readAs: ReadonlyArray<PartyId>, commandId: string, commands: ReadonlyArray<Command>, disclosed: ReadonlyArray<ActiveContract>, inputs: ReadonlyArray<ContractId>, update: StatsUpdate = () => undefined): Effect.Effect<boolean> {
    if (this.wallet.participant.logic.isInFlight(commandId, actAs)) return Effect.succeed(false)
    return this.wallet.submit(actAs, readAs, commandId, commands, disclosed, inputs).pipe(
      Effect.map(() => {
        this.onDone.set(commandId, update)
        return true
      }),
      Effect.catchAll(() => Effect.sync(() => (this.stats.commandsFailed++, false)))
    )
  }

  private context(ref: { readonly rules: ActiveContract; readonly round: ActiveContract }) {
    return { coinRules: ref.rules.created.contractId, context: { openMiningRound: ref.round.created.contractId, featuredAppRight: null } }
  }

  // ---------------------------------------------------------------- reacting to updates

  private react(now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const acs = this.wallet.participant.logic.acs
      for (const cid of [...this.acceptQueue]) {
        this.acceptQueue.delete(cid)
        const c = acs.get(cid)
        if (c === undefined) continue
        const p = payloadOf<TransferOfferPayload>(c)
        if (now >= (parseIso(p.expiresAt) ?? 0)) continue
        yield* this.run([p.receiver], [], `auto:accept:${cid}`, [Commands.exercise(TransferOffer_Accept, cid, {})], [], [], ok(() => this.stats.offersAutoAccepted++))
      }
      for (const cid of [...this.proposalQueue]) {
        this.proposalQueue.delete(cid)
        if (!acs.has(cid)) continue
        yield* this.run([this.operator], [], `auto:merge-delegation:${cid}`, [Commands.exercise(MergeDelegationProposal_Accept, cid, {})], [], [], ok(() => this.stats.mergeDelegationsAccepted++))
      }
      const ref = this.wallet.reference(now)
      if (Either.isLeft(ref)) return
      for (const cid of [...this.completeQueue]) yield* this.completeAccepted(cid, now, ref.right)
      for (const cid of [...this.trafficQueue]) yield* this.completeBuyTraffic(cid, now, ref.right)
    })
  }

  private completeAccepted(cid: ContractId, now: Micros, ref: ReturnType<WalletNode["reference"]> extends Either.Either<infer R, unknown> ? R : never): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const c = this.wallet.participant.logic.acs.get(cid)
      if (c === undefined) return void this.completeQueue.delete(cid)
      const p = payloadOf<AcceptedTransferOfferPayload>(c)
      // Past its expiry it can only expire (the expiry automation does it).
      if (now >= (parseIso(p.expiresAt) ?? 0)) return void this.completeQueue.delete(cid)
      const round = this.wallet.dso.latestOpenRound(now)!.payload
      const amount = p.amount.unit === "CoinUnit" ? amountOf(p.amount.amount) : divAmount(amountOf(p.amount.amount), amountOf(round.coinPrice))
      const selected = this.wallet.selectCoins(p.sender, amount, ref.roundNumber)
      if (Either.isLeft(selected)) {
        // Coin held by commands in flight may come back: wait. Otherwise the sender cannot pay.
        if (this.wallet.balanceOf(p.sender, now).unlocked >= amount) return
        this.completeQueue.delete(cid)
        yield* this.run([p.sender], [], `auto:abort:${cid}`, [Commands.exercise(AcceptedTransferOffer_Abort, cid, { reason: `insufficient funds: ${selected.left.available} available, ${selected.left.required} needed` })], [], [], ok(() => this.stats.acceptedOffersAborted++))
        return
      }
      this.completeQueue.delete(cid)
      yield* this.run(
        [p.sender, this.operator],
        [],
        `auto:complete:${cid}`,
        [
          Commands.exercise(AcceptedTransferOffer_Complete, cid, {
            inputs: selected.right.map((value) => ({ tag: "InputCoin" as const, value })),
            transferContext: this.context(ref),
            walletProvider: this.operator
          })
        ],
        [ref.rules, ref.round],
        selected.right,
        (completion) => {
          if (completion._tag === "Succeeded") this.stats.acceptedOffersCompleted++
          // A lost race for a coin: try again on the next wake.
          else this.completeQueue.add(cid)
        }
      )
    })
  }

  private completeBuyTraffic(cid: ContractId, now: Micros, ref: ReturnType<WalletNode["reference"]> extends Either.Either<infer R, unknown> ? R : never): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const c = this.wallet.participant.logic.acs.get(cid)
      if (c === undefined) return void this.trafficQueue.delete(cid)
      const p = payloadOf<BuyTrafficRequestPayload>(c)
      if (now >= (parseIso(p.expiresAt) ?? 0)) return void this.trafficQueue.delete(cid)
      const rules = this.wallet.dso.coinRules()!.payload
      const round = this.wallet.dso.latestOpenRound(now)!.payload
      const cost = divAmount(trafficCostUsd(configAt(rules, now), Number(p.trafficAmount)), amountOf(round.coinPrice))
      const selected = this.wallet.selectCoins(p.endUserParty, cost, ref.roundNumber)
      if (Either.isLeft(selected)) {
        if (this.wallet.balanceOf(p.endUserParty, now).unlocked >= cost) return
        this.trafficQueue.delete(cid)
        yield* this.run([p.endUserParty], [], `auto:buy-traffic-reject:${cid}`, [Commands.exercise(BuyTrafficRequest_Cancel, cid, { reason: `insufficient funds: ${selected.left.available} available, ${selected.left.required} needed` })], [], [], ok(() => this.stats.buyTrafficRequestsRejected++))
        return
      }
      this.trafficQueue.delete(cid)
      yield* this.run(
        [p.endUserParty],
        [],
        `auto:buy-traffic:${cid}`,
        [Commands.exercise(BuyTrafficRequest_Complete, cid, { inputs: selected.right.map((value) => ({ tag: "InputCoin" as const, value })), context: this.context(ref) })],
        [ref.rules, ref.round],
        selected.right,
        (completion) => {
          if (completion._tag === "Succeeded") {
            this.stats.buyTrafficRequestsCompleted++
            this.noteTraffic(Number(p.trafficAmount), cost)
          } else this.trafficQueue.add(cid)
        }
      )
    })
  }

  private noteTraffic(bytes: number, coin: Amount): void {
    this.stats.trafficPurchases++
    this.stats.trafficBytesBought += bytes
    this.stats.trafficCoinBurned += coin
  }

  // ---------------------------------------------------------------- timed work

  private periodic(now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const ref = this.wallet.reference(now)
      if (this.config.expireOffers) yield* this.expire(now)
      yield* this.renew(now)
      if (Either.isLeft(ref)) return
      if (this.config.rewardCollection) {
        yield* this.recordLiveness(now, ref.right)
        yield* this.collectRewards(now, ref.right)
      }
      if (this.config.merge.enabled) yield* this.merge(ref.right)
      if (this.config.buyExtraTraffic.targetThroughput > 0) yield* this.topUp(now, ref.right)
      if (this.config.sweep.length > 0) yield* this.sweep(now, ref.right)
      // Accepted offers that waited for coin held by other commands.
      for (const cid of [...this.completeQueue]) yield* this.completeAccepted(cid, now, ref.right)
    })
  }

  private expire(now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const acs = this.wallet.participant.logic.acs
      const retry: Array<Expiring> = []
      for (;;) {
        const e = this.expiry.popDue(now)
        if (e === undefined) break
        if (!acs.has(e.contractId)) continue
        retry.push(e)
        const command =
          e.kind === "offer"
            ? Commands.exercise(TransferOffer_Expire, e.contractId, { actor: e.actor })
            : e.kind === "accepted"
              ? Commands.exercise(AcceptedTransferOffer_Expire, e.contractId, { actor: e.actor })
              : e.kind === "instruction"
                ? Commands.exercise(CoinTransferInstruction_Expire, e.contractId, {})
                : Commands.exercise(BuyTrafficRequest_Expire, e.contractId, {})
        yield* this.run([e.actor], [], `auto:expire:${e.contractId}`, [command], [], [], ok(() => {
          if (e.kind === "instruction") this.stats.instructionsExpired++
          else if (e.kind === "buyTraffic") this.stats.buyTrafficRequestsExpired++
          else this.stats.offersExpired++
        }))
      }
      // Looked at again next time; gone by then if the expiry went through.
      for (const e of retry) this.expiry.push(now + this.config.pollInterval, e)
    })
  }

  private renew(now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const acs = this.wallet.participant.logic.acs
      const retry: Array<ContractId> = []
      for (;;) {
        const cid = this.renewals.popDue(now)
        if (cid === undefined) break
        if (!acs.has(cid)) continue
        retry.push(cid)
        yield* this.run(
          [this.operator],
          [],
          `auto:renew:${cid}`,
          [Commands.exercise(TransferPreapproval_Renew, cid, { newExpiresAt: toIso(now + this.config.transferPreapproval.preapprovalLifetime) })],
          [],
          [],
          ok(() => this.stats.preapprovalsRenewed++)
        )
      }
      for (const cid of retry) this.renewals.push(now + this.config.pollInterval, cid)
    })
  }

  private recordLiveness(now: Micros, ref: { readonly round: ActiveContract; readonly roundNumber: number }): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const license = [...this.wallet.participant.logic.acs.ofTemplate(ValidatorLicense.templateId, this.operator)].find((c) => payloadOf<ValidatorLicensePayload>(c).validator === this.operator)
      if (license === undefined) return
      const last = payloadOf<ValidatorLicensePayload>(license).faucetState?.lastReceivedFor
      if (last !== undefined && Number(last.number) >= ref.roundNumber) return
      void now
      yield* this.run(
        [this.operator],
        [],
        `auto:liveness:${ref.roundNumber}`,
        [Commands.exercise(ValidatorLicense_RecordValidatorLivenessActivity, license.created.contractId, { openRoundCid: ref.round.created.contractId })],
        [ref.round],
        [],
        ok(() => this.stats.livenessRecorded++)
      )
    })
  }

  private collectRewards(now: Micros, ref: { readonly rules: ActiveContract; readonly round: ActiveContract }): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const issuing = this.wallet.dso.issuingRounds(now)
      if (issuing.length === 0 || this.coupons.size === 0) return
      const issuingByRound = new Map(issuing.map((r) => [Number(r.payload.round.number), r]))
      // Coupons of issuing rounds, per collector (in the order they were registered).
      const byCollector = new Map<PartyId, Array<Coupon>>()
      for (const coupon of this.coupons.values()) {
        if (!issuingByRound.has(coupon.round) || this.wallet.isReserved(coupon.contractId)) continue
        let list = byCollector.get(coupon.collector)
        if (list === undefined) byCollector.set(coupon.collector, (list = []))
        list.push(coupon)
      }
      const acs = this.wallet.participant.logic.acs
      for (const [collector, all] of byCollector) {
        for (let i = 0; i < all.length; i += 100) {
          const batch = all.slice(i, i + 100)
          const rounds = [...new Set(batch.map((c) => c.round))].sort((a, b) => a - b)
          const users = [...new Set(batch.map((c) => c.readAs).filter((p): p is PartyId => p !== undefined))]
          const rights = users.flatMap((user) => {
            const right = [...acs.ofTemplate(ValidatorRight.templateId, user)].find((c) => {
              const p = payloadOf<ValidatorRightPayload>(c)
              return p.user === user && p.validator === collector
            })
            return right === undefined ? [] : [{ _1: user, _2: right.created.contractId }]
          })
          const usable = batch.filter((c) => c.readAs === undefined || rights.some((r) => r._1 === c.readAs))
          if (usable.length === 0) continue
          const inputs: Array<TransferInput> = usable.map((c) => ({
            tag: c.kind === "app" ? "InputAppRewardCoupon" : c.kind === "validator" ? "InputValidatorRewardCoupon" : "InputValidatorLivenessActivityRecord",
            value: c.contractId
          }))
          const issuingContracts = rounds.flatMap((r) => {
            const issuingRound = issuingByRound.get(r)
            return issuingRound === undefined ? [] : [issuingRound]
          })
          const counts = { app: usable.filter((c) => c.kind === "app").length, validator: usable.filter((c) => c.kind === "validator").length, liveness: usable.filter((c) => c.kind === "liveness").length }
          yield* this.run(
            [collector],
            users,
            `auto:collect:${collector}:${rounds.join(",")}:${usable[0]!.contractId}`,
            [
              Commands.exercise(CoinRules_Transfer, ref.rules.created.contractId, {
                transfer: { sender: collector, provider: collector, inputs, outputs: [], beneficiaries: null },
                context: {
                  openMiningRound: ref.round.created.contractId,
                  featuredAppRight: null,
                  issuingMiningRounds: issuingContracts.map((r) => ({ _1: r.payload.round, _2: r.contract.created.contractId })),
                  validatorRights: rights
                },
                expectedDso: this.wallet.network.dso
              })
            ],
            [ref.rules, ref.round, ...issuingContracts.map((r) => r.contract)],
            usable.map((c) => c.contractId),
            (completion) => {
              if (completion._tag !== "Succeeded") return
              this.stats.rewardCollections++
              this.stats.appCouponsCollected += counts.app
              this.stats.validatorCouponsCollected += counts.validator
              this.stats.livenessRecordsCollected += counts.liveness
              this.stats.rewardsMinted += mintedByTransfer(completion.results[0] ?? null)
            }
          )
        }
      }
    })
  }

  private merge(ref: { readonly rules: ActiveContract; readonly round: ActiveContract; readonly roundNumber: number }): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const { maxHoldings, batchSize } = this.config.merge
      const delegated: Array<{ readonly delegationCid: ContractId; readonly owner: PartyId; readonly inputs: ReadonlyArray<ContractId> }> = []
      const acs = this.wallet.participant.logic.acs
      for (const party of [...this.mergeDirty]) {
        this.mergeDirty.delete(party)
        if (acs.countOf(Coin.templateId, party) <= maxHoldings) continue
        const coins = this.wallet.spendable(party, ref.roundNumber)
        if (coins.length <= maxHoldings) continue
        // The smallest coins first: they are the ones holding fees would turn into dust.
        const inputs = coins.slice(-batchSize).map((c) => c.contract.created.contractId)
        const delegation = party === this.operator ? undefined : this.wallet.mergeDelegationOf(party)
        if (delegation !== undefined) {
          delegated.push({ delegationCid: delegation, owner: party, inputs })
          continue
        }
        yield* this.run(
          [party],
          [],
          `auto:merge:${party}:${inputs[0]}`,
          [
            Commands.exercise(CoinRules_Transfer, ref.rules.created.contractId, {
              transfer: { sender: party, provider: party, inputs: inputs.map((value) => ({ tag: "InputCoin" as const, value })), outputs: [], beneficiaries: null },
              context: { openMiningRound: ref.round.created.contractId, featuredAppRight: null },
              expectedDso: this.wallet.network.dso
            })
          ],
          [ref.rules, ref.round],
          inputs,
          ok(() => {
            this.stats.mergeTransactions++
            this.stats.holdingsMerged += inputs.length
          })
        )
      }
      // Users who delegated merging: the operator merges several of them per transaction.
      let batch: Array<(typeof delegated)[number]> = []
      let size = 0
      const flush = () =>
        Effect.gen(this, function* () {
          if (batch.length === 0) return
          const merges = batch
          batch = []
          size = 0
          const inputs = merges.flatMap((m) => m.inputs)
          yield* this.run(
            [this.operator],
            merges.map((m) => m.owner),
            `auto:batch-merge:${inputs[0]}`,
            [
              Commands.createAndExercise(BatchMergeUtility_MergeHoldings, { operator: this.operator }, {
                merges: merges.map((m) => ({ delegationCid: m.delegationCid, inputs: m.inputs.map((value) => ({ tag: "InputCoin" as const, value })) })),
                context: this.context(ref)
              })
            ],
            [ref.rules, ref.round],
            inputs,
            ok(() => {
              this.stats.mergeTransactions++
              this.stats.holdingsMerged += inputs.length
            })
          )
        })
      for (const merge of delegated) {
        if (size + merge.inputs.length > batchSize) yield* flush()
        batch.push(merge)
        size += merge.inputs.length
      }
      yield* flush()
    })
  }

  private topUp(now: Micros, ref: { readonly rules: ActiveContract; readonly round: ActiveContract; readonly roundNumber: number; readonly isDevNet: boolean }): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const { targetThroughput, minTopupInterval, tapOnDevNet } = this.config.buyExtraTraffic
      const rules = this.wallet.dso.coinRules()!.payload
      const config = configAt(rules, now)
      const min = Number(config.decentralizedSynchronizer.fees.minTopupAmount)
      const bytes = Math.max(min, Math.ceil((targetThroughput * minTopupInterval) / 1_000_000))
      const member = this.wallet.participant.logic.uid
      const price = amountOf(this.wallet.dso.latestOpenRound(now)!.payload.coinPrice)
      for (const s of this.wallet.network.synchronizers) {
        const synchronizerId = s.info.synchronizerId
        const last = this.wallet.state.lastTopup.get(synchronizerId)
        if (last !== undefined && now - last < minTopupInterval) continue
        const traffic = s.sequencer.logic.trafficOf(member, now)
        if (traffic.extraTrafficLimit - traffic.extraTrafficConsumed >= bytes) continue
        const cost = divAmount(trafficCostUsd(config, bytes), price)
        const selected = this.wallet.selectCoins(this.operator, cost, ref.roundNumber)
        if (Either.isLeft(selected)) {
          if (ref.isDevNet && tapOnDevNet) {
            yield* this.run(
              [this.operator],
              [],
              `auto:topup-tap:${synchronizerId}:${now}`,
              [Commands.exercise(CoinRules_DevNet_Tap, ref.rules.created.contractId, { receiver: this.operator, amount: formatAmount(cost * 2n), openRound: ref.round.created.contractId })],
              [ref.rules, ref.round],
              [],
              ok(() => this.stats.taps++)
            )
          }
          continue
        }
        this.wallet.apply({ _tag: "TopupRecorded", synchronizerId, at: now })
        yield* this.run(
          [this.operator],
          [],
          `auto:topup:${synchronizerId}:${now}`,
          [
            Commands.exercise(CoinRules_BuyMemberTraffic, ref.rules.created.contractId, {
              inputs: selected.right.map((value) => ({ tag: "InputCoin" as const, value })),
              context: { openMiningRound: ref.round.created.contractId, featuredAppRight: null },
              provider: this.operator,
              memberId: member,
              synchronizerId,
              migrationId: String(s.info.migrationId),
              trafficAmount: String(bytes)
            })
          ],
          [ref.rules, ref.round],
          selected.right,
          ok(() => this.noteTraffic(bytes, cost))
        )
      }
    })
  }

  private sweep(now: Micros, ref: { readonly rules: ActiveContract; readonly round: ActiveContract; readonly roundNumber: number }): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const price = amountOf(this.wallet.dso.latestOpenRound(now)!.payload.coinPrice)
      const usd = (value: number): Amount => amountOf(value.toFixed(10))
      for (const entry of this.config.sweep) {
        if (!this.hosts(entry.sender)) continue
        const balance = this.wallet.balanceOf(entry.sender, now).unlocked
        const worth = (balance * price) / 10_000_000_000n
        if (worth <= usd(entry.maxBalanceUSD)) continue
        const amount = balance - divAmount(usd(entry.minBalanceUSD), price)
        if (amount <= 0n) continue
        // One sweep at a time: wait while an earlier sweep offer is open.
        const acs = this.wallet.participant.logic.acs
        const pending = [...acs.ofTemplate(TransferOffer.templateId, entry.sender), ...acs.ofTemplate(AcceptedTransferOffer.templateId, entry.sender)].some((c) =>
          (c.created.createArguments as { trackingId?: string }).trackingId?.startsWith(`sweep:${entry.sender}:`)
        )
        if (pending) continue
        const preapproval = entry.useTransferPreapproval ? this.wallet.dso.preapprovalOf(entry.receiver, now) : undefined
        const selected = this.wallet.selectCoins(entry.sender, amount, ref.roundNumber)
        if (Either.isLeft(selected)) continue
        if (preapproval !== undefined) {
          const featured = this.wallet.dso.featuredAppRightOf(preapproval.payload.provider)
          yield* this.run(
            [entry.sender],
            [],
            `auto:sweep:${entry.sender}:${now}`,
            [
              Commands.exercise(TransferPreapproval_Send, preapproval.contract.created.contractId, {
                sender: entry.sender,
                coinRules: ref.rules.created.contractId,
                context: { openMiningRound: ref.round.created.contractId, featuredAppRight: featured?.contract.created.contractId ?? null },
                inputs: selected.right.map((value) => ({ tag: "InputCoin" as const, value })),
                amount: formatAmount(amount),
                description: "sweep"
              })
            ],
            [ref.rules, ref.round, preapproval.contract, ...(featured === undefined ? [] : [featured.contract])],
            selected.right,
            ok(() => this.stats.sweeps++)
          )
          continue
        }
        const user = this.wallet.state.userOfParty.get(entry.sender)
        if (user === undefined) continue
        const created = yield* Effect.either(
          this.wallet.createTransferOffer(user, {
            receiver_party_id: entry.receiver,
            amount: formatAmount(amount),
            description: "sweep",
            expires_at: now + microsOf.days(1),
            tracking_id: `sweep:${entry.sender}:${now}`
          })
        )
        if (Either.isRight(created)) this.stats.sweeps++
      }
    })
  }

  /** Outstanding work, for tests and diagnostics. */
  pending(): { readonly accept: number; readonly complete: number; readonly traffic: number; readonly expiring: number; readonly coupons: number } {
    return { accept: this.acceptQueue.size, complete: this.completeQueue.size, traffic: this.trafficQueue.size, expiring: this.expiry.size, coupons: this.coupons.size }
  }
}

const ok =
  (f: () => void): StatsUpdate =>
  (completion) => {
    if (completion._tag === "Succeeded") f()
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

