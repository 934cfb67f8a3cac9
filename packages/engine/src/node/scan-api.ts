/**
 * Scan reads: pure functions over a super validator's ScanStore and its participant's ACS that
 * render what the scan and registry surfaces serve. Nothing here changes the ledger; the only
 * state kept is memoised, deterministic indexes derived from the scan's ingested updates (vote
 * results, ACS snapshots), caught up on each read.
 *
 * Renderings follow Splice's scan (splice-scan.yaml):
 * - update history items: `v1` event ids are `<update id>:<n>` with n the node's index in a
 *   pre-order walk of the (DSO-projected) tree, so they agree across super validators; `v0` event
 *   ids are `#<update id>:<node id>` with the node ids of the participant's tree (Canton's event
 *   ids before 3.3). Reassignments: the created event of an assignment is node 0.
 * - values: `compact_json` is the payload as stored; `protobuf_json` is the typed encoding of
 *   core's `toProtobufJson`, driven by the template's payload Schema (and a choice's argument
 *   Schema); values without a known Schema (exercise results) are typed from their JSON shape.
 * - contracts: `created_event_blob` is the ledger API's created-event blob (LedgerApi.createdEventBlob),
 *   the same in the registry's disclosed contracts, so clients pass it back to the ledger unchanged.
 * - ACS snapshots (bulk download): see `acsSnapshotAtOrBefore`.
 */
import { Either, Schema } from "effect"
import { gzipSync } from "fflate"
import {
  ContractNotActive,
  InvalidArgument,
  canonicalJson,
  formatAmount,
  formatScanOffset,
  parseIso,
  sha256Hex,
  toIso,
  toProtobufJson,
  uidWithoutPrefix,
  MICROS_PER_HOUR,
  type ActiveContract,
  type AppActivityRecords,
  type CommittedLedgerUpdate,
  type ContractId,
  type CreatedNode,
  type ExercisedNode,
  type Json,
  type JsonObject,
  type Micros,
  type PartyId,
  type ReassignmentUpdate,
  type TrafficSummary,
  type TransactionUpdate,
  type TxNode,
  type Verdict
} from "@sandnet/core"
import { COIN_INSTRUMENT, currentAmount, type CoinPayload, type LockedCoinPayload } from "../coin/coin.ts"
import { ContextKeys } from "../coin/instruction.ts"
import type { InFlightContract } from "../ledger/acs.ts"
import { createdEventBlob } from "./ledger-api.ts"
import type { Template, TemplateRegistry } from "../ledger/template.ts"
import type { ParticipantLogic } from "../participant/index.ts"
import type { ScanStore } from "./scan.ts"

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** No update with this id was ingested by the scan. */
export class UpdateNotFound extends Schema.TaggedError<UpdateNotFound>()("UpdateNotFound", {
  updateId: Schema.String
}) {
  get code(): string {
    return "UPDATE_NOT_FOUND"
  }
  override get message() {
    return `update ${this.updateId} not found`
  }
}

/** The DSO has no active contract of a template the request needs (rules, open round). */
export class DsoContractNotFound extends Schema.TaggedError<DsoContractNotFound>()("DsoContractNotFound", {
  template: Schema.String
}) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `no active ${this.template} contract of the DSO`
  }
}

export class TransferPreapprovalNotFound extends Schema.TaggedError<TransferPreapprovalNotFound>()(
  "TransferPreapprovalNotFound",
  { party: Schema.String }
) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `no TransferPreapproval for receiver ${this.party}`
  }
}

export class VoteRequestNotFound extends Schema.TaggedError<VoteRequestNotFound>()("VoteRequestNotFound", {
  contractId: Schema.String
}) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `VoteRequest ${this.contractId} not found`
  }
}

export class TransferInstructionNotFound extends Schema.TaggedError<TransferInstructionNotFound>()(
  "TransferInstructionNotFound",
  { contractId: Schema.String }
) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `transfer instruction ${this.contractId} not found`
  }
}

/** Accepting needs the locked holding; it is gone once the lock expired and was released. */
export class LockedHoldingNotFound extends Schema.TaggedError<LockedHoldingNotFound>()("LockedHoldingNotFound", {
  contractId: Schema.String,
  instructionId: Schema.String,
  expiresAt: Schema.String
}) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `locked holding ${this.contractId} of transfer instruction ${this.instructionId} not found (the lock expires at ${this.expiresAt})`
  }
}

export class AcsSnapshotNotFound extends Schema.TaggedError<AcsSnapshotNotFound>()("AcsSnapshotNotFound", {
  atOrBefore: Schema.String
}) {
  get code(): string {
    return "ACS_SNAPSHOT_NOT_FOUND"
  }
  override get message() {
    return `no ACS snapshot at or before ${this.atOrBefore}`
  }
}

export class BulkObjectNotFound extends Schema.TaggedError<BulkObjectNotFound>()("BulkObjectNotFound", {
  name: Schema.String
}) {
  get code(): string {
    return "BULK_OBJECT_NOT_FOUND"
  }
  override get message() {
    return `bulk storage object ${this.name} not found`
  }
}

export class InstrumentNotFound extends Schema.TaggedError<InstrumentNotFound>()("InstrumentNotFound", {
  instrumentId: Schema.String
}) {
  get code(): string {
    return "INSTRUMENT_NOT_FOUND"
  }
  override get message() {
    return `instrument ${this.instrumentId} not found`
  }
}

/** Everything a scan or registry read fails with that is not a core error. */
export type ScanReadError =
  | UpdateNotFound
  | DsoContractNotFound
  | TransferPreapprovalNotFound
  | VoteRequestNotFound
  | TransferInstructionNotFound
  | LockedHoldingNotFound
  | AcsSnapshotNotFound
  | BulkObjectNotFound
  | InstrumentNotFound

const ok = Either.right
const err = Either.left

// ---------------------------------------------------------------------------------------------
// Template references
// ---------------------------------------------------------------------------------------------

/** Package-name references of the templates the scan serves. */
export const ScanTemplates = {
  coinRules: "#splice-coin:Splice.CoinRules:CoinRules",
  openMiningRound: "#splice-coin:Splice.Round:OpenMiningRound",
  transferPreapproval: "#splice-coin:Splice.CoinRules:TransferPreapproval",
  externalPartyCoinRules: "#splice-coin:Splice.ExternalPartyCoinRules:ExternalPartyCoinRules",
  featuredAppRight: "#splice-coin:Splice.Coin:FeaturedAppRight",
  coin: "#splice-coin:Splice.Coin:Coin",
  lockedCoin: "#splice-coin:Splice.Coin:LockedCoin",
  coinTransferInstruction: "#splice-coin:Splice.CoinTransferInstruction:CoinTransferInstruction",
  ansRules: "#splice-coin-name-service:Splice.Ans:AnsRules",
  dsoRules: "#splice-dso-governance:Splice.DsoRules:DsoRules",
  voteRequest: "#splice-dso-governance:Splice.DsoRules:VoteRequest"
} as const

/** The token standard's TransferInstruction interface, by module and entity. */
const TRANSFER_INSTRUCTION_INTERFACE = ":Splice.Api.Token.TransferInstructionV1:TransferInstruction"
const CLOSE_VOTE_REQUEST = "DsoRules_CloseVoteRequest"

/** `#<package name>:<module>:<entity>` of a package-id template id. */
export const nameReferenceOf = (templateId: string, packageName: string): string =>
  `#${packageName}:${templateId.slice(templateId.indexOf(":") + 1)}`

const isTemplate = (created: CreatedNode, reference: string): boolean =>
  nameReferenceOf(created.templateId, created.packageName) === reference

/** Every template id (all package versions) registered under a package-name reference. */
const templateIdsOf = (registry: TemplateRegistry, reference: string): ReadonlyArray<string> =>
  registry
    .all()
    .filter((t) => t.nameReference === reference)
    .map((t) => t.templateId)

// ---------------------------------------------------------------------------------------------
// Values: compact and protobuf JSON
// ---------------------------------------------------------------------------------------------

export type ValueEncoding = "compact_json" | "protobuf_json"

/** The typed protobuf JSON of a value whose Schema is unknown, from the shape of its JSON. */
export const untypedProtobufJson = (value: Json): Json => {
  if (value === null) return { optional: {} }
  if (typeof value === "string") return { text: value }
  if (typeof value === "number") return { int64: String(value) }
  if (typeof value === "boolean") return { bool: value }
  if (Array.isArray(value)) return { list: { elements: value.map(untypedProtobufJson) } }
  const record = value as JsonObject
  return { record: { fields: Object.keys(record).map((label) => ({ label, value: untypedProtobufJson(record[label] ?? null) })) } }
}

const encodeWith = (schema: Schema.Schema.Any | undefined, value: Json, encoding: ValueEncoding): Json =>
  encoding === "compact_json" ? value : schema === undefined ? untypedProtobufJson(value) : toProtobufJson(schema, value)

const templateOf = (registry: TemplateRegistry, templateId: string): Template<unknown> | undefined => registry.lookup(templateId)

const encodePayload = (registry: TemplateRegistry, created: CreatedNode, encoding: ValueEncoding): Json =>
  encodeWith(templateOf(registry, created.templateId)?.payload as Schema.Schema.Any | undefined, created.createArguments, encoding)

const encodeChoiceArgument = (registry: TemplateRegistry, node: ExercisedNode, encoding: ValueEncoding): Json =>
  encodeWith(
    templateOf(registry, node.templateId)?.choices.get(node.choice)?.argument as Schema.Schema.Any | undefined,
    node.choiceArgument,
    encoding
  )

// ---------------------------------------------------------------------------------------------
// Update history items
// ---------------------------------------------------------------------------------------------

export interface CreatedEventJson {
  readonly event_type: "created_event"
  readonly event_id: string
  readonly contract_id: string
  readonly template_id: string
  readonly package_name: string
  readonly create_arguments: Json
  readonly created_at: string
  readonly signatories: ReadonlyArray<string>
  readonly observers: ReadonlyArray<string>
}

export interface ExercisedEventJson {
  readonly event_type: "exercised_event"
  readonly event_id: string
  readonly contract_id: string
  readonly template_id: string
  readonly package_name: string
  readonly choice: string
  readonly choice_argument: Json
  readonly child_event_ids: ReadonlyArray<string>
  readonly exercise_result: Json
  readonly consuming: boolean
  readonly acting_parties: ReadonlyArray<string>
  readonly interface_id?: string
}

export type TreeEventJson = CreatedEventJson | ExercisedEventJson

export interface UpdateHistoryTransactionV2Json {
  readonly update_id: string
  readonly migration_id: number
  readonly workflow_id: string
  readonly record_time: string
  readonly synchronizer_id: string
  readonly effective_at: string
  readonly root_event_ids: ReadonlyArray<string>
  readonly events_by_id: { readonly [eventId: string]: TreeEventJson }
  readonly external_transaction_hash?: string
}

export interface UpdateHistoryTransactionJson extends UpdateHistoryTransactionV2Json {
  readonly offset: string
}

export interface UpdateHistoryAssignmentJson {
  readonly submitter: string
  readonly source_synchronizer: string
  readonly target_synchronizer: string
  readonly migration_id: number
  readonly unassign_id: string
  readonly created_event: CreatedEventJson
  readonly reassignment_counter: number
}

export interface UpdateHistoryUnassignmentJson {
  readonly submitter: string
  readonly source_synchronizer: string
  readonly migration_id: number
  readonly target_synchronizer: string
  readonly unassign_id: string
  readonly reassignment_counter: number
  readonly contract_id: string
}

export interface UpdateHistoryReassignmentJson {
  readonly update_id: string
  readonly offset: string
  readonly record_time: string
  readonly event: UpdateHistoryAssignmentJson | UpdateHistoryUnassignmentJson
}

export type UpdateHistoryItemJson = UpdateHistoryTransactionJson | UpdateHistoryReassignmentJson
export type UpdateHistoryItemV2Json = UpdateHistoryTransactionV2Json | UpdateHistoryReassignmentJson

/** v0: `#<update id>:<node id>` (participant node ids); v1: `<update id>:<pre-order index>`. */
export type EventIdStyle = "v0" | "v1"

export interface RenderOptions {
  readonly registry: TemplateRegistry
  readonly encoding: ValueEncoding
}

const sorted = (parties: ReadonlyArray<string>): ReadonlyArray<string> => [...parties].sort()

const renderCreated = (node: CreatedNode, eventId: string, options: RenderOptions): CreatedEventJson => ({
  event_type: "created_event",
  event_id: eventId,
  contract_id: node.contractId,
  template_id: node.templateId,
  package_name: node.packageName,
  create_arguments: encodePayload(options.registry, node, options.encoding),
  created_at: toIso(node.createdAt),
  signatories: sorted(node.signatories),
  observers: sorted(node.observers)
})

/** Event ids of a transaction's nodes in the given style. */
export const eventIdsOf = (update: TransactionUpdate, style: EventIdStyle): ReadonlyMap<number, string> => {
  const ids = new Map<number, string>()
  if (style === "v0") {
    for (const node of update.nodes) ids.set(node.nodeId, `#${update.updateId}:${node.nodeId}`)
    return ids
  }
  const byId = new Map<number, TxNode>(update.nodes.map((n) => [n.nodeId, n]))
  // Pre-order walk from the roots: the same numbering on every node that sees the same tree.
  const stack = [...update.rootNodeIds].reverse()
  while (stack.length > 0) {
    const nodeId = stack.pop()!
    const node = byId.get(nodeId)
    if (node === undefined || ids.has(nodeId)) continue
    ids.set(nodeId, `${update.updateId}:${ids.size}`)
    if (node.kind === "exercised") for (let i = node.childNodeIds.length - 1; i >= 0; i--) stack.push(node.childNodeIds[i]!)
  }
  return ids
}

const renderTransactionBody = (
  update: TransactionUpdate,
  style: EventIdStyle,
  sortIds: boolean,
  options: RenderOptions
): Omit<UpdateHistoryTransactionV2Json, "update_id" | "migration_id" | "workflow_id" | "record_time" | "synchronizer_id" | "effective_at"> => {
  const ids = eventIdsOf(update, style)
  const idOf = (nodeId: number): string => ids.get(nodeId) ?? `${style === "v0" ? "#" : ""}${update.updateId}:${nodeId}`
  const events: Array<readonly [string, TreeEventJson]> = []
  for (const node of update.nodes) {
    const eventId = idOf(node.nodeId)
    if (node.kind === "created") {
      events.push([eventId, renderCreated(node, eventId, options)])
    } else {
      events.push([
        eventId,
        {
          event_type: "exercised_event",
          event_id: eventId,
          contract_id: node.contractId,
          template_id: node.templateId,
          package_name: node.packageName,
          choice: node.choice,
          choice_argument: encodeChoiceArgument(options.registry, node, options.encoding),
          child_event_ids: node.childNodeIds.map(idOf),
          exercise_result: encodeWith(undefined, node.exerciseResult, options.encoding),
          consuming: node.consuming,
          acting_parties: sorted(node.actingParties),
          ...(node.interfaceId === undefined ? {} : { interface_id: node.interfaceId })
        }
      ])
    }
  }
  // v1: in the order of the walk (the order is not defined); v2: sorted lexicographically by id.
  const ordered = sortIds
    ? [...events].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    : [...events].sort(([a], [b]) => eventIndex(a) - eventIndex(b))
  const eventsById: Record<string, TreeEventJson> = {}
  for (const [id, event] of ordered) eventsById[id] = event
  return { root_event_ids: update.rootNodeIds.map(idOf), events_by_id: eventsById }
}

const eventIndex = (eventId: string): number => Number(eventId.slice(eventId.lastIndexOf(":") + 1))

const transactionHeader = (update: TransactionUpdate) => ({
  update_id: update.updateId,
  migration_id: update.migrationId,
  workflow_id: update.workflowId,
  record_time: toIso(update.recordTime),
  synchronizer_id: update.synchronizerId,
  effective_at: toIso(update.effectiveAt)
})

const renderReassignment = (update: ReassignmentUpdate, offset: number, style: EventIdStyle, options: RenderOptions): UpdateHistoryReassignmentJson => {
  const event = update.event
  return {
    update_id: update.updateId,
    offset: formatScanOffset(offset),
    record_time: toIso(update.recordTime),
    event:
      event.kind === "assign"
        ? {
            submitter: update.submitter,
            source_synchronizer: event.sourceSynchronizer,
            target_synchronizer: event.targetSynchronizer,
            migration_id: event.migrationId,
            unassign_id: event.unassignId,
            created_event: renderCreated(event.createdEvent, `${style === "v0" ? "#" : ""}${update.updateId}:0`, options),
            reassignment_counter: event.reassignmentCounter
          }
        : {
            submitter: update.submitter,
            source_synchronizer: event.sourceSynchronizer,
            migration_id: event.migrationId,
            target_synchronizer: event.targetSynchronizer,
            unassign_id: event.unassignId,
            reassignment_counter: event.reassignmentCounter,
            contract_id: event.contractId
          }
  }
}

/** An update as /v0/updates (style v0) and /v1/updates (style v1) render it, with the scan's offset. */
export const renderUpdate = (entry: CommittedLedgerUpdate, style: EventIdStyle, options: RenderOptions): UpdateHistoryItemJson => {
  const update = entry.update
  if (update.kind === "reassignment") return renderReassignment(update, entry.offset, style, options)
  return {
    ...transactionHeader(update),
    offset: formatScanOffset(entry.offset),
    ...renderTransactionBody(update, style, false, options),
    ...(update.externalTransactionHash === undefined ? {} : { external_transaction_hash: update.externalTransactionHash })
  }
}

/** An update as the events endpoint renders it (UpdateHistoryTransactionV2: no offset, sorted ids). */
export const renderUpdateV2 = (entry: CommittedLedgerUpdate, options: RenderOptions): UpdateHistoryItemV2Json => {
  const update = entry.update
  if (update.kind === "reassignment") return renderReassignment(update, entry.offset, "v1", options)
  return {
    ...transactionHeader(update),
    ...renderTransactionBody(update, "v1", true, options),
    ...(update.externalTransactionHash === undefined ? {} : { external_transaction_hash: update.externalTransactionHash })
  }
}

/** Looks an update up in the scan and renders it. */
export const updateById = (scan: ScanStore, updateId: string, style: EventIdStyle, options: RenderOptions): Either.Either<UpdateHistoryItemJson, UpdateNotFound> => {
  const entry = scan.updateById(updateId)
  return entry === undefined ? err(new UpdateNotFound({ updateId })) : ok(renderUpdate(entry, style, options))
}

// ---------------------------------------------------------------------------------------------
// Events: update, verdict, traffic summary, app activity records
// ---------------------------------------------------------------------------------------------

export interface VerdictJson {
  readonly update_id: string
  readonly migration_id: number
  readonly domain_id: string
  readonly record_time: string
  readonly finalization_time: string
  readonly submitting_parties: ReadonlyArray<string>
  readonly submitting_participant_uid: string
  readonly verdict_result: Verdict["result"]
  readonly mediator_group: number
  readonly transaction_views: {
    readonly views: ReadonlyArray<{
      readonly view_id: number
      readonly informees: ReadonlyArray<string>
      readonly confirming_parties: ReadonlyArray<{ readonly parties: ReadonlyArray<string>; readonly threshold: number }>
      readonly sub_views: ReadonlyArray<number>
      readonly view_hash: string
    }>
    readonly root_views: ReadonlyArray<number>
  }
}

export interface TrafficSummaryJson {
  readonly total_traffic_cost: number
  readonly envelope_traffic_summaries: ReadonlyArray<{ readonly traffic_cost: number; readonly view_ids: ReadonlyArray<number> }>
}

export interface AppActivityRecordsJson {
  readonly round_number: number
  readonly records: ReadonlyArray<{ readonly party: string; readonly weight: number }>
}

export interface EventHistoryItemJson {
  readonly update?: UpdateHistoryItemV2Json
  readonly verdict?: VerdictJson
  readonly traffic_summary?: TrafficSummaryJson
  readonly app_activity_records?: AppActivityRecordsJson
}

export const renderVerdict = (verdict: Verdict): VerdictJson => ({
  update_id: verdict.updateId,
  migration_id: verdict.migrationId,
  domain_id: verdict.synchronizerId,
  record_time: toIso(verdict.recordTime),
  finalization_time: toIso(verdict.finalizationTime),
  submitting_parties: [...verdict.submittingParties],
  submitting_participant_uid: uidWithoutPrefix(verdict.submittingParticipantUid),
  verdict_result: verdict.result,
  mediator_group: verdict.mediatorGroup,
  transaction_views: {
    views: [...verdict.views]
      .sort((a, b) => a.viewId - b.viewId)
      .map((v) => ({
        view_id: v.viewId,
        informees: [...v.informees],
        confirming_parties: v.confirmingParties.map((q) => ({ parties: [...q.parties], threshold: q.threshold })),
        sub_views: [...v.subViews],
        view_hash: v.viewHash
      })),
    root_views: [...verdict.rootViews]
  }
})

export const renderTrafficSummary = (summary: TrafficSummary): TrafficSummaryJson => ({
  total_traffic_cost: summary.totalTrafficCost,
  envelope_traffic_summaries: summary.envelopes.map((e) => ({ traffic_cost: e.trafficCost, view_ids: [...e.viewIds] }))
})

export const renderAppActivityRecords = (records: AppActivityRecords): AppActivityRecordsJson => ({
  round_number: records.roundNumber,
  records: records.records.map((r) => ({ party: r.party, weight: r.weight }))
})

/**
 * The event of an update id: its update (if the DSO saw it), the first verdict ingested (not for
 * reassignments, which have none in Splice), the verdict's traffic summary and the app activity
 * records. A rejected or wholly private transaction has only its verdict.
 */
export const eventById = (scan: ScanStore, updateId: string, options: RenderOptions): Either.Either<EventHistoryItemJson, UpdateNotFound> => {
  const entry = scan.updateById(updateId)
  const verdict = scan.verdictOf(updateId)
  if (entry === undefined && verdict === undefined) return err(new UpdateNotFound({ updateId }))
  const withVerdict = verdict !== undefined && (entry === undefined || entry.update.kind === "transaction")
  const activity = scan.appActivityOf(updateId)
  return ok({
    ...(entry === undefined ? {} : { update: renderUpdateV2(entry, options) }),
    ...(withVerdict ? { verdict: renderVerdict(verdict.verdict), traffic_summary: renderTrafficSummary(verdict.trafficSummary) } : {}),
    ...(activity === undefined ? {} : { app_activity_records: renderAppActivityRecords(activity) })
  })
}

// ---------------------------------------------------------------------------------------------
// Contracts
// ---------------------------------------------------------------------------------------------

export interface ContractJson {
  readonly template_id: string
  readonly contract_id: string
  readonly payload: Json
  readonly created_event_blob: string
  readonly created_at: string
}

export interface ContractWithStateJson {
  readonly contract: ContractJson
  /** The contract's current synchronizer; absent while it is being reassigned. */
  readonly domain_id?: string
}

export interface MaybeCachedContractWithStateJson {
  readonly contract?: ContractJson
  readonly domain_id?: string
}

/**
 * A contract as scan serves it. `created_event_blob` is the ledger API's created-event blob
 * (LedgerApi.createdEventBlob: base64 of canonical JSON), so a client can pass it back unchanged
 * as a disclosed contract.
 */
export const renderContract = (contract: ActiveContract): ContractJson => ({
  template_id: contract.created.templateId,
  contract_id: contract.created.contractId,
  payload: contract.created.createArguments,
  created_event_blob: createdEventBlob(contract),
  created_at: toIso(contract.created.createdAt)
})

/** A contract the DSO's node knows: active on a synchronizer, or in flight between two. */
export type KnownContract =
  | { readonly _tag: "active"; readonly contract: ActiveContract }
  | { readonly _tag: "inFlight"; readonly entry: InFlightContract }

const activeOf = (known: KnownContract): ActiveContract => (known._tag === "active" ? known.contract : known.entry.contract)
const createdOf = (known: KnownContract): CreatedNode => activeOf(known).created

const withState = (known: KnownContract): ContractWithStateJson => ({
  contract: renderContract(activeOf(known)),
  ...(known._tag === "active" ? { domain_id: known.contract.synchronizerId } : {})
})

const knownContract = (logic: ParticipantLogic, contractId: ContractId): KnownContract | undefined => {
  const active = logic.acs.get(contractId)
  if (active !== undefined) return { _tag: "active", contract: active }
  const entry = logic.acs.inFlightOf(contractId)
  return entry === undefined ? undefined : { _tag: "inFlight", entry }
}

/** Contracts of a template (every package version) where `party` is a stakeholder, active and in flight. */
const contractsOf = (logic: ParticipantLogic, registry: TemplateRegistry, reference: string, party: PartyId): ReadonlyArray<KnownContract> => {
  const out: Array<KnownContract> = []
  for (const templateId of templateIdsOf(registry, reference)) {
    for (const contract of logic.acs.ofTemplate(templateId, party)) out.push({ _tag: "active", contract })
  }
  for (const entry of logic.acs.inFlightContracts()) {
    const created = entry.contract.created
    if (isTemplate(created, reference) && (created.signatories.includes(party) || created.observers.includes(party))) out.push({ _tag: "inFlight", entry })
  }
  return out
}

/** The newest of several contracts (latest creation; ties: the later one in ACS order). */
const newest = (contracts: ReadonlyArray<KnownContract>): KnownContract | undefined => {
  let best: KnownContract | undefined
  for (const c of contracts) if (best === undefined || createdOf(c).createdAt >= createdOf(best).createdAt) best = c
  return best
}

/** The DSO's current contract of a rules template (ExternalPartyCoinRules, AnsRules). */
export const currentDsoContract = (
  logic: ParticipantLogic,
  registry: TemplateRegistry,
  dso: PartyId,
  reference: string
): KnownContract | undefined => newest(contractsOf(logic, registry, reference, dso))

/**
 * The current rules contract with the scan's caching semantics: `contract` is omitted when the
 * caller's cached contract id is the current one; `domain_id` always says where the contract is
 * now (absent while it is being reassigned).
 */
export const maybeCachedRules = (
  logic: ParticipantLogic,
  registry: TemplateRegistry,
  dso: PartyId,
  reference: string,
  cachedContractId: string | undefined
): Either.Either<MaybeCachedContractWithStateJson, DsoContractNotFound> => {
  const current = currentDsoContract(logic, registry, dso, reference)
  if (current === undefined) return err(new DsoContractNotFound({ template: entityOf(reference) }))
  const state = withState(current)
  return ok(createdOf(current).contractId === cachedContractId ? (state.domain_id === undefined ? {} : { domain_id: state.domain_id }) : state)
}

const entityOf = (reference: string): string => reference.slice(reference.lastIndexOf(":") + 1)

const payloadField = (created: CreatedNode, field: string): Json | undefined => created.createArguments[field]

/** S6: the TransferPreapproval whose receiver is `party` (the newest, if several). */
export const transferPreapprovalByParty = (
  logic: ParticipantLogic,
  registry: TemplateRegistry,
  party: PartyId
): Either.Either<ContractWithStateJson, TransferPreapprovalNotFound> => {
  const found = newest(contractsOf(logic, registry, ScanTemplates.transferPreapproval, party).filter((c) => payloadField(createdOf(c), "receiver") === party))
  return found === undefined ? err(new TransferPreapprovalNotFound({ party })) : ok(withState(found))
}

/** S7: a VoteRequest by contract id, or by the tracking id that later versions of it carry. */
export const voteRequestById = (
  logic: ParticipantLogic,
  registry: TemplateRegistry,
  dso: PartyId,
  contractId: string
): Either.Either<ContractJson, VoteRequestNotFound> => {
  const direct = knownContract(logic, contractId)
  if (direct !== undefined && isTemplate(createdOf(direct), ScanTemplates.voteRequest)) return ok(renderContract(activeOf(direct)))
  const tracked = newest(contractsOf(logic, registry, ScanTemplates.voteRequest, dso).filter((c) => payloadField(createdOf(c), "trackingCid") === contractId))
  return tracked === undefined ? err(new VoteRequestNotFound({ contractId })) : ok(renderContract(activeOf(tracked)))
}

/** S8: a FeaturedAppRight by contract id (undefined when there is none). */
export const featuredAppRightById = (logic: ParticipantLogic, contractId: string): ContractJson | undefined => {
  const known = knownContract(logic, contractId)
  return known !== undefined && isTemplate(createdOf(known), ScanTemplates.featuredAppRight) ? renderContract(activeOf(known)) : undefined
}

// ---------------------------------------------------------------------------------------------
// Vote results (S1)
// ---------------------------------------------------------------------------------------------

/** One vote result: DsoRules_CloseVoteRequestResult, in its compact JSON form. */
export interface VoteResultJson {
  readonly request: Json
  readonly completedAt: string
  readonly offboardedVoters: ReadonlyArray<Json>
  readonly abstainingSvs: ReadonlyArray<Json>
  readonly outcome: Json
}

interface VoteResultEntry {
  /** Position in the scan's ingestion order, from 1: the page token. */
  readonly seq: number
  readonly result: VoteResultJson
  /** The accepted vote's effectiveAt, otherwise completedAt. */
  readonly effectiveAt: Micros
  readonly accepted: boolean
  readonly actionName: string
  readonly requester: string
}

interface VoteResultsIndex {
  cursor: number
  readonly entries: Array<VoteResultEntry>
}

const voteResultsIndexes = new WeakMap<ScanStore, VoteResultsIndex>()

const asObject = (value: Json | undefined): JsonObject | undefined =>
  value !== null && value !== undefined && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : undefined

const asArray = (value: Json | undefined): ReadonlyArray<Json> | undefined => (Array.isArray(value) ? (value as ReadonlyArray<Json>) : undefined)

/** The inner action's constructor (`SRARC_...`, `CRARC_...`), or the outer one. */
const actionNameOf = (action: JsonObject | undefined): string => {
  const value = asObject(action?.["value"])
  if (value !== undefined) {
    for (const key of Object.keys(value)) {
      const inner = asObject(value[key])
      if (inner !== undefined && typeof inner["tag"] === "string") return inner["tag"]
    }
  }
  return typeof action?.["tag"] === "string" ? action["tag"] : ""
}

const toVoteResult = (seq: number, result: Json): VoteResultEntry | undefined => {
  const r = asObject(result)
  const request = asObject(r?.["request"])
  const outcome = asObject(r?.["outcome"])
  const completedAt = r?.["completedAt"]
  if (r === undefined || request === undefined || outcome === undefined || typeof completedAt !== "string") return undefined
  const accepted = outcome["tag"] === "VRO_Accepted"
  const effective = accepted ? asObject(outcome["value"])?.["effectiveAt"] : completedAt
  const effectiveAt = typeof effective === "string" ? parseIso(effective) : undefined
  if (effectiveAt === undefined) return undefined
  return {
    seq,
    result: {
      request,
      completedAt,
      offboardedVoters: asArray(r["offboardedVoters"]) ?? asArray(r["offboarded"]) ?? [],
      abstainingSvs: asArray(r["abstainingSvs"]) ?? asArray(r["abstainers"]) ?? [],
      outcome
    },
    effectiveAt,
    accepted,
    actionName: actionNameOf(asObject(request["action"])),
    requester: typeof request["requester"] === "string" ? request["requester"] : ""
  }
}

const voteResultsIndex = (scan: ScanStore): VoteResultsIndex => {
  let index = voteResultsIndexes.get(scan)
  if (index === undefined) voteResultsIndexes.set(scan, (index = { cursor: 0, entries: [] }))
  for (; index.cursor < scan.updates.length; index.cursor++) {
    const update = scan.updates[index.cursor]!.update
    if (update.kind !== "transaction") continue
    for (const node of update.nodes) {
      if (node.kind !== "exercised" || node.choice !== CLOSE_VOTE_REQUEST) continue
      if (nameReferenceOf(node.templateId, node.packageName) !== ScanTemplates.dsoRules) continue
      const entry = toVoteResult(index.entries.length + 1, node.exerciseResult)
      if (entry !== undefined) index.entries.push(entry)
    }
  }
  return index
}

/** Largest `limit` of one vote-results page. */
export const MAX_VOTE_RESULTS_LIMIT = 1000

export interface VoteResultsQuery {
  /** Substring of the action's name (e.g. SRARC_GrantFeaturedAppRight). */
  readonly actionName?: string | undefined
  readonly accepted?: boolean | undefined
  /** Substring of the requesting SV's name. */
  readonly requester?: string | undefined
  /** ISO-8601; results effective at or after it. */
  readonly effectiveFrom?: string | undefined
  /** ISO-8601; results effective at or before it. */
  readonly effectiveTo?: string | undefined
  readonly limit: number
  /** The next_page_token of the previous page. */
  readonly pageToken?: number | undefined
}

export interface VoteResultsPage {
  readonly dso_rules_vote_results: ReadonlyArray<VoteResultJson>
  readonly next_page_token?: number
}

/** Descending by effective date, then by ingestion order (later first). */
const laterFirst = (a: VoteResultEntry, b: VoteResultEntry): number => b.effectiveAt - a.effectiveAt || b.seq - a.seq

/** S1: vote results, filtered, newest effective date first, paged by a keyset token. */
export const listVoteResults = (scan: ScanStore, query: VoteResultsQuery): Either.Either<VoteResultsPage, InvalidArgument> => {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_VOTE_RESULTS_LIMIT) {
    return err(new InvalidArgument({ field: "limit", message: `must be an integer from 1 to ${MAX_VOTE_RESULTS_LIMIT}, got ${query.limit}` }))
  }
  const time = (field: "effectiveFrom" | "effectiveTo"): Either.Either<Micros | undefined, InvalidArgument> => {
    const text = query[field]
    if (text === undefined) return ok(undefined)
    const t = parseIso(text)
    return t === undefined ? err(new InvalidArgument({ field, message: `expected an ISO-8601 date-time, got ${JSON.stringify(text)}` })) : ok(t)
  }
  const from = time("effectiveFrom")
  if (Either.isLeft(from)) return Either.left(from.left)
  const to = time("effectiveTo")
  if (Either.isLeft(to)) return Either.left(to.left)
  const index = voteResultsIndex(scan)
  let cursor: VoteResultEntry | undefined
  if (query.pageToken !== undefined) {
    cursor = index.entries[query.pageToken - 1]
    if (cursor === undefined || cursor.seq !== query.pageToken) {
      return err(new InvalidArgument({ field: "pageToken", message: `${query.pageToken} is not a next_page_token of this scan` }))
    }
  }
  const matches = index.entries
    .filter(
      (e) =>
        (query.actionName === undefined || e.actionName.includes(query.actionName)) &&
        (query.accepted === undefined || e.accepted === query.accepted) &&
        (query.requester === undefined || e.requester.includes(query.requester)) &&
        (from.right === undefined || e.effectiveAt >= from.right) &&
        (to.right === undefined || e.effectiveAt <= to.right) &&
        // after the previous page's last item in the listing order
        (cursor === undefined || laterFirst(cursor, e) < 0)
    )
    .sort(laterFirst)
  const page = matches.slice(0, query.limit)
  const last = page[page.length - 1]
  return ok({
    dso_rules_vote_results: page.map((e) => e.result),
    ...(matches.length > query.limit && last !== undefined ? { next_page_token: last.seq } : {})
  })
}

// ---------------------------------------------------------------------------------------------
// ACS snapshots for bulk download (S9)
// ---------------------------------------------------------------------------------------------

/** Snapshots are taken at every full hour of record time (UTC), after the first update's. */
export const ACS_SNAPSHOT_PERIOD: Micros = MICROS_PER_HOUR
/** Active contracts per downloadable object. */
export const ACS_SNAPSHOT_OBJECT_SIZE = 10_000

interface SnapshotEntry {
  readonly created: CreatedNode
  readonly createdInUpdateId: string | undefined
}

/** The DSO's ACS at one or more snapshot times (all equal: no update came between them). */
interface SnapshotContent {
  readonly entries: ReadonlyArray<SnapshotEntry>
  objects?: ReadonlyArray<{ readonly bytes: Uint8Array; readonly digest: string }>
}

/** Snapshots at `first`, `first + period`, ..., `last` (one time for the first update's). */
interface SnapshotSegment {
  readonly first: Micros
  last: Micros
  readonly content: SnapshotContent
}

interface AcsSnapshotIndex {
  cursor: number
  readonly acs: Map<ContractId, SnapshotEntry>
  /** Creating update of contracts that left on an unassign (an assign restores it). */
  readonly origins: Map<ContractId, string | undefined>
  readonly segments: Array<SnapshotSegment>
  nextBoundary: Micros
}

const snapshotIndexes = new WeakMap<ScanStore, AcsSnapshotIndex>()

const freeze = (acs: Map<ContractId, SnapshotEntry>): SnapshotContent => ({
  entries: [...acs.values()].sort((a, b) => (a.created.contractId < b.created.contractId ? -1 : a.created.contractId > b.created.contractId ? 1 : 0))
})

const applyToSnapshotAcs = (index: AcsSnapshotIndex, update: CommittedLedgerUpdate["update"], dso: PartyId): void => {
  const isDsoContract = (c: CreatedNode) => c.signatories.includes(dso) || c.observers.includes(dso)
  if (update.kind === "transaction") {
    for (const node of update.nodes) {
      if (node.kind === "created") {
        if (isDsoContract(node)) index.acs.set(node.contractId, { created: node, createdInUpdateId: update.updateId })
      } else if (node.consuming) {
        index.acs.delete(node.contractId)
      }
    }
    return
  }
  const event = update.event
  if (event.kind === "unassign") {
    const entry = index.acs.get(event.contractId)
    if (entry !== undefined) {
      index.origins.set(event.contractId, entry.createdInUpdateId)
      index.acs.delete(event.contractId)
    }
  } else if (isDsoContract(event.createdEvent)) {
    const id = event.createdEvent.contractId
    index.acs.set(id, { created: event.createdEvent, createdInUpdateId: index.origins.get(id) })
    index.origins.delete(id)
  }
}

const nextHour = (t: Micros): Micros => (Math.floor(t / ACS_SNAPSHOT_PERIOD) + 1) * ACS_SNAPSHOT_PERIOD

/**
 * Catches the snapshot index up with the scan. The snapshot at time T holds the DSO's active
 * contracts after every ingested update with record time at or before T; it is taken when the
 * scan ingests the first update with a record time after T (so it is final). Snapshot times: the
 * first update's record time, then every full hour of record time that an update has passed.
 * Consecutive hours without updates share one content.
 */
const acsSnapshotIndex = (scan: ScanStore): AcsSnapshotIndex => {
  let index = snapshotIndexes.get(scan)
  if (index === undefined) snapshotIndexes.set(scan, (index = { cursor: 0, acs: new Map(), origins: new Map(), segments: [], nextBoundary: 0 }))
  for (; index.cursor < scan.updates.length; index.cursor++) {
    const update = scan.updates[index.cursor]!.update
    const recordTime = update.recordTime
    if (index.cursor === 0) {
      applyToSnapshotAcs(index, update, scan.dso)
      index.segments.push({ first: recordTime, last: recordTime, content: freeze(index.acs) })
      index.nextBoundary = nextHour(recordTime)
      continue
    }
    if (index.nextBoundary < recordTime) {
      // Every hour boundary strictly before this update is final: one content for all of them.
      const lastBoundary = index.nextBoundary + Math.floor((recordTime - 1 - index.nextBoundary) / ACS_SNAPSHOT_PERIOD) * ACS_SNAPSHOT_PERIOD
      index.segments.push({ first: index.nextBoundary, last: lastBoundary, content: freeze(index.acs) })
      index.nextBoundary = lastBoundary + ACS_SNAPSHOT_PERIOD
    }
    applyToSnapshotAcs(index, update, scan.dso)
  }
  return index
}

const snapshotAt = (index: AcsSnapshotIndex, t: Micros): { readonly recordTime: Micros; readonly content: SnapshotContent } | undefined => {
  // Last segment starting at or before t.
  let lo = 0
  let hi = index.segments.length - 1
  let found: SnapshotSegment | undefined
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const segment = index.segments[mid]!
    if (segment.first <= t) {
      found = segment
      lo = mid + 1
    } else hi = mid - 1
  }
  if (found === undefined) return undefined
  const recordTime = found.first === found.last ? found.first : Math.min(found.last, found.first + Math.floor((t - found.first) / ACS_SNAPSHOT_PERIOD) * ACS_SNAPSHOT_PERIOD)
  return { recordTime, content: found.content }
}

/** One ACS item of a snapshot object (splice-scan.yaml's ActiveContract), one JSON line each. */
export const renderActiveContract = (entry: { readonly created: CreatedNode; readonly createdInUpdateId: string | undefined }): JsonObject => ({
  ...(entry.createdInUpdateId === undefined ? {} : { created_in_update_id: entry.createdInUpdateId }),
  contract_id: entry.created.contractId,
  template_id: entry.created.templateId,
  package_name: entry.created.packageName,
  create_arguments: entry.created.createArguments,
  created_at: toIso(entry.created.createdAt),
  signatories: sorted(entry.created.signatories),
  observers: sorted(entry.created.observers)
})

const encoder = new TextEncoder()

/**
 * The downloadable objects of a snapshot: contracts sorted by contract id, at most
 * ACS_SNAPSHOT_OBJECT_SIZE per object, each line the canonical JSON (keys sorted) of an
 * ActiveContract followed by "\n", gzipped with fixed header fields (mtime 0, no file name) so the
 * bytes, and their sha256, are the same on every super validator.
 */
const objectsOf = (content: SnapshotContent): ReadonlyArray<{ readonly bytes: Uint8Array; readonly digest: string }> => {
  if (content.objects !== undefined) return content.objects
  const objects: Array<{ readonly bytes: Uint8Array; readonly digest: string }> = []
  for (let start = 0; start === 0 || start < content.entries.length; start += ACS_SNAPSHOT_OBJECT_SIZE) {
    const lines = content.entries.slice(start, start + ACS_SNAPSHOT_OBJECT_SIZE).map((e) => canonicalJson(renderActiveContract(e)) + "\n")
    const bytes = gzipSync(encoder.encode(lines.join("")), { level: 6, mtime: 0 })
    objects.push({ bytes, digest: sha256Hex(bytes) })
  }
  content.objects = objects
  return objects
}

/** Object names: `acs-<record time in microseconds>-<part>.jsonl.gz`. */
export const acsObjectName = (recordTime: Micros, part: number): string => `acs-${recordTime}-${part}.jsonl.gz`

const OBJECT_NAME = /^acs-(\d{1,17})-(\d{1,6})\.jsonl\.gz$/

export interface AcsSnapshotObjects {
  readonly recordTime: Micros
  readonly objects: ReadonlyArray<{ readonly name: string; readonly digest: string }>
}

/** S9: the latest ACS snapshot taken at or before `atOrBefore`. */
export const acsSnapshotAtOrBefore = (scan: ScanStore, atOrBefore: Micros): Either.Either<AcsSnapshotObjects, AcsSnapshotNotFound> => {
  const snapshot = snapshotAt(acsSnapshotIndex(scan), atOrBefore)
  if (snapshot === undefined) return err(new AcsSnapshotNotFound({ atOrBefore: toIso(atOrBefore) }))
  return ok({
    recordTime: snapshot.recordTime,
    objects: objectsOf(snapshot.content).map((o, part) => ({ name: acsObjectName(snapshot.recordTime, part), digest: o.digest }))
  })
}

/** The bytes of a snapshot object by name (only names of snapshots that were taken). */
export const acsSnapshotObject = (scan: ScanStore, name: string): Either.Either<Uint8Array, BulkObjectNotFound> => {
  const match = OBJECT_NAME.exec(name)
  if (match === null) return err(new BulkObjectNotFound({ name }))
  const t = Number(match[1])
  const part = Number(match[2])
  const snapshot = snapshotAt(acsSnapshotIndex(scan), t)
  const object = snapshot?.recordTime === t ? objectsOf(snapshot.content)[part] : undefined
  return object === undefined ? err(new BulkObjectNotFound({ name })) : ok(object.bytes)
}

// ---------------------------------------------------------------------------------------------
// Registry: token-standard choice contexts (R1) and metadata
// ---------------------------------------------------------------------------------------------

export interface DisclosedContractJson {
  readonly templateId: string
  readonly contractId: string
  readonly createdEventBlob: string
  readonly synchronizerId: string
  readonly debugPackageName?: string
  readonly debugPayload?: JsonObject
  readonly debugCreatedAt?: string
}

export type AnyValueJson =
  | { readonly tag: "AV_ContractId"; readonly value: string }
  | { readonly tag: "AV_Bool"; readonly value: boolean }
  | { readonly tag: "AV_Text"; readonly value: string }

export interface ChoiceContextJson {
  readonly choiceContextData: { readonly values: { readonly [key: string]: AnyValueJson } }
  readonly disclosedContracts: ReadonlyArray<DisclosedContractJson>
}

export type TransferInstructionChoice = "accept" | "reject" | "withdraw"

export interface RegistryContext {
  readonly logic: ParticipantLogic
  readonly registry: TemplateRegistry
  readonly dso: PartyId
  /** Ledger time now (the open round must have opened). */
  readonly now: Micros
}

/** Keys of the choice context, as Splice's registry names them with the product renamed. */
export const ChoiceContextKeys = { coinRules: ContextKeys.coinRules, openRound: ContextKeys.openRound, expireLock: "expire-lock" } as const

const disclosed = (contract: ActiveContract, excludeDebugFields: boolean): DisclosedContractJson => ({
  templateId: contract.created.templateId,
  contractId: contract.created.contractId,
  createdEventBlob: createdEventBlob(contract),
  synchronizerId: contract.synchronizerId,
  ...(excludeDebugFields
    ? {}
    : {
        debugPackageName: contract.created.packageName,
        debugPayload: contract.created.createArguments,
        debugCreatedAt: toIso(contract.created.createdAt)
      })
})

const isTransferInstruction = (created: CreatedNode): boolean =>
  isTemplate(created, ScanTemplates.coinTransferInstruction) || Object.keys(created.interfaceViews).some((id) => id.endsWith(TRANSFER_INSTRUCTION_INTERFACE))

const beingReassigned = (contractId: string, what: string): ContractNotActive =>
  new ContractNotActive({ contractId, reason: `${what} is being reassigned to another synchronizer; retry once it is assigned` })

/** An active contract that must be disclosed: 409 while it is in flight. */
const requireAssigned = (
  known: KnownContract | undefined,
  what: string
): Either.Either<ActiveContract | undefined, ContractNotActive> => {
  if (known === undefined) return ok(undefined)
  if (known._tag === "inFlight") return err(beingReassigned(known.entry.contract.created.contractId, what))
  return ok(known.contract)
}

/** The newest open mining round that has opened (the one transfers use). */
const latestUsableOpenRound = (context: RegistryContext): KnownContract | undefined => {
  let best: KnownContract | undefined
  let bestRound = -1
  for (const c of contractsOf(context.logic, context.registry, ScanTemplates.openMiningRound, context.dso)) {
    const payload = createdOf(c).createArguments
    const opensAt = typeof payload["opensAt"] === "string" ? parseIso(payload["opensAt"]) : undefined
    const round = Number(asObject(payload["round"])?.["number"] ?? -1)
    if (opensAt === undefined || opensAt > context.now) continue
    if (round > bestRound) {
      best = c
      bestRound = round
    }
  }
  return best
}

/**
 * R1 (and accept / withdraw): the choice context of a transfer instruction's choice, as Splice's
 * registry builds it (getTwoStepTransferContext): the coin rules and the newest usable open round
 * as context values and disclosed contracts, `expire-lock` = true and the locked holding disclosed
 * while the lock exists. When the locked holding is gone (the lock expired and was released),
 * reject and withdraw get only `expire-lock` = false; accept fails (404). A contract that is being
 * reassigned cannot be disclosed with a synchronizer: 409.
 */
export const transferInstructionChoiceContext = (
  context: RegistryContext,
  instructionId: string,
  choice: TransferInstructionChoice,
  excludeDebugFields: boolean
): Either.Either<ChoiceContextJson, TransferInstructionNotFound | LockedHoldingNotFound | DsoContractNotFound | ContractNotActive> => {
  const instruction = knownContract(context.logic, instructionId)
  if (instruction === undefined || !isTransferInstruction(createdOf(instruction))) {
    return err(new TransferInstructionNotFound({ contractId: instructionId }))
  }
  if (instruction._tag === "inFlight") return err(beingReassigned(instructionId, `transfer instruction ${instructionId}`))
  const payload = instruction.contract.created.createArguments
  const lockedId = typeof payload["lockedCoin"] === "string" ? payload["lockedCoin"] : undefined
  const locked = requireAssigned(lockedId === undefined ? undefined : knownContract(context.logic, lockedId), `locked holding ${lockedId}`)
  if (Either.isLeft(locked)) return Either.left(locked.left)
  if (locked.right === undefined) {
    if (choice === "accept") {
      const executeBefore = asObject(payload["transfer"])?.["executeBefore"]
      return err(
        new LockedHoldingNotFound({
          contractId: lockedId ?? "",
          instructionId,
          expiresAt: typeof executeBefore === "string" ? executeBefore : "unknown"
        })
      )
    }
    return ok({ choiceContextData: { values: { [ChoiceContextKeys.expireLock]: { tag: "AV_Bool", value: false } } }, disclosedContracts: [] })
  }
  const rules = requireAssigned(currentDsoContract(context.logic, context.registry, context.dso, ScanTemplates.coinRules), "the CoinRules contract")
  if (Either.isLeft(rules)) return Either.left(rules.left)
  if (rules.right === undefined) return err(new DsoContractNotFound({ template: "CoinRules" }))
  const round = requireAssigned(latestUsableOpenRound(context), "the open mining round")
  if (Either.isLeft(round)) return Either.left(round.left)
  if (round.right === undefined) return err(new DsoContractNotFound({ template: "OpenMiningRound" }))
  return ok({
    choiceContextData: {
      values: {
        [ChoiceContextKeys.coinRules]: { tag: "AV_ContractId", value: rules.right.created.contractId },
        [ChoiceContextKeys.openRound]: { tag: "AV_ContractId", value: round.right.created.contractId },
        [ChoiceContextKeys.expireLock]: { tag: "AV_Bool", value: true }
      }
    },
    disclosedContracts: [disclosed(rules.right, excludeDebugFields), disclosed(round.right, excludeDebugFields), disclosed(locked.right, excludeDebugFields)]
  })
}

/** The token standard APIs the registry implements, with their minor versions. */
export const REGISTRY_SUPPORTED_APIS: Readonly<Record<string, number>> = { "splice-api-token-metadata-v1": 1 }
/** The APIs the native coin supports. */
export const COIN_SUPPORTED_APIS: Readonly<Record<string, number>> = {
  "splice-api-token-holding-v1": 1,
  "splice-api-token-transfer-instruction-v1": 1
}

/** The native coin as the registry's metadata API describes it (token-standard-metadata-v1 Instrument). */
export interface InstrumentJson {
  readonly id: string
  readonly name: string
  readonly symbol: string
  readonly totalSupply?: string
  readonly totalSupplyAsOf?: string
  readonly decimals: number
  readonly supportedApis: Readonly<Record<string, number>>
}

/**
 * The coin instrument. Its total supply is the sum of the current amounts (initial amount less the
 * holding fee accrued up to the newest usable open round) of every active Coin and LockedCoin,
 * as of `now`; absent before the first open round.
 */
export const coinInstrument = (context: RegistryContext): InstrumentJson => {
  const round = latestUsableOpenRound(context)
  const base = { id: COIN_INSTRUMENT, name: "Coin", symbol: "CC" }
  const rest = { decimals: 10, supportedApis: COIN_SUPPORTED_APIS }
  if (round === undefined) return { ...base, ...rest }
  const roundNumber = Number(asObject(createdOf(round).createArguments["round"])?.["number"] ?? 0)
  let total = 0n
  for (const c of contractsOf(context.logic, context.registry, ScanTemplates.coin, context.dso)) {
    total += currentAmount((createdOf(c).createArguments as unknown as CoinPayload).amount, roundNumber)
  }
  for (const c of contractsOf(context.logic, context.registry, ScanTemplates.lockedCoin, context.dso)) {
    total += currentAmount((createdOf(c).createArguments as unknown as LockedCoinPayload).coin.amount, roundNumber)
  }
  return { ...base, totalSupply: formatAmount(total), totalSupplyAsOf: toIso(context.now), ...rest }
}
