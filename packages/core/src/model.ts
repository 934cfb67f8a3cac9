/**
 * The ledger model every surface renders: transactions as trees of created / exercised nodes,
 * reassignments, verdicts, traffic summaries and app activity records. Defined as Schemas so
 * the store can decode what it reads back; the types are derived from them. Times are
 * microseconds since the epoch (see time.ts); surfaces format them.
 */
import { Schema } from "effect"
import type { Json } from "./hash.ts"

const JsonValue: Schema.Schema<Json> = Schema.suspend(() =>
  Schema.Union(
    Schema.Null,
    Schema.Boolean,
    Schema.Number,
    Schema.String,
    Schema.Array(JsonValue),
    Schema.Record({ key: Schema.String, value: JsonValue })
  )
)
export { JsonValue }
export const JsonObjectSchema = Schema.Record({ key: Schema.String, value: JsonValue })

const Parties = Schema.Array(Schema.String)

export const CreatedNode = Schema.Struct({
  kind: Schema.Literal("created"),
  nodeId: Schema.Number,
  contractId: Schema.String,
  templateId: Schema.String,
  packageName: Schema.String,
  createArguments: JsonObjectSchema,
  signatories: Parties,
  observers: Parties,
  /** Ledger effective time of the creating transaction. */
  createdAt: Schema.Number,
  /** Parties that see this node: its informees plus the witnesses of its ancestors. Sorted. */
  witnesses: Parties,
  /** Interface views of the created contract, by interface id (token-standard Holding etc.). */
  interfaceViews: Schema.Record({ key: Schema.String, value: JsonValue })
})
export type CreatedNode = typeof CreatedNode.Type

export const ExercisedNode = Schema.Struct({
  kind: Schema.Literal("exercised"),
  nodeId: Schema.Number,
  contractId: Schema.String,
  templateId: Schema.String,
  packageName: Schema.String,
  interfaceId: Schema.optional(Schema.String),
  choice: Schema.String,
  choiceArgument: JsonValue,
  actingParties: Parties,
  consuming: Schema.Boolean,
  /** Immediate children in execution order. */
  childNodeIds: Schema.Array(Schema.Number),
  lastDescendantNodeId: Schema.Number,
  exerciseResult: JsonValue,
  /** Signatories and observers of the exercised contract (the ACS-delta audience of a consuming exercise). */
  stakeholders: Parties,
  witnesses: Parties,
  implementedInterfaces: Schema.Array(Schema.String)
})
export type ExercisedNode = typeof ExercisedNode.Type

export const TxNode = Schema.Union(CreatedNode, ExercisedNode)
export type TxNode = typeof TxNode.Type

export const TraceContext = Schema.Struct({
  traceparent: Schema.optional(Schema.String),
  tracestate: Schema.optional(Schema.String)
})
export type TraceContext = typeof TraceContext.Type

export const TransactionUpdate = Schema.Struct({
  kind: Schema.Literal("transaction"),
  updateId: Schema.String,
  commandId: Schema.String,
  workflowId: Schema.String,
  submitters: Parties,
  submittingParticipant: Schema.String,
  synchronizerId: Schema.String,
  migrationId: Schema.Number,
  recordTime: Schema.Number,
  effectiveAt: Schema.Number,
  rootNodeIds: Schema.Array(Schema.Number),
  /** Nodes of the tree (or of a node's projection of it), ascending by nodeId. */
  nodes: Schema.Array(TxNode),
  externalTransactionHash: Schema.optional(Schema.String),
  traceContext: Schema.optional(TraceContext),
  paidTrafficCost: Schema.Number
})
export type TransactionUpdate = typeof TransactionUpdate.Type

export const UnassignEvent = Schema.Struct({
  kind: Schema.Literal("unassign"),
  contractId: Schema.String,
  templateId: Schema.String,
  packageName: Schema.String,
  sourceSynchronizer: Schema.String,
  targetSynchronizer: Schema.String,
  /** Migration id of the source synchronizer. */
  migrationId: Schema.Number,
  unassignId: Schema.String,
  reassignmentCounter: Schema.Number,
  stakeholders: Parties
})
export type UnassignEvent = typeof UnassignEvent.Type

export const AssignEvent = Schema.Struct({
  kind: Schema.Literal("assign"),
  sourceSynchronizer: Schema.String,
  targetSynchronizer: Schema.String,
  /** Migration id of the target synchronizer. */
  migrationId: Schema.Number,
  unassignId: Schema.String,
  reassignmentCounter: Schema.Number,
  createdEvent: CreatedNode
})
export type AssignEvent = typeof AssignEvent.Type

export const ReassignmentUpdate = Schema.Struct({
  kind: Schema.Literal("reassignment"),
  updateId: Schema.String,
  commandId: Schema.String,
  workflowId: Schema.String,
  submitter: Schema.String,
  submittingParticipant: Schema.String,
  /** The synchronizer that sequenced it: the source for an unassign, the target for an assign. */
  synchronizerId: Schema.String,
  recordTime: Schema.Number,
  event: Schema.Union(UnassignEvent, AssignEvent)
})
export type ReassignmentUpdate = typeof ReassignmentUpdate.Type

/** The updates that go through a synchronizer's protocol: transactions and reassignments (what scans ingest). */
export const Update = Schema.Union(TransactionUpdate, ReassignmentUpdate)
export type Update = typeof Update.Type

export const ParticipantPermissionName = Schema.Literal("Submission", "Confirmation", "Observation")
export type ParticipantPermissionName = typeof ParticipantPermissionName.Type

/**
 * A participant authorization topology event: `participantId` (a participant uid) started hosting
 * `partyId` with `permission`. Sandnet hosts parties once and never changes or revokes a hosting,
 * so "added" is the only kind.
 */
export const ParticipantAuthorizationEvent = Schema.Struct({
  kind: Schema.Literal("authorizationAdded"),
  partyId: Schema.String,
  participantId: Schema.String,
  permission: ParticipantPermissionName
})
export type ParticipantAuthorizationEvent = typeof ParticipantAuthorizationEvent.Type

/**
 * A topology transaction that became effective at a participant and changed the hosting of one of
 * its parties (the ledger API's TopologyTransaction update). It occupies its own offset in that
 * participant's log; it has no verdict and no command, and scans never ingest it.
 */
export const TopologyUpdate = Schema.Struct({
  kind: Schema.Literal("topology"),
  updateId: Schema.String,
  synchronizerId: Schema.String,
  /** When the change became effective (the ledger clock at the hosting). */
  recordTime: Schema.Number,
  /** Non-empty. */
  events: Schema.Array(ParticipantAuthorizationEvent)
})
export type TopologyUpdate = typeof TopologyUpdate.Type

/** Everything a participant's update log holds: protocol updates and topology updates. */
export const ParticipantUpdate = Schema.Union(TransactionUpdate, ReassignmentUpdate, TopologyUpdate)
export type ParticipantUpdate = typeof ParticipantUpdate.Type

/** One entry of a node's update log: the update as that node saw it, at that node's offset. */
export const CommittedUpdate = Schema.Struct({
  offset: Schema.Number,
  update: ParticipantUpdate
})
export type CommittedUpdate = typeof CommittedUpdate.Type

/** A log entry holding a transaction or a reassignment (what a scan ingests), at the node's offset. */
export const CommittedLedgerUpdate = Schema.Struct({
  offset: Schema.Number,
  update: Update
})
export type CommittedLedgerUpdate = typeof CommittedLedgerUpdate.Type

export const Quorum = Schema.Struct({ parties: Parties, threshold: Schema.Number })
export type Quorum = typeof Quorum.Type

export const TransactionView = Schema.Struct({
  viewId: Schema.Number,
  informees: Parties,
  confirmingParties: Schema.Array(Quorum),
  subViews: Schema.Array(Schema.Number),
  viewHash: Schema.String
})
export type TransactionView = typeof TransactionView.Type

export const VerdictResult = Schema.Literal("VERDICT_RESULT_UNSPECIFIED", "VERDICT_RESULT_ACCEPTED", "VERDICT_RESULT_REJECTED")
export type VerdictResult = typeof VerdictResult.Type

export const Verdict = Schema.Struct({
  updateId: Schema.String,
  migrationId: Schema.Number,
  synchronizerId: Schema.String,
  recordTime: Schema.Number,
  finalizationTime: Schema.Number,
  submittingParties: Parties,
  submittingParticipantUid: Schema.String,
  result: VerdictResult,
  /** Why a verdict was REJECTED (not part of the scan shape; kept for diagnostics and the wallet). */
  reason: Schema.optional(Schema.String),
  mediatorGroup: Schema.Number,
  views: Schema.Array(TransactionView),
  rootViews: Schema.Array(Schema.Number)
})
export type Verdict = typeof Verdict.Type

export const TrafficSummary = Schema.Struct({
  totalTrafficCost: Schema.Number,
  envelopes: Schema.Array(Schema.Struct({ trafficCost: Schema.Number, viewIds: Schema.Array(Schema.Number) }))
})
export type TrafficSummary = typeof TrafficSummary.Type

export const AppActivityRecords = Schema.Struct({
  roundNumber: Schema.Number,
  records: Schema.Array(Schema.Struct({ party: Schema.String, weight: Schema.Number }))
})
export type AppActivityRecords = typeof AppActivityRecords.Type

/** An active contract as a node's ACS holds it. */
export const ActiveContract = Schema.Struct({
  created: CreatedNode,
  /** Update that created (or, after a reassignment, assigned) it. */
  createdInUpdateId: Schema.String,
  synchronizerId: Schema.String,
  reassignmentCounter: Schema.Number
})
export type ActiveContract = typeof ActiveContract.Type
