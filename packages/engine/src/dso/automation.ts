/**
 * DSO automation: one actor per super validator, woken on every tick of the network (genesis time
 * plus a multiple of the tick duration, plus a small offset). On each tick one SV is the delegate
 * (tick number modulo the number of SVs, as Splice rotates its DSO delegate) and only the delegate
 * submits, so the SVs never race each other; an SV that is down delays the work by one tick, since
 * every task is derived from the ledger state and the next delegate picks up what is left.
 *
 * What the delegate does, in order:
 *  1. advance the open rounds (the oldest past its targetClosesAt becomes summarizing, a new one is
 *     created that opens one tick later);
 *  2. start issuing every summarizing round, with the totals of the coupons registered against it;
 *  3. close every issuing round past its targetClosesAt;
 *  4. expire the unminted coupons of closed rounds (batches of `batchSize`), then archive them;
 *  5. expire dust holdings (batches of `batchSize`);
 *  6. close vote requests that are decided or past voteBefore;
 *  7. convert featured app activity markers into app reward coupons of the latest open round
 *     (batches of `batchSize`; Splice's FeaturedAppActivityMarkerTrigger).
 *
 * While a long time advance catches up (NetworkPace), the delegate acts on the first tick of each
 * step only, and the round work of that tick (1 to 3, and archiving) is one transaction.
 *
 * Every SV (not only the delegate) also tells the sequencers about traffic purchases: on each
 * committed MemberTraffic it sends the member's new extra-traffic limit (genesis grant plus
 * everything bought); the limit only grows, so repeats are harmless.
 *
 * Per-transaction cost: the commit listener looks only at holdings and traffic purchases (a map
 * lookup per node); dust candidates wait in a heap keyed by the round in which they become dust.
 */
import { Clock, Effect } from "effect"
import {
  amountOf,
  formatAmount,
  invariant,
  micros as microsOf,
  parseIso,
  type ActiveContract,
  type CommittedUpdate,
  type ContractId,
  type Micros
} from "@sandnet/core"
import {
  AppRewardCoupon,
  ClosedMiningRound,
  Coin,
  Coin_Expire,
  CoinRules_AdvanceOpenMiningRounds,
  CoinRules_ClaimExpiredRewards,
  CoinRules_ConvertFeaturedAppActivityMarkers,
  CoinRules_MiningRound_Archive,
  CoinRules_MiningRound_Close,
  CoinRules_MiningRound_StartIssuing,
  DsoRules_CloseVoteRequest,
  FeaturedAppActivityMarker,
  IssuingMiningRound,
  LockedCoin,
  LockedCoin_ExpireCoin,
  MemberTraffic,
  SummarizingMiningRound,
  ValidatorLivenessActivityRecord,
  ValidatorRewardCoupon,
  VoteRequest,
  dustFromRound,
  voteOutcome,
  type AppRewardCouponPayload,
  type ClosedMiningRoundPayload,
  type CoinPayload,
  type ExpiringAmount,
  type IssuingMiningRoundPayload,
  type LockedCoinPayload,
  type MemberTrafficPayload,
  type SummarizingMiningRoundPayload,
  type ValidatorLivenessActivityRecordPayload,
  type ValidatorRewardCouponPayload,
  type VoteRequestPayload
} from "../coin/index.ts"
import { AutomationGuard, type AutomationStepStatus } from "../automation-guard.ts"
import type { CoinNetwork, SuperValidatorNode } from "../coin-network.ts"
import { Commands, type Command } from "../ledger/interpreter.ts"
import { Network, Outgoing, type Actor, type Message } from "../network/network.ts"
import type { Completion } from "../participant/index.ts"
import type { SubmissionRequest } from "../protocol/messages.ts"
import { MinHeap } from "./heap.ts"
import { DsoView } from "./view.ts"

export interface DsoAutomationConfig {
  /** How long after each tick boundary the automation wakes (so that round times have passed). */
  readonly tickOffset: Micros
  /** Most coupons or dust holdings archived by one transaction. */
  readonly batchSize: number
  /** USD per coin of every new round (default: the network's initial price). */
  readonly coinPrice?: string | undefined
  /** Whether dust holdings are expired. */
  readonly expireDust: boolean
}

export const defaultDsoAutomationConfig: DsoAutomationConfig = {
  tickOffset: microsOf.seconds(1),
  batchSize: 100,
  expireDust: true
}

export interface DsoAutomationStats {
  roundsAdvanced: number
  roundsIssuing: number
  roundsClosed: number
  roundsArchived: number
  couponsExpired: number
  dustExpired: number
  /** Coin burned by dust expiry, in Numeric-10 units. */
  dustBurned: bigint
  votesClosed: number
  /** Featured app activity markers turned into app reward coupons. */
  markersConverted: number
  trafficLimitsSent: number
  commandsSubmitted: number
  commandsFailed: number
}

interface DsoTick extends Message {
  readonly _tag: "DsoTick"
  readonly tick: number
}

/**
 * A locked holding the DSO sees: its amount and when its lock expires. An unlocked one is held as
 * its payload's amount itself (every super validator's automation notes every coin: with an object
 * per holding and per dust candidate they were 108 MiB of the large scenario's live heap, 35 MiB
 * after).
 */
class LockedHolding {
  constructor(
    readonly amount: ExpiringAmount,
    /** Undefined when the lock's expiry does not parse: then it counts as expired. */
    readonly lockExpiresAt: Micros | undefined
  ) {}
}

type Holding = ExpiringAmount | LockedHolding

const amountOfHolding = (holding: Holding): ExpiringAmount => (holding instanceof LockedHolding ? holding.amount : holding)

interface CommandPlan {
  readonly commandId: string
  readonly commands: ReadonlyArray<Command>
  readonly kind: keyof Pick<DsoAutomationStats, "roundsAdvanced" | "roundsIssuing" | "roundsClosed" | "roundsArchived" | "couponsExpired" | "dustExpired" | "votesClosed" | "markersConverted">
  readonly count: number
  readonly burned?: bigint
}

/** What one transaction of the delegate carries: one plan, or while catching up the tick's round plans. */
interface Submission {
  readonly commandId: string
  readonly commands: ReadonlyArray<Command>
  readonly plans: ReadonlyArray<CommandPlan>
}

const ROUND_KINDS: ReadonlySet<CommandPlan["kind"]> = new Set(["roundsAdvanced", "roundsIssuing", "roundsClosed", "roundsArchived"])

/** The reward coupons and liveness records registered against one round. */
interface CouponsOfRound {
  readonly validator: Array<ActiveContract>
  readonly app: Array<ActiveContract>
  readonly liveness: Array<ActiveContract>
}

const roundNo = (p: { readonly round: { readonly number: string } }): number => Number(p.round.number)

const payloadOf = <P>(c: ActiveContract): P => c.created.createArguments as unknown as P

export class DsoAutomation implements Actor {
  readonly address: string
  /** A failing plan or submission is this automation's alone: logged, counted, backed off. */
  readonly guard: AutomationGuard
  readonly stats: DsoAutomationStats = noDsoStats()
  /** The DSO's contracts as this SV's participant sees them now (a restarted node is a new ParticipantLogic). */
  private get view(): DsoView {
    return new DsoView(this.network.dso, this.sv.participant.logic)
  }
  /** Holdings that may become dust, by the round in which they do (archived ones are skipped when they pop). */
  private dust = new MinHeap<ContractId>()
  /** Holdings the DSO sees active, with their expiring amounts (for dust checks). */
  private readonly holdings = new Map<ContractId, Holding>()
  private readonly purchased = new Map<string, number>()
  /** Plans in flight by command id, for the stats on completion. */
  private readonly inFlight = new Map<string, ReadonlyArray<CommandPlan>>()
  private readonly coinTemplate = Coin.templateId
  private readonly lockedTemplate = LockedCoin.templateId
  private readonly trafficTemplate = MemberTraffic.templateId
  private phase: Micros = 0
  private messageCounter = 0
  /** No submissions after this time (a simulation winding down lets in-flight work settle). */
  stopAt: Micros = Number.MAX_SAFE_INTEGER

  constructor(
    readonly network: CoinNetwork,
    readonly sv: SuperValidatorNode,
    readonly svIndex: number,
    readonly config: DsoAutomationConfig,
    private readonly net: { readonly schedule: (to: string, message: Message, at: Micros) => Effect.Effect<void> }
  ) {
    this.address = `DSO-AUTOMATION::${sv.name}`
    this.guard = new AutomationGuard(this.address)
    // Holdings committed before the automation started (a restart, or a late start).
    for (const template of [this.coinTemplate, this.lockedTemplate]) {
      for (const c of sv.participant.logic.acs.ofTemplate(template, network.dso)) this.noteHolding(c.created.contractId, template, c.created.createArguments)
    }
    // Traffic bought before the automation started (a restart): later purchases add to it.
    for (const c of sv.participant.logic.acs.ofTemplate(this.trafficTemplate, network.dso)) {
      const p = c.created.createArguments as unknown as MemberTrafficPayload
      const key = `${p.memberId}|${p.synchronizerId}`
      this.purchased.set(key, (this.purchased.get(key) ?? 0) + Number(p.totalPurchased))
    }
    sv.participant.logic.addListener({
      onCommitted: (entry, now) => this.onCommitted(entry, now),
      onCompletion: (completion) => (this.onCompletion(completion), [])
    })
  }

  /** Whether this SV acts on the given tick. */
  isDelegate(tick: number): boolean {
    return tick % this.network.superValidators.length === this.svIndex
  }

  // ---------------------------------------------------------------- listener

  private noteHolding(contractId: ContractId, templateId: string, args: unknown): void {
    if (!this.config.expireDust) return
    const holding: Holding =
      templateId === this.lockedTemplate
        ? new LockedHolding((args as LockedCoinPayload).coin.amount, parseIso((args as LockedCoinPayload).lock.expiresAt))
        : (args as CoinPayload).amount
    this.holdings.set(contractId, holding)
    this.dust.push(dustFromRound(amountOfHolding(holding)), contractId)
  }

  private onCommitted(entry: CommittedUpdate, now: Micros): ReadonlyArray<Outgoing> {
    const update = entry.update
    if (update.kind !== "transaction") return []
    let out: Array<Outgoing> | undefined
    for (const node of update.nodes) {
      if (node.kind === "created") {
        if (node.templateId === this.coinTemplate || node.templateId === this.lockedTemplate) this.noteHolding(node.contractId, node.templateId, node.createArguments)
        else if (node.templateId === this.trafficTemplate) (out ??= []).push(...this.onTrafficPurchase(node.createArguments as unknown as MemberTrafficPayload, now))
      } else if (node.consuming && (node.templateId === this.coinTemplate || node.templateId === this.lockedTemplate)) {
        this.holdings.delete(node.contractId)
      }
    }
    return out ?? []
  }

  private onTrafficPurchase(p: MemberTrafficPayload, now: Micros): ReadonlyArray<Outgoing> {
    const key = `${p.memberId}|${p.synchronizerId}`
    const total = (this.purchased.get(key) ?? 0) + Number(p.totalPurchased)
    this.purchased.set(key, total)
    const synchronizer = this.network.topology.synchronizer(p.synchronizerId)
    if (synchronizer === undefined) return []
    const member = this.network.topology.participant(p.memberId)
    const grant = member?.isSuperValidator === true ? this.network.config.initialExtraTraffic.superValidator : this.network.config.initialExtraTraffic.validator
    this.stats.trafficLimitsSent++
    const submission: SubmissionRequest = {
      _tag: "SubmissionRequest",
      sender: this.address,
      messageId: `${this.address}:traffic:${++this.messageCounter}`,
      maxSequencingTime: now + synchronizer.parameters.maxSequencingTimeOffset,
      envelopes: [{ recipients: [synchronizer.sequencer], content: { _tag: "SetExtraTrafficLimit", member: p.memberId, extraTrafficLimit: grant + total }, size: 120, viewIds: [] }]
    }
    return [Outgoing.send(this.address, synchronizer.sequencer, submission)]
  }

  private onCompletion(completion: Completion): void {
    const plans = this.inFlight.get(completion.commandId)
    if (plans === undefined) return
    this.inFlight.delete(completion.commandId)
    if (completion._tag === "Succeeded") {
      for (const plan of plans) {
        this.stats[plan.kind] += plan.count
        if (plan.burned !== undefined) this.stats.dustBurned += plan.burned
      }
    } else this.stats.commandsFailed++
  }

  // ---------------------------------------------------------------- ticks

  /** Starts ticking: the phase is genesis time, read off the open rounds (they open on tick boundaries). */
  start(now: Micros): Effect.Effect<void> {
    const tick = this.network.config.tickDuration
    const rounds = this.view.openRounds()
    const anchor = rounds.length === 0 ? now : (parseIso(rounds[0]!.payload.opensAt) ?? now)
    this.phase = anchor - Math.floor(anchor / tick) * tick
    const next = Math.ceil((now - this.phase - this.config.tickOffset) / tick)
    return this.schedule(Math.max(0, next))
  }

  private tickTime(tick: number): Micros {
    return this.phase + tick * this.network.config.tickDuration + this.config.tickOffset
  }

  /**
   * The tick to wake on next: the next one, or while a time advance catches up, the first one
   * after the step being delivered (the DSO acts once per step: docs/economy.md, "Time advance").
   */
  private nextTick(tick: number): number {
    const until = this.network.pace.catchUpUntil
    if (until === undefined) return tick + 1
    return Math.max(tick + 1, Math.floor((until - this.phase - this.config.tickOffset) / this.network.config.tickDuration) + 1)
  }

  private schedule(tick: number): Effect.Effect<void> {
    const message: DsoTick = { _tag: "DsoTick", tick }
    return this.net.schedule(this.address, message, this.tickTime(tick))
  }

  readonly receive = (message: Message): Effect.Effect<void> => {
    if (message._tag !== "DsoTick") return Effect.void
    const { tick } = message as DsoTick
    return Effect.gen(this, function* () {
      if (this.tickTime(tick) > this.stopAt) return
      yield* this.schedule(this.nextTick(tick))
      if (!this.isDelegate(tick)) return
      const now = microsOf.fromNanos(yield* Clock.currentTimeNanos)
      yield* this.guard.run("plan-and-submit", now, Effect.suspend(() => this.submitAll(this.submissions(this.plan(now, tick), tick))))
    })
  }

  /** Each step's failures and backoff (the /dev page's automation status). */
  status(): ReadonlyArray<AutomationStepStatus> {
    return this.guard.status()
  }

  /** What the delegate submits now; pure with respect to the ledger state it reads. */
  plan(now: Micros, tick: number): ReadonlyArray<CommandPlan> {
    const rules = this.view.coinRules()
    if (rules === undefined) return []
    const rulesCid = rules.contract.created.contractId
    const plans: Array<CommandPlan> = []
    this.planAdvance(now, rulesCid, plans)
    const coupons = this.couponsByRound()
    this.planStartIssuing(coupons, rulesCid, plans)
    this.planCloseIssuing(now, rulesCid, plans)
    this.planExpireRewards(coupons, tick, rulesCid, plans)
    // 5. dust
    const latest = this.view.latestOpenRound(now)
    if (this.config.expireDust && latest !== undefined) plans.push(...this.planDust(now, tick, roundNo(latest.payload), latest.contract.created.contractId))
    this.planCloseVotes(now, plans)
    if (latest !== undefined) this.planConvertMarkers(tick, rulesCid, latest.contract.created.contractId, plans)
    return plans
  }

  /** 1. advance: the oldest open round is past its targetClosesAt and the two after it have opened. */
  private planAdvance(now: Micros, rulesCid: ContractId, plans: Array<CommandPlan>): void {
    const open = this.view.openRounds()
    if (open.length < 3) return
    const [oldest, middle, latest] = [open[0]!, open[1]!, open[2]!]
    const ok =
      roundNo(middle.payload) === roundNo(oldest.payload) + 1 &&
      roundNo(latest.payload) === roundNo(middle.payload) + 1 &&
      (parseIso(oldest.payload.targetClosesAt) ?? Infinity) <= now &&
      (parseIso(latest.payload.opensAt) ?? Infinity) <= now &&
      (parseIso(middle.payload.opensAt) ?? Infinity) + Number(middle.payload.tickDuration.microseconds) <= now
    if (!ok) return
    plans.push({
      commandId: `dso:advance:${roundNo(oldest.payload)}`,
      kind: "roundsAdvanced",
      count: 1,
      commands: [
        Commands.exercise(CoinRules_AdvanceOpenMiningRounds, rulesCid, {
          coinPrice: this.config.coinPrice ?? latest.payload.coinPrice,
          roundToArchiveCid: oldest.contract.created.contractId,
          middleRoundCid: middle.contract.created.contractId,
          latestRoundCid: latest.contract.created.contractId
        })
      ]
    })
  }

  /** Coupons by round, from the SV's ACS (they live a few ticks, so there are few). */
  private couponsByRound(): Map<number, CouponsOfRound> {
    const acs = this.sv.participant.logic.acs
    const dso = this.network.dso
    const coupons = new Map<number, CouponsOfRound>()
    const bucket = (round: number) => {
      let b = coupons.get(round)
      if (b === undefined) coupons.set(round, (b = { validator: [], app: [], liveness: [] }))
      return b
    }
    for (const c of acs.ofTemplate(ValidatorRewardCoupon.templateId, dso)) bucket(roundNo(payloadOf<ValidatorRewardCouponPayload>(c))).validator.push(c)
    for (const c of acs.ofTemplate(AppRewardCoupon.templateId, dso)) bucket(roundNo(payloadOf<AppRewardCouponPayload>(c))).app.push(c)
    for (const c of acs.ofTemplate(ValidatorLivenessActivityRecord.templateId, dso)) bucket(roundNo(payloadOf<ValidatorLivenessActivityRecordPayload>(c))).liveness.push(c)
    return coupons
  }

  /** 2. start issuing every summarizing round, with the totals of the coupons registered against it. */
  private planStartIssuing(coupons: ReadonlyMap<number, CouponsOfRound>, rulesCid: ContractId, plans: Array<CommandPlan>): void {
    for (const c of this.sv.participant.logic.acs.ofTemplate(SummarizingMiningRound.templateId, this.network.dso)) {
      const round = roundNo(payloadOf<SummarizingMiningRoundPayload>(c))
      const b = coupons.get(round)
      let validator = 0n
      let featured = 0n
      let unfeatured = 0n
      for (const v of b?.validator ?? []) validator += amountOf(payloadOf<ValidatorRewardCouponPayload>(v).amount)
      for (const a of b?.app ?? []) {
        const p = payloadOf<AppRewardCouponPayload>(a)
        if (p.featured) featured += amountOf(p.amount)
        else unfeatured += amountOf(p.amount)
      }
      plans.push({
        commandId: `dso:start-issuing:${round}`,
        kind: "roundsIssuing",
        count: 1,
        commands: [
          Commands.exercise(CoinRules_MiningRound_StartIssuing, rulesCid, {
            miningRoundCid: c.created.contractId,
            summary: {
              totalValidatorRewardCoupons: formatAmount(validator),
              totalFeaturedAppRewardCoupons: formatAmount(featured),
              totalUnfeaturedAppRewardCoupons: formatAmount(unfeatured),
              totalSvRewardWeight: "0",
              optTotalValidatorFaucetCoupons: String(b?.liveness.length ?? 0)
            }
          })
        ]
      })
    }
  }

  /** 3. close every issuing round past its targetClosesAt. */
  private planCloseIssuing(now: Micros, rulesCid: ContractId, plans: Array<CommandPlan>): void {
    for (const c of this.sv.participant.logic.acs.ofTemplate(IssuingMiningRound.templateId, this.network.dso)) {
      const p = payloadOf<IssuingMiningRoundPayload>(c)
      if ((parseIso(p.targetClosesAt) ?? Infinity) > now) continue
      plans.push({
        commandId: `dso:close:${roundNo(p)}`,
        kind: "roundsClosed",
        count: 1,
        commands: [Commands.exercise(CoinRules_MiningRound_Close, rulesCid, { issuingRoundCid: c.created.contractId })]
      })
    }
  }

  /** 4. expire the coupons of closed rounds (in batches), then archive the rounds. */
  private planExpireRewards(coupons: ReadonlyMap<number, CouponsOfRound>, tick: number, rulesCid: ContractId, plans: Array<CommandPlan>): void {
    for (const c of this.sv.participant.logic.acs.ofTemplate(ClosedMiningRound.templateId, this.network.dso)) {
      const round = roundNo(payloadOf<ClosedMiningRoundPayload>(c))
      const b = coupons.get(round)
      const all = [...(b?.validator ?? []).map((x) => ["v", x] as const), ...(b?.app ?? []).map((x) => ["a", x] as const), ...(b?.liveness ?? []).map((x) => ["l", x] as const)]
      if (all.length === 0) {
        plans.push({
          commandId: `dso:archive-round:${round}`,
          kind: "roundsArchived",
          count: 1,
          commands: [Commands.exercise(CoinRules_MiningRound_Archive, rulesCid, { closedRoundCid: c.created.contractId })]
        })
        continue
      }
      for (let i = 0; i < all.length; i += this.config.batchSize) {
        const batch = all.slice(i, i + this.config.batchSize)
        const ids = (kind: "v" | "a" | "l") => batch.filter(([k]) => k === kind).map(([, x]) => x.created.contractId)
        plans.push({
          commandId: `dso:expire-rewards:${round}:${tick}:${i}`,
          kind: "couponsExpired",
          count: batch.length,
          commands: [
            Commands.exercise(CoinRules_ClaimExpiredRewards, rulesCid, {
              closedRoundCid: c.created.contractId,
              validatorRewardCouponCids: ids("v"),
              appCouponCids: ids("a"),
              optValidatorLivenessActivityRecordCids: ids("l")
            })
          ]
        })
      }
    }
  }

  /** 6. close vote requests that are decided or past voteBefore. */
  private planCloseVotes(now: Micros, plans: Array<CommandPlan>): void {
    const svs = this.network.superValidators.length
    const dsoRules = this.view.dsoRules()
    if (dsoRules === undefined) return
    for (const c of this.sv.participant.logic.acs.ofTemplate(VoteRequest.templateId, this.network.dso)) {
      const p = payloadOf<VoteRequestPayload>(c)
      if (voteOutcome(p, svs) === "undecided" && (parseIso(p.voteBefore) ?? Infinity) > now) continue
      plans.push({
        commandId: `dso:close-vote:${c.created.contractId}`,
        kind: "votesClosed",
        count: 1,
        commands: [Commands.exercise(DsoRules_CloseVoteRequest, dsoRules.contract.created.contractId, { requestCid: c.created.contractId })]
      })
    }
  }

  /** 7. convert the featured app activity markers into app reward coupons of the latest open round. */
  private planConvertMarkers(tick: number, rulesCid: ContractId, roundCid: ContractId, plans: Array<CommandPlan>): void {
    const markers = [...this.sv.participant.logic.acs.ofTemplate(FeaturedAppActivityMarker.templateId, this.network.dso)].map((c) => c.created.contractId)
    for (let i = 0; i < markers.length; i += this.config.batchSize) {
      const batch = markers.slice(i, i + this.config.batchSize)
      plans.push({
        commandId: `dso:convert-markers:${tick}:${i}`,
        kind: "markersConverted",
        count: batch.length,
        commands: [Commands.exercise(CoinRules_ConvertFeaturedAppActivityMarkers, rulesCid, { markerCids: batch, openMiningRoundCid: roundCid })]
      })
    }
  }

  private planDust(now: Micros, tick: number, round: number, roundCid: ContractId): ReadonlyArray<CommandPlan> {
    const plans: Array<CommandPlan> = []
    let batch: Array<Command> = []
    let burned = 0n
    const later: Array<{ key: number; value: ContractId }> = []
    const acs = this.sv.participant.logic.acs
    const flush = () => {
      if (batch.length === 0) return
      plans.push({ commandId: `dso:dust:${tick}:${plans.length}`, kind: "dustExpired", count: batch.length, commands: batch, burned })
      batch = []
      burned = 0n
    }
    for (;;) {
      const candidate = this.dust.popDue(round)
      if (candidate === undefined) break
      const holding = this.holdings.get(candidate)
      if (holding === undefined) continue
      const amount = amountOfHolding(holding)
      invariant(dustFromRound(amount) <= round, "a dust candidate pops only once it is dust")
      if (acs.lockedBy(candidate) !== undefined) {
        later.push({ key: round + 1, value: candidate })
        continue
      }
      if (holding instanceof LockedHolding) {
        const expiresAt = holding.lockExpiresAt ?? 0
        if (expiresAt > now) {
          later.push({ key: round + 1 + Math.ceil((expiresAt - now) / this.network.config.tickDuration), value: candidate })
          continue
        }
        batch.push(Commands.exercise(LockedCoin_ExpireCoin, candidate, { roundCid }))
      } else batch.push(Commands.exercise(Coin_Expire, candidate, { roundCid }))
      burned += amountOf(amount.initialAmount)
      // Once submitted it is no longer a candidate; if the expiry fails it comes back next tick.
      later.push({ key: round + 1, value: candidate })
      if (batch.length >= this.config.batchSize) flush()
    }
    flush()
    for (const l of later) this.dust.push(l.key, l.value)
    // Archived holdings leave their entries behind (removed lazily); rebuild when they dominate.
    if (this.dust.size > 2 * this.holdings.size + 1024) this.rebuildDustHeap()
    return plans
  }

  private rebuildDustHeap(): void {
    const fresh = new MinHeap<ContractId>()
    for (const [contractId, holding] of this.holdings) fresh.push(dustFromRound(amountOfHolding(holding)), contractId)
    this.dust = fresh
  }

  /**
   * One transaction per plan; while a time advance catches up, the round plans of the tick
   * (advance, start issuing, close, archive: the DSO's alone, on distinct rounds) go in one.
   */
  private submissions(plans: ReadonlyArray<CommandPlan>, tick: number): ReadonlyArray<Submission> {
    const single = (plan: CommandPlan): Submission => ({ commandId: plan.commandId, commands: plan.commands, plans: [plan] })
    if (this.network.pace.catchUpUntil === undefined) return plans.map(single)
    const rounds = plans.filter((p) => ROUND_KINDS.has(p.kind))
    if (rounds.length < 2) return plans.map(single)
    return [{ commandId: `dso:rounds:${tick}`, commands: rounds.flatMap((p) => p.commands), plans: rounds }, ...plans.filter((p) => !ROUND_KINDS.has(p.kind)).map(single)]
  }

  private submitAll(submissions: ReadonlyArray<Submission>): Effect.Effect<void> {
    return Effect.forEach(
      submissions,
      (submission) =>
        this.sv.participant.submit({ actAs: [this.network.dso], commandId: submission.commandId, commands: submission.commands }).pipe(
          Effect.tap(() =>
            Effect.sync(() => {
              this.stats.commandsSubmitted++
              this.inFlight.set(submission.commandId, submission.plans)
            })
          ),
          // A duplicate of work still in flight, or a plan the ledger moved past: try again next tick.
          Effect.catchAll(() => Effect.sync(() => void this.stats.commandsFailed++))
        ),
      { discard: true }
    )
  }
}

/** Starts the DSO automation of every super validator. */
export const startDsoAutomation = (
  network: CoinNetwork,
  config: Partial<DsoAutomationConfig> = {},
  /** Which super validators' automations run here (all of them unless given: one process, one network). */
  runsHere: (sv: SuperValidatorNode) => boolean = () => true
): Effect.Effect<ReadonlyArray<DsoAutomation>, never, Network> =>
  Effect.gen(function* () {
    const net = yield* Network
    const now = microsOf.fromNanos(yield* Clock.currentTimeNanos)
    const automations: Array<DsoAutomation> = []
    for (const [i, sv] of network.superValidators.entries()) {
      if (!runsHere(sv)) continue
      const automation = new DsoAutomation(network, sv, i, { ...defaultDsoAutomationConfig, ...config }, net)
      yield* net.register(automation)
      yield* automation.start(now)
      automations.push(automation)
    }
    return automations
  })

/** Stats of an automation that has done nothing yet. */
const noDsoStats = (): DsoAutomationStats => ({
  roundsAdvanced: 0,
  roundsIssuing: 0,
  roundsClosed: 0,
  roundsArchived: 0,
  couponsExpired: 0,
  dustExpired: 0,
  dustBurned: 0n,
  votesClosed: 0,
  markersConverted: 0,
  trafficLimitsSent: 0,
  commandsSubmitted: 0,
  commandsFailed: 0
})

/** Sums the stats of several SVs' automations. */
export const totalDsoStats = (automations: ReadonlyArray<DsoAutomation>): DsoAutomationStats => {
  const total = noDsoStats()
  for (const a of automations) {
    for (const key of Object.keys(total) as Array<keyof DsoAutomationStats>) {
      if (key === "dustBurned") total.dustBurned += a.stats.dustBurned
      else total[key] += a.stats[key]
    }
  }
  return total
}

