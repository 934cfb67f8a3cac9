/**
 * The workload: an actor that runs the scenario's economy. At the start it starts the DSO
 * automation of every super validator and a wallet per validator (with its automations when the
 * scenario has an `automation` section), onboards the parties through the wallets, taps them coin
 * and gives them preapprovals. Then, driven by its own timers (Poisson arrivals drawn from the
 * seeded PRNG), it submits every kind of transfer (one-step through preapprovals, legacy offers,
 * token-standard instructions), reassignments, onboardings, buy-traffic requests and votes, and
 * later decides offers and instructions as their receivers (accept, reject) or senders (withdraw);
 * what nobody decides expires. Coins are chosen by the wallets (largest first, at most 100 inputs,
 * never one already used by a command in flight).
 */
import { Clock, Effect, Either } from "effect"
import {
  amountOf,
  formatAmount,
  micros,
  partyId as makePartyId,
  type ActiveContract,
  type ContractId,
  type Micros,
  type PartyId
} from "@sandnet/core"
import {
  Coin,
  Commands,
  DsoRules_CastVote,
  DsoRules_RequestVote,
  DsoView,
  FeaturedAppRight,
  TransferOffer,
  VoteRequest,
  decodeWalletConfig,
  makeWallet,
  startDsoAutomation,
  totalDsoStats,
  trackingKey,
  type Actor,
  type CoinNetwork,
  type Completion,
  type DsoAutomation,
  type FeaturedAppRightPayload,
  type Message,
  type NetworkService,
  type Network,
  type ValidatorNode,
  type VoteRequestPayload,
  type WalletAutomation,
  type WalletConfigInput,
  type WalletError,
  type WalletNode
} from "@sandnet/engine"
import type { SeededRandom } from "./random.ts"
import type { Scenario } from "./scenario.ts"

export interface SimParty {
  readonly party: PartyId
  readonly validator: ValidatorNode
  /** The wallet user the party belongs to. */
  readonly user: string
  readonly wallet: WalletNode
}

/** What the network's automations did, summed over validators and super validators. */
export interface EconomyStats {
  roundsAdvanced: number
  roundsIssued: number
  roundsClosed: number
  rewardCollections: number
  appCouponsCollected: number
  validatorCouponsCollected: number
  livenessRecordsCollected: number
  /** Numeric-10 decimal. */
  rewardsMinted: string
  couponsExpired: number
  offersCreated: number
  offersAccepted: number
  offersCompleted: number
  offersFailed: number
  offersExpired: number
  acceptedOffersAborted: number
  tokenTransfersCreated: number
  tokenTransfersCompleted: number
  tokenTransfersClosed: number
  instructionsExpired: number
  oneStepTransfers: number
  featuredTransfers: number
  mergeTransactions: number
  holdingsMerged: number
  dustExpired: number
  dustBurned: string
  trafficPurchases: number
  trafficBytesBought: number
  trafficCoinBurned: string
  buyTrafficRequestsCompleted: number
  buyTrafficRequestsRejected: number
  buyTrafficRequestsExpired: number
  preapprovalsRenewed: number
  sweeps: number
  autoAccepted: number
  livenessRecorded: number
  votesClosed: number
  automationCommandsFailed: number
}

export interface WorkloadStats {
  partiesOnboarded: number
  tapsSubmitted: number
  tapsSucceeded: number
  preapprovalsCreated: number
  transfersSubmitted: number
  transfersSucceeded: number
  transfersFailed: number
  transfersSkipped: number
  reassignmentsSubmitted: number
  reassignmentsSucceeded: number
  reassignmentsFailed: number
  interpretationFailures: number
  offersSubmitted: number
  offersAcceptedByReceiver: number
  offersRejected: number
  offersWithdrawn: number
  tokenTransfersSubmitted: number
  tokenTransfersAccepted: number
  tokenTransfersRejected: number
  tokenTransfersWithdrawn: number
  buyTrafficRequested: number
  votesRequested: number
  votesCast: number
  /** Only with an economy (set when the run ends). */
  economy: EconomyStats | undefined
}

type TickKind = "transfer" | "reassignment" | "offer" | "tokenTransfer" | "onboard" | "traffic" | "vote"

interface WorkloadTick extends Message {
  readonly _tag: "WorkloadTick"
  readonly kind: TickKind
}

interface WorkloadDecide extends Message {
  readonly _tag: "WorkloadDecide"
  readonly kind: "offer" | "tokenTransfer"
  readonly sender: number
  readonly receiver: number
  readonly trackingId: string
}

interface WorkloadVote extends Message {
  readonly _tag: "WorkloadVote"
  readonly svIndex: number
  readonly reference: string
}

export const WORKLOAD_ADDRESS = "sim::workload"

const payloadOf = <P>(c: ActiveContract): P => c.created.createArguments as unknown as P

export class Workload {
  readonly address = WORKLOAD_ADDRESS
  readonly parties: Array<SimParty> = []
  private readonly counters: Omit<WorkloadStats, "economy"> = {
    partiesOnboarded: 0,
    tapsSubmitted: 0,
    tapsSucceeded: 0,
    preapprovalsCreated: 0,
    transfersSubmitted: 0,
    transfersSucceeded: 0,
    transfersFailed: 0,
    transfersSkipped: 0,
    reassignmentsSubmitted: 0,
    reassignmentsSucceeded: 0,
    reassignmentsFailed: 0,
    interpretationFailures: 0,
    offersSubmitted: 0,
    offersAcceptedByReceiver: 0,
    offersRejected: 0,
    offersWithdrawn: 0,
    tokenTransfersSubmitted: 0,
    tokenTransfersAccepted: 0,
    tokenTransfersRejected: 0,
    tokenTransfersWithdrawn: 0,
    buyTrafficRequested: 0,
    votesRequested: 0,
    votesCast: 0
  }
  readonly wallets: Array<WalletNode> = []
  readonly automations: Array<WalletAutomation> = []
  dsoAutomations: ReadonlyArray<DsoAutomation> = []
  private counter = 0
  private stopAt: Micros = 0

  constructor(
    private readonly network: CoinNetwork,
    private readonly net: NetworkService,
    private readonly scenario: Scenario,
    private readonly random: SeededRandom
  ) {
    for (const v of network.validators) {
      v.participant.logic.addListener({ onCompletion: (completion) => (this.onCompletion(completion), []) })
    }
  }

  /** The counters, with the economy's figures summed from the wallets and DSO automations. */
  get stats(): WorkloadStats {
    return { ...this.counters, economy: this.wallets.length === 0 ? undefined : this.economy() }
  }

  actor(): Actor {
    return { address: this.address, receive: (message) => this.receive(message) }
  }

  private get workload() {
    return this.scenario.workload
  }

  private now(): Effect.Effect<Micros> {
    return Effect.map(Clock.currentTimeNanos, micros.fromNanos)
  }

  /** The party a validator would allocate for `party-<n>` (so configurations can name it up front). */
  private partyIdOf(n: number): PartyId {
    const validators = this.network.validators
    const v = validators[(n - 1) % validators.length]!
    return makePartyId(`party-${n}`, v.participant.logic.config.namespace)
  }

  private walletConfig(): WalletConfigInput {
    const a = this.workload.automation
    const parties = this.scenario.topology.parties
    if (a === undefined) return {}
    const autoAccepting = Math.round(parties * a.autoAcceptShare)
    const sweepers = Math.min(a.sweepers, Math.max(0, parties - 1))
    const duration = (us: number) => `${us}us`
    return {
      pollInterval: duration(a.pollInterval),
      buyExtraTraffic: { targetThroughput: a.targetThroughput, minTopupInterval: duration(a.minTopupInterval) },
      merge: { maxHoldings: a.mergeMaxHoldings },
      transferPreapproval: { preapprovalLifetime: duration(a.preapprovalLifetime), renewalDuration: duration(a.preapprovalRenewal) },
      // The last parties accept offers from anyone.
      autoAcceptTransfers: Array.from({ length: autoAccepting }, (_, i) => ({ receiver: this.partyIdOf(parties - i), fromParties: ["*"] })),
      sweep: Array.from({ length: sweepers }, (_, i) => ({
        sender: this.partyIdOf(i + 1),
        receiver: this.partyIdOf(i + 2),
        maxBalanceUSD: a.sweepMaxBalanceUSD,
        minBalanceUSD: a.sweepMinBalanceUSD
      }))
    }
  }

  /** Starts the economy, onboards the scenario's parties, taps them coin and creates their preapprovals; schedules the arrivals. */
  start(stopAt: Micros): Effect.Effect<void, never, Network> {
    return Effect.gen(this, function* () {
      this.stopAt = stopAt
      const now = yield* this.now()
      this.dsoAutomations = yield* startDsoAutomation(this.network)
      // After the workload stops, the automations stop submitting too, so that in-flight work settles.
      for (const a of this.dsoAutomations) a.stopAt = stopAt
      const validators = this.network.validators
      if (validators.length === 0) return
      const config = decodeWalletConfig(this.walletConfig())
      if (Either.isLeft(config)) return yield* Effect.dieMessage(`workload wallet configuration: ${config.left.message}`)
      for (const v of validators) {
        const { node, automation } = yield* makeWallet(this.network, v, { config: config.right, automation: this.workload.automation !== undefined })
        this.wallets.push(node)
        if (automation !== undefined) {
          automation.stopAt = stopAt
          this.automations.push(automation)
        }
      }
      for (let i = 0; i < Math.min(this.workload.featuredProviders ?? 0, this.wallets.length); i++) {
        const wallet = this.wallets[i]!
        yield* Effect.either(wallet.selfGrantFeaturedAppRight(wallet.config.validatorWalletUser))
      }
      for (let i = 0; i < this.scenario.topology.parties; i++) yield* this.onboard()
      const warmUp = now + micros.minutes(1)
      const w = this.workload
      const schedule: Array<[TickKind, number | undefined]> = [
        ["transfer", w.transfers?.perMinute],
        ["offer", w.offers?.perMinute],
        ["tokenTransfer", w.tokenTransfers?.perMinute],
        ["onboard", w.onboarding === undefined ? undefined : w.onboarding.perHour / 60],
        ["traffic", w.traffic === undefined ? undefined : w.traffic.perHour / 60],
        ["vote", w.votes === undefined ? undefined : w.votes.perHour / 60],
        ["reassignment", this.network.synchronizers.length > 1 && w.reassignments !== undefined ? w.reassignments.perHour / 60 : undefined]
      ]
      for (const [kind, perMinute] of schedule) if ((perMinute ?? 0) > 0) yield* this.scheduleNext(kind, warmUp)
    })
  }

  private perMinute(kind: TickKind): number {
    const w = this.workload
    switch (kind) {
      case "transfer":
        return w.transfers?.perMinute ?? 0
      case "offer":
        return w.offers?.perMinute ?? 0
      case "tokenTransfer":
        return w.tokenTransfers?.perMinute ?? 0
      case "onboard":
        return (w.onboarding?.perHour ?? 0) / 60
      case "traffic":
        return (w.traffic?.perHour ?? 0) / 60
      case "vote":
        return (w.votes?.perHour ?? 0) / 60
      case "reassignment":
        return (w.reassignments?.perHour ?? 0) / 60
    }
  }

  private scheduleNext(kind: TickKind, from: Micros): Effect.Effect<void> {
    const at = from + Math.max(1, Math.round(this.random.unsafeExponential(60 / this.perMinute(kind)) * 1_000_000))
    if (at >= this.stopAt) return Effect.void
    const tick: WorkloadTick = { _tag: "WorkloadTick", kind }
    return this.net.schedule(this.address, tick, at)
  }

  receive(message: Message): Effect.Effect<void> {
    return Effect.flatMap(this.now(), (now) => {
      if (message._tag === "WorkloadDecide") return this.decide(message as WorkloadDecide, now)
      if (message._tag === "WorkloadVote") return this.castVote(message as WorkloadVote, now)
      if (message._tag !== "WorkloadTick") return Effect.void
      const kind = (message as WorkloadTick).kind
      // The next tick is drawn after this one's work (the order of the random draws).
      return Effect.flatMap(this.tick(kind, now), () => this.scheduleNext(kind, now))
    })
  }

  private tick(kind: TickKind, now: Micros): Effect.Effect<void> {
    switch (kind) {
      case "transfer":
        return this.transfer()
      case "offer":
      case "tokenTransfer":
        return this.offer(kind, now)
      case "onboard":
        return this.onboard()
      case "traffic":
        return this.buyTraffic(now)
      case "vote":
        return this.requestVote(now)
      case "reassignment":
        return this.reassignment(now)
    }
  }

  private onCompletion(completion: Completion): void {
    const ok = completion._tag === "Succeeded"
    const id = completion.commandId
    if (id.startsWith("wallet:send:transfer-")) ok ? this.counters.transfersSucceeded++ : this.counters.transfersFailed++
    else if (id.startsWith("reassign-")) ok ? this.counters.reassignmentsSucceeded++ : this.counters.reassignmentsFailed++
    else if (id.startsWith("wallet:tap:tap-") && ok) this.counters.tapsSucceeded++
    else if (id.startsWith("wallet:preapproval:") && ok) this.counters.preapprovalsCreated++
  }

  /** Counts a wallet operation's immediate refusal; returns whether it was submitted. */
  private submitted<A, E>(effect: Effect.Effect<A, E>): Effect.Effect<boolean> {
    return Effect.match(effect, {
      onFailure: () => {
        this.counters.interpretationFailures++
        return false
      },
      onSuccess: () => true
    })
  }

  private onboard(): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const validators = this.network.validators
      if (validators.length === 0) return
      const n = this.parties.length + 1
      const index = (n - 1) % validators.length
      const validator = validators[index]!
      const wallet = this.wallets[index]!
      const user = `party-${n}`
      const onboarded = yield* Effect.either(wallet.onboardUser({ name: user }))
      if (Either.isLeft(onboarded)) return void this.counters.interpretationFailures++
      const party = Either.getOrThrow(wallet.partyOf(user))
      this.parties.push({ party, validator, user, wallet })
      this.counters.partiesOnboarded++
      const tap = this.workload.initialTap
      if (tap > 0) {
        this.counters.tapsSubmitted++
        yield* this.submitted(wallet.tap(user, { amount: formatAmount(amountOf(tap.toFixed(10))), command_id: `tap-${n}` }))
      }
      yield* this.submitted(wallet.createTransferPreapproval(user))
    })
  }

  private pickPair(): readonly [SimParty, SimParty, number, number] | undefined {
    if (this.parties.length < 2) return undefined
    const s = Math.floor(this.random.unsafeNext() * this.parties.length)
    let r = Math.floor(this.random.unsafeNext() * this.parties.length)
    if (r === s) r = (r + 1) % this.parties.length
    return [this.parties[s]!, this.parties[r]!, s, r]
  }

  private amount(config: { readonly minAmount: number; readonly maxAmount: number }): string {
    const min = Math.round(config.minAmount * 100)
    const cents = this.random.unsafeInt(min, Math.max(min, Math.round(config.maxAmount * 100)))
    return formatAmount(BigInt(Math.max(1, cents)) * 100_000_000n)
  }

  /** The most frequent tick: one wallet command and a count (no Effect.gen steps around it). */
  private transfer(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const pair = this.pickPair()
      if (pair === undefined) return Effect.void
      const [sender, receiver] = pair
      const amount = this.amount(this.workload.transfers!)
      return Effect.match(sender.wallet.transferPreapprovalSend(sender.user, { receiver_party_id: receiver.party, amount, deduplication_id: `transfer-${++this.counter}` }), {
        onSuccess: () => void this.counters.transfersSubmitted++,
        onFailure: (error) => {
          if (error._tag === "InsufficientFunds" || error._tag === "PreapprovalNotFound") this.counters.transfersSkipped++
          else this.counters.interpretationFailures++
        }
      })
    })
  }

  private offer(kind: "offer" | "tokenTransfer", now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const config = kind === "offer" ? this.workload.offers! : this.workload.tokenTransfers!
      const pair = this.pickPair()
      if (pair === undefined) return
      const [sender, receiver, s, r] = pair
      const trackingId = `${kind === "offer" ? "offer" : "token"}-${++this.counter}`
      const request = { receiver_party_id: receiver.party, amount: this.amount(config), description: `workload ${trackingId}`, expires_at: now + config.expiresIn, tracking_id: trackingId }
      const result = yield* Effect.either<unknown, WalletError, never>(kind === "offer" ? sender.wallet.createTransferOffer(sender.user, request) : sender.wallet.createTokenStandardTransfer(sender.user, request))
      if (Either.isLeft(result)) {
        if (result.left._tag === "InsufficientFunds") this.counters.transfersSkipped++
        else this.counters.interpretationFailures++
        return
      }
      if (kind === "offer") this.counters.offersSubmitted++
      else this.counters.tokenTransfersSubmitted++
      const decide: WorkloadDecide = { _tag: "WorkloadDecide", kind, sender: s, receiver: r, trackingId }
      yield* this.net.schedule(this.address, decide, now + micros.seconds(5) + Math.floor(this.random.unsafeNext() * config.decideWithin))
    })
  }

  /** The receiver accepts or rejects, or the sender withdraws, or nobody does and it expires. */
  private decide(d: WorkloadDecide, now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      // Once the workload stops nobody decides any more (what is left open expires later), as the
      // automations stop: a decision drawn for the run's last instant would still be in flight at its end.
      if (now >= this.stopAt) return
      const sender = this.parties[d.sender]
      const receiver = this.parties[d.receiver]
      if (sender === undefined || receiver === undefined) return
      const config = d.kind === "offer" ? this.workload.offers! : this.workload.tokenTransfers!
      const draw = this.random.unsafeNext()
      const choice = draw < config.acceptProbability ? "accept" : draw < config.acceptProbability + config.rejectProbability ? "reject" : draw < config.acceptProbability + config.rejectProbability + config.withdrawProbability ? "withdraw" : "none"
      if (choice === "none") return
      if (d.kind === "offer") {
        const record = sender.wallet.state.offers.get(trackingKey(sender.party, "transferOffer", d.trackingId))
        if (record === undefined || record.offer.state !== "created") return
        const cid = record.offerContractId
        // Auto-accepting receivers may have taken it already.
        if (receiver.wallet.participant.logic.acs.get(cid)?.created.templateId !== TransferOffer.templateId) return
        const done =
          choice === "accept"
            ? yield* this.submitted(receiver.wallet.acceptTransferOffer(receiver.user, cid))
            : choice === "reject"
              ? yield* this.submitted(receiver.wallet.rejectTransferOffer(receiver.user, cid))
              : yield* this.submitted(sender.wallet.withdrawTransferOffer(sender.user, cid))
        if (done) choice === "accept" ? this.counters.offersAcceptedByReceiver++ : choice === "reject" ? this.counters.offersRejected++ : this.counters.offersWithdrawn++
        return
      }
      const record = sender.wallet.state.instructions.get(trackingKey(sender.party, "tokenStandardTransfer", d.trackingId))
      if (record === undefined || record.instruction.state !== "pending") return
      const cid = String(record.instruction.context["instructionId"])
      const done =
        choice === "withdraw"
          ? yield* this.submitted(sender.wallet.decideTokenStandardTransfer(sender.user, cid, "withdraw"))
          : yield* this.submitted(receiver.wallet.decideTokenStandardTransfer(receiver.user, cid, choice))
      if (done) choice === "accept" ? this.counters.tokenTransfersAccepted++ : choice === "reject" ? this.counters.tokenTransfersRejected++ : this.counters.tokenTransfersWithdrawn++
    })
  }

  private buyTraffic(now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const p = this.random.unsafePick(this.parties)
      if (p === undefined) return
      const request = {
        receiving_validator_party_id: p.validator.operator,
        domain_id: this.network.synchronizers[0]!.info.synchronizerId,
        traffic_amount: this.workload.traffic!.bytes,
        tracking_id: `traffic-${++this.counter}`,
        expires_at: now + micros.minutes(30)
      }
      if (yield* this.submitted(p.wallet.createBuyTrafficRequest(p.user, request))) this.counters.buyTrafficRequested++
    })
  }

  // ---------------------------------------------------------------- votes

  private requestVote(now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const svs = this.network.superValidators
      const svIndex = Math.floor(this.random.unsafeNext() * svs.length)
      const sv = svs[svIndex]!
      const view = DsoView.of(this.network, svIndex)
      const rules = view.dsoRules()
      if (rules === undefined) return
      // Grant a right to an operator that has none, or revoke one.
      const operators = this.network.validators.map((v) => v.operator)
      const rights = [...sv.participant.logic.acs.ofTemplate(FeaturedAppRight.templateId, this.network.dso)]
      const unfeatured = operators.filter((o) => !rights.some((r) => payloadOf<FeaturedAppRightPayload>(r).provider === o))
      const grant = unfeatured.length > 0 && (rights.length === 0 || this.random.unsafeChance(0.6))
      const reference = `vote-${++this.counter}`
      const action = grant
        ? { tag: "SRARC_GrantFeaturedAppRight" as const, value: { provider: this.random.unsafePick(unfeatured)! } }
        : { tag: "SRARC_RevokeFeaturedAppRight" as const, value: { rightCid: this.random.unsafePick(rights)!.created.contractId } }
      const requested = yield* this.submitted(
        sv.participant.submit({
          actAs: [sv.operator],
          readAs: [this.network.dso],
          commandId: `vote-request-${reference}`,
          commands: [
            Commands.exercise(DsoRules_RequestVote, rules.contract.created.contractId, {
              requester: sv.operator,
              action: { tag: "ARC_DsoRules", value: { dsoAction: action } },
              reason: { url: reference, body: grant ? "feature an app provider" : "unfeature an app provider" },
              voteRequestTimeout: { microseconds: String(micros.hours(1)) },
              targetEffectiveAt: null
            })
          ]
        })
      )
      if (!requested) return
      this.counters.votesRequested++
      for (let i = 0; i < svs.length; i++) {
        if (i === svIndex) continue
        const vote: WorkloadVote = { _tag: "WorkloadVote", svIndex: i, reference }
        yield* this.net.schedule(this.address, vote, now + micros.minutes(1) + Math.floor(this.random.unsafeNext() * micros.minutes(40)))
      }
    })
  }

  private castVote(v: WorkloadVote, now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      // As decisions: no vote is cast once the workload stopped (the request times out).
      if (now >= this.stopAt) return
      const sv = this.network.superValidators[v.svIndex]!
      const accept = this.random.unsafeChance(this.workload.votes!.acceptProbability)
      const rules = DsoView.of(this.network, v.svIndex).dsoRules()
      const request = [...sv.participant.logic.acs.ofTemplate(VoteRequest.templateId, this.network.dso)].find((c) => payloadOf<VoteRequestPayload>(c).reason.url === v.reference)
      if (rules === undefined || request === undefined) return
      const cast = yield* this.submitted(
        sv.participant.submit({
          actAs: [sv.operator],
          readAs: [this.network.dso],
          commandId: `vote-cast-${v.reference}-${sv.name}`,
          commands: [
            Commands.exercise(DsoRules_CastVote, rules.contract.created.contractId, {
              requestCid: request.created.contractId,
              vote: { sv: sv.operator, accept, reason: { url: v.reference, body: accept ? "yes" : "no" } }
            })
          ]
        })
      )
      if (cast) this.counters.votesCast++
    })
  }

  // ---------------------------------------------------------------- reassignments

  private reassignment(now: Micros): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const p = this.random.unsafePick(this.parties)
      if (p === undefined) return
      const syncs = this.network.synchronizers.map((s) => s.info.synchronizerId)
      const home = syncs[0]!
      const acs = p.validator.participant.logic.acs
      // Coins away from home go back first; otherwise one coin travels to another synchronizer.
      let contract: ActiveContract | undefined
      let target = home
      for (const c of acs.ofTemplate(Coin.templateId, p.party)) {
        if (c.synchronizerId !== home && !p.wallet.isReserved(c.created.contractId) && acs.lockedBy(c.created.contractId) === undefined) {
          contract = c
          break
        }
      }
      if (contract === undefined) {
        const coin = p.wallet.spendable(p.party, p.wallet.currentRound(now)).at(-1)
        if (coin === undefined) return
        contract = coin.contract
        target = this.random.unsafePick(syncs.slice(1))!
      }
      const commandId = `reassign-${++this.counter}`
      this.counters.reassignmentsSubmitted++
      const ok = yield* p.validator.participant.reassign({ submitter: p.party, commandId, contractId: contract.created.contractId, targetSynchronizer: target }).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      if (ok) p.wallet.reserveFor(commandId, [contract.created.contractId as ContractId])
      else this.counters.interpretationFailures++
    })
  }

  // ---------------------------------------------------------------- the economy's figures

  private economy(): EconomyStats {
    const dso = totalDsoStats(this.dsoAutomations)
    const sum = <K extends string>(items: ReadonlyArray<Record<K, number>>, key: K): number => items.reduce((n, i) => n + i[key], 0)
    const nodes = this.wallets.map((w) => w.stats)
    const autos = this.automations.map((a) => a.stats)
    const big = (values: ReadonlyArray<bigint>): string => formatAmount(values.reduce((a, b) => a + b, 0n))
    return {
      roundsAdvanced: dso.roundsAdvanced,
      roundsIssued: dso.roundsIssuing,
      roundsClosed: dso.roundsClosed,
      rewardCollections: sum(autos, "rewardCollections"),
      appCouponsCollected: sum(autos, "appCouponsCollected"),
      validatorCouponsCollected: sum(autos, "validatorCouponsCollected"),
      livenessRecordsCollected: sum(autos, "livenessRecordsCollected"),
      rewardsMinted: big(autos.map((a) => a.rewardsMinted)),
      couponsExpired: dso.couponsExpired,
      offersCreated: sum(nodes, "offersCreated"),
      offersAccepted: sum(nodes, "offersAccepted"),
      offersCompleted: sum(nodes, "offersCompleted"),
      offersFailed: sum(nodes, "offersFailed"),
      offersExpired: sum(nodes, "offersExpired"),
      acceptedOffersAborted: sum(autos, "acceptedOffersAborted"),
      tokenTransfersCreated: sum(nodes, "tokenTransfersCreated"),
      tokenTransfersCompleted: sum(nodes, "tokenTransfersCompleted"),
      tokenTransfersClosed: sum(nodes, "tokenTransfersClosed"),
      instructionsExpired: sum(autos, "instructionsExpired"),
      oneStepTransfers: sum(nodes, "oneStepTransfers"),
      featuredTransfers: sum(nodes, "featuredTransfers"),
      mergeTransactions: sum(autos, "mergeTransactions"),
      holdingsMerged: sum(autos, "holdingsMerged"),
      dustExpired: dso.dustExpired,
      dustBurned: formatAmount(dso.dustBurned),
      trafficPurchases: sum(autos, "trafficPurchases"),
      trafficBytesBought: sum(autos, "trafficBytesBought"),
      trafficCoinBurned: big(autos.map((a) => a.trafficCoinBurned)),
      buyTrafficRequestsCompleted: sum(autos, "buyTrafficRequestsCompleted"),
      buyTrafficRequestsRejected: sum(autos, "buyTrafficRequestsRejected"),
      buyTrafficRequestsExpired: sum(autos, "buyTrafficRequestsExpired"),
      preapprovalsRenewed: sum(autos, "preapprovalsRenewed"),
      sweeps: sum(autos, "sweeps"),
      autoAccepted: sum(autos, "offersAutoAccepted"),
      livenessRecorded: sum(autos, "livenessRecorded"),
      votesClosed: dso.votesClosed,
      automationCommandsFailed: sum(autos, "commandsFailed") + dso.commandsFailed
    }
  }
}

