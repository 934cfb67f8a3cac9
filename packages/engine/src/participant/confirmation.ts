/**
 * Confirmation: checking the views of a confirmation request for the parties hosted here and
 * answering the mediator with a local verdict per view (rejecting when an input contract is not
 * active here or is locked by another request: no double spend), locking what the request would
 * consume until its verdict, and giving up on requests whose verdict can no longer come (the
 * deadline sweep, one timer per synchronizer).
 */
import { invariant, micros, type ActiveContract, type ContractId, type Micros, type PartyId, type SynchronizerId } from "@sandnet/core"
import { ErrorCodes } from "../errors.ts"
import { Outgoing } from "../network/network.ts"
import type { Deliver, ProtocolRequest, RequestDeadline, SubmissionRequest, ViewResponse } from "../protocol/messages.ts"
import type { SynchronizerInfo } from "../topology.ts"
import { failCommand } from "./completions.ts"
import { collect, collected, commandKeyOf, submittersOf, type Handled, type PendingRequest } from "./model.ts"
import type { ParticipantState } from "./state.ts"
import { requestTimeProof } from "./submission.ts"

/** Decides whether this node can approve a view (a participant may override it: the simulation's deliberately broken one does). */
export interface ViewChecker {
  checkView(request: ProtocolRequest, inputs: ReadonlyArray<ContractId>, requestId: Micros, synchronizer: SynchronizerInfo): string | undefined
}

/** Checks the views of a request addressed to this node, answers the mediator, and locks the request's inputs. */
export const onRequest = (node: ParticipantState & ViewChecker, deliver: Deliver, request: ProtocolRequest, viewIds: ReadonlyArray<number>): ReadonlyArray<Outgoing> => {
  const synchronizer = node.topology.synchronizer(deliver.synchronizerId)
  invariant(synchronizer !== undefined, "request from an unknown synchronizer")
  const requestId = deliver.timestamp
  const duplicate = node.pendingUpdateIds.has(request.updateId) || node.updateIndex.has(request.updateId)
  const locked: Array<ContractId> = []
  const pending: PendingRequest = {
    requestId,
    synchronizer,
    request,
    locked,
    deadline: requestId + synchronizer.parameters.confirmationResponseTimeout + synchronizer.parameters.mediatorReactionTimeout
  }
  const responses: Array<ViewResponse> = []
  const views = viewsOf(request)
  for (const viewId of viewIds) {
    const view = views[viewId]
    if (view === undefined) continue
    const parties = view.confirmingParties.filter((p) => {
      const permission = node.topology.permissionOf(node.uid, p)
      return permission === "Submission" || permission === "Confirmation"
    })
    if (parties.length === 0) continue
    const reason = duplicate ? ErrorCodes.duplicateUpdate : node.checkView(request, view.inputs, requestId, synchronizer)
    responses.push({ viewId, parties, approve: reason === undefined, reason })
  }
  if (!duplicate) {
    // Lock what the request would consume, so a concurrent request cannot consume it too.
    for (const contractId of consumedBy(request)) {
      if (node.acs.has(contractId) && node.acs.lockedBy(contractId) === undefined) {
        node.acs.lock(contractId, requestId)
        locked.push(contractId)
      }
    }
    node.pending.add(pending)
    node.pendingUpdateIds.add(request.updateId)
  }
  const out: Array<Outgoing> = []
  if (responses.length > 0) {
    node.stats.confirmationsSent++
    const submission: SubmissionRequest = {
      _tag: "SubmissionRequest",
      sender: node.uid,
      // unique per sender and synchronizer (each has its own sequencer), as the mediator's `verdict:<request>`;
      // with the node's id and the synchronizer's it was about 150 characters, built by every confirming node
      messageId: `response:${requestId}`,
      receipt: false,
      maxSequencingTime: requestId + synchronizer.parameters.confirmationResponseTimeout,
      envelopes: [
        {
          recipients: [synchronizer.mediator],
          content: { _tag: "ConfirmationResponse", requestId, updateId: request.updateId, participant: node.uid, responses },
          size: 100 + 60 * responses.length,
          viewIds: responses.map((r) => r.viewId)
        }
      ]
    }
    out.push(Outgoing.send(node.uid, synchronizer.sequencer, submission))
  }
  if (!duplicate) out.push(...armDeadlineSweep(node, pending, pending.requestId))
  return out
}

/**
 * Arms the synchronizer's deadline sweep for a new pending request unless one is armed already.
 * One timer per synchronizer instead of one per request: almost every request is decided long
 * before its deadline, and a timer per request made a fifth of all deliveries reminders with
 * nothing to do.
 */
export const armDeadlineSweep = (node: ParticipantState, pending: PendingRequest, now: Micros): ReadonlyArray<Outgoing> => {
  const id = pending.synchronizer.synchronizerId
  if (node.sweepArmed.has(id)) return []
  node.sweepArmed.add(id)
  const reminder: RequestDeadline = { _tag: "RequestDeadline", synchronizerId: id }
  return [Outgoing.timer(node.uid, reminder, Math.max(now, pending.deadline + micros.seconds(1)))]
}

/** Why this node cannot approve a view, or undefined when it can. */
export const checkView = (
  node: ParticipantState,
  request: ProtocolRequest,
  inputs: ReadonlyArray<ContractId>,
  requestId: Micros,
  synchronizer: SynchronizerInfo
): string | undefined => {
  if (request.kind === "transaction") {
    const skew = Math.abs(requestId - request.transaction.ledgerTime)
    if (skew > synchronizer.parameters.ledgerTimeRecordTimeTolerance) {
      return `${ErrorCodes.ledgerTimeOutOfBounds}: ledger time is ${skew}us away from the record time`
    }
  }
  for (const contractId of inputs) {
    const known = request.kind === "assign" ? undefined : node.acs.get(contractId)
    if (request.kind === "assign") {
      if (!hostsStakeholder(node, request.contract)) continue
      if (!node.acs.assignMatches(contractId, request)) {
        // Assign before this node saw the unassign (it is sequenced on another synchronizer) is
        // allowed unless the contract is active here at that reassignment counter or a later one.
        const active = node.acs.get(contractId)
        if (active !== undefined && active.reassignmentCounter >= request.reassignmentCounter) {
          return `${ErrorCodes.reassignmentMismatch}: ${contractId} is still active here`
        }
      }
      continue
    }
    // Only contracts of a party hosted here can be checked here.
    const contract = request.kind === "transaction" ? request.transaction.inputs.get(contractId)?.contract : request.contract
    if (contract === undefined) continue
    if (!hostsStakeholder(node, contract)) continue
    if (known === undefined) {
      return `${ErrorCodes.inactiveContracts}: ${contractId} is not active${node.acs.inFlightOf(contractId) !== undefined ? " (being reassigned)" : ""}`
    }
    if (known.synchronizerId !== synchronizer.synchronizerId) {
      return `${ErrorCodes.inactiveContracts}: ${contractId} is on synchronizer ${known.synchronizerId}`
    }
    const lock = node.acs.lockedBy(contractId)
    if (lock !== undefined && lock !== requestId) return `${ErrorCodes.lockedContracts}: ${contractId} is locked by another request`
  }
  return undefined
}

/** Whether a stakeholder of the contract is hosted here (without building the stakeholder list: this runs for every input of every view). */
const hostsStakeholder = (node: ParticipantState, contract: ActiveContract): boolean =>
  node.hostsAny(contract.created.signatories) || node.hostsAny(contract.created.observers)

/** The request is decided (or void): its locks go, it is no longer pending. */
export const release = (node: ParticipantState, pending: PendingRequest): void => {
  for (const contractId of pending.locked) node.acs.unlock(contractId, pending.requestId)
  node.pending.delete(pending)
  node.pendingUpdateIds.delete(pending.request.updateId)
}

/** The deadline sweep of a synchronizer: voids the requests whose verdict can no longer be sequenced. */
export const onRequestDeadline = (node: ParticipantState, synchronizerId: SynchronizerId, now: Micros): Handled => {
  node.sweepArmed.delete(synchronizerId)
  const handled = collected()
  const out = handled.outgoing
  const observed = node.observedTime.get(synchronizerId) ?? 0
  let proofRequested = false
  // Requests of a synchronizer were registered in sequencing order, so their deadlines ascend.
  for (const pending of node.pending.of(synchronizerId)) {
    if (observed > pending.deadline) {
      // Sequencer time passed the latest point a verdict could be sequenced: every participant
      // reaches the same conclusion from the same sequencer timestamps.
      release(node, pending)
      if (pending.request.submittingParticipant === node.uid) {
        collect(handled, failCommand(node, commandKeyOf(pending.request.commandId, submittersOf(pending.request)), pending.request.updateId, ErrorCodes.localVerdictTimeout, "no verdict was sequenced in time", now))
      }
      continue
    }
    // The oldest undecided request: when its deadline has passed locally, ask the sequencer for
    // its time (a time proof) and look again a little later; otherwise wake up at its deadline.
    const due = pending.deadline <= now
    if (due && !proofRequested) {
      out.push(requestTimeProof(node, pending.synchronizer, "", now)[0]!)
      proofRequested = true
    }
    node.sweepArmed.add(synchronizerId)
    const reminder: RequestDeadline = { _tag: "RequestDeadline", synchronizerId }
    out.push(Outgoing.timer(node.uid, reminder, due ? now + micros.seconds(5) : pending.deadline + micros.seconds(1)))
    break
  }
  return handled
}

interface ViewForCheck {
  readonly confirmingParties: ReadonlyArray<PartyId>
  readonly inputs: ReadonlyArray<ContractId>
}

const viewsCache = new WeakMap<ProtocolRequest, ReadonlyArray<ViewForCheck>>()

/** The views of a request with the inputs each must check. A reassignment is one view. */
const viewsOf = (request: ProtocolRequest): ReadonlyArray<ViewForCheck> => {
  const cached = viewsCache.get(request)
  if (cached !== undefined) return cached
  const views: ReadonlyArray<ViewForCheck> =
    request.kind === "transaction"
      ? request.transaction.views.map((v) => ({ confirmingParties: v.confirmingParties, inputs: v.inputContractIds }))
      : [{ confirmingParties: request.contract.created.signatories, inputs: [request.contract.created.contractId] }]
  viewsCache.set(request, views)
  return views
}

const consumedCache = new WeakMap<ProtocolRequest, ReadonlyArray<ContractId>>()

/** The contracts a request would consume; one list for every node that confirms it (as its views, above). */
const consumedBy = (request: ProtocolRequest): ReadonlyArray<ContractId> => {
  const cached = consumedCache.get(request)
  if (cached !== undefined) return cached
  let consumed: Array<ContractId> = []
  if (request.kind === "transaction") {
    for (const [id, input] of request.transaction.inputs) if (input.consumed) consumed.push(id)
  } else if (request.kind === "unassign") consumed = [request.contract.created.contractId]
  consumedCache.set(request, consumed)
  return consumed
}
