/**
 * Reassignment: moving a contract to another synchronizer. A signatory's command unassigns it on
 * its synchronizer; once the unassign is accepted the submitting node assigns it on the target.
 * Committed unassign and assign events reach a node in any order (they are sequenced by different
 * synchronizers); the reassignment counter tells which is newer, and stale events change nothing.
 * The contract set steps each contract's reassignment lifecycle on the events it applies.
 */
import { Either } from "effect"
import { ContractNotActive, invariant, sha256OfParts, updateIdOf, type Micros, type ReassignmentUpdate } from "@sandnet/core"
import { CommandRejected, ErrorCodes } from "../errors.ts"
import { stakeholdersOf } from "../ledger/acs.ts"
import type { Outgoing } from "../network/network.ts"
import type { AssignRequest, Envelope, RequestView, UnassignRequest } from "../protocol/messages.ts"
import type { SynchronizerInfo, TopologyState } from "../topology.ts"
import { commandKeyOf, type ReassignRequest } from "./model.ts"
import type { ParticipantState } from "./state.ts"
import { checkDeduplication, nextSeed, requireHosted, sendToSequencer } from "./submission.ts"

/** Starts moving a contract to another synchronizer (unassign; the assign follows on acceptance). */
export const reassign = (
  node: ParticipantState,
  request: ReassignRequest,
  now: Micros
): Either.Either<{ readonly updateId: string; readonly out: ReadonlyArray<Outgoing> }, CommandRejected | ContractNotActive> => {
  const hostingError = requireHosted(node, [request.submitter])
  if (hostingError !== undefined) return Either.left(hostingError)
  const commandKey = commandKeyOf(request.commandId, [request.submitter])
  const duplicate = checkDeduplication(node, commandKey, now)
  if (duplicate !== undefined) return Either.left(duplicate)
  const contract = node.visibleContract(request.contractId, new Set([request.submitter]))
  if (contract === undefined) {
    const inFlight = node.acs.inFlightOf(request.contractId)
    return Either.left(
      new ContractNotActive({ contractId: request.contractId, reason: inFlight !== undefined ? "being reassigned" : "not an active contract of the submitter" })
    )
  }
  if (!contract.created.signatories.includes(request.submitter)) {
    return Either.left(new CommandRejected({ code: "INVALID_ARGUMENT", message: `only a signatory can reassign ${request.contractId}` }))
  }
  const source = node.topology.synchronizer(contract.synchronizerId)
  const target = node.topology.synchronizer(request.targetSynchronizer)
  if (source === undefined || target === undefined) {
    return Either.left(new CommandRejected({ code: ErrorCodes.noSynchronizer, message: `unknown synchronizer ${request.targetSynchronizer}` }))
  }
  if (source.synchronizerId === target.synchronizerId) {
    return Either.left(new CommandRejected({ code: "INVALID_ARGUMENT", message: `contract ${request.contractId} is already on ${target.synchronizerId}` }))
  }
  const seed = nextSeed(node, request.commandId, now)
  const updateId = updateIdOf(seed, "unassign")
  const unassign: UnassignRequest = {
    kind: "unassign",
    updateId,
    commandId: request.commandId,
    workflowId: request.workflowId ?? "",
    submitter: request.submitter,
    submittingParticipant: node.uid,
    contract,
    sourceSynchronizer: source.synchronizerId,
    targetSynchronizer: target.synchronizerId,
    reassignmentCounter: contract.reassignmentCounter + 1
  }
  node.stats.submitted++
  const out = sendToSequencer(node, source, commandKey, request.commandId, [request.submitter], updateId, reassignmentEnvelopes(node.topology, source, unassign), now, [])
  return Either.right({ updateId, out })
}

/** Completes a reassignment whose unassign was accepted: assign on the target. */
export const assignAfterUnassign = (node: ParticipantState, unassign: UnassignRequest, now: Micros): ReadonlyArray<Outgoing> => {
  const target = node.topology.synchronizer(unassign.targetSynchronizer)
  invariant(target !== undefined, "assign target synchronizer must exist")
  const commandId = `${unassign.commandId}:assign`
  const commandKey = commandKeyOf(commandId, [unassign.submitter])
  if (node.commands.has(commandKey)) return []
  const seed = nextSeed(node, commandId, now)
  const assign: AssignRequest = {
    kind: "assign",
    updateId: updateIdOf(seed, "assign"),
    commandId,
    workflowId: unassign.workflowId,
    submitter: unassign.submitter,
    submittingParticipant: node.uid,
    contract: unassign.contract,
    sourceSynchronizer: unassign.sourceSynchronizer,
    targetSynchronizer: unassign.targetSynchronizer,
    unassignId: unassign.updateId,
    reassignmentCounter: unassign.reassignmentCounter
  }
  node.stats.submitted++
  return sendToSequencer(node, target, commandKey, commandId, [unassign.submitter], assign.updateId, reassignmentEnvelopes(node.topology, target, assign), now, [])
}

/**
 * Applies a committed reassignment to the ACS. Events of different synchronizers reach a node in
 * any order: an assign (on the target) can come before its unassign, even before the contract's
 * creation (on the source). The reassignment counter says which is newer; stale events change nothing.
 */
export const applyReassignment = (node: ParticipantState, update: ReassignmentUpdate): void => {
  const event = update.event
  if (event.kind === "unassign") {
    const id = event.contractId
    const stale = node.latestCounter(id) >= event.reassignmentCounter
    node.reassigned.set(id, Math.max(node.reassigned.get(id) ?? 0, event.reassignmentCounter))
    const contract = node.acs.get(id)
    if (!stale && contract !== undefined) node.acs.markUnassigned(contract, event)
  } else {
    const id = event.createdEvent.contractId
    if (node.latestCounter(id) <= event.reassignmentCounter) {
      const contract = { created: event.createdEvent, createdInUpdateId: update.updateId, synchronizerId: event.targetSynchronizer, reassignmentCounter: event.reassignmentCounter }
      node.acs.assigned(contract, event)
    }
    node.reassigned.set(id, Math.max(node.reassigned.get(id) ?? 0, event.reassignmentCounter))
  }
}

/** Whether a node hosts a stakeholder of the reassigned contract (only those commit the reassignment). */
export const reassignmentVisible = (update: ReassignmentUpdate, node: ParticipantState): boolean => {
  const stakeholders = update.event.kind === "unassign" ? update.event.stakeholders : [...update.event.createdEvent.signatories, ...update.event.createdEvent.observers]
  return stakeholders.some(node.hosts)
}

/** A reassignment request is one view, confirmed by the contract's signatories. */
const reassignmentEnvelopes = (topology: TopologyState, synchronizer: SynchronizerInfo, request: UnassignRequest | AssignRequest): ReadonlyArray<Envelope> => {
  const stakeholders = stakeholdersOf(request.contract)
  const signatories = request.contract.created.signatories
  const view: RequestView = {
    viewId: 0,
    informees: stakeholders,
    confirmingParties: signatories,
    subViews: [],
    viewHash: sha256OfParts("reassignment-view", request.updateId)
  }
  return [
    {
      recipients: topology.participantsOf(stakeholders),
      content: { _tag: "ConfirmationRequest", request, viewIds: [0] },
      size: 400,
      viewIds: [0]
    },
    {
      recipients: [synchronizer.mediator],
      content: { _tag: "MediatorRequest", request, views: [view], rootViews: [0] },
      size: 200,
      viewIds: []
    }
  ]
}
