/**
 * The wallet's journal: every state change that is not a ledger update (users, tracking ids, the
 * lifecycle snapshots of offers, transfer instructions, buy-traffic requests and delegations, the
 * last traffic top-ups) is an event, applied by `applyWalletEvent`. Events are JSON-safe and
 * decoded with `WalletEvent`, so storage can persist them and replay them into a fresh state.
 *
 * Lifecycle snapshots are the machines' `persist` output (state name and context), stored with
 * the entity they describe; replay restores them with `restore`.
 */
import { Schema } from "effect"
import { JsonObjectSchema, invariant, type Micros } from "@sandnet/core"
import type { ArchivedLog, ArchivedLogLimits } from "../history/archived-log.ts"
import { buyTrafficRequestMachine } from "../machines/buy-traffic-request.ts"
import { finalStateNames } from "../machines/lifecycle.ts"
import { trackingIdMachine } from "../machines/tracking-id.ts"
import { transferInstructionMachine } from "../machines/transfer-instruction.ts"
import { transferOfferMachine } from "../machines/transfer-offer.ts"
import { RecordBook, type RecordBookImage } from "./record-book.ts"

/** A persisted lifecycle snapshot (lifecycle.ts `persist`). */
export const PersistedSnapshot = Schema.Struct({
  machine: Schema.String,
  version: Schema.String,
  state: Schema.String,
  context: JsonObjectSchema
})
export type PersistedSnapshot = typeof PersistedSnapshot.Type

export const TrackedKind = Schema.Literal("transferOffer", "tokenStandardTransfer", "buyTraffic")
export type TrackedKind = typeof TrackedKind.Type

export const TrackingRecord = Schema.Struct({
  kind: TrackedKind,
  party: Schema.String,
  trackingId: Schema.String,
  commandId: Schema.String,
  tracking: PersistedSnapshot
})
export type TrackingRecord = typeof TrackingRecord.Type

export const OfferFailureKind = Schema.Literal("expired", "rejected", "withdrawn")
export type OfferFailureKind = typeof OfferFailureKind.Type

export const OfferRecord = Schema.Struct({
  trackingId: Schema.String,
  sender: Schema.String,
  offer: PersistedSnapshot,
  offerContractId: Schema.String,
  createdTransactionId: Schema.String,
  acceptedContractId: Schema.NullOr(Schema.String),
  acceptedTransactionId: Schema.NullOr(Schema.String),
  /** The receiver's coin created by the completing transfer. */
  completedContractId: Schema.NullOr(Schema.String),
  completedTransactionId: Schema.NullOr(Schema.String),
  failureKind: Schema.NullOr(OfferFailureKind),
  withdrawnReason: Schema.NullOr(Schema.String)
})
export type OfferRecord = typeof OfferRecord.Type

export const InstructionRecord = Schema.Struct({
  trackingId: Schema.String,
  sender: Schema.String,
  instruction: PersistedSnapshot,
  createdTransactionId: Schema.String,
  finalTransactionId: Schema.NullOr(Schema.String),
  receiverHoldingCids: Schema.Array(Schema.String)
})
export type InstructionRecord = typeof InstructionRecord.Type

export const BuyTrafficRecord = Schema.Struct({
  trackingId: Schema.String,
  party: Schema.String,
  request: PersistedSnapshot,
  requestContractId: Schema.String,
  completedTransactionId: Schema.NullOr(Schema.String)
})
export type BuyTrafficRecord = typeof BuyTrafficRecord.Type

export const DelegationRecord = Schema.Struct({ contractId: Schema.String, delegation: PersistedSnapshot })
export type DelegationRecord = typeof DelegationRecord.Type

export const WalletEvent = Schema.Union(
  Schema.TaggedStruct("UserOnboarded", { user: Schema.String, party: Schema.String, at: Schema.Number }),
  Schema.TaggedStruct("UserOffboarded", { user: Schema.String, at: Schema.Number }),
  Schema.TaggedStruct("TrackingIdChanged", { key: Schema.String, record: TrackingRecord }),
  Schema.TaggedStruct("OfferChanged", { key: Schema.String, record: OfferRecord }),
  Schema.TaggedStruct("InstructionChanged", { key: Schema.String, record: InstructionRecord }),
  Schema.TaggedStruct("BuyTrafficChanged", { key: Schema.String, record: BuyTrafficRecord }),
  /** Keyed by the proposal's contract id (the delegation's identity across its lifecycle). */
  Schema.TaggedStruct("MergeDelegationChanged", { owner: Schema.String, record: DelegationRecord }),
  Schema.TaggedStruct("MintingDelegationChanged", { proposalContractId: Schema.String, record: DelegationRecord }),
  Schema.TaggedStruct("TopupRecorded", { synchronizerId: Schema.String, at: Schema.Number })
)
export type WalletEvent = typeof WalletEvent.Type

const walletEventTagRecord: Record<WalletEvent["_tag"], true> = {
  UserOnboarded: true,
  UserOffboarded: true,
  TrackingIdChanged: true,
  OfferChanged: true,
  InstructionChanged: true,
  BuyTrafficChanged: true,
  MergeDelegationChanged: true,
  MintingDelegationChanged: true,
  TopupRecorded: true
}

/**
 * Whether a stored journal event is one of the wallet's events, by its tag: what replay checks of
 * the wallet journals it reads back. They were written by `Schema.encodeSync(WalletEvent)`, whose
 * encoded form is the event itself (no transformations), so replay takes them as written, as it
 * does the participants' events; a full `WalletEvent` decode cost 155 of a 229 ms replay
 * (`node --cpu-prof` of a restart after 2,000 W1 offers: the recursive JSON check of the lifecycle
 * snapshots' contexts).
 */
export const isWalletEventTagged = (event: unknown): event is WalletEvent =>
  typeof event === "object" && event !== null && Object.hasOwn(walletEventTagRecord, (event as { _tag?: unknown })._tag as string)

/** `<party>|<kind>|<tracking id>`: tracking ids are unique per user and kind of request. */
export const trackingKey = (party: string, kind: TrackedKind, trackingId: string): string => `${party}|${kind}|${trackingId}`

const TRACKING_FINAL: ReadonlySet<string> = new Set(finalStateNames(trackingIdMachine))
const OFFER_FINAL: ReadonlySet<string> = new Set(finalStateNames(transferOfferMachine))
const INSTRUCTION_FINAL: ReadonlySet<string> = new Set(finalStateNames(transferInstructionMachine))
const BUY_TRAFFIC_FINAL: ReadonlySet<string> = new Set(finalStateNames(buyTrafficRequestMachine))

/**
 * The wallet's journaled state; everything else it knows is derived from the ledger. Records of
 * finished lifecycles are archived as `historyLimits` say (record-book.ts): a serving node's
 * ticks archive them with its history (`historyLogsOf`), a simulation keeps them as objects.
 */
export class WalletState {
  readonly users = new Map<string, { readonly party: string; readonly onboardedAt: Micros }>()
  readonly userOfParty = new Map<string, string>()
  readonly tracking: RecordBook<TrackingRecord>
  /** Command id of a tracked submission -> tracking key. */
  readonly trackingByCommand = new Map<string, string>()
  readonly offers: RecordBook<OfferRecord>
  /** Offer or accepted-offer contract id -> offer key. */
  readonly offerByContract = new Map<string, string>()
  readonly instructions: RecordBook<InstructionRecord>
  /** Instruction contract id -> instruction key. */
  readonly instructionByContract = new Map<string, string>()
  readonly buyTraffic: RecordBook<BuyTrafficRecord>
  readonly buyTrafficByContract = new Map<string, string>()
  readonly mergeDelegations = new Map<string, DelegationRecord>()
  readonly mintingDelegations = new Map<string, DelegationRecord>()
  readonly lastTopup = new Map<string, Micros>()

  constructor(historyLimits?: ArchivedLogLimits) {
    this.tracking = new RecordBook((r) => TRACKING_FINAL.has(r.tracking.state), historyLimits)
    this.offers = new RecordBook((r) => OFFER_FINAL.has(r.offer.state), historyLimits)
    this.instructions = new RecordBook((r) => INSTRUCTION_FINAL.has(r.instruction.state), historyLimits)
    this.buyTraffic = new RecordBook((r) => BUY_TRAFFIC_FINAL.has(r.request.state), historyLimits)
  }

  /** The archived logs of finished records, for a serving node's ticks to archive. */
  finishedLogs(): ReadonlyArray<ArchivedLog<unknown>> {
    return [this.tracking.finished, this.offers.finished, this.instructions.finished, this.buyTraffic.finished]
  }
}

/** The wallet's journaled state as data (an engine checkpoint's part): every map in its order. */
export interface WalletStateImage {
  readonly users: ReadonlyArray<readonly [string, { readonly party: string; readonly onboardedAt: Micros }]>
  readonly userOfParty: ReadonlyArray<readonly [string, string]>
  readonly tracking: RecordBookImage<TrackingRecord>
  readonly trackingByCommand: ReadonlyArray<readonly [string, string]>
  readonly offers: RecordBookImage<OfferRecord>
  readonly offerByContract: ReadonlyArray<readonly [string, string]>
  readonly instructions: RecordBookImage<InstructionRecord>
  readonly instructionByContract: ReadonlyArray<readonly [string, string]>
  readonly buyTraffic: RecordBookImage<BuyTrafficRecord>
  readonly buyTrafficByContract: ReadonlyArray<readonly [string, string]>
  readonly mergeDelegations: ReadonlyArray<readonly [string, DelegationRecord]>
  readonly mintingDelegations: ReadonlyArray<readonly [string, DelegationRecord]>
  readonly lastTopup: ReadonlyArray<readonly [string, Micros]>
}

export const walletStateImage = (state: WalletState): WalletStateImage => ({
  users: [...state.users],
  userOfParty: [...state.userOfParty],
  tracking: state.tracking.image(),
  trackingByCommand: [...state.trackingByCommand],
  offers: state.offers.image(),
  offerByContract: [...state.offerByContract],
  instructions: state.instructions.image(),
  instructionByContract: [...state.instructionByContract],
  buyTraffic: state.buyTraffic.image(),
  buyTrafficByContract: [...state.buyTrafficByContract],
  mergeDelegations: [...state.mergeDelegations],
  mintingDelegations: [...state.mintingDelegations],
  lastTopup: [...state.lastTopup]
})

/** Takes an image into a state with nothing applied: then it is the state the same events fold to. */
export const restoreWalletState = (state: WalletState, image: WalletStateImage): void => {
  invariant(state.users.size === 0 && state.tracking.size === 0 && state.offers.size === 0, "a wallet state takes an image only when nothing was applied")
  const fill = <V>(map: Map<string, V>, entries: ReadonlyArray<readonly [string, V]>) => {
    for (const [key, value] of entries) map.set(key, value)
  }
  fill(state.users, image.users)
  fill(state.userOfParty, image.userOfParty)
  state.tracking.restore(image.tracking)
  fill(state.trackingByCommand, image.trackingByCommand)
  state.offers.restore(image.offers)
  fill(state.offerByContract, image.offerByContract)
  state.instructions.restore(image.instructions)
  fill(state.instructionByContract, image.instructionByContract)
  state.buyTraffic.restore(image.buyTraffic)
  fill(state.buyTrafficByContract, image.buyTrafficByContract)
  fill(state.mergeDelegations, image.mergeDelegations)
  fill(state.mintingDelegations, image.mintingDelegations)
  fill(state.lastTopup, image.lastTopup)
}

/**
 * Points `index`'s entries for `ids` at `key` while `underWay`, else drops the ones pointing at it.
 * Whether a lifecycle is under way is what its record book says as it files the record.
 */
const follow = (index: Map<string, string>, ids: ReadonlyArray<string | null>, key: string, underWay: boolean): void => {
  for (const id of ids) {
    if (id === null) continue
    if (underWay) index.set(id, key)
    else if (index.get(id) === key) index.delete(id)
  }
}

/** The fold: applies one event to the state. */
export const applyWalletEvent = (state: WalletState, event: WalletEvent): void => {
  switch (event._tag) {
    case "UserOnboarded": {
      const existing = state.users.get(event.user)
      invariant(existing === undefined || existing.party === event.party, () => `user ${event.user} re-onboarded with another party`)
      state.users.set(event.user, { party: event.party, onboardedAt: event.at })
      state.userOfParty.set(event.party, event.user)
      break
    }
    case "UserOffboarded": {
      const existing = state.users.get(event.user)
      if (existing !== undefined) {
        state.users.delete(event.user)
        if (state.userOfParty.get(existing.party) === event.user) state.userOfParty.delete(existing.party)
      }
      break
    }
    // The indexes by command and by contract serve what is still under way: a completion steps only
    // a tracking id in progress, and a finished lifecycle's contracts are archived. Once finished
    // they are dropped (about 170 bytes per transaction of a 5-minute soak otherwise); the records stay.
    case "TrackingIdChanged":
      state.tracking.set(event.key, event.record)
      follow(state.trackingByCommand, [event.record.commandId], event.key, event.record.tracking.state === "inProgress")
      break
    case "OfferChanged":
      follow(state.offerByContract, [event.record.offerContractId, event.record.acceptedContractId], event.key, !state.offers.set(event.key, event.record))
      break
    case "InstructionChanged":
      follow(state.instructionByContract, [String(event.record.instruction.context["instructionId"])], event.key, !state.instructions.set(event.key, event.record))
      break
    case "BuyTrafficChanged":
      follow(state.buyTrafficByContract, [event.record.requestContractId], event.key, !state.buyTraffic.set(event.key, event.record))
      break
    case "MergeDelegationChanged":
      state.mergeDelegations.set(event.owner, event.record)
      break
    case "MintingDelegationChanged":
      state.mintingDelegations.set(event.proposalContractId, event.record)
      break
    case "TopupRecorded": {
      const previous = state.lastTopup.get(event.synchronizerId) ?? 0
      invariant(event.at >= previous, "top-up times only increase")
      state.lastTopup.set(event.synchronizerId, event.at)
      break
    }
  }
}

/** Rebuilds a state from a stored journal. */
export const replayWalletJournal = (events: Iterable<WalletEvent>, historyLimits?: ArchivedLogLimits): WalletState => {
  const state = new WalletState(historyLimits)
  for (const event of events) applyWalletEvent(state, event)
  return state
}
