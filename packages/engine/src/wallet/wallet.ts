/**
 * The wallet of one validator node: its users (a fresh party per onboarded user; the operator's
 * party tied to `validatorWalletUser`), their balances, holdings and history (derived from the
 * participant's ledger), and the commands a user can issue.
 *
 * Commands never wait: each returns a `Pending` (the command id it submitted and how to read its
 * outcome) as soon as the participant accepted the submission. The Effect service (service.ts)
 * waits for the outcome; simulations and automations react to completions instead.
 *
 * Exactly-once tracking ids (transfer offers, token-standard transfers, buy-traffic requests): the
 * tracking-id lifecycle (free -> inProgress -> created | free) is journaled before the command is
 * submitted, and the command id is derived from the tracking id, so the participant's command
 * deduplication backs it up: a retry while in progress is refused (429), after creation too (409),
 * after a failure without a contract it proceeds.
 *
 * Lifecycles of what the wallet created (offers, instructions, buy-traffic requests) and of the
 * users' delegations are XState snapshots stored in journaled records, stepped when the ledger
 * shows the corresponding exercise (accept, reject, withdraw, expire, complete, ...).
 */
import { Clock, Effect, Either } from "effect"
import {
  InvalidArgument,
  amountOf,
  formatAmount,
  invariant,
  isPartyId,
  micros as microsOf,
  parseAmount,
  parseIso,
  partyHint,
  partyNamespace,
  toIso,
  type ActiveContract,
  type Amount,
  type CommittedUpdate,
  type ContractId,
  type ExercisedNode,
  type Json,
  type Micros,
  type PartyId,
  type TransactionUpdate
} from "@sandnet/core"
import {
  AcceptedTransferOffer,
  AppRewardCoupon,
  BuyTrafficRequest,
  COIN_INSTRUMENT,
  Coin,
  CoinRules_CreateTransferPreapproval,
  CoinRules_DevNet_FeatureApp,
  CoinRules_DevNet_Tap,
  CoinTransferInstruction,
  LockedCoin,
  MergeDelegation,
  MergeDelegationProposal,
  MintingDelegation,
  MintingDelegationProposal,
  MintingDelegationProposal_Accept,
  MintingDelegationProposal_Reject,
  MintingDelegation_Reject,
  TransferFactory_Transfer,
  TransferInstruction_Accept,
  TransferInstruction_Reject,
  TransferInstruction_Withdraw,
  TransferOffer,
  TransferOffer_Accept,
  TransferOffer_Reject,
  TransferOffer_Withdraw,
  TransferPreapproval_Send,
  ValidatorLivenessActivityRecord,
  ValidatorRewardCoupon,
  ValidatorRight,
  choiceContext,
  currentAmount,
  holdingFeeRate,
  lockReserveRounds,
  emptyMeta,
  type AcceptedTransferOfferPayload,
  type BuyTrafficRequestPayload,
  type CoinPayload,
  type CoinTransferInstructionPayload,
  type LockedCoinPayload,
  type MintingDelegationPayload,
  type TransferOfferPayload
} from "../coin/index.ts"
import type { CoinNetwork, ValidatorNode } from "../coin-network.ts"
import { DsoView } from "../dso/view.ts"
import { Commands, type Command } from "../ledger/interpreter.ts"
import { stateOf, contextOf, persist, restore, start, step, type StepResult } from "../machines/lifecycle.ts"
import type { AnyStateMachine, SnapshotFrom } from "xstate"
import { buyTrafficRequestMachine, buyTrafficRequestStatus } from "../machines/buy-traffic-request.ts"
import { mergeDelegationMachine } from "../machines/merge-delegation.ts"
import { mintingDelegationMachine } from "../machines/minting-delegation.ts"
import { submissionDecision, trackingIdMachine } from "../machines/tracking-id.ts"
import { transferInstructionMachine } from "../machines/transfer-instruction.ts"
import { transferOfferMachine } from "../machines/transfer-offer.ts"
import type { Completion, ParticipantNode } from "../participant/index.ts"
import { renderContract, type ContractJson } from "../node/scan-api.ts"
import type * as Api from "./api.ts"
import type { WalletConfig } from "./config.ts"
import {
  DelegationNotFound,
  DevNetOnly,
  DsoNotReady,
  InsufficientFunds,
  OfferExpired,
  OfferNotFound,
  PartyNotHostedHere,
  PreapprovalAlreadyExists,
  PreapprovalNotFound,
  TokenTransferNotFound,
  TrackingIdAlreadyUsed,
  TrackingIdInProgress,
  TrackingIdNotFound,
  UserAlreadyExists,
  WalletCommandFailed,
  WalletNotFound,
  type WalletError
} from "./errors.ts"
import {
  WalletState,
  applyWalletEvent,
  trackingKey,
  type OfferFailureKind,
  type OfferRecord,
  type PersistedSnapshot,
  type TrackedKind,
  type TrackingRecord,
  type WalletEvent
} from "./journal.ts"

/** A submitted command and how to turn its completion into the operation's reply. */
export interface Pending<A> {
  readonly commandId: string
  readonly actAs: ReadonlyArray<PartyId>
  readonly finish: (completion: Completion) => Either.Either<A, WalletError>
}

/** A reply that needed no command. */
export type Outcome<A> = { readonly _tag: "Done"; readonly value: A } | { readonly _tag: "Submitted"; readonly pending: Pending<A> }

const done = <A>(value: A): Outcome<A> => ({ _tag: "Done", value })
const submitted = <A>(pending: Pending<A>): Outcome<A> => ({ _tag: "Submitted", pending })

export interface WalletStats {
  usersOnboarded: number
  offersCreated: number
  offersAccepted: number
  offersCompleted: number
  offersFailed: number
  offersExpired: number
  tokenTransfersCreated: number
  tokenTransfersCompleted: number
  tokenTransfersClosed: number
  oneStepTransfers: number
  featuredTransfers: number
  buyTrafficRequests: number
  commandsFailed: number
}

const ZERO_DECIMAL = "0.0000000000"

const payloadOf = <P>(c: ActiveContract): P => c.created.createArguments as unknown as P

/**
 * Persisted snapshots remember the live snapshot they were made from, so that stepping a lifecycle
 * the wallet itself persisted does not decode it again (restoring validates the whole context).
 */
const live = new WeakMap<PersistedSnapshot, unknown>()

const persistSnapshot = <M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>): PersistedSnapshot => {
  const persisted = persist(machine, snapshot) as unknown as PersistedSnapshot
  live.set(persisted, snapshot)
  return persisted
}

const restoreSnapshot = <M extends AnyStateMachine>(machine: M, persisted: PersistedSnapshot): SnapshotFrom<M> => {
  const cached = live.get(persisted)
  if (cached !== undefined) return cached as SnapshotFrom<M>
  const snapshot = restore(machine, persisted)
  live.set(persisted, snapshot)
  return snapshot
}

export class WalletNode {
  readonly state = new WalletState()
  readonly dso: DsoView
  readonly participant: ParticipantNode
  readonly operator: PartyId
  readonly stats: WalletStats = {
    usersOnboarded: 0,
    offersCreated: 0,
    offersAccepted: 0,
    offersCompleted: 0,
    offersFailed: 0,
    offersExpired: 0,
    tokenTransfersCreated: 0,
    tokenTransfersCompleted: 0,
    tokenTransfersClosed: 0,
    oneStepTransfers: 0,
    featuredTransfers: 0,
    buyTrafficRequests: 0,
    commandsFailed: 0
  }
  /** Where journal events go (the store); replay does not call it. */
  journalSink: ((event: WalletEvent) => void) | undefined = undefined
  /** Coins used by commands in flight (released on completion), so two commands never pick the same coin. */
  private readonly reserved = new Set<ContractId>()
  private readonly reservations = new Map<string, ReadonlyArray<ContractId>>()
  /** Offsets of the committed transactions each local party witnessed, oldest first. */
  private readonly historyOffsets = new Map<PartyId, Array<number>>()
  /** One-step transfers in flight that are featured (counted when they succeed). */
  private readonly featuredCommands = new Set<string>()
  private readonly completionHooks: Array<(completion: Completion, now: Micros) => void> = []
  private counter = 0

  constructor(
    readonly network: CoinNetwork,
    readonly validator: ValidatorNode,
    readonly config: WalletConfig,
    journal: ReadonlyArray<WalletEvent> = [],
    svIndex = 0
  ) {
    this.participant = validator.participant
    this.operator = validator.operator
    this.dso = DsoView.of(network, svIndex)
    for (const event of journal) this.apply(event, true)
    if (!this.state.users.has(config.validatorWalletUser)) {
      this.apply({ _tag: "UserOnboarded", user: config.validatorWalletUser, party: this.operator, at: 0 })
    }
    // History is derived from the ledger: rebuild it from what the node already committed.
    for (const entry of this.participant.logic.log) this.indexHistory(entry)
    this.participant.logic.addListener({
      onCommitted: (entry) => {
        this.indexHistory(entry)
        this.observe(entry)
        return []
      },
      onCompletion: (completion, now) => {
        this.onCompletion(completion, now)
        return []
      }
    })
    this.reconcile()
  }

  // ---------------------------------------------------------------- journal

  apply(event: WalletEvent, replaying = false): void {
    applyWalletEvent(this.state, event)
    if (!replaying) this.journalSink?.(event)
  }

  /** Tracking ids left in progress by a restart: settle them from the participant's completions. */
  private reconcile(): void {
    for (const record of [...this.state.tracking.values()]) {
      if (record.tracking.state !== "inProgress" || this.participant.logic.isInFlight(record.commandId, [record.party])) continue
      const completion = this.participant.logic.completionOf(record.commandId, [record.party])
      if (completion !== undefined) this.onTrackedCompletion(record.commandId, completion)
    }
  }

  onCompletionHook(hook: (completion: Completion, now: Micros) => void): void {
    this.completionHooks.push(hook)
  }

  // ---------------------------------------------------------------- users

  partyOf(user: string): Either.Either<PartyId, WalletNotFound> {
    const entry = this.state.users.get(user)
    return entry === undefined ? Either.left(new WalletNotFound({ user })) : Either.right(entry.party)
  }

  /** Parties of the wallet's users, in onboarding order. */
  userParties(): ReadonlyArray<PartyId> {
    return [...this.state.users.values()].map((u) => u.party)
  }

  isUserParty(party: PartyId): boolean {
    return this.state.userOfParty.has(party)
  }

  /**
   * Onboards a user: a fresh party (hint = the user name) unless one is named, then one
   * transaction creating the user's ValidatorRight and MergeDelegationProposal. Onboarding a user
   * again answers its party.
   */
  onboardUser(request: Api.OnboardUserRequest): Effect.Effect<Outcome<Api.OnboardUserResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const existing = this.state.users.get(request.name)
      if (existing !== undefined) {
        if (request.party_id !== undefined && request.party_id !== existing.party) return yield* new UserAlreadyExists({ user: request.name, party: existing.party })
        return done({ party_id: existing.party })
      }
      const party = yield* this.partyForUser(request)
      const now = yield* nowMicros
      this.apply({ _tag: "UserOnboarded", user: request.name, party, at: now })
      this.stats.usersOnboarded++
      // A party that has its wallet contracts already (a second user of the party) needs no command.
      const hasRight = [...this.participant.logic.acs.ofTemplate(ValidatorRight.templateId, party)].some((c) => {
        const p = payloadOf<{ user: string; validator: string }>(c)
        return p.user === party && p.validator === this.operator
      })
      if (hasRight) return done({ party_id: party })
      // The same party onboarded again after an offboarding: a fresh command id (the first one is deduplicated).
      const first = `wallet:onboard:${party}`
      const logic = this.participant.logic
      const used = logic.isInFlight(first, [party, this.operator]) || logic.completionOf(first, [party, this.operator]) !== undefined
      const commandId = used ? `${first}:${now}` : first
      yield* this.submit([party, this.operator], [], commandId, [
        Commands.create(ValidatorRight, { dso: this.network.dso, user: party, validator: this.operator }),
        Commands.create(MergeDelegationProposal, { delegation: { owner: party, operator: this.operator, dso: this.network.dso, meta: {} } })
      ], [], [])
      return submitted({ commandId, actAs: [party, this.operator], finish: (c) => this.expectSuccess(c, () => ({ party_id: party })) })
    })
  }

  private partyForUser(request: Api.OnboardUserRequest): Effect.Effect<PartyId, WalletError> {
    return Effect.gen(this, function* () {
      const logic = this.participant.logic
      if (request.party_id !== undefined) {
        if (!isPartyId(request.party_id)) return yield* new InvalidArgument({ field: "party_id", message: "is not a party id" })
        if (logic.hosts(request.party_id)) return request.party_id
        if (request.createPartyIfMissing !== true || partyNamespace(request.party_id) !== logic.config.namespace) {
          return yield* new PartyNotHostedHere({ party: request.party_id })
        }
        return yield* Effect.orDie(this.participant.allocateParty(partyHint(request.party_id)))
      }
      const hint = request.name.replace(/[^a-zA-Z0-9_\-.]/g, "_").slice(0, 150)
      if (hint.length === 0) return yield* new InvalidArgument({ field: "name", message: "must not be empty" })
      for (let n = 1; ; n++) {
        const allocated = yield* Effect.either(this.participant.allocateParty(n === 1 ? hint : `${hint}-${n}`))
        if (Either.isRight(allocated)) return allocated.right
      }
    })
  }

  offboardUser(user: string): Effect.Effect<Outcome<void>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const now = yield* nowMicros
      this.apply({ _tag: "UserOffboarded", user, at: now })
      const rights = [...this.participant.logic.acs.ofTemplate(ValidatorRight.templateId, party)].filter((c) => payloadOf<{ user: string }>(c).user === party)
      if (rights.length === 0 || party === this.operator) return done(undefined)
      const commandId = `wallet:offboard:${party}:${now}`
      yield* this.submit([party, this.operator], [], commandId, rights.map((r) => Commands.exercise(archiveOf(ValidatorRight), r.created.contractId, {})), [], [])
      return submitted({ commandId, actAs: [party, this.operator], finish: (c) => this.expectSuccess(c, () => undefined) })
    })
  }

  listUsers(): Api.ListUsersResponse {
    return { usernames: [...this.state.users.keys()].sort() }
  }

  userStatus(user: string): Either.Either<Api.UserStatusResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => ({
      party_id: party,
      user_onboarded: true,
      user_wallet_installed: true,
      has_featured_app_right: this.dso.featuredAppRightOf(party) !== undefined
    }))
  }

  // ---------------------------------------------------------------- reads

  /** The round fees are computed at: the newest open round. */
  currentRound(now: Micros): number {
    return Number(this.dso.latestOpenRound(now)?.payload.round.number ?? 0)
  }

  private coinsOf(party: PartyId): ReadonlyArray<ActiveContract> {
    return this.participant.logic.acs.listOfTemplate(Coin.templateId, party, (c) => payloadOf<CoinPayload>(c).owner === party)
  }

  private lockedCoinsOf(party: PartyId): ReadonlyArray<ActiveContract> {
    return this.participant.logic.acs.listOfTemplate(LockedCoin.templateId, party, (c) => payloadOf<LockedCoinPayload>(c).coin.owner === party)
  }

  /** The party's balance: sum of its holdings' current amounts, with the holding fees they accrued. */
  balanceOf(party: PartyId, now: Micros): { readonly round: number; readonly unlocked: Amount; readonly locked: Amount; readonly holdingFees: Amount } {
    const round = this.currentRound(now)
    let unlocked = 0n
    let locked = 0n
    let holdingFees = 0n
    for (const c of this.coinsOf(party)) {
      const amount = payloadOf<CoinPayload>(c).amount
      const value = currentAmount(amount, round)
      unlocked += value
      holdingFees += amountOf(amount.initialAmount) - value
    }
    for (const c of this.lockedCoinsOf(party)) {
      const amount = payloadOf<LockedCoinPayload>(c).coin.amount
      const value = currentAmount(amount, round)
      locked += value
      holdingFees += amountOf(amount.initialAmount) - value
    }
    invariant(unlocked >= 0n && locked >= 0n && holdingFees >= 0n, "balances are never negative")
    return { round, unlocked, locked, holdingFees }
  }

  getBalance(user: string, now: Micros): Either.Either<Api.GetBalanceResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => {
      const b = this.balanceOf(party, now)
      return { round: b.round, effective_unlocked_qty: formatAmount(b.unlocked), effective_locked_qty: formatAmount(b.locked), total_holding_fees: formatAmount(b.holdingFees) }
    })
  }

  listHoldings(user: string, now: Micros): Either.Either<Api.ListHoldingsResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => {
      const round = this.currentRound(now)
      const position = (c: ActiveContract, amount: CoinPayload["amount"]): Api.CoinPosition => {
        const value = currentAmount(amount, round)
        return {
          contract: { contract: renderContract(c), domain_id: c.synchronizerId },
          round,
          accrued_holding_fee: formatAmount(amountOf(amount.initialAmount) - value),
          effective_amount: formatAmount(value)
        }
      }
      return {
        coins: this.coinsOf(party).map((c) => position(c, payloadOf<CoinPayload>(c).amount)),
        locked_coins: this.lockedCoinsOf(party).map((c) => position(c, payloadOf<LockedCoinPayload>(c).coin.amount))
      }
    })
  }

  /** Active contracts of a template where the party is a stakeholder and `filter` holds. */
  contractsOf(templateId: string, party: PartyId, filter: (payload: unknown) => boolean = () => true): ReadonlyArray<ContractJson> {
    return [...this.participant.logic.acs.ofTemplate(templateId, party)].filter((c) => filter(c.created.createArguments)).map((c) => renderContract(c))
  }

  listTransferOffers(user: string): Either.Either<Api.ListTransferOffersResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => ({ offers: this.contractsOf(TransferOffer.templateId, party) }))
  }

  listAcceptedTransferOffers(user: string): Either.Either<Api.ListAcceptedTransferOffersResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => ({ accepted_offers: this.contractsOf(AcceptedTransferOffer.templateId, party) }))
  }

  listTokenStandardTransfers(user: string): Either.Either<Api.ListTokenStandardTransfersResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => ({ transfers: this.contractsOf(CoinTransferInstruction.templateId, party) }))
  }

  listAppRewardCoupons(user: string): Either.Either<Api.ListAppRewardCouponsResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => ({ app_reward_coupons: this.contractsOf(AppRewardCoupon.templateId, party).slice(0, 1000) }))
  }

  listValidatorRewardCoupons(user: string): Either.Either<Api.ListValidatorRewardCouponsResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => ({
      validator_reward_coupons: this.contractsOf(ValidatorRewardCoupon.templateId, party, (p) => (p as { user: string }).user === party).slice(0, 1000)
    }))
  }

  listValidatorLivenessActivityRecords(user: string): Either.Either<Api.ListValidatorLivenessActivityRecordsResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => ({
      validator_liveness_activity_records: this.contractsOf(ValidatorLivenessActivityRecord.templateId, party).slice(0, 1000)
    }))
  }

  listMintingDelegationProposals(user: string, page: Api.PageRequest): Either.Either<Api.ListMintingDelegationProposalsResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => {
      const all = this.contractsOf(MintingDelegationProposal.templateId, party, (p) => (p as { delegation: MintingDelegationPayload }).delegation.delegate === party)
      const { items, next } = pageOf(all, page)
      return { proposals: items, ...(next === undefined ? {} : { next_page_token: next }) }
    })
  }

  listMintingDelegations(user: string, page: Api.PageRequest): Either.Either<Api.ListMintingDelegationsResponse, WalletError> {
    return Either.map(this.partyOf(user), (party) => {
      const all = this.contractsOf(MintingDelegation.templateId, party, (p) => (p as MintingDelegationPayload).delegate === party)
      const { items, next } = pageOf(all, page)
      return { delegations: items, ...(next === undefined ? {} : { next_page_token: next }) }
    })
  }

  // ---------------------------------------------------------------- history

  private indexHistory(entry: CommittedUpdate): void {
    const update = entry.update
    if (update.kind !== "transaction") return
    for (const node of update.nodes) {
      for (const w of node.witnesses) {
        if (!this.state.userOfParty.has(w)) continue
        let list = this.historyOffsets.get(w)
        if (list === undefined) this.historyOffsets.set(w, (list = []))
        if (list[list.length - 1] !== entry.offset) list.push(entry.offset)
      }
    }
  }

  /** The user's history, newest first; `begin_after_id` is the event id of the previous page's last item. */
  listTransactions(user: string, request: Api.ListTransactionsRequest): Either.Either<Api.ListTransactionsResponse, WalletError> {
    return Either.flatMap(this.partyOf(user), (party) => {
      const offsets = this.historyOffsets.get(party) ?? []
      let from = offsets.length - 1
      let afterNode: number | undefined
      if (request.begin_after_id !== undefined) {
        const [updateId, nodeText] = request.begin_after_id.split(":")
        const entry = updateId === undefined ? undefined : this.participant.logic.updateById(updateId)
        if (entry === undefined || nodeText === undefined) return Either.left(new InvalidArgument({ field: "begin_after_id", message: "is not an event id of this wallet's history" }))
        from = lastIndexAtMost(offsets, entry.offset)
        afterNode = Number(nodeText)
      }
      const items: Array<Api.TransactionItem> = []
      for (let i = from; i >= 0 && items.length < request.page_size; i--) {
        const entry = this.participant.logic.updateAtOffset(offsets[i]!)
        if (entry === undefined || entry.update.kind !== "transaction") continue
        const rendered = historyItems(entry.update, party).reverse()
        for (const item of rendered) {
          if (afterNode !== undefined && i === from && nodeIdOf(item.event_id) >= afterNode) continue
          items.push(item)
          if (items.length >= request.page_size) break
        }
      }
      return Either.right({ items })
    })
  }

  // ---------------------------------------------------------------- submission helpers

  /** Spendable coins of a party on the default synchronizer, largest first (ties by contract id). */
  spendable(party: PartyId, round: number): ReadonlyArray<{ readonly contract: ActiveContract; readonly value: Amount }> {
    const synchronizer = this.network.synchronizers[0]!.info.synchronizerId
    const acs = this.participant.logic.acs
    const coins: Array<{ contract: ActiveContract; value: Amount }> = []
    for (const c of this.coinsOf(party)) {
      const id = c.created.contractId
      if (c.synchronizerId !== synchronizer || this.reserved.has(id) || acs.lockedBy(id) !== undefined) continue
      const value = currentAmount(payloadOf<CoinPayload>(c).amount, round)
      if (value > 0n) coins.push({ contract: c, value })
    }
    return coins.sort((a, b) => (a.value === b.value ? (a.contract.created.contractId < b.contract.created.contractId ? -1 : 1) : a.value > b.value ? -1 : 1))
  }

  /**
   * Coins covering `amount` (largest first, at most 100): the order `spendable` gives, found by
   * picking the largest remaining coin while more is needed. Most transfers need one or two coins,
   * so this avoids sorting every holding of the party on every transfer.
   */
  selectCoins(party: PartyId, amount: Amount, round: number): Either.Either<ReadonlyArray<ContractId>, InsufficientFunds> {
    const synchronizer = this.network.synchronizers[0]!.info.synchronizerId
    const acs = this.participant.logic.acs
    const ids: Array<ContractId> = []
    const values: Array<Amount> = []
    // The largest candidate is tracked on the way: it covers almost every transfer on its own, and
    // then the selection below (which would pick it first and stop) is skipped.
    let bestId: ContractId | undefined
    let bestValue = 0n
    for (const c of this.coinsOf(party)) {
      const id = c.created.contractId
      if (c.synchronizerId !== synchronizer || this.reserved.has(id) || acs.lockedBy(id) !== undefined) continue
      const value = currentAmount(payloadOf<CoinPayload>(c).amount, round)
      if (value > 0n) {
        ids.push(id)
        values.push(value)
        if (bestId === undefined || value > bestValue || (value === bestValue && id < bestId)) {
          bestId = id
          bestValue = value
        }
      }
    }
    if (bestId !== undefined && amount > 0n && bestValue >= amount) return Either.right([bestId])
    const inputs: Array<ContractId> = []
    let total = 0n
    while (total < amount && inputs.length < 100 && ids.length > 0) {
      let best = 0
      for (let i = 1; i < ids.length; i++) {
        if (values[i]! > values[best]! || (values[i] === values[best] && ids[i]! < ids[best]!)) best = i
      }
      inputs.push(ids[best]!)
      total += values[best]!
      // Unordered removal: the remaining candidates are searched in full again.
      ids[best] = ids[ids.length - 1]!
      values[best] = values[values.length - 1]!
      ids.pop()
      values.pop()
    }
    return total >= amount ? Either.right(inputs) : Either.left(new InsufficientFunds({ party, required: formatAmount(amount), available: formatAmount(total) }))
  }

  isReserved(contractId: ContractId): boolean {
    return this.reserved.has(contractId)
  }

  /** Reserves contracts for a command submitted outside the wallet (released on its completion). */
  reserveFor(commandId: string, contractIds: ReadonlyArray<ContractId>): void {
    if (contractIds.length === 0) return
    this.reservations.set(commandId, contractIds)
    for (const id of contractIds) this.reserved.add(id)
  }

  /** The DSO contracts a transfer needs right now. */
  reference(now: Micros): Either.Either<{ readonly rules: ActiveContract; readonly round: ActiveContract; readonly roundNumber: number; readonly isDevNet: boolean }, DsoNotReady> {
    const rules = this.dso.coinRules()
    const round = this.dso.latestOpenRound(now)
    if (rules === undefined || round === undefined) return Either.left(new DsoNotReady({ reason: "no CoinRules or no open mining round yet" }))
    return Either.right({ rules: rules.contract, round: round.contract, roundNumber: Number(round.payload.round.number), isDevNet: rules.payload.isDevNet })
  }

  /** Submits a command; interpretation errors and refusals become WalletCommandFailed. */
  submit(
    actAs: ReadonlyArray<PartyId>,
    readAs: ReadonlyArray<PartyId>,
    commandId: string,
    commands: ReadonlyArray<Command>,
    disclosed: ReadonlyArray<ActiveContract>,
    inputs: ReadonlyArray<ContractId>
  ): Effect.Effect<string, WalletCommandFailed> {
    return this.participant.submit({ userId: this.config.validatorWalletUser, actAs, readAs, commandId, commands, disclosedContracts: disclosed }).pipe(
      Effect.map(({ updateId }) => {
        if (inputs.length > 0) {
          this.reservations.set(commandId, inputs)
          for (const id of inputs) this.reserved.add(id)
        }
        return updateId
      }),
      Effect.mapError((e) => {
        this.stats.commandsFailed++
        return new WalletCommandFailed({ commandId, code: e._tag === "CommandRejected" ? e.code : e._tag, reason: e.message })
      })
    )
  }

  /** A receiver the network's topology does not know would be an informee nobody hosts: 400. */
  private knownReceiver(receiver: PartyId): Either.Either<void, InvalidArgument> {
    return this.network.topology.isKnownParty(receiver)
      ? Either.right(undefined)
      : Either.left(new InvalidArgument({ field: "receiver_party_id", message: "is not a known party" }))
  }

  nextId(): number {
    return ++this.counter
  }

  private expectSuccess<A>(completion: Completion, value: (results: ReadonlyArray<Json>, updateId: string) => A): Either.Either<A, WalletError> {
    if (completion._tag === "Failed") return Either.left(new WalletCommandFailed({ commandId: completion.commandId, code: completion.code, reason: completion.reason }))
    return Either.right(value(completion.results, completion.updateId))
  }

  // ---------------------------------------------------------------- tracking ids

  private decide(kind: TrackedKind, party: PartyId, trackingId: string): Either.Either<string, WalletError> {
    if (trackingId.length === 0) return Either.left(new InvalidArgument({ field: "tracking_id", message: "must not be empty" }))
    const key = trackingKey(party, kind, trackingId)
    const record = this.state.tracking.get(key)
    const snapshot = record === undefined ? undefined : restoreSnapshot(trackingIdMachine, record.tracking)
    switch (submissionDecision(snapshot)) {
      case "proceed":
        return Either.right(key)
      case "inProgress":
        return Either.left(new TrackingIdInProgress({ trackingId }))
      case "alreadyCreated":
        return Either.left(new TrackingIdAlreadyUsed({ trackingId, contractId: snapshot === undefined ? "" : (contextOf<typeof trackingIdMachine>(snapshot).contractId ?? "") }))
    }
  }

  private stepTracking(key: string, record: TrackingRecord, event: Parameters<typeof step<typeof trackingIdMachine>>[2]): void {
    const result = step(trackingIdMachine, restoreSnapshot(trackingIdMachine, record.tracking), event)
    invariant(result.accepted, () => `tracking id ${record.trackingId}: ${event.type} refused in ${record.tracking.state}`)
    this.apply({ _tag: "TrackingIdChanged", key, record: { ...record, tracking: persistSnapshot(trackingIdMachine, result.snapshot) } })
  }

  /** Journals `submit` on the tracking id, submits, and on an immediate refusal frees it again. */
  private submitTracked(
    party: PartyId,
    kind: TrackedKind,
    trackingId: string,
    key: string,
    actAs: ReadonlyArray<PartyId>,
    commandId: string,
    commands: ReadonlyArray<Command>,
    disclosed: ReadonlyArray<ActiveContract>,
    inputs: ReadonlyArray<ContractId>
  ): Effect.Effect<void, WalletError> {
    return Effect.gen(this, function* () {
      const previous = this.state.tracking.get(key)
      const snapshot = previous === undefined ? start(trackingIdMachine, { trackingId }) : restoreSnapshot(trackingIdMachine, previous.tracking)
      const record: TrackingRecord = previous ?? { kind, party, trackingId, commandId, tracking: persistSnapshot(trackingIdMachine, snapshot) }
      const stepped = step(trackingIdMachine, snapshot, { type: "submit" })
      invariant(stepped.accepted, "a free tracking id accepts a submission")
      const inProgress: TrackingRecord = { ...record, commandId, tracking: persistSnapshot(trackingIdMachine, stepped.snapshot) }
      this.apply({ _tag: "TrackingIdChanged", key, record: inProgress })
      const result = yield* Effect.either(this.submit(actAs, [], commandId, commands, disclosed, inputs))
      if (Either.isLeft(result)) {
        // An in-flight duplicate means the first submission still runs: leave the id in progress.
        if (result.left.code !== "SUBMISSION_ALREADY_IN_FLIGHT") this.stepTracking(key, inProgress, { type: "fail", reason: result.left.reason })
        return yield* result.left
      }
    })
  }

  /** The payload of a contract created in a committed update (the ledger is the record of what was asked). */
  private createdPayload<P>(updateId: string, contractId: ContractId): P | undefined {
    const entry = this.participant.logic.updateById(updateId)
    if (entry === undefined || entry.update.kind !== "transaction") return undefined
    for (const node of entry.update.nodes) if (node.kind === "created" && node.contractId === contractId) return node.createArguments as unknown as P
    return undefined
  }

  /** Steps a tracking id on its command's completion and starts the lifecycle of what it created. */
  private onTrackedCompletion(commandId: string, completion: Completion): void {
    const key = this.state.trackingByCommand.get(commandId)
    const record = key === undefined ? undefined : this.state.tracking.get(key)
    if (key === undefined || record === undefined || record.tracking.state !== "inProgress" || record.commandId !== commandId) return
    if (completion._tag === "Failed") {
      this.stepTracking(key, record, { type: "fail", reason: `${completion.code}: ${completion.reason}` })
      return
    }
    const contractId = createdContractOf(record.kind, completion.results[0] ?? null)
    invariant(contractId !== undefined, () => `the ${record.kind} command of ${record.trackingId} names the contract it created`)
    this.stepTracking(key, record, { type: "succeed", contractId })
    switch (record.kind) {
      case "transferOffer": {
        const p = this.createdPayload<TransferOfferPayload>(completion.updateId, contractId)
        invariant(p !== undefined, "a created offer is in the update that created it")
        const offer = start(transferOfferMachine, {
          offerContractId: contractId,
          trackingId: record.trackingId,
          sender: record.party,
          receiver: p.receiver,
          amount: p.amount.amount,
          description: p.description,
          expiresAt: parseIso(p.expiresAt) ?? 0
        })
        this.stats.offersCreated++
        this.apply({
          _tag: "OfferChanged",
          key,
          record: {
            trackingId: record.trackingId,
            sender: record.party,
            offer: persistSnapshot(transferOfferMachine, offer),
            offerContractId: contractId,
            createdTransactionId: completion.updateId,
            acceptedContractId: null,
            acceptedTransactionId: null,
            completedContractId: null,
            completedTransactionId: null,
            failureKind: null,
            withdrawnReason: null
          }
        })
        break
      }
      case "tokenStandardTransfer": {
        const p = this.createdPayload<CoinTransferInstructionPayload>(completion.updateId, contractId)
        invariant(p !== undefined, "a created instruction is in the update that created it")
        const snapshot = start(transferInstructionMachine, {
          instructionId: contractId,
          sender: record.party,
          receiver: p.transfer.receiver,
          amount: p.transfer.amount,
          lockedHoldingIds: [p.lockedCoin],
          expiresAt: parseIso(p.transfer.executeBefore) ?? 0
        })
        this.stats.tokenTransfersCreated++
        this.apply({
          _tag: "InstructionChanged",
          key,
          record: {
            trackingId: record.trackingId,
            sender: record.party,
            instruction: persistSnapshot(transferInstructionMachine, snapshot),
            createdTransactionId: completion.updateId,
            finalTransactionId: null,
            receiverHoldingCids: []
          }
        })
        break
      }
      case "buyTraffic": {
        const p = this.createdPayload<BuyTrafficRequestPayload>(completion.updateId, contractId)
        invariant(p !== undefined, "a created buy-traffic request is in the update that created it")
        const snapshot = start(buyTrafficRequestMachine, {
          trackingId: record.trackingId,
          endUserParty: record.party,
          memberId: p.memberId,
          synchronizerId: p.synchronizerId,
          migrationId: Number(p.migrationId),
          trafficAmount: Number(p.trafficAmount),
          expiresAt: parseIso(p.expiresAt) ?? 0
        })
        this.stats.buyTrafficRequests++
        this.apply({
          _tag: "BuyTrafficChanged",
          key,
          record: { trackingId: record.trackingId, party: record.party, request: persistSnapshot(buyTrafficRequestMachine, snapshot), requestContractId: contractId, completedTransactionId: null }
        })
        break
      }
    }
  }

  private onCompletion(completion: Completion, now: Micros): void {
    const inputs = this.reservations.get(completion.commandId)
    if (inputs !== undefined) {
      this.reservations.delete(completion.commandId)
      for (const id of inputs) this.reserved.delete(id)
    }
    if (this.state.trackingByCommand.has(completion.commandId)) this.onTrackedCompletion(completion.commandId, completion)
    if (completion._tag === "Failed" && completion.commandId.startsWith("wallet:")) this.stats.commandsFailed++
    if (completion._tag === "Succeeded" && completion.commandId.startsWith("wallet:send:")) {
      this.stats.oneStepTransfers++
      if (this.featuredCommands.has(completion.commandId)) this.stats.featuredTransfers++
    }
    this.featuredCommands.delete(completion.commandId)
    for (const hook of this.completionHooks) hook(completion, now)
  }

  // ---------------------------------------------------------------- lifecycles seen on the ledger

  private observe(entry: CommittedUpdate): void {
    const update = entry.update
    if (update.kind !== "transaction") return
    for (const node of update.nodes) {
      if (node.kind === "created") {
        if (node.templateId === MergeDelegationProposal.templateId) this.onMergeProposal(node.contractId, node.createArguments)
        else if (node.templateId === MintingDelegationProposal.templateId) this.onMintingProposal(node.contractId, node.createArguments)
        continue
      }
      const offerKey = this.state.offerByContract.get(node.contractId)
      if (offerKey !== undefined) this.onOfferExercise(offerKey, node, update)
      const instructionKey = this.state.instructionByContract.get(node.contractId)
      if (instructionKey !== undefined) this.onInstructionExercise(instructionKey, node, update)
      const trafficKey = this.state.buyTrafficByContract.get(node.contractId)
      if (trafficKey !== undefined) this.onBuyTrafficExercise(trafficKey, node, update)
      if (node.templateId === MergeDelegationProposal.templateId) this.onMergeProposalExercise(node)
      else if (node.templateId === MergeDelegation.templateId && node.consuming) this.onMergeDelegationArchived(node)
      else if (node.templateId === MintingDelegationProposal.templateId) this.onMintingProposalExercise(node)
    }
  }

  private stepOffer(key: string, record: OfferRecord, event: Parameters<typeof step<typeof transferOfferMachine>>[2], patch: Partial<OfferRecord>): void {
    const result: StepResult<typeof transferOfferMachine> = step(transferOfferMachine, restoreSnapshot(transferOfferMachine, record.offer), event)
    // A refused step is the ledger disagreeing with a stale record (it cannot be: the ledger checked
    // the same rule); keep the record, the ledger is the truth.
    if (!result.accepted) return
    this.apply({ _tag: "OfferChanged", key, record: { ...record, ...patch, offer: persistSnapshot(transferOfferMachine, result.snapshot) } })
  }

  private onOfferExercise(key: string, node: ExercisedNode, update: TransactionUpdate): void {
    const record = this.state.offers.get(key)
    if (record === undefined || !node.consuming) return
    const result = node.exerciseResult as { acceptedTransferOffer?: string; transferResult?: { createdCoins?: ReadonlyArray<{ value: string }> } } | null
    const reason = (node.choiceArgument as { reason?: string } | null)?.reason ?? null
    switch (node.choice) {
      case "TransferOffer_Accept":
        this.stats.offersAccepted++
        this.stepOffer(key, record, { type: "accept", ledgerTime: update.effectiveAt }, { acceptedContractId: result?.acceptedTransferOffer ?? null, acceptedTransactionId: update.updateId })
        break
      case "TransferOffer_Reject":
        this.fail(key, record, { type: "reject" }, "rejected", null, update)
        break
      case "TransferOffer_Withdraw":
        this.fail(key, record, { type: "withdraw" }, "withdrawn", reason, update)
        break
      case "TransferOffer_Expire":
        this.stats.offersExpired++
        this.fail(key, record, { type: "expire", ledgerTime: update.effectiveAt }, "expired", null, update)
        break
      case "AcceptedTransferOffer_Complete":
        this.stats.offersCompleted++
        this.stepOffer(key, record, { type: "complete" }, { completedContractId: result?.transferResult?.createdCoins?.[0]?.value ?? null, completedTransactionId: update.updateId })
        break
      case "AcceptedTransferOffer_Abort":
        this.fail(key, record, { type: "fail", reason: reason ?? "aborted by the sender" }, "withdrawn", reason, update)
        break
      case "AcceptedTransferOffer_Withdraw":
        this.fail(key, record, { type: "fail", reason: reason ?? "withdrawn by the receiver" }, "rejected", reason, update)
        break
      case "AcceptedTransferOffer_Expire":
        this.stats.offersExpired++
        this.fail(key, record, { type: "fail", reason: "expired" }, "expired", null, update)
        break
    }
  }

  private fail(
    key: string,
    record: OfferRecord,
    event: Parameters<typeof step<typeof transferOfferMachine>>[2],
    kind: OfferFailureKind,
    reason: string | null,
    update: TransactionUpdate
  ): void {
    this.stats.offersFailed++
    this.stepOffer(key, record, event, { failureKind: kind, withdrawnReason: reason, completedTransactionId: update.updateId })
  }

  private onInstructionExercise(key: string, node: ExercisedNode, update: TransactionUpdate): void {
    const record = this.state.instructions.get(key)
    if (record === undefined || !node.consuming) return
    const event: Parameters<typeof step<typeof transferInstructionMachine>>[2] | undefined =
      node.choice === "TransferInstruction_Accept"
        ? { type: "accept", ledgerTime: update.effectiveAt }
        : node.choice === "TransferInstruction_Reject"
          ? { type: "reject" }
          : node.choice === "TransferInstruction_Withdraw"
            ? { type: "withdraw" }
            : node.choice === "CoinTransferInstruction_Expire"
              ? { type: "expire", ledgerTime: update.effectiveAt }
              : undefined
    if (event === undefined) return
    const result = step(transferInstructionMachine, restoreSnapshot(transferInstructionMachine, record.instruction), event)
    if (!result.accepted) return
    if (event.type === "accept") this.stats.tokenTransfersCompleted++
    else this.stats.tokenTransfersClosed++
    const output = (node.exerciseResult as { output?: { value?: { receiverHoldingCids?: ReadonlyArray<string> } } } | null)?.output?.value?.receiverHoldingCids ?? []
    this.apply({
      _tag: "InstructionChanged",
      key,
      record: { ...record, instruction: persistSnapshot(transferInstructionMachine, result.snapshot), finalTransactionId: update.updateId, receiverHoldingCids: [...output] }
    })
  }

  private onBuyTrafficExercise(key: string, node: ExercisedNode, update: TransactionUpdate): void {
    const record = this.state.buyTraffic.get(key)
    if (record === undefined || !node.consuming) return
    const reason = (node.choiceArgument as { reason?: string } | null)?.reason ?? "rejected"
    const event: Parameters<typeof step<typeof buyTrafficRequestMachine>>[2] | undefined =
      node.choice === "BuyTrafficRequest_Complete"
        ? { type: "complete", ledgerTime: update.effectiveAt }
        : node.choice === "BuyTrafficRequest_Expire"
          ? { type: "expire", ledgerTime: update.effectiveAt }
          : node.choice === "BuyTrafficRequest_Cancel"
            ? { type: "reject", reason }
            : undefined
    if (event === undefined) return
    const result = step(buyTrafficRequestMachine, restoreSnapshot(buyTrafficRequestMachine, record.request), event)
    if (!result.accepted) return
    this.apply({
      _tag: "BuyTrafficChanged",
      key,
      record: { ...record, request: persistSnapshot(buyTrafficRequestMachine, result.snapshot), completedTransactionId: event.type === "complete" ? update.updateId : null }
    })
  }

  private onMergeProposal(contractId: ContractId, args: unknown): void {
    const delegation = (args as { delegation: { owner: string; operator: string } }).delegation
    if (!this.participant.logic.hosts(delegation.owner)) return
    const snapshot = start(mergeDelegationMachine, { user: delegation.owner, walletProvider: delegation.operator, proposalContractId: contractId })
    this.apply({ _tag: "MergeDelegationChanged", owner: delegation.owner, record: { contractId, delegation: persistSnapshot(mergeDelegationMachine, snapshot) } })
  }

  private onMergeProposalExercise(node: ExercisedNode): void {
    if (!node.consuming) return
    for (const [owner, record] of this.state.mergeDelegations) {
      if (record.contractId !== node.contractId) continue
      const event: Parameters<typeof step<typeof mergeDelegationMachine>>[2] | undefined =
        node.choice === "MergeDelegationProposal_Accept"
          ? { type: "accept", delegationContractId: String((node.exerciseResult as { mergeDelegationCid?: string } | null)?.mergeDelegationCid ?? "") }
          : node.choice === "MergeDelegationProposal_Reject"
            ? { type: "reject" }
            : node.choice === "MergeDelegationProposal_Withdraw"
              ? { type: "withdraw" }
              : undefined
      if (event === undefined) return
      const result = step(mergeDelegationMachine, restoreSnapshot(mergeDelegationMachine, record.delegation), event)
      if (!result.accepted) return
      const contractId = event.type === "accept" ? event.delegationContractId : record.contractId
      this.apply({ _tag: "MergeDelegationChanged", owner, record: { contractId, delegation: persistSnapshot(mergeDelegationMachine, result.snapshot) } })
      return
    }
  }

  private onMergeDelegationArchived(node: ExercisedNode): void {
    for (const [owner, record] of this.state.mergeDelegations) {
      if (record.contractId !== node.contractId || record.delegation.state !== "active") continue
      const result = step(mergeDelegationMachine, restoreSnapshot(mergeDelegationMachine, record.delegation), { type: "revoke" })
      if (result.accepted) this.apply({ _tag: "MergeDelegationChanged", owner, record: { ...record, delegation: persistSnapshot(mergeDelegationMachine, result.snapshot) } })
      return
    }
  }

  /** The owner's active MergeDelegation contract, if any. */
  mergeDelegationOf(owner: PartyId): ContractId | undefined {
    const record = this.state.mergeDelegations.get(owner)
    return record !== undefined && record.delegation.state === "active" ? record.contractId : undefined
  }

  private onMintingProposal(contractId: ContractId, args: unknown): void {
    const delegation = (args as { delegation: MintingDelegationPayload }).delegation
    if (!this.participant.logic.hosts(delegation.delegate)) return
    const snapshot = start(mintingDelegationMachine, { proposalContractId: contractId, beneficiary: delegation.beneficiary, delegate: delegation.delegate })
    this.apply({ _tag: "MintingDelegationChanged", proposalContractId: contractId, record: { contractId, delegation: persistSnapshot(mintingDelegationMachine, snapshot) } })
  }

  private onMintingProposalExercise(node: ExercisedNode): void {
    const record = this.state.mintingDelegations.get(node.contractId)
    if (record === undefined || !node.consuming) return
    const event: Parameters<typeof step<typeof mintingDelegationMachine>>[2] | undefined =
      node.choice === "MintingDelegationProposal_Accept"
        ? { type: "accept", delegationContractId: String((node.exerciseResult as { mintingDelegationCid?: string } | null)?.mintingDelegationCid ?? "") }
        : node.choice === "MintingDelegationProposal_Reject"
          ? { type: "reject" }
          : node.choice === "MintingDelegationProposal_Withdraw"
            ? { type: "withdraw" }
            : undefined
    if (event === undefined) return
    const result = step(mintingDelegationMachine, restoreSnapshot(mintingDelegationMachine, record.delegation), event)
    if (!result.accepted) return
    this.apply({
      _tag: "MintingDelegationChanged",
      proposalContractId: node.contractId,
      record: { contractId: event.type === "accept" ? event.delegationContractId : record.contractId, delegation: persistSnapshot(mintingDelegationMachine, result.snapshot) }
    })
  }

  // ---------------------------------------------------------------- legacy transfer offers

  createTransferOffer(user: string, request: Api.CreateTransferOfferRequest): Effect.Effect<Outcome<Api.CreateTransferOfferResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const now = yield* nowMicros
      const amount = yield* validAmount(request.amount)
      yield* validReceiver(request.receiver_party_id, party)
      yield* this.knownReceiver(request.receiver_party_id)
      if (request.description.length >= 280) return yield* new InvalidArgument({ field: "description", message: "must be shorter than 280 characters" })
      if (!Number.isSafeInteger(request.expires_at) || request.expires_at <= now) return yield* new InvalidArgument({ field: "expires_at", message: "must be a time in the future, in microseconds" })
      const key = yield* this.decide("transferOffer", party, request.tracking_id)
      const commandId = `wallet:transfer-offer:${request.tracking_id}`
      const payload: TransferOfferPayload = {
        sender: party,
        receiver: request.receiver_party_id,
        dso: this.network.dso,
        amount: { amount: formatAmount(amount), unit: "CoinUnit" },
        description: request.description,
        expiresAt: toIso(request.expires_at),
        trackingId: request.tracking_id
      }
      yield* this.submitTracked(party, "transferOffer", request.tracking_id, key, [party], commandId, [Commands.create(TransferOffer, payload)], [], [])
      return submitted({ commandId, actAs: [party], finish: (c) => this.expectSuccess(c, (results) => ({ offer_contract_id: String(results[0]) })) })
    })
  }

  getTransferOfferStatus(user: string, trackingId: string): Either.Either<Api.GetTransferOfferStatusResponse, WalletError> {
    return Either.flatMap(this.partyOf(user), (party): Either.Either<Api.GetTransferOfferStatusResponse, WalletError> => {
      const record = this.state.offers.get(trackingKey(party, "transferOffer", trackingId))
      if (record === undefined) return Either.left(new TrackingIdNotFound({ trackingId }))
      const state = record.offer.state
      switch (state) {
        case "created":
          return Either.right({ status: "created", transaction_id: record.createdTransactionId, contract_id: record.offerContractId })
        case "accepted":
          return Either.right({ status: "accepted", transaction_id: record.acceptedTransactionId ?? "", contract_id: record.acceptedContractId ?? "" })
        case "completed":
          return Either.right({ status: "completed", transaction_id: record.completedTransactionId ?? "", contract_id: record.completedContractId ?? "" })
        default:
          return Either.right({
            status: "failed",
            failure_kind: record.failureKind ?? (state === "expired" ? "expired" : state === "rejected" ? "rejected" : "withdrawn"),
            ...(record.withdrawnReason === null ? {} : { withdrawn_reason: record.withdrawnReason })
          })
      }
    })
  }

  private offerFor(party: PartyId, contractId: ContractId, role: "sender" | "receiver"): Either.Either<{ readonly contract: ActiveContract; readonly payload: TransferOfferPayload }, OfferNotFound> {
    const contract = this.participant.logic.visibleContract(contractId, new Set([party]))
    if (contract === undefined || contract.created.templateId !== TransferOffer.templateId) return Either.left(new OfferNotFound({ contractId }))
    const payload = payloadOf<TransferOfferPayload>(contract)
    return payload[role] === party ? Either.right({ contract, payload }) : Either.left(new OfferNotFound({ contractId }))
  }

  acceptTransferOffer(user: string, contractId: ContractId): Effect.Effect<Outcome<Api.AcceptTransferOfferResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const now = yield* nowMicros
      const { payload } = yield* this.offerFor(party, contractId, "receiver")
      // Compared with the ledger time the accepting transaction will get (now): the same rule the contract checks.
      if (now >= (parseIso(payload.expiresAt) ?? 0)) return yield* new OfferExpired({ contractId, expiresAt: payload.expiresAt })
      const commandId = `wallet:accept:${contractId}`
      yield* this.submit([party], [], commandId, [Commands.exercise(TransferOffer_Accept, contractId, {})], [], [])
      return submitted({
        commandId,
        actAs: [party],
        finish: (c) => this.expectSuccess(c, (results) => ({ accepted_offer_contract_id: String((results[0] as { acceptedTransferOffer?: string } | null)?.acceptedTransferOffer ?? "") }))
      })
    })
  }

  rejectTransferOffer(user: string, contractId: ContractId): Effect.Effect<Outcome<void>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      yield* this.offerFor(party, contractId, "receiver")
      const commandId = `wallet:reject:${contractId}`
      yield* this.submit([party], [], commandId, [Commands.exercise(TransferOffer_Reject, contractId, {})], [], [])
      return submitted({ commandId, actAs: [party], finish: (c) => this.expectSuccess(c, () => undefined) })
    })
  }

  withdrawTransferOffer(user: string, contractId: ContractId, reason = "withdrawn by the sender"): Effect.Effect<Outcome<void>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      yield* this.offerFor(party, contractId, "sender")
      const commandId = `wallet:withdraw:${contractId}`
      yield* this.submit([party], [], commandId, [Commands.exercise(TransferOffer_Withdraw, contractId, { reason })], [], [])
      return submitted({ commandId, actAs: [party], finish: (c) => this.expectSuccess(c, () => undefined) })
    })
  }

  // ---------------------------------------------------------------- one-step transfers

  createTransferPreapproval(user: string): Effect.Effect<Outcome<Api.CreateTransferPreapprovalResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const now = yield* nowMicros
      const existing = this.dso.preapprovalOf(party, now)
      if (existing !== undefined) return yield* new PreapprovalAlreadyExists({ contractId: existing.contract.created.contractId })
      const ref = yield* this.reference(now)
      const commandId = `wallet:preapproval:${party}:${ref.roundNumber}`
      yield* this.submit([party, this.operator], [], commandId, [
        Commands.exercise(CoinRules_CreateTransferPreapproval, ref.rules.created.contractId, {
          receiver: party,
          provider: this.operator,
          expiresAt: toIso(now + this.config.transferPreapproval.preapprovalLifetime)
        })
      ], [ref.rules], [])
      return submitted({
        commandId,
        actAs: [party, this.operator],
        finish: (c) => this.expectSuccess(c, (results) => ({ transfer_preapproval_contract_id: String((results[0] as { transferPreapprovalCid?: string } | null)?.transferPreapprovalCid ?? "") }))
      })
    })
  }

  /** One-step transfer through the receiver's preapproval; featured when its provider has a FeaturedAppRight. */
  transferPreapprovalSend(user: string, request: Api.TransferPreapprovalSendRequest): Effect.Effect<Outcome<Api.TransferPreapprovalSendResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const now = yield* nowMicros
      const amount = yield* validAmount(request.amount)
      yield* validReceiver(request.receiver_party_id, party)
      if (request.deduplication_id.length === 0) return yield* new InvalidArgument({ field: "deduplication_id", message: "must not be empty" })
      const preapproval = this.dso.preapprovalOf(request.receiver_party_id, now)
      if (preapproval === undefined) return yield* new PreapprovalNotFound({ receiver: request.receiver_party_id })
      const ref = yield* this.reference(now)
      const inputs = yield* this.selectCoins(party, amount, ref.roundNumber)
      const featured = this.dso.featuredAppRightOf(preapproval.payload.provider)
      const commandId = `wallet:send:${request.deduplication_id}`
      const updateId = yield* this.submit([party], [], commandId, [
        Commands.exercise(TransferPreapproval_Send, preapproval.contract.created.contractId, {
          sender: party,
          coinRules: ref.rules.created.contractId,
          context: { openMiningRound: ref.round.created.contractId, featuredAppRight: featured?.contract.created.contractId ?? null },
          inputs: inputs.map((value) => ({ tag: "InputCoin" as const, value })),
          amount: formatAmount(amount),
          description: request.description ?? null
        })
      ], [ref.rules, ref.round, preapproval.contract, ...(featured === undefined ? [] : [featured.contract])], inputs)
      if (featured !== undefined) this.featuredCommands.add(commandId)
      return submitted({ commandId, actAs: [party], finish: (c) => this.expectSuccess(c, () => ({ update_id: updateId, featured: featured !== undefined })) })
    })
  }

  // ---------------------------------------------------------------- token-standard transfers

  createTokenStandardTransfer(user: string, request: Api.CreateTokenStandardTransferRequest): Effect.Effect<Outcome<Api.TransferInstructionResultResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const now = yield* nowMicros
      const amount = yield* validAmount(request.amount)
      yield* validReceiver(request.receiver_party_id, party)
      yield* this.knownReceiver(request.receiver_party_id)
      if (!Number.isSafeInteger(request.expires_at) || request.expires_at <= now) return yield* new InvalidArgument({ field: "expires_at", message: "must be a time in the future, in microseconds" })
      const ref = yield* this.reference(now)
      const factory = this.dso.externalPartyCoinRules()
      if (factory === undefined) return yield* new DsoNotReady({ reason: "no ExternalPartyCoinRules" })
      const round = this.dso.latestOpenRound(now)!.payload
      const reserve = holdingFeeRate(round) * BigInt(lockReserveRounds(now, request.expires_at, Number(round.tickDuration.microseconds)))
      const inputs = yield* this.selectCoins(party, amount + reserve, ref.roundNumber)
      const key = yield* this.decide("tokenStandardTransfer", party, request.tracking_id)
      const commandId = `wallet:token-transfer:${request.tracking_id}`
      const command = Commands.exercise(TransferFactory_Transfer, factory.created.contractId, {
        expectedAdmin: this.network.dso,
        transfer: {
          sender: party,
          receiver: request.receiver_party_id,
          amount: formatAmount(amount),
          instrumentId: { admin: this.network.dso, id: COIN_INSTRUMENT },
          requestedAt: toIso(now),
          executeBefore: toIso(request.expires_at),
          inputHoldingCids: inputs,
          meta: { values: request.description.length > 0 ? { "splice.lfdecentralizedtrust.org/reason": request.description } : {} }
        },
        extraArgs: { context: choiceContext(ref.rules.created.contractId, ref.round.created.contractId), meta: emptyMeta }
      })
      yield* this.submitTracked(party, "tokenStandardTransfer", request.tracking_id, key, [party], commandId, [command], [factory, ref.rules, ref.round], inputs)
      return submitted({ commandId, actAs: [party], finish: (c) => this.expectSuccess(c, (results) => instructionResult(results[0] ?? null)) })
    })
  }

  private instructionFor(party: PartyId, contractId: ContractId, role: "sender" | "receiver"): Either.Either<CoinTransferInstructionPayload, TokenTransferNotFound> {
    const contract = this.participant.logic.visibleContract(contractId, new Set([party]))
    if (contract === undefined || contract.created.templateId !== CoinTransferInstruction.templateId) return Either.left(new TokenTransferNotFound({ contractId }))
    const payload = payloadOf<CoinTransferInstructionPayload>(contract)
    return payload.transfer[role] === party ? Either.right(payload) : Either.left(new TokenTransferNotFound({ contractId }))
  }

  /** Accept, reject (receiver) or withdraw (sender) a token-standard transfer. */
  decideTokenStandardTransfer(
    user: string,
    contractId: ContractId,
    decision: "accept" | "reject" | "withdraw"
  ): Effect.Effect<Outcome<Api.TransferInstructionResultResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const now = yield* nowMicros
      const payload = yield* this.instructionFor(party, contractId, decision === "withdraw" ? "sender" : "receiver")
      if (decision === "accept" && now >= (parseIso(payload.transfer.executeBefore) ?? 0)) {
        return yield* new OfferExpired({ contractId, expiresAt: payload.transfer.executeBefore })
      }
      const ref = yield* this.reference(now)
      // The receiver's node does not see the sender's locked coin: it comes disclosed, as from scan.
      const locked = this.participant.logic.acs.get(payload.lockedCoin) ?? this.dso.contract(payload.lockedCoin)
      const extraArgs = { context: choiceContext(ref.rules.created.contractId, ref.round.created.contractId), meta: emptyMeta }
      const choice = decision === "accept" ? TransferInstruction_Accept : decision === "reject" ? TransferInstruction_Reject : TransferInstruction_Withdraw
      const commandId = `wallet:token-transfer-${decision}:${contractId}`
      yield* this.submit([party], [], commandId, [Commands.exercise(choice, contractId, { extraArgs })], [ref.rules, ref.round, ...(locked === undefined ? [] : [locked])], [])
      return submitted({ commandId, actAs: [party], finish: (c) => this.expectSuccess(c, (results) => instructionResult(results[0] ?? null)) })
    })
  }

  // ---------------------------------------------------------------- traffic

  createBuyTrafficRequest(user: string, request: Api.CreateBuyTrafficRequest): Effect.Effect<Outcome<Api.CreateBuyTrafficRequestResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const now = yield* nowMicros
      const hosting = this.network.topology.hosting(request.receiving_validator_party_id)
      if (hosting === undefined) return yield* new InvalidArgument({ field: "receiving_validator_party_id", message: "is not a known party" })
      if (hosting.participants.length !== 1) return yield* new InvalidArgument({ field: "receiving_validator_party_id", message: "is hosted on several participants" })
      const synchronizer = this.network.topology.synchronizer(request.domain_id)
      if (synchronizer === undefined) return yield* new InvalidArgument({ field: "domain_id", message: "is not a known synchronizer" })
      const rules = this.dso.coinRules()
      const min = Number(rules?.payload.configSchedule.initialValue.decentralizedSynchronizer.fees.minTopupAmount ?? "0")
      if (!Number.isSafeInteger(request.traffic_amount) || request.traffic_amount < min) {
        return yield* new InvalidArgument({ field: "traffic_amount", message: `must be a whole number of bytes, at least ${min}` })
      }
      if (!Number.isSafeInteger(request.expires_at) || request.expires_at <= now) return yield* new InvalidArgument({ field: "expires_at", message: "must be a time in the future, in microseconds" })
      const key = yield* this.decide("buyTraffic", party, request.tracking_id)
      const memberId = hosting.participants[0]!.participantUid
      const commandId = `wallet:buy-traffic:${request.tracking_id}`
      const command = Commands.create(BuyTrafficRequest, {
        dso: this.network.dso,
        endUserParty: party,
        expiresAt: toIso(request.expires_at),
        trackingId: request.tracking_id,
        trafficAmount: String(request.traffic_amount),
        memberId,
        synchronizerId: synchronizer.synchronizerId,
        migrationId: String(synchronizer.migrationId)
      })
      yield* this.submitTracked(party, "buyTraffic", request.tracking_id, key, [party], commandId, [command], [], [])
      return submitted({ commandId, actAs: [party], finish: (c) => this.expectSuccess(c, (results) => ({ request_contract_id: String(results[0]) })) })
    })
  }

  getBuyTrafficRequestStatus(user: string, trackingId: string): Either.Either<Api.GetBuyTrafficRequestStatusResponse, WalletError> {
    return Either.flatMap(this.partyOf(user), (party): Either.Either<Api.GetBuyTrafficRequestStatusResponse, WalletError> => {
      const record = this.state.buyTraffic.get(trackingKey(party, "buyTraffic", trackingId))
      if (record === undefined) return Either.left(new TrackingIdNotFound({ trackingId }))
      const status = buyTrafficRequestStatus(restoreSnapshot(buyTrafficRequestMachine, record.request))
      switch (status.status) {
        case "created":
          return Either.right({ status: "created" })
        case "completed":
          return Either.right({ status: "completed", transaction_id: record.completedTransactionId ?? "" })
        case "failed":
          return Either.right({ status: "failed", failure_reason: status.failureReason, ...(status.rejectionReason === null ? {} : { rejection_reason: status.rejectionReason }) })
      }
    })
  }

  // ---------------------------------------------------------------- devnet, featured apps, minting delegations

  tap(user: string, request: Api.TapRequest): Effect.Effect<Outcome<Api.TapResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const now = yield* nowMicros
      const amount = yield* validAmount(request.amount)
      const ref = yield* this.reference(now)
      if (!ref.isDevNet) return yield* new DevNetOnly({ operation: "tap" })
      const commandId = `wallet:tap:${request.command_id ?? `${party}:${now}:${this.nextId()}`}`
      yield* this.submit([party], [], commandId, [
        Commands.exercise(CoinRules_DevNet_Tap, ref.rules.created.contractId, { receiver: party, amount: formatAmount(amount), openRound: ref.round.created.contractId })
      ], [ref.rules, ref.round], [])
      return submitted({
        commandId,
        actAs: [party],
        finish: (c) => this.expectSuccess(c, (results) => ({ contract_id: String((results[0] as { coinSum?: { coin?: string } } | null)?.coinSum?.coin ?? "") }))
      })
    })
  }

  selfGrantFeaturedAppRight(user: string): Effect.Effect<Outcome<Api.SelfGrantFeaturedAppRightResponse>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const existing = this.dso.featuredAppRightOf(party)
      if (existing !== undefined) return done({ contract_id: existing.contract.created.contractId })
      const now = yield* nowMicros
      const ref = yield* this.reference(now)
      if (!ref.isDevNet) return yield* new DevNetOnly({ operation: "self-granting a featured app right" })
      const commandId = `wallet:feature:${party}`
      yield* this.submit([party], [], commandId, [Commands.exercise(CoinRules_DevNet_FeatureApp, ref.rules.created.contractId, { provider: party })], [ref.rules], [])
      return submitted({
        commandId,
        actAs: [party],
        finish: (c) => this.expectSuccess(c, (results) => ({ contract_id: String((results[0] as { featuredAppRightCid?: string } | null)?.featuredAppRightCid ?? "") }))
      })
    })
  }

  decideMintingDelegationProposal(user: string, contractId: ContractId, decision: "accept" | "reject"): Effect.Effect<Outcome<Api.AcceptMintingDelegationProposalResponse | void>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const contract = this.participant.logic.visibleContract(contractId, new Set([party]))
      if (contract === undefined || contract.created.templateId !== MintingDelegationProposal.templateId) return yield* new DelegationNotFound({ contractId })
      const delegation = payloadOf<{ delegation: MintingDelegationPayload }>(contract).delegation
      if (delegation.delegate !== party) return yield* new DelegationNotFound({ contractId })
      const existing = [...this.participant.logic.acs.ofTemplate(MintingDelegation.templateId, party)].find((c) => {
        const p = payloadOf<MintingDelegationPayload>(c)
        return p.beneficiary === delegation.beneficiary && p.delegate === party
      })
      const commandId = `wallet:minting-${decision}:${contractId}`
      const command =
        decision === "accept"
          ? Commands.exercise(MintingDelegationProposal_Accept, contractId, { existingDelegationCid: existing?.created.contractId ?? null })
          : Commands.exercise(MintingDelegationProposal_Reject, contractId, {})
      yield* this.submit([party], [], commandId, [command], [], [])
      return submitted({
        commandId,
        actAs: [party],
        finish: (c) =>
          this.expectSuccess(c, (results) => (decision === "accept" ? { contract_id: String((results[0] as { mintingDelegationCid?: string } | null)?.mintingDelegationCid ?? "") } : undefined))
      })
    })
  }

  rejectMintingDelegation(user: string, contractId: ContractId): Effect.Effect<Outcome<void>, WalletError> {
    return Effect.gen(this, function* () {
      const party = yield* this.partyOf(user)
      const contract = this.participant.logic.visibleContract(contractId, new Set([party]))
      if (contract === undefined || contract.created.templateId !== MintingDelegation.templateId || payloadOf<MintingDelegationPayload>(contract).delegate !== party) {
        return yield* new DelegationNotFound({ contractId })
      }
      const commandId = `wallet:minting-terminate:${contractId}`
      yield* this.submit([party], [], commandId, [Commands.exercise(MintingDelegation_Reject, contractId, {})], [], [])
      return submitted({ commandId, actAs: [party], finish: (c) => this.expectSuccess(c, () => undefined) })
    })
  }

  /** The lifecycle state of a tracked offer (for tests and diagnostics). */
  offerState(party: PartyId, trackingId: string): string | undefined {
    const record = this.state.offers.get(trackingKey(party, "transferOffer", trackingId))
    return record === undefined ? undefined : stateOf(restoreSnapshot(transferOfferMachine, record.offer))
  }

  /** The lifecycle state of a tracking id ("free", "inProgress", "created"). */
  trackingState(party: PartyId, kind: TrackedKind, trackingId: string): string | undefined {
    return this.state.tracking.get(trackingKey(party, kind, trackingId))?.tracking.state
  }

  /** Accepted offers the wallet's users sent, for the completion automation. */
  acceptedOffersToComplete(): ReadonlyArray<ActiveContract> {
    const out: Array<ActiveContract> = []
    for (const party of this.userParties()) {
      for (const c of this.participant.logic.acs.ofTemplate(AcceptedTransferOffer.templateId, party)) if (payloadOf<AcceptedTransferOfferPayload>(c).sender === party) out.push(c)
    }
    return out
  }
}

// ---------------------------------------------------------------- helpers

const nowMicros: Effect.Effect<Micros> = Effect.map(Clock.currentTimeNanos, microsOf.fromNanos)

const archiveOf = <P>(template: { readonly choices: Map<string, unknown> } & Parameters<typeof Commands.create<P>>[0]) =>
  template.choices.get("Archive") as Parameters<typeof Commands.exercise<P, Record<string, never>>>[0]

const validAmount = (text: string): Either.Either<Amount, InvalidArgument> => {
  const amount = parseAmount(text)
  if (amount === undefined) return Either.left(new InvalidArgument({ field: "amount", message: "must be a decimal with at most 10 fractional digits" }))
  if (amount <= 0n) return Either.left(new InvalidArgument({ field: "amount", message: "must be positive" }))
  return Either.right(amount)
}

const validReceiver = (receiver: string, sender: PartyId): Either.Either<void, InvalidArgument> => {
  if (!isPartyId(receiver)) return Either.left(new InvalidArgument({ field: "receiver_party_id", message: "is not a party id" }))
  if (receiver === sender) return Either.left(new InvalidArgument({ field: "receiver_party_id", message: "must differ from the sender" }))
  return Either.right(undefined)
}

/** The contract a tracked command created, from its root result. */
const createdContractOf = (kind: TrackedKind, result: Json): string | undefined => {
  if (kind === "tokenStandardTransfer") {
    const value = (result as { output?: { value?: { transferInstructionCid?: string } } } | null)?.output?.value?.transferInstructionCid
    return typeof value === "string" ? value : undefined
  }
  return typeof result === "string" ? result : undefined
}

const instructionResult = (result: Json): Api.TransferInstructionResultResponse => {
  const r = result as { output?: { tag?: string; value?: { transferInstructionCid?: string; receiverHoldingCids?: ReadonlyArray<string> } }; senderChangeCids?: ReadonlyArray<string> } | null
  const tag = r?.output?.tag
  const output: Api.TransferInstructionResultOutput =
    tag === "TransferInstructionResult_Pending"
      ? { transfer_instruction_cid: r?.output?.value?.transferInstructionCid ?? "" }
      : tag === "TransferInstructionResult_Completed"
        ? { receiver_holding_cids: [...(r?.output?.value?.receiverHoldingCids ?? [])] }
        : {}
  return { output, sender_change_cids: [...(r?.senderChangeCids ?? [])], meta: {} }
}

const pageOf = <A>(all: ReadonlyArray<A>, page: Api.PageRequest): { readonly items: ReadonlyArray<A>; readonly next: number | undefined } => {
  const from = page.after ?? 0
  const limit = Math.min(page.limit ?? 1000, 1000)
  const items = all.slice(from, from + limit)
  return { items, next: from + limit < all.length ? from + limit : undefined }
}

const lastIndexAtMost = (sorted: ReadonlyArray<number>, value: number): number => {
  let lo = 0
  let hi = sorted.length - 1
  let best = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! <= value) {
      best = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return best
}

const nodeIdOf = (eventId: string): number => Number(eventId.slice(eventId.lastIndexOf(":") + 1))

const NOTIFICATIONS: Record<string, string> = {
  TransferOffer_Reject: "Transfer offer rejected by the receiver",
  TransferOffer_Withdraw: "Transfer offer withdrawn by the sender",
  TransferOffer_Expire: "Transfer offer expired",
  AcceptedTransferOffer_Abort: "Accepted transfer offer aborted by the sender",
  AcceptedTransferOffer_Withdraw: "Accepted transfer offer withdrawn by the receiver",
  AcceptedTransferOffer_Expire: "Accepted transfer offer expired",
  TransferInstruction_Reject: "Token-standard transfer rejected by the receiver",
  TransferInstruction_Withdraw: "Token-standard transfer withdrawn by the sender",
  CoinTransferInstruction_Expire: "Token-standard transfer expired",
  BuyTrafficRequest_Cancel: "Buy-traffic request rejected",
  BuyTrafficRequest_Expire: "Buy-traffic request expired"
}

/** The wallet history items a transaction holds for `party`, in node order. */
export const historyItems = (update: TransactionUpdate, party: PartyId): Array<Api.TransactionItem> => {
  const items: Array<Api.TransactionItem> = []
  const byId = new Map(update.nodes.map((n) => [n.nodeId, n]))
  const parentOf = new Map<number, number>()
  for (const node of update.nodes) if (node.kind === "exercised") for (const child of node.childNodeIds) parentOf.set(child, node.nodeId)
  /** The outermost exercise a transfer ran in: what the user did (send, accept, complete, merge, ...). */
  const rootExercise = (nodeId: number): ExercisedNode => {
    let current = byId.get(nodeId) as ExercisedNode
    for (let p = parentOf.get(nodeId); p !== undefined; p = parentOf.get(p)) {
      const parent = byId.get(p)
      if (parent?.kind === "exercised") current = parent
    }
    return current
  }
  const date = toIso(update.effectiveAt)
  for (const node of update.nodes) {
    if (node.kind !== "exercised" || !node.witnesses.includes(party)) continue
    const eventId = `${update.updateId}:${node.nodeId}`
    const subtype = (n: ExercisedNode, operation?: string): Api.TransactionSubtype => ({
      template_id: n.templateId,
      choice: n.choice,
      ...(operation === undefined ? {} : { coin_operation: operation }),
      ...(n.interfaceId === undefined ? {} : { interface_id: n.interfaceId })
    })
    switch (node.choice) {
      case "CoinRules_Transfer": {
        const arg = node.choiceArgument as { transfer: { sender: string; outputs: ReadonlyArray<{ receiver: string; amount: string }> } }
        const t = arg.transfer
        const involved = t.sender === party || t.outputs.some((o) => o.receiver === party)
        if (!involved) break
        const s = (node.exerciseResult as { summary?: Record<string, string> } | null)?.summary ?? {}
        const selfOutputs = t.outputs.filter((o) => o.receiver === t.sender).reduce((n, o) => n + amountOf(o.amount), 0n)
        const senderChange = amountOf(s["senderChangeAmount"] ?? ZERO_DECIMAL) + selfOutputs - amountOf(s["inputCoinAmount"] ?? ZERO_DECIMAL)
        const root = rootExercise(node.nodeId)
        const instruction = root.choice === "TransferFactory_Transfer" || root.choice === "TransferInstruction_Accept" ? root : undefined
        const tArg = instruction?.choice === "TransferFactory_Transfer" ? (instruction.choiceArgument as { transfer?: { receiver?: string; amount?: string } }).transfer : undefined
        const instructionCid =
          instruction === undefined
            ? undefined
            : instruction.choice === "TransferInstruction_Accept"
              ? instruction.contractId
              : (instruction.exerciseResult as { output?: { value?: { transferInstructionCid?: string } } } | null)?.output?.value?.transferInstructionCid
        const description = (root.choiceArgument as { description?: string | null } | null)?.description
        items.push({
          transaction_type: "transfer",
          transaction_subtype: subtype(root, root === node ? "transfer" : undefined),
          event_id: eventId,
          date,
          sender: { party: t.sender, amount: formatAmount(senderChange) },
          receivers: t.outputs.filter((o) => o.receiver !== t.sender).map((o) => ({ party: o.receiver, amount: formatAmount(amountOf(o.amount)) })),
          holding_fees: s["holdingFees"] ?? ZERO_DECIMAL,
          app_rewards_used: s["inputAppRewardAmount"] ?? ZERO_DECIMAL,
          validator_rewards_used: s["inputValidatorRewardAmount"] ?? ZERO_DECIMAL,
          sv_rewards_used: ZERO_DECIMAL,
          development_fund_coupons_used: ZERO_DECIMAL,
          ...(tArg?.receiver === undefined ? {} : { transfer_instruction_receiver: tArg.receiver }),
          ...(tArg?.amount === undefined ? {} : { transfer_instruction_amount: tArg.amount }),
          ...(instructionCid === undefined ? {} : { transfer_instruction_cid: instructionCid }),
          ...(typeof description === "string" ? { description } : {})
        })
        break
      }
      case "CoinRules_DevNet_Tap": {
        const arg = node.choiceArgument as { receiver: string; amount: string }
        if (arg.receiver !== party) break
        items.push({ transaction_type: "balance_change", transaction_subtype: subtype(node, "tap"), event_id: eventId, date, receivers: [{ party, amount: formatAmount(amountOf(arg.amount)) }] })
        break
      }
      case "Coin_Expire":
      case "LockedCoin_ExpireCoin": {
        const r = node.exerciseResult as { expireSum?: { owner?: string; expiredAmount?: string } } | null
        if (r?.expireSum?.owner !== party) break
        items.push({
          transaction_type: "balance_change",
          transaction_subtype: subtype(node, "dust expiry"),
          event_id: eventId,
          date,
          receivers: [{ party, amount: formatAmount(-amountOf(r.expireSum.expiredAmount ?? ZERO_DECIMAL)) }]
        })
        break
      }
      default: {
        const details = NOTIFICATIONS[node.choice]
        if (details !== undefined && node.consuming) items.push({ transaction_type: "notification", transaction_subtype: subtype(node), event_id: eventId, date, details })
      }
    }
  }
  return items
}
