/**
 * Commit: applying verdicts. On an ACCEPTED verdict the node builds the full update of the request
 * (shared by every node that commits it), projects it on what its hosted parties may see, commits
 * it at its next offset (dense offsets: the update log's offset n is its n-th entry) and completes
 * its own command; on a rejection it only completes its command as failed. Committing is the
 * journal event `UpdateCommitted`, whose fold (`applyCommit`) changes the ACS and the update log.
 */
import { invariant, RecentlyMade, type ActiveContract, type AssignEvent, type CreatedNode, type CommittedUpdate, type Micros, type ReassignmentUpdate, type TransactionUpdate, type TrafficSummary, type UnassignEvent } from "@sandnet/core"
import { stakeholdersOf } from "../ledger/acs.ts"
import { projectTransaction } from "../ledger/projection.ts"
import type { Outgoing } from "../network/network.ts"
import type { Deliver, EnvelopeContent, ProtocolRequest } from "../protocol/messages.ts"
import { complete, failCommand } from "./completions.ts"
import { release } from "./confirmation.ts"
import { collect, collected, commandKeyOf, submittersOf, type Handled } from "./model.ts"
import { applyReassignment, assignAfterUnassign, reassignmentVisible } from "./reassignment.ts"
import type { ParticipantState } from "./state.ts"

/** Creations whose active contracts are kept to be shared by the next nodes that commit them. */
export const CREATIONS_SHARED = 2048

/** Applies a verdict this node receives: commits the request when accepted, and completes its own command. */
export const onResult = (node: ParticipantState, deliver: Deliver, content: Extract<EnvelopeContent, { _tag: "ConfirmationResult" }>, now: Micros): Handled => {
  const handled = collected()
  for (const listener of node.listeners) listener.onVerdict?.(content.verdict, content.trafficSummary, content.request)
  const pending = node.pending.get(deliver.synchronizerId, content.requestId)
  if (pending === undefined) return handled
  // A verdict sequenced after the deadline is void for everyone (see onRequestDeadline).
  if (deliver.timestamp > pending.deadline) return handled
  release(node, pending)
  const request = pending.request
  // Only the submitting node completes the command: the others (twenty super validators in the
  // large scenario) need no command key, whose sorted submitters were 2% of its allocations.
  const submittedHere = request.submittingParticipant === node.uid
  if (content.verdict.result !== "VERDICT_RESULT_ACCEPTED") {
    if (submittedHere) {
      const commandKey = commandKeyOf(request.commandId, submittersOf(request))
      collect(handled, failCommand(node, commandKey, request.updateId, rejectionCode(content.verdict.reason), content.verdict.reason ?? "rejected", now))
    }
    return handled
  }
  const offset = commitAccepted(node, request, content.requestId, content.trafficSummary, handled.outgoing, now)
  if (submittedHere) {
    const commandKey = commandKeyOf(request.commandId, submittersOf(request))
    const entry = node.commands.get(commandKey)
    collect(
      handled,
      complete(
        node,
        commandKey,
        {
          _tag: "Succeeded",
          commandId: request.commandId,
          actAs: submittersOf(request),
          updateId: request.updateId,
          offset,
          recordTime: content.requestId,
          results: entry?.status === "inFlight" ? entry.results : []
        },
        now
      )
    )
    if (request.kind === "unassign") handled.outgoing.push(...assignAfterUnassign(node, request, now))
  }
  return handled
}

/**
 * Commits the part of an accepted request this node's parties see (nothing when they see none)
 * and tells the commit listeners, whose messages go to `out`. Returns the node's ledger end after it.
 */
const commitAccepted = (
  node: ParticipantState,
  request: ProtocolRequest,
  recordTime: Micros,
  traffic: TrafficSummary,
  out: Array<Outgoing>,
  now: Micros
): number => {
  const update = toUpdate(node, request, recordTime, traffic)
  const projected = update.kind === "transaction" ? projectTransaction(update, node.hosts) : reassignmentVisible(update, node) ? update : undefined
  if (projected === undefined) return node.ledgerEnd
  const entry: CommittedUpdate = { offset: node.ledgerEnd + 1, update: projected }
  node.apply({ _tag: "UpdateCommitted", entry })
  for (const listener of node.listeners) if (listener.onCommitted !== undefined) out.push(...listener.onCommitted(entry, now))
  return entry.offset
}

/** Folds `UpdateCommitted`: the update takes the next offset; its creations and archivals change the ACS. */
export const applyCommit = (node: ParticipantState, entry: CommittedUpdate): void => {
  invariant(entry.offset === node.ledgerEnd + 1, () => `offset ${entry.offset} must follow ledger end ${node.ledgerEnd}`)
  const update = entry.update
  if (update.kind === "topology") {
    // Hosting changes live in the topology; the log only records when they became effective.
    invariant(!node.updateIndex.has(update.updateId), () => `topology update ${update.updateId} committed twice`)
    node.ledgerEnd = entry.offset
    node.log.push(entry)
    node.updateIndex.set(update.updateId, node.log.length - 1)
    return
  }
  if (update.kind === "transaction") applyTransaction(node, update)
  else applyReassignment(node, update)
  node.ledgerEnd = entry.offset
  node.log.push(entry)
  node.updateIndex.set(update.updateId, node.log.length - 1)
  node.stats.committed++
}

const applyTransaction = (node: ParticipantState, update: TransactionUpdate): void => {
  for (const created of update.nodes) {
    if (created.kind === "created") {
      // A contract this node already saw reassigned was created before: the creation's
      // synchronizer was just slower to reach it (see `reassigned`).
      if ((node.hostsAny(created.signatories) || node.hostsAny(created.observers)) && !node.reassigned.has(created.contractId)) {
        node.acs.add(createdContract(created, update))
      }
    } else if (created.consuming) {
      node.acs.remove(created.contractId)
    }
  }
}

/**
 * The active contract a creation makes, one object shared by every node that commits it (it is
 * immutable): with twenty super validators, each held its own copy of every contract. The nodes
 * that see a request commit it on its verdict, one after the other (interleaved with other
 * requests' commits): the contracts of the last `CREATIONS_SHARED` creations are enough. A
 * WeakMap of every creation cost 110 bytes per transaction of a soak for each contract still live.
 */
const createdRecently = new RecentlyMade<CreatedNode, ActiveContract>(CREATIONS_SHARED)
const createdContract = (created: CreatedNode, update: TransactionUpdate): ActiveContract => {
  const shared = createdRecently.get(created)
  if (shared !== undefined && shared.createdInUpdateId === update.updateId && shared.synchronizerId === update.synchronizerId) return shared
  const contract: ActiveContract = { created, createdInUpdateId: update.updateId, synchronizerId: update.synchronizerId, reassignmentCounter: 0 }
  createdRecently.set(created, contract)
  return contract
}

const updatesByRequest = new WeakMap<ProtocolRequest, TransactionUpdate | ReassignmentUpdate>()

/** The full update of an accepted request; shared by every node that commits it (it is immutable). */
const toUpdate = (node: ParticipantState, request: ProtocolRequest, recordTime: Micros, traffic: TrafficSummary): TransactionUpdate | ReassignmentUpdate => {
  const cached = updatesByRequest.get(request)
  if (cached !== undefined) return cached
  const update = buildUpdate(node, request, recordTime, traffic)
  updatesByRequest.set(request, update)
  return update
}

const buildUpdate = (node: ParticipantState, request: ProtocolRequest, recordTime: Micros, traffic: TrafficSummary): TransactionUpdate | ReassignmentUpdate => {
  const synchronizer = node.topology.synchronizer(request.kind === "assign" ? request.targetSynchronizer : request.kind === "unassign" ? request.sourceSynchronizer : request.synchronizerId)
  invariant(synchronizer !== undefined, "update from an unknown synchronizer")
  const migrationId = synchronizer.migrationId
  switch (request.kind) {
    case "transaction": {
      const tx = request.transaction
      return {
        kind: "transaction",
        updateId: request.updateId,
        commandId: request.commandId,
        workflowId: request.workflowId,
        submitters: request.submitters,
        submittingParticipant: request.submittingParticipant,
        synchronizerId: request.synchronizerId,
        migrationId,
        recordTime,
        effectiveAt: tx.ledgerTime,
        rootNodeIds: tx.rootNodeIds,
        nodes: tx.nodes,
        ...(request.externalTransactionHash !== undefined ? { externalTransactionHash: request.externalTransactionHash } : {}),
        ...(request.traceContext !== undefined ? { traceContext: request.traceContext } : {}),
        paidTrafficCost: traffic.totalTrafficCost
      }
    }
    case "unassign":
    case "assign":
      return {
        kind: "reassignment",
        updateId: request.updateId,
        commandId: request.commandId,
        workflowId: request.workflowId,
        submitter: request.submitter,
        submittingParticipant: request.submittingParticipant,
        synchronizerId: request.kind === "unassign" ? request.sourceSynchronizer : request.targetSynchronizer,
        recordTime,
        event: request.kind === "unassign" ? unassignEventOf(request, migrationId) : assignEventOf(request, migrationId)
      }
  }
}

const unassignEventOf = (request: Extract<ProtocolRequest, { kind: "unassign" }>, migrationId: number): UnassignEvent => {
  const created = request.contract.created
  return {
    kind: "unassign",
    contractId: created.contractId,
    templateId: created.templateId,
    packageName: created.packageName,
    sourceSynchronizer: request.sourceSynchronizer,
    targetSynchronizer: request.targetSynchronizer,
    migrationId,
    unassignId: request.updateId,
    reassignmentCounter: request.reassignmentCounter,
    stakeholders: stakeholdersOf(request.contract)
  }
}

const assignEventOf = (request: Extract<ProtocolRequest, { kind: "assign" }>, migrationId: number): AssignEvent => ({
  kind: "assign",
  sourceSynchronizer: request.sourceSynchronizer,
  targetSynchronizer: request.targetSynchronizer,
  migrationId,
  unassignId: request.unassignId,
  reassignmentCounter: request.reassignmentCounter,
  createdEvent: request.contract.created
})

const rejectionCode = (reason: string | undefined): string => {
  if (reason === undefined) return "REJECTED"
  const match = /^([A-Z_]+)(:|$)/.exec(reason)
  return match?.[1] ?? "REJECTED"
}
