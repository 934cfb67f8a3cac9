/**
 * JSON shapes of the ledger surface's engine endpoints (canton-json-api-v2.yaml, 3.5) and their
 * conversions: request formats into the engine's (LedgerApi.UpdateFormat, EventFormat, Command),
 * the engine's views into JsTransaction, JsTransactionTree, JsReassignment, JsTopologyTransaction,
 * OffsetCheckpoint, CreatedEvent / ArchivedEvent / ExercisedEvent.
 *
 * Output conventions (as Canton's JSON encoder prints protobuf messages): absent optional strings
 * of the message are `""` (commandId, workflowId), absent optional messages and values are `null`
 * (traceContext, contractKey, externalTransactionHash, paidTrafficCost), lists are `[]`. Times are
 * ISO-8601 with microseconds; bytes (createdEventBlob, externalTransactionHash) standard base64.
 */
import { invariant, toIso, uidWithoutPrefix, type Json, type JsonObject } from "@sandnet/core"
import { External, LedgerApi, type Command } from "@sandnet/engine"
import { Either, Schema } from "effect"
import { InvalidRequest } from "./errors.ts"
import { invalidBody } from "./ledger-context.ts"

// =============================================================================================
// Requests: formats and filters
// =============================================================================================

const Offset = Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "non-negative int64 offset" })
export const Parties = Schema.Array(Schema.String)

export const TemplateFilterValue = Schema.Struct({
  templateId: Schema.String,
  includeCreatedEventBlob: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "TemplateFilter1", title: "TemplateFilter" })
export const InterfaceFilterValue = Schema.Struct({
  interfaceId: Schema.String,
  includeInterfaceView: Schema.optional(Schema.Boolean),
  includeCreatedEventBlob: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "InterfaceFilter1", title: "InterfaceFilter" })
export const WildcardFilterValue = Schema.Struct({
  includeCreatedEventBlob: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "WildcardFilter1", title: "WildcardFilter" })

export const IdentifierFilter = Schema.Union(
  Schema.Struct({ Empty: Schema.Struct({}) }),
  Schema.Struct({ InterfaceFilter: Schema.Struct({ value: InterfaceFilterValue }) }),
  Schema.Struct({ TemplateFilter: Schema.Struct({ value: TemplateFilterValue }) }),
  Schema.Struct({ WildcardFilter: Schema.Struct({ value: WildcardFilterValue }) })
).annotations({ identifier: "IdentifierFilter" })
export type IdentifierFilter = typeof IdentifierFilter.Type

export const CumulativeFilter = Schema.Struct({ identifierFilter: Schema.optional(IdentifierFilter) }).annotations({
  identifier: "CumulativeFilter"
})
export const Filters = Schema.Struct({ cumulative: Schema.optional(Schema.Array(CumulativeFilter)) }).annotations({
  identifier: "Filters"
})
export type Filters = typeof Filters.Type

export const EventFormat = Schema.Struct({
  filtersByParty: Schema.optional(Schema.Record({ key: Schema.String, value: Filters })),
  filtersForAnyParty: Schema.optional(Filters),
  verbose: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "EventFormat" })
export type EventFormat = typeof EventFormat.Type

export const TransactionShape = Schema.Literal(
  "TRANSACTION_SHAPE_UNSPECIFIED",
  "TRANSACTION_SHAPE_ACS_DELTA",
  "TRANSACTION_SHAPE_LEDGER_EFFECTS"
)
export const TransactionFormat = Schema.Struct({
  eventFormat: EventFormat,
  transactionShape: TransactionShape
}).annotations({ identifier: "TransactionFormat" })
export type TransactionFormat = typeof TransactionFormat.Type

export const TopologyFormat = Schema.Struct({
  includeParticipantAuthorizationEvents: Schema.optional(
    Schema.Struct({ parties: Schema.optional(Parties) }).annotations({ identifier: "ParticipantAuthorizationTopologyFormat" })
  )
}).annotations({ identifier: "TopologyFormat" })

export const UpdateFormat = Schema.Struct({
  includeTransactions: Schema.optional(TransactionFormat),
  includeReassignments: Schema.optional(EventFormat),
  includeTopologyEvents: Schema.optional(TopologyFormat)
}).annotations({ identifier: "UpdateFormat" })
export type UpdateFormat = typeof UpdateFormat.Type

export const TransactionFilter = Schema.Struct({
  filtersByParty: Schema.optional(Schema.Record({ key: Schema.String, value: Filters })),
  filtersForAnyParty: Schema.optional(Filters)
}).annotations({ identifier: "TransactionFilter" })
export type TransactionFilter = typeof TransactionFilter.Type

export const GetUpdatesRequest = Schema.Struct({
  beginExclusive: Offset,
  endInclusive: Schema.optional(Offset),
  filter: Schema.optional(TransactionFilter),
  verbose: Schema.optional(Schema.Boolean),
  updateFormat: Schema.optional(UpdateFormat),
  descendingOrder: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "GetUpdatesRequest" })
export type GetUpdatesRequest = typeof GetUpdatesRequest.Type

// ---------------------------------------------------------------------------------------------
// Request conversions
// ---------------------------------------------------------------------------------------------

const toIdentifierFilter = (
  filter: typeof CumulativeFilter.Type,
  field: string
): Either.Either<LedgerApi.IdentifierFilter, InvalidRequest> => {
  const id = filter.identifierFilter
  if (id === undefined || "Empty" in id) {
    return Either.left(invalidBody(`${field}.identifierFilter`, "must be one of WildcardFilter, TemplateFilter, InterfaceFilter"))
  }
  if ("WildcardFilter" in id) return Either.right({ _tag: "WildcardFilter", includeCreatedEventBlob: id.WildcardFilter.value.includeCreatedEventBlob ?? false })
  if ("TemplateFilter" in id) {
    return Either.right({
      _tag: "TemplateFilter",
      templateId: id.TemplateFilter.value.templateId,
      includeCreatedEventBlob: id.TemplateFilter.value.includeCreatedEventBlob ?? false
    })
  }
  return Either.right({
    _tag: "InterfaceFilter",
    interfaceId: id.InterfaceFilter.value.interfaceId,
    includeInterfaceView: id.InterfaceFilter.value.includeInterfaceView ?? false,
    includeCreatedEventBlob: id.InterfaceFilter.value.includeCreatedEventBlob ?? false
  })
}

const toFilters = (filters: Filters, field: string): Either.Either<LedgerApi.Filters, InvalidRequest> =>
  Either.map(
    Either.all((filters.cumulative ?? []).map((f, i) => toIdentifierFilter(f, `${field}.cumulative[${i}]`))),
    (cumulative) => ({ cumulative })
  )

/** An EventFormat (or a deprecated TransactionFilter with its verbose flag) in the engine's terms. */
export const toEventFormat = (
  format: { readonly filtersByParty?: Readonly<Record<string, Filters>> | undefined; readonly filtersForAnyParty?: Filters | undefined },
  verbose: boolean,
  field: string
): Either.Either<LedgerApi.EventFormat, InvalidRequest> =>
  Either.gen(function* () {
    const byParty: Array<readonly [string, LedgerApi.Filters]> = []
    for (const [party, filters] of Object.entries(format.filtersByParty ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (party === "") return yield* Either.left(invalidBody(`${field}.filtersByParty`, "a party id must not be empty"))
      byParty.push([party, yield* toFilters(filters, `${field}.filtersByParty.${party}`)])
    }
    const any = format.filtersForAnyParty === undefined ? undefined : yield* toFilters(format.filtersForAnyParty, `${field}.filtersForAnyParty`)
    if (byParty.length === 0 && any === undefined) {
      return yield* Either.left(invalidBody(field, "filtersByParty or filtersForAnyParty must name what to read"))
    }
    return { filtersByParty: byParty, filtersForAnyParty: any, verbose }
  })

export const toTransactionFormat = (format: TransactionFormat, field: string): Either.Either<LedgerApi.TransactionFormat, InvalidRequest> =>
  Either.gen(function* () {
    if (format.transactionShape === "TRANSACTION_SHAPE_UNSPECIFIED") {
      return yield* Either.left(invalidBody(`${field}.transactionShape`, "must be TRANSACTION_SHAPE_ACS_DELTA or TRANSACTION_SHAPE_LEDGER_EFFECTS"))
    }
    const eventFormat = yield* toEventFormat(format.eventFormat, format.eventFormat.verbose ?? false, `${field}.eventFormat`)
    return { eventFormat, shape: format.transactionShape === "TRANSACTION_SHAPE_ACS_DELTA" ? "ACS_DELTA" : "LEDGER_EFFECTS" }
  })

export const toUpdateFormat = (format: UpdateFormat, field: string): Either.Either<LedgerApi.UpdateFormat, InvalidRequest> =>
  Either.gen(function* () {
    const transactions = format.includeTransactions === undefined ? undefined : yield* toTransactionFormat(format.includeTransactions, `${field}.includeTransactions`)
    const reassignments =
      format.includeReassignments === undefined
        ? undefined
        : yield* toEventFormat(format.includeReassignments, format.includeReassignments.verbose ?? false, `${field}.includeReassignments`)
    const topology = format.includeTopologyEvents?.includeParticipantAuthorizationEvents
    if (transactions === undefined && reassignments === undefined && topology === undefined) {
      return yield* Either.left(invalidBody(field, "at least one of includeTransactions, includeReassignments, includeTopologyEvents must be set"))
    }
    return { transactions, reassignments, topologyParties: topology === undefined ? undefined : [...(topology.parties ?? [])] }
  })

/**
 * The update format of a GetUpdatesRequest: `updateFormat`, or the deprecated `filter` + `verbose`
 * (transactions as ACS delta and reassignments of the filter's parties; no topology events, as
 * Canton's JSON API converts it), never both.
 */
export const updateFormatOfRequest = (
  request: { readonly filter?: TransactionFilter | undefined; readonly verbose?: boolean | undefined; readonly updateFormat?: UpdateFormat | undefined },
  options: { readonly trees?: boolean } = {}
): Either.Either<LedgerApi.UpdateFormat, InvalidRequest> => {
  if (request.updateFormat !== undefined) {
    if (options.trees === true) return Either.left(invalidBody("updateFormat", "must be unset for transaction trees; use filter"))
    if (request.filter !== undefined) return Either.left(invalidBody("filter", "must be unset when updateFormat is set"))
    // Canton refuses only verbose: true next to updateFormat (the SDK sends verbose: false).
    if (request.verbose === true) return Either.left(invalidBody("verbose", "must be unset or false when updateFormat is set"))
    return toUpdateFormat(request.updateFormat, "updateFormat")
  }
  if (request.filter === undefined) return Either.left(invalidBody("updateFormat", "is missing (or the deprecated filter)"))
  return Either.map(toEventFormat(request.filter, request.verbose ?? false, "filter"), (eventFormat) => ({
    transactions: { eventFormat, shape: "ACS_DELTA" as const },
    reassignments: eventFormat,
    topologyParties: undefined
  }))
}

/** Every party an update format reads as, and whether it reads as any party. */
export const readersOf = (format: LedgerApi.UpdateFormat): { readonly parties: ReadonlyArray<string>; readonly anyParty: boolean } => {
  const parties = new Set<string>()
  let anyParty = false
  for (const ef of [format.transactions?.eventFormat, format.reassignments]) {
    if (ef === undefined) continue
    for (const p of LedgerApi.partiesOf(ef)) parties.add(p)
    if (ef.filtersForAnyParty !== undefined) anyParty = true
  }
  if (format.topologyParties !== undefined) {
    if (format.topologyParties.length === 0) anyParty = true
    for (const p of format.topologyParties) parties.add(p)
  }
  return { parties: [...parties].sort(), anyParty }
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

const DamlRecord = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "a Daml record in compact JSON" })

export const JsCommand = Schema.Union(
  Schema.Struct({
    CreateAndExerciseCommand: Schema.Struct({
      templateId: Schema.String,
      createArguments: DamlRecord,
      choice: Schema.String,
      choiceArgument: Schema.Unknown
    })
  }),
  Schema.Struct({ CreateCommand: Schema.Struct({ templateId: Schema.String, createArguments: DamlRecord }) }),
  Schema.Struct({
    ExerciseByKeyCommand: Schema.Struct({
      templateId: Schema.String,
      contractKey: Schema.Unknown,
      choice: Schema.String,
      choiceArgument: Schema.Unknown
    })
  }),
  Schema.Struct({
    ExerciseCommand: Schema.Struct({ templateId: Schema.String, contractId: Schema.String, choice: Schema.String, choiceArgument: Schema.Unknown })
  })
).annotations({ identifier: "Command" })
export type JsCommand = typeof JsCommand.Type

/** Values of the request body are JSON (they came out of JSON.parse). */
const asJson = (value: unknown): Json => value as Json
const asJsonObject = (value: Readonly<Record<string, unknown>>): JsonObject => value as JsonObject

export const toCommands = (commands: ReadonlyArray<JsCommand>, field: string): Either.Either<ReadonlyArray<Command>, InvalidRequest> =>
  Either.all(
    commands.map((command, i): Either.Either<Command, InvalidRequest> => {
      if ("CreateCommand" in command) {
        return Either.right({ _tag: "CreateCommand", templateId: command.CreateCommand.templateId, createArguments: asJsonObject(command.CreateCommand.createArguments) })
      }
      if ("ExerciseCommand" in command) {
        const c = command.ExerciseCommand
        return Either.right({ _tag: "ExerciseCommand", templateId: c.templateId, contractId: c.contractId, choice: c.choice, choiceArgument: asJson(c.choiceArgument) })
      }
      if ("CreateAndExerciseCommand" in command) {
        const c = command.CreateAndExerciseCommand
        return Either.right({
          _tag: "CreateAndExerciseCommand",
          templateId: c.templateId,
          createArguments: asJsonObject(c.createArguments),
          choice: c.choice,
          choiceArgument: asJson(c.choiceArgument)
        })
      }
      return Either.left(invalidBody(`${field}[${i}].ExerciseByKeyCommand`, "contract keys are not supported by this node (its templates define no keys)"))
    })
  )

export const DisclosedContract = Schema.Struct({
  templateId: Schema.optional(Schema.String),
  contractId: Schema.optional(Schema.String),
  createdEventBlob: Schema.String,
  synchronizerId: Schema.optional(Schema.String)
}).annotations({ identifier: "DisclosedContract" })

// =============================================================================================
// Responses
// =============================================================================================

const Int = Schema.Int
const NullableString = Schema.NullOr(Schema.String)

export const JsStatus = Schema.Struct({ code: Int, message: Schema.String, details: Schema.Array(Schema.Unknown) }).annotations({
  identifier: "JsStatus"
})
export const JsInterfaceView = Schema.Struct({
  interfaceId: Schema.String,
  viewStatus: JsStatus,
  viewValue: Schema.Unknown,
  implementationPackageId: Schema.String
}).annotations({ identifier: "JsInterfaceView" })

export const CreatedEvent = Schema.Struct({
  offset: Int,
  nodeId: Int,
  contractId: Schema.String,
  templateId: Schema.String,
  contractKey: Schema.Unknown,
  createArgument: Schema.Unknown,
  createdEventBlob: Schema.String,
  interfaceViews: Schema.Array(JsInterfaceView),
  witnessParties: Parties,
  signatories: Parties,
  observers: Parties,
  createdAt: Schema.String,
  packageName: Schema.String,
  representativePackageId: Schema.String,
  acsDelta: Schema.Boolean
}).annotations({ identifier: "CreatedEvent" })
export type CreatedEvent = typeof CreatedEvent.Type

export const ArchivedEvent = Schema.Struct({
  offset: Int,
  nodeId: Int,
  contractId: Schema.String,
  templateId: Schema.String,
  witnessParties: Parties,
  packageName: Schema.String,
  implementedInterfaces: Parties
}).annotations({ identifier: "ArchivedEvent" })

export const ExercisedEvent = Schema.Struct({
  offset: Int,
  nodeId: Int,
  contractId: Schema.String,
  templateId: Schema.String,
  interfaceId: NullableString,
  choice: Schema.String,
  choiceArgument: Schema.Unknown,
  actingParties: Parties,
  consuming: Schema.Boolean,
  witnessParties: Parties,
  lastDescendantNodeId: Int,
  exerciseResult: Schema.Unknown,
  packageName: Schema.String,
  implementedInterfaces: Parties,
  acsDelta: Schema.Boolean
}).annotations({ identifier: "ExercisedEvent" })

export const Event = Schema.Union(
  Schema.Struct({ ArchivedEvent }),
  Schema.Struct({ CreatedEvent }),
  Schema.Struct({ ExercisedEvent })
).annotations({ identifier: "Event" })
export type Event = typeof Event.Type

export const JsTraceContext = Schema.Struct({ traceparent: NullableString, tracestate: NullableString }).annotations({ identifier: "TraceContext" })

export const JsTransaction = Schema.Struct({
  updateId: Schema.String,
  commandId: Schema.String,
  workflowId: Schema.String,
  effectiveAt: Schema.String,
  events: Schema.Array(Event),
  offset: Int,
  synchronizerId: Schema.String,
  traceContext: Schema.NullOr(JsTraceContext),
  recordTime: Schema.String,
  externalTransactionHash: NullableString,
  paidTrafficCost: Schema.NullOr(Int)
}).annotations({ identifier: "JsTransaction" })
export type JsTransaction = typeof JsTransaction.Type

export const TreeEvent = Schema.Union(
  Schema.Struct({ CreatedTreeEvent: Schema.Struct({ value: CreatedEvent }) }),
  Schema.Struct({ ExercisedTreeEvent: Schema.Struct({ value: ExercisedEvent }) })
).annotations({ identifier: "TreeEvent" })

export const JsTransactionTree = Schema.Struct({
  updateId: Schema.String,
  commandId: Schema.String,
  workflowId: Schema.String,
  effectiveAt: Schema.String,
  offset: Int,
  eventsById: Schema.Record({ key: Schema.String, value: TreeEvent }),
  synchronizerId: Schema.String,
  traceContext: Schema.NullOr(JsTraceContext),
  recordTime: Schema.String
}).annotations({ identifier: "JsTransactionTree" })
export type JsTransactionTree = typeof JsTransactionTree.Type

export const SynchronizerTime = Schema.Struct({ synchronizerId: Schema.String, recordTime: Schema.String }).annotations({
  identifier: "SynchronizerTime"
})
export const OffsetCheckpointValue = Schema.Struct({ offset: Int, synchronizerTimes: Schema.Array(SynchronizerTime) }).annotations({
  identifier: "OffsetCheckpoint1",
  title: "OffsetCheckpoint"
})

export const UnassignedEvent = Schema.Struct({
  reassignmentId: Schema.String,
  contractId: Schema.String,
  templateId: Schema.String,
  source: Schema.String,
  target: Schema.String,
  submitter: Schema.String,
  reassignmentCounter: Int,
  assignmentExclusivity: NullableString,
  witnessParties: Parties,
  packageName: Schema.String,
  offset: Int,
  nodeId: Int
}).annotations({ identifier: "UnassignedEvent" })

export const JsAssignmentEvent = Schema.Struct({
  source: Schema.String,
  target: Schema.String,
  reassignmentId: Schema.String,
  submitter: Schema.String,
  reassignmentCounter: Int,
  createdEvent: CreatedEvent
}).annotations({ identifier: "JsAssignmentEvent" })

export const JsReassignmentEvent = Schema.Union(
  Schema.Struct({ JsAssignmentEvent }),
  Schema.Struct({ JsUnassignedEvent: Schema.Struct({ value: UnassignedEvent }) })
).annotations({ identifier: "JsReassignmentEvent" })

export const JsReassignment = Schema.Struct({
  updateId: Schema.String,
  commandId: Schema.String,
  workflowId: Schema.String,
  offset: Int,
  events: Schema.Array(JsReassignmentEvent),
  traceContext: Schema.NullOr(JsTraceContext),
  recordTime: Schema.String,
  synchronizerId: Schema.String,
  paidTrafficCost: Schema.NullOr(Int)
}).annotations({ identifier: "JsReassignment" })

export const ParticipantPermission = Schema.Literal(
  "PARTICIPANT_PERMISSION_UNSPECIFIED",
  "PARTICIPANT_PERMISSION_SUBMISSION",
  "PARTICIPANT_PERMISSION_CONFIRMATION",
  "PARTICIPANT_PERMISSION_OBSERVATION"
)
export type ParticipantPermission = typeof ParticipantPermission.Type

const ParticipantAuthorization = (name: string) =>
  Schema.Struct({ partyId: Schema.String, participantId: Schema.String, participantPermission: ParticipantPermission }).annotations({
    identifier: `${name}1`,
    title: name
  })

export const TopologyEventEvent = Schema.Union(
  Schema.Struct({ Empty: Schema.Struct({}) }),
  Schema.Struct({ ParticipantAuthorizationAdded: Schema.Struct({ value: ParticipantAuthorization("ParticipantAuthorizationAdded") }) }),
  Schema.Struct({ ParticipantAuthorizationChanged: Schema.Struct({ value: ParticipantAuthorization("ParticipantAuthorizationChanged") }) }),
  Schema.Struct({ ParticipantAuthorizationOnboarding: Schema.Struct({ value: ParticipantAuthorization("ParticipantAuthorizationOnboarding") }) }),
  Schema.Struct({
    ParticipantAuthorizationRevoked: Schema.Struct({
      value: Schema.Struct({ partyId: Schema.String, participantId: Schema.String }).annotations({
        identifier: "ParticipantAuthorizationRevoked1",
        title: "ParticipantAuthorizationRevoked"
      })
    })
  })
).annotations({ identifier: "TopologyEventEvent" })

export const TopologyEvent = Schema.Struct({ event: TopologyEventEvent }).annotations({ identifier: "TopologyEvent" })
export type TopologyEvent = typeof TopologyEvent.Type

/** As upstream's JsTopologyTransaction (a non-empty list of topology events). */
export const JsTopologyTransaction = Schema.Struct({
  updateId: Schema.String,
  offset: Int,
  synchronizerId: Schema.String,
  recordTime: Schema.String,
  events: Schema.Array(TopologyEvent),
  traceContext: Schema.NullOr(JsTraceContext)
}).annotations({ identifier: "JsTopologyTransaction" })
export type JsTopologyTransaction = typeof JsTopologyTransaction.Type

const OffsetCheckpointItem = Schema.Struct({ OffsetCheckpoint: Schema.Struct({ value: OffsetCheckpointValue }) })
const ReassignmentItem = Schema.Struct({ Reassignment: Schema.Struct({ value: JsReassignment }) })

export const Update = Schema.Union(
  OffsetCheckpointItem,
  ReassignmentItem,
  Schema.Struct({ TopologyTransaction: Schema.Struct({ value: JsTopologyTransaction }) }),
  Schema.Struct({ Transaction: Schema.Struct({ value: JsTransaction }) })
).annotations({ identifier: "Update" })
export type Update = typeof Update.Type

export const JsGetUpdatesResponse = Schema.Struct({ update: Update }).annotations({ identifier: "JsGetUpdatesResponse" })
export type JsGetUpdatesResponse = typeof JsGetUpdatesResponse.Type

export const UpdateTree = Schema.Union(
  OffsetCheckpointItem,
  ReassignmentItem,
  Schema.Struct({ TransactionTree: Schema.Struct({ value: JsTransactionTree }) })
).annotations({ identifier: "Update1" })
export const JsGetUpdateTreesResponse = Schema.Struct({ update: UpdateTree }).annotations({ identifier: "JsGetUpdateTreesResponse" })
export type JsGetUpdateTreesResponse = typeof JsGetUpdateTreesResponse.Type

// ---------------------------------------------------------------------------------------------
// Response conversions
// ---------------------------------------------------------------------------------------------

const OK_STATUS = { code: 0, message: "", details: [] }

export const renderCreated = (event: LedgerApi.CreatedEventView): CreatedEvent => ({
  offset: event.offset,
  nodeId: event.node.nodeId,
  contractId: event.node.contractId,
  templateId: event.node.templateId,
  contractKey: null,
  createArgument: event.node.createArguments,
  createdEventBlob: event.createdEventBlob ?? "",
  interfaceViews: event.interfaceViews.map((v) => ({
    interfaceId: v.interfaceId,
    viewStatus: OK_STATUS,
    viewValue: v.view,
    implementationPackageId: event.representativePackageId
  })),
  witnessParties: event.witnessParties,
  signatories: event.node.signatories,
  observers: event.node.observers,
  createdAt: toIso(event.node.createdAt),
  packageName: event.node.packageName,
  representativePackageId: event.representativePackageId,
  acsDelta: event.acsDelta
})

const renderExercised = (event: LedgerApi.ExercisedEventView): typeof ExercisedEvent.Type => ({
  offset: event.offset,
  nodeId: event.node.nodeId,
  contractId: event.node.contractId,
  templateId: event.node.templateId,
  interfaceId: event.node.interfaceId ?? null,
  choice: event.node.choice,
  choiceArgument: event.node.choiceArgument,
  actingParties: event.node.actingParties,
  consuming: event.node.consuming,
  witnessParties: event.witnessParties,
  lastDescendantNodeId: event.node.lastDescendantNodeId,
  exerciseResult: event.node.exerciseResult,
  packageName: event.node.packageName,
  implementedInterfaces: event.implementedInterfaces,
  acsDelta: event.acsDelta
})

export const renderEvent = (event: LedgerApi.EventView): Event => {
  switch (event.kind) {
    case "created":
      return { CreatedEvent: renderCreated(event) }
    case "archived":
      return {
        ArchivedEvent: {
          offset: event.offset,
          nodeId: event.node.nodeId,
          contractId: event.node.contractId,
          templateId: event.node.templateId,
          witnessParties: event.witnessParties,
          packageName: event.node.packageName,
          implementedInterfaces: event.implementedInterfaces
        }
      }
    case "exercised":
      return { ExercisedEvent: renderExercised(event) }
  }
}

const renderTrace = (trace: { readonly traceparent?: string | undefined; readonly tracestate?: string | undefined } | undefined) =>
  trace === undefined ? null : { traceparent: trace.traceparent ?? null, tracestate: trace.tracestate ?? null }

/** The engine keeps the external transaction hash as hex; the JSON API carries bytes as base64. */
const hashBase64 = (hex: string | undefined): string | null => {
  if (hex === undefined) return null
  const bytes = External.hexToBytes(hex)
  return bytes === undefined ? hex : External.bytesToBase64(bytes)
}

export const renderTransaction = (view: LedgerApi.TransactionView): JsTransaction => ({
  updateId: view.update.updateId,
  commandId: view.forSubmitter ? view.update.commandId : "",
  workflowId: view.update.workflowId,
  effectiveAt: toIso(view.update.effectiveAt),
  events: view.events.map(renderEvent),
  offset: view.offset,
  synchronizerId: view.update.synchronizerId,
  traceContext: renderTrace(view.update.traceContext),
  recordTime: toIso(view.update.recordTime),
  externalTransactionHash: hashBase64(view.update.externalTransactionHash),
  paidTrafficCost: view.forSubmitter ? view.update.paidTrafficCost : null
})

export const renderTree = (view: LedgerApi.TransactionView): JsTransactionTree => {
  const eventsById: Record<string, typeof TreeEvent.Type> = {}
  for (const event of view.events) {
    if (event.kind === "created") eventsById[String(event.node.nodeId)] = { CreatedTreeEvent: { value: renderCreated(event) } }
    else if (event.kind === "exercised") eventsById[String(event.node.nodeId)] = { ExercisedTreeEvent: { value: renderExercised(event) } }
  }
  return {
    updateId: view.update.updateId,
    commandId: view.forSubmitter ? view.update.commandId : "",
    workflowId: view.update.workflowId,
    effectiveAt: toIso(view.update.effectiveAt),
    offset: view.offset,
    eventsById,
    synchronizerId: view.update.synchronizerId,
    traceContext: renderTrace(view.update.traceContext),
    recordTime: toIso(view.update.recordTime)
  }
}

export const renderReassignment = (view: LedgerApi.ReassignmentView): typeof JsReassignment.Type => {
  const update = view.update
  const event = update.event
  let rendered: typeof JsReassignmentEvent.Type
  if (view.event.kind === "assigned") {
    rendered = {
      JsAssignmentEvent: {
        source: event.sourceSynchronizer,
        target: event.targetSynchronizer,
        reassignmentId: event.unassignId,
        submitter: update.submitter,
        reassignmentCounter: event.reassignmentCounter,
        createdEvent: renderCreated(view.event.created)
      }
    }
  } else {
    rendered = {
      JsUnassignedEvent: {
        value: {
          reassignmentId: event.unassignId,
          contractId: event.kind === "unassign" ? event.contractId : event.createdEvent.contractId,
          templateId: event.kind === "unassign" ? event.templateId : event.createdEvent.templateId,
          source: event.sourceSynchronizer,
          target: event.targetSynchronizer,
          submitter: update.submitter,
          reassignmentCounter: event.reassignmentCounter,
          assignmentExclusivity: null,
          witnessParties: view.event.witnessParties,
          packageName: event.kind === "unassign" ? event.packageName : event.createdEvent.packageName,
          offset: view.offset,
          nodeId: 0
        }
      }
    }
  }
  return {
    updateId: update.updateId,
    commandId: view.forSubmitter ? update.commandId : "",
    workflowId: update.workflowId,
    offset: view.offset,
    events: [rendered],
    traceContext: null,
    recordTime: toIso(update.recordTime),
    synchronizerId: update.synchronizerId,
    paidTrafficCost: null
  }
}

const PERMISSIONS = {
  Submission: "PARTICIPANT_PERMISSION_SUBMISSION",
  Confirmation: "PARTICIPANT_PERMISSION_CONFIRMATION",
  Observation: "PARTICIPANT_PERMISSION_OBSERVATION"
} as const satisfies Record<string, ParticipantPermission>

/** The ledger API's name of a participant permission. */
export const renderPermission = (permission: keyof typeof PERMISSIONS): ParticipantPermission => PERMISSIONS[permission]

export const renderTopologyTransaction = (view: LedgerApi.TopologyTransactionView): JsTopologyTransaction => ({
  updateId: view.update.updateId,
  offset: view.offset,
  synchronizerId: view.update.synchronizerId,
  recordTime: toIso(view.update.recordTime),
  events: view.events.map((e) => ({
    event: {
      ParticipantAuthorizationAdded: {
        value: { partyId: e.partyId, participantId: uidWithoutPrefix(e.participantId), participantPermission: renderPermission(e.permission) }
      }
    }
  })),
  traceContext: null
})

export const renderCheckpoint = (checkpoint: LedgerApi.CheckpointView) => ({
  OffsetCheckpoint: {
    value: {
      offset: checkpoint.offset,
      synchronizerTimes: checkpoint.synchronizerTimes.map((t) => ({ synchronizerId: t.synchronizerId, recordTime: toIso(t.recordTime) }))
    }
  }
})

export const renderUpdate = (item: LedgerApi.StreamItem): Update => {
  switch (item.kind) {
    case "transaction":
      return { Transaction: { value: renderTransaction(item) } }
    case "reassignment":
      return { Reassignment: { value: renderReassignment(item) } }
    case "topology":
      return { TopologyTransaction: { value: renderTopologyTransaction(item) } }
    case "checkpoint":
      return renderCheckpoint(item)
  }
}

/** Trees have no topology variant: their format never asks for topology events (resolveUpdateFormat). */
export const renderUpdateTree = (item: LedgerApi.StreamItem): typeof UpdateTree.Type => {
  invariant(item.kind !== "topology", "a tree stream never carries topology updates")
  switch (item.kind) {
    case "transaction":
      return { TransactionTree: { value: renderTree(item) } }
    case "reassignment":
      return { Reassignment: { value: renderReassignment(item) } }
    case "checkpoint":
      return renderCheckpoint(item)
  }
}
