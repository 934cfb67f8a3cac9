/**
 * JSON response shapes of the ledger surface's engine endpoints (canton-json-api-v2.yaml, 3.5) and
 * the rendering of the engine's views into them: JsTransaction, JsTransactionTree,
 * JsReassignment, JsTopologyTransaction, OffsetCheckpoint, CreatedEvent / ArchivedEvent /
 * ExercisedEvent. Request shapes are requests.ts.
 *
 * Output conventions (as Canton's JSON encoder prints protobuf messages): absent optional strings
 * of the message are `""` (commandId, workflowId), lists are `[]`; absent optional messages and
 * values (traceContext, contractKey, interfaceId, externalTransactionHash, paidTrafficCost) are
 * left out, as the schemas declare them optional, never `null`. Times are ISO-8601 with
 * microseconds; bytes (createdEventBlob, externalTransactionHash) standard base64.
 */
import { invariant, toIso, uidWithoutPrefix } from "@sandnet/core"
import { External, LedgerApi } from "@sandnet/engine"
import { Schema } from "effect"
import { Parties } from "./requests.ts"

// =============================================================================================
// Responses
// =============================================================================================

const Int = Schema.Int
const OptionalString = Schema.optional(Schema.String)

/** `{ [key]: value }` when the value is present, `{}` when it is absent: optional fields are left out. */
const present = <K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [k in K]?: V }

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
  contractKey: Schema.optional(Schema.Unknown),
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
  interfaceId: OptionalString,
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

export const JsTraceContext = Schema.Struct({ traceparent: OptionalString, tracestate: OptionalString }).annotations({ identifier: "TraceContext" })

export const JsTransaction = Schema.Struct({
  updateId: Schema.String,
  commandId: Schema.String,
  workflowId: Schema.String,
  effectiveAt: Schema.String,
  events: Schema.Array(Event),
  offset: Int,
  synchronizerId: Schema.String,
  traceContext: Schema.optional(JsTraceContext),
  recordTime: Schema.String,
  externalTransactionHash: OptionalString,
  paidTrafficCost: Schema.optional(Int)
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
  traceContext: Schema.optional(JsTraceContext),
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
  assignmentExclusivity: OptionalString,
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
  traceContext: Schema.optional(JsTraceContext),
  recordTime: Schema.String,
  synchronizerId: Schema.String,
  paidTrafficCost: Schema.optional(Int)
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
  traceContext: Schema.optional(JsTraceContext)
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
  ...present("interfaceId", event.node.interfaceId),
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
  present("traceContext", trace === undefined ? undefined : { ...present("traceparent", trace.traceparent), ...present("tracestate", trace.tracestate) })

/** The engine keeps the external transaction hash as hex; the JSON API carries bytes as base64. */
const hashBase64 = (hex: string | undefined): string | undefined => {
  if (hex === undefined) return undefined
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
  ...renderTrace(view.update.traceContext),
  recordTime: toIso(view.update.recordTime),
  ...present("externalTransactionHash", hashBase64(view.update.externalTransactionHash)),
  ...present("paidTrafficCost", view.forSubmitter ? view.update.paidTrafficCost : undefined)
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
    ...renderTrace(view.update.traceContext),
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
    recordTime: toIso(update.recordTime),
    synchronizerId: update.synchronizerId
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
  }))
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
