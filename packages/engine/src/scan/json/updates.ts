/**
 * Update history items as scan renders them (splice-scan.yaml), and S2 (an update by id).
 * `v1` event ids are `<update id>:<n>` with n the node's index in a pre-order walk of the
 * (DSO-projected) tree, so they agree across super validators; `v0` event ids are
 * `#<update id>:<node id>` with the node ids of the participant's tree (Canton's event ids before
 * 3.3). Reassignments: the created event of an assignment is node 0.
 *
 * JSON rendering: it belongs to the HTTP layer and moves there with the rest of scan/json/.
 */
import { Either } from "effect"
import {
  formatScanOffset,
  toIso,
  type CommittedLedgerUpdate,
  type CreatedNode,
  type Json,
  type ReassignmentUpdate,
  type TransactionUpdate,
  type TxNode
} from "@sandnet/core"
import type { UpdateNotFound } from "../errors.ts"
import type { ScanStore } from "../store.ts"
import { lookupUpdate } from "../updates.ts"
import { encodeChoiceArgument, encodePayload, encodeWith, sortedParties, type RenderOptions } from "./values.ts"

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

const renderCreated = (node: CreatedNode, eventId: string, options: RenderOptions): CreatedEventJson => ({
  event_type: "created_event",
  event_id: eventId,
  contract_id: node.contractId,
  template_id: node.templateId,
  package_name: node.packageName,
  create_arguments: encodePayload(options.registry, node, options.encoding),
  created_at: toIso(node.createdAt),
  signatories: sortedParties(node.signatories),
  observers: sortedParties(node.observers)
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
          acting_parties: sortedParties(node.actingParties),
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

/** S2: an update by id, rendered. */
export const updateById = (scan: ScanStore, updateId: string, style: EventIdStyle, options: RenderOptions): Either.Either<UpdateHistoryItemJson, UpdateNotFound> =>
  Either.map(lookupUpdate(scan, updateId), (entry) => renderUpdate(entry, style, options))
