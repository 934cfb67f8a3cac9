/**
 * Submission: interpreting a command against what its submitters see here, refusing duplicates
 * (command deduplication) and parties not hosted here, choosing the synchronizer its inputs are
 * on, and sending the confirmation requests to the sequencer. The submission is journaled
 * (`CommandSubmitted`, `SubmissionCounter`) before it is sent; its fate at the sequencer (a
 * delivery error, or no receipt before its max sequencing time) is followed here too.
 */
import { Either } from "effect"
import {
  canonicalJson,
  invariant,
  micros,
  sha256OfParts,
  updateIdOf,
  type ActiveContract,
  type ContractId,
  type InterpretationError,
  type Json,
  type Micros,
  type PartyId,
  type SynchronizerId
} from "@sandnet/core"
import { CommandRejected, ErrorCodes } from "../errors.ts"
import { interpret, type InterpretedTransaction } from "../ledger/interpreter.ts"
import { Outgoing } from "../network/network.ts"
import type { DeliverError, Envelope, RequestView, SubmissionDeadline, SubmissionRequest, TransactionRequest } from "../protocol/messages.ts"
import type { SynchronizerInfo } from "../topology.ts"
import { failCommand } from "./completions.ts"
import { MAX_DEDUPLICATION, commandKeyOf, nothingHandled, type Handled, type ParticipantEvent, type SubmitRequest } from "./model.ts"
import type { ParticipantState } from "./state.ts"

export interface Submitted {
  readonly updateId: string
  readonly transaction: InterpretedTransaction
  readonly out: ReadonlyArray<Outgoing>
}

/** A fresh transaction seed from the journaled submission counter. */
export const nextSeed = (node: ParticipantState, commandId: string, now: Micros): string => {
  node.nonce++
  node.apply({ _tag: "SubmissionCounter", nonce: node.nonce })
  return sha256OfParts("transaction-seed", node.uid, String(node.nonce), commandId, String(now))
}

/**
 * Why a command may not be submitted again now: one in flight, or accepted within the deduplication period.
 * (Built without the schema's validation, `true`: the fields are strings by type, and retries make these
 * rejections frequent; validating each was about 2% of a faults-crash seed.)
 */
export const checkDeduplication = (node: ParticipantState, commandKey: string, now: Micros): CommandRejected | undefined => {
  const entry = node.commands.get(commandKey)
  if (entry === undefined) return undefined
  if (entry.status === "inFlight") {
    return new CommandRejected({ code: ErrorCodes.alreadyInFlight, message: `command ${entry.commandId} is already in flight` }, true)
  }
  if (entry.status === "succeeded" && now - entry.completedAt < MAX_DEDUPLICATION) {
    const completion = node.completions.at(entry.completionAt)?.completion
    return new CommandRejected({
      code: ErrorCodes.duplicateCommand,
      message: `command ${completion?.commandId ?? ""} was already accepted in update ${completion?._tag === "Succeeded" ? completion.updateId : ""}`
    }, true)
  }
  return undefined
}

export const requireHosted = (node: ParticipantState, parties: ReadonlyArray<PartyId>): CommandRejected | undefined => {
  for (const party of parties) {
    const permission = node.topology.permissionOf(node.uid, party)
    if (permission === undefined) {
      return new CommandRejected({ code: ErrorCodes.partyNotHosted, message: `party ${party} is not hosted on participant ${node.uid}` })
    }
  }
  return undefined
}

/**
 * Interprets and submits a command. Returns the update id and what to send; fails when the
 * command cannot be interpreted or is a duplicate. The outcome arrives later as a Completion.
 */
export const submit = (node: ParticipantState, request: SubmitRequest, now: Micros): Either.Either<Submitted, InterpretationError | CommandRejected> => {
  if (request.actAs.length === 0) {
    return Either.left(new CommandRejected({ code: "INVALID_ARGUMENT", message: "actAs must name at least one party" }))
  }
  const hostingError = requireHosted(node, request.actAs)
  if (hostingError !== undefined) return Either.left(hostingError)
  const commandKey = commandKeyOf(request.commandId, request.actAs)
  const duplicate = checkDeduplication(node, commandKey, now)
  if (duplicate !== undefined) return Either.left(duplicate)
  const fresh = nextSeed(node, request.commandId, now)
  const seed = request.prepared?.transactionSeed ?? fresh
  const interpreted = interpretCommand(node, request, seed, now)
  if (Either.isLeft(interpreted)) return Either.left(interpreted.left)
  const transaction = interpreted.right
  const synchronizer = synchronizerOfInputs(node, request.synchronizerId, transaction)
  if (Either.isLeft(synchronizer)) return Either.left(synchronizer.left)
  const updateId = updateIdOf(seed)
  const out = sendTransaction(node, request, commandKey, updateId, transaction, synchronizer.right, now)
  return Either.right({ updateId, transaction, out })
}

/**
 * Interprets the command with what its submitters (actAs and readAs) see here plus the disclosed
 * contracts; a prepared transaction must interpret to exactly what was signed.
 */
const interpretCommand = (
  node: ParticipantState,
  request: SubmitRequest,
  seed: string,
  now: Micros
): Either.Either<InterpretedTransaction, InterpretationError | CommandRejected> => {
  const readers = new Set<PartyId>([...request.actAs, ...(request.readAs ?? [])])
  const disclosed = new Map<ContractId, ActiveContract>()
  for (const c of request.disclosedContracts ?? []) disclosed.set(c.created.contractId, c)
  const lookup = (contractId: ContractId): ActiveContract | undefined => {
    const own = node.visibleContract(contractId, readers)
    if (own !== undefined) return own
    const shared = disclosed.get(contractId)
    // A disclosed contract that this node knows to be archived or in flight is not usable.
    if (shared !== undefined && node.acs.inFlightOf(contractId) === undefined) return shared
    return undefined
  }
  const interpreted = interpret({
    registry: node.registry,
    transactionSeed: seed,
    ledgerTime: request.prepared?.ledgerTime ?? now,
    actAs: request.actAs,
    lookup,
    commands: request.commands
  })
  if (Either.isLeft(interpreted)) return interpreted
  if (request.prepared !== undefined && canonicalJson(interpreted.right.nodes) !== canonicalJson(request.prepared.nodes)) {
    return Either.left(
      new CommandRejected({
        code: ErrorCodes.preparedTransactionStale,
        message: "the prepared transaction no longer interprets to what was signed (its inputs changed since preparation); prepare it again"
      })
    )
  }
  return interpreted
}

/** Every input must be on one synchronizer; it is where the transaction runs (the default one when it has no inputs). */
const synchronizerOfInputs = (
  node: ParticipantState,
  requested: SynchronizerId | undefined,
  transaction: InterpretedTransaction
): Either.Either<SynchronizerInfo, CommandRejected> => {
  let synchronizerId = requested
  for (const [contractId, input] of transaction.inputs) {
    const at = node.acs.get(contractId)?.synchronizerId ?? input.contract.synchronizerId
    if (at === "") continue
    if (synchronizerId === undefined) synchronizerId = at
    else if (synchronizerId !== at) {
      return Either.left(
        new CommandRejected({
          code: ErrorCodes.noSynchronizer,
          message: `inputs are on different synchronizers (${synchronizerId}, ${at}); reassign ${contractId} first`
        })
      )
    }
  }
  const synchronizer = node.topology.synchronizer(synchronizerId ?? node.config.defaultSynchronizer)
  if (synchronizer === undefined) {
    return Either.left(new CommandRejected({ code: ErrorCodes.noSynchronizer, message: `unknown synchronizer ${synchronizerId}` }))
  }
  return Either.right(synchronizer)
}

/** Sends an interpreted transaction: a confirmation request per view to its informees' participants, and the mediator's request. */
const sendTransaction = (
  node: ParticipantState,
  request: SubmitRequest,
  commandKey: string,
  updateId: string,
  transaction: InterpretedTransaction,
  synchronizer: SynchronizerInfo,
  now: Micros
): ReadonlyArray<Outgoing> => {
  const txRequest: TransactionRequest = {
    kind: "transaction",
    updateId,
    commandId: request.commandId,
    workflowId: request.workflowId ?? "",
    submitters: [...request.actAs].sort(),
    submittingParticipant: node.uid,
    synchronizerId: synchronizer.synchronizerId,
    transaction,
    externalTransactionHash: request.externalTransactionHash,
    traceContext: request.traceContext
  }
  const views: Array<RequestView> = transaction.views.map((v) => ({
    viewId: v.viewId,
    informees: v.informees,
    confirmingParties: v.confirmingParties,
    subViews: v.subViews,
    viewHash: v.viewHash
  }))
  const envelopes: Array<Envelope> = transaction.views.map((v) => ({
    recipients: node.topology.participantsOf(v.informees),
    content: { _tag: "ConfirmationRequest", request: txRequest, viewIds: [v.viewId] },
    size: v.size,
    viewIds: [v.viewId]
  }))
  envelopes.push({
    recipients: [synchronizer.mediator],
    content: { _tag: "MediatorRequest", request: txRequest, views, rootViews: transaction.rootViews },
    size: 120 + 90 * views.length,
    viewIds: []
  })
  node.stats.submitted++
  return sendToSequencer(node, synchronizer, commandKey, request.commandId, request.actAs, updateId, envelopes, now, transaction.results, {
    userId: request.userId,
    submissionId: request.submissionId
  })
}

/** Journals the command as submitted, then sends its envelopes with a deadline to look at it again. */
export const sendToSequencer = (
  node: ParticipantState,
  synchronizer: SynchronizerInfo,
  commandKey: string,
  commandId: string,
  actAs: ReadonlyArray<PartyId>,
  updateId: string,
  envelopes: ReadonlyArray<Envelope>,
  now: Micros,
  results: ReadonlyArray<Json>,
  submitter: { readonly userId?: string | undefined; readonly submissionId?: string | undefined } = {}
): ReadonlyArray<Outgoing> => {
  const messageId = `${node.uid}:${node.nonce}`
  const maxSequencingTime = now + synchronizer.parameters.maxSequencingTimeOffset
  node.apply({
    _tag: "CommandSubmitted",
    commandKey,
    commandId,
    actAs: [...actAs].sort(),
    ...(submitter.userId !== undefined ? { userId: submitter.userId } : {}),
    ...(submitter.submissionId !== undefined ? { submissionId: submitter.submissionId } : {}),
    messageId,
    synchronizerId: synchronizer.synchronizerId,
    maxSequencingTime,
    updateId,
    results,
    at: now
  })
  const submission: SubmissionRequest = { _tag: "SubmissionRequest", sender: node.uid, messageId, maxSequencingTime, envelopes }
  const deadline: SubmissionDeadline = { _tag: "SubmissionDeadline", messageId }
  return [Outgoing.send(node.uid, synchronizer.sequencer, submission), Outgoing.timer(node.uid, deadline, maxSequencingTime + 1)]
}

/** Folds `SubmissionCounter`. */
export const applySubmissionCounter = (node: ParticipantState, event: Extract<ParticipantEvent, { _tag: "SubmissionCounter" }>): void => {
  invariant(event.nonce >= node.nonce, "submission counter must only increase")
  node.nonce = event.nonce
}

/** Folds `CommandSubmitted`: the command is in flight, its submission awaits the sequencer's receipt. */
export const applySubmission = (node: ParticipantState, event: Extract<ParticipantEvent, { _tag: "CommandSubmitted" }>): void => {
  const synchronizer = node.topology.synchronizer(event.synchronizerId)
  invariant(synchronizer !== undefined, "command submitted to an unknown synchronizer")
  node.commands.set(event.commandKey, {
    status: "inFlight",
    actAs: event.actAs,
    commandId: event.commandId,
    userId: event.userId,
    submissionId: event.submissionId,
    synchronizerId: event.synchronizerId,
    results: event.results,
    updateId: event.updateId,
    messageId: event.messageId,
    maxSequencingTime: event.maxSequencingTime
  })
  node.submissions.set(event.messageId, {
    messageId: event.messageId,
    commandKey: event.commandKey,
    synchronizer,
    maxSequencingTime: event.maxSequencingTime,
    updateId: event.updateId,
    sequenced: false
  })
}

/** The sequencer refused a submission: its command fails (unless a later attempt replaced it). */
export const onDeliverError = (node: ParticipantState, error: DeliverError, now: Micros): Handled => {
  node.observe(error.synchronizerId, error.timestamp)
  const submission = node.submissions.get(error.messageId)
  if (submission === undefined) return nothingHandled
  node.submissions.delete(error.messageId)
  if (!node.isCurrentAttempt(submission)) return nothingHandled
  const code = error.reason.split(":")[0] ?? error.reason
  return failCommand(node, submission.commandKey, submission.updateId, code, error.reason, now)
}

/** A submission's max sequencing time passed here: it fails once the sequencer's clock passed it too. */
export const onSubmissionDeadline = (node: ParticipantState, messageId: string, now: Micros): Handled => {
  const submission = node.submissions.get(messageId)
  // Nothing to do for an attempt the command no longer waits for, or one that was sequenced:
  // its receipt came, or (on a node rebuilt since, which forgot receipts) its request is
  // pending or committed here.
  if (
    submission === undefined ||
    submission.sequenced ||
    !node.isCurrentAttempt(submission) ||
    node.pendingUpdateIds.has(submission.updateId) ||
    node.updateIndex.has(submission.updateId)
  ) {
    node.submissions.delete(messageId)
    return nothingHandled
  }
  const observed = node.observedTime.get(submission.synchronizer.synchronizerId) ?? 0
  if (observed > submission.maxSequencingTime) {
    // The sequencer's clock passed the deadline without sequencing it: it never will.
    node.submissions.delete(messageId)
    return failCommand(node, submission.commandKey, submission.updateId, ErrorCodes.notSequencedTimeout, "the submission was not sequenced before its max sequencing time", now)
  }
  // Ask the sequencer for its time (a time proof), and look again a little later.
  return { outgoing: requestTimeProof(node, submission.synchronizer, messageId, now), completions: [] }
}

/** An empty submission whose delivery tells the sequencer's time, and a reminder for `reminderFor`. */
export const requestTimeProof = (node: ParticipantState, synchronizer: SynchronizerInfo, reminderFor: string, now: Micros): ReadonlyArray<Outgoing> => {
  const proof: SubmissionRequest = {
    _tag: "SubmissionRequest",
    sender: node.uid,
    messageId: `${node.uid}:time-proof:${now}`,
    maxSequencingTime: now + synchronizer.parameters.maxSequencingTimeOffset,
    envelopes: []
  }
  const deadline: SubmissionDeadline = { _tag: "SubmissionDeadline", messageId: reminderFor }
  return [Outgoing.send(node.uid, synchronizer.sequencer, proof), Outgoing.timer(node.uid, deadline, now + micros.seconds(5))]
}
