/**
 * A participant (validator node): hosts parties, interprets their commands into transactions,
 * submits them to a synchronizer, confirms the views of its hosted parties (rejecting when an
 * input contract is not active or is locked by another request: no double spend), commits on
 * ACCEPTED verdicts, assigns its own offsets and keeps its ACS and update log.
 *
 * `ParticipantLogic` is synchronous and deterministic, driven by messages and the time passed in.
 * It ties the roles together (submission.ts, confirmation.ts, commit.ts, reassignment.ts,
 * completions.ts, parties.ts, packages.ts: functions over the shared state of state.ts) and is what the actor
 * (actor.ts) runs. State changes go through `apply(event)` so that the node's journal (its durable
 * truth) can be replayed to rebuild it: the ACS and indexes are derived from the committed updates.
 */
import type { Either } from "effect"
import {
  invariant,
  type CommittedUpdate,
  type ContractId,
  type ContractNotActive,
  type InterpretationError,
  type Micros,
  type PartyId,
  type SynchronizerId
} from "@sandnet/core"
import type { CommandRejected, PartyAlreadyExists } from "../errors.ts"
import type * as External from "../external/index.ts"
import { Outgoing, type Message } from "../network/network.ts"
import type { Deliver, DeliverError, ProtocolRequest, RequestDeadline, SubmissionDeadline } from "../protocol/messages.ts"
import type { PartyHosting, SynchronizerInfo } from "../topology.ts"
import { onResult, applyCommit } from "./commit.ts"
import { applyCompletion } from "./completions.ts"
import { armDeadlineSweep, checkView, onRequest, onRequestDeadline } from "./confirmation.ts"
import { collect, collected, nothingHandled, type Handled, type ParticipantEvent, type PendingRequest, type ReassignRequest, type SubmitRequest } from "./model.ts"
import type { KnownPackage } from "./built-in-packages.ts"
import { applyPackages, takeUpload } from "./packages.ts"
import { allocateParty, applyHosting, authorizationAdded, hostParty, recordHosting, reserveParty } from "./parties.ts"
import { reassign } from "./reassignment.ts"
import { isRetainedSetup, MAX_RETAINED_SETUP } from "./checkpoint.ts"
import { ParticipantState } from "./state.ts"
import { applySubmission, applySubmissionCounter, onDeliverError, onSubmissionDeadline, submit, type Submitted } from "./submission.ts"

/** The views of one request a delivered batch carries. */
interface RequestViews {
  readonly request: ProtocolRequest
  readonly viewIds: Array<number>
}

export class ParticipantLogic extends ParticipantState {
  // ---------------------------------------------------------------- journal

  apply(event: ParticipantEvent, replaying = false): void {
    switch (event._tag) {
      case "PartyAllocated":
      case "PartyHosted":
        applyHosting(this, event)
        break
      case "UpdateCommitted":
        applyCommit(this, event.entry)
        break
      case "CommandCompleted":
        applyCompletion(this, event)
        break
      case "SubmissionCounter":
        applySubmissionCounter(this, event)
        break
      case "CommandSubmitted":
        applySubmission(this, event)
        break
      case "PackagesUploaded":
      case "PackagesVetted":
        applyPackages(this, event)
        break
    }
    if (isRetainedSetup(event)) {
      invariant(this.retainedSetup.length < MAX_RETAINED_SETUP, () => `a participant keeps at most ${MAX_RETAINED_SETUP} setup events`)
      this.retainedSetup.push(event)
    }
    if (!replaying) {
      if (this.keepsJournal) this.journal.push(event)
      this.journalSink?.(event)
    }
  }

  /**
   * Rebuilds a crashed node: replays its journal, takes over the requests its request journal
   * had pending (with their locks), and returns the timers to re-arm for what is still in flight.
   */
  static recover(crashed: ParticipantLogic, now: Micros): { readonly logic: ParticipantLogic; readonly timers: ReadonlyArray<Outgoing> } {
    const logic = new ParticipantLogic(crashed.config, crashed.topology, crashed.registry)
    for (const event of crashed.journal) {
      logic.apply(event, true)
      logic.journal.push(event)
    }
    const timers: Array<Outgoing> = []
    for (const pending of crashed.pending.values()) {
      const locked: Array<ContractId> = []
      for (const contractId of pending.locked) {
        if (logic.acs.has(contractId) && logic.acs.lockedBy(contractId) === undefined) {
          logic.acs.lock(contractId, pending.requestId)
          locked.push(contractId)
        }
      }
      logic.pending.add({ ...pending, locked })
      logic.pendingUpdateIds.add(pending.request.updateId)
      timers.push(...logic.armDeadlineSweep(pending, now))
    }
    // Submissions whose outcome is unknown: look again (a time proof settles them).
    for (const submission of logic.submissions.values()) {
      if (!logic.isCurrentAttempt(submission)) continue
      const deadline: SubmissionDeadline = { _tag: "SubmissionDeadline", messageId: submission.messageId }
      timers.push(Outgoing.timer(logic.uid, deadline, Math.max(now, submission.maxSequencingTime + 1)))
    }
    invariant(logic.ledgerEnd === crashed.ledgerEnd, "replaying the journal must restore the ledger end")
    for (const listener of crashed.listeners) logic.listeners.push(listener)
    return { logic, timers }
  }

  // ---------------------------------------------------------------- parties

  allocateParty(hint: string, now: Micros, synchronizerId?: SynchronizerId): Either.Either<PartyId, PartyAlreadyExists> {
    return allocateParty(this, hint, now, synchronizerId)
  }

  reserveParty(hint: string): Either.Either<PartyId, PartyAlreadyExists> {
    return reserveParty(this, hint)
  }

  hostParty(hosting: PartyHosting, now: Micros, signingKeys?: External.SigningKeysWithThreshold, synchronizerId?: SynchronizerId): Either.Either<PartyId, PartyAlreadyExists> {
    return hostParty(this, hosting, now, signingKeys, synchronizerId)
  }

  /** Records a hosting the topology may know already (another participant of the network recorded it first). */
  recordHosting(hosting: PartyHosting, now: Micros, signingKeys?: External.SigningKeysWithThreshold, synchronizerId?: SynchronizerId): void {
    recordHosting(this, hosting, now, signingKeys, synchronizerId)
  }

  // ---------------------------------------------------------------- packages

  /** Takes an upload's packages (checked against this node's packages); with `vet`, vets them. */
  takeUpload(packages: ReadonlyArray<KnownPackage>, uploadedAt: Micros, vet: boolean): void {
    takeUpload(this, packages, uploadedAt, vet)
  }

  authorizationAdded(party: PartyId, now: Micros, synchronizerId?: SynchronizerId): CommittedUpdate {
    return authorizationAdded(this, party, now, synchronizerId)
  }

  // ---------------------------------------------------------------- commands

  /**
   * Interprets and submits a command. Returns the update id and what to send; fails when the
   * command cannot be interpreted or is a duplicate. The outcome arrives later as a Completion.
   */
  submit(request: SubmitRequest, now: Micros): Either.Either<Submitted, InterpretationError | CommandRejected> {
    return submit(this, request, now)
  }

  /** Starts moving a contract to another synchronizer (unassign; the assign follows on acceptance). */
  reassign(request: ReassignRequest, now: Micros): Either.Either<{ readonly updateId: string; readonly out: ReadonlyArray<Outgoing> }, CommandRejected | ContractNotActive> {
    return reassign(this, request, now)
  }

  // ---------------------------------------------------------------- protocol

  /** Handles a message: what to send, and the completions of this node's commands it decided. */
  handle(message: Message, now: Micros): Handled {
    switch (message._tag) {
      case "Deliver":
        return this.onDeliver(message as Deliver, now)
      case "DeliverError":
        return onDeliverError(this, message as DeliverError, now)
      case "SubmissionDeadline":
        return onSubmissionDeadline(this, (message as SubmissionDeadline).messageId, now)
      case "RequestDeadline":
        return onRequestDeadline(this, (message as RequestDeadline).synchronizerId, now)
      default:
        return nothingHandled
    }
  }

  private onDeliver(deliver: Deliver, now: Micros): Handled {
    this.observe(deliver.synchronizerId, deliver.timestamp)
    if (deliver.messageId !== undefined) {
      const submission = this.submissions.get(deliver.messageId)
      if (submission !== undefined) {
        submission.sequenced = true
        this.submissions.delete(deliver.messageId)
      }
    }
    const handled = collected()
    // A batch may carry several views of one request: gather them first, by update id (envelopes
    // that crossed a process boundary carry equal copies of the request, not one object). Almost
    // every batch carries one request: a Map only from the second (a Map per delivered request
    // was 1.5% of the large scenario's allocations).
    let first: RequestViews | undefined
    let others: Map<string, RequestViews> | undefined
    for (const content of deliver.contents) {
      if (content._tag === "ConfirmationRequest") {
        const updateId = content.request.updateId
        const entry = first === undefined || first.request.updateId === updateId ? first : others?.get(updateId)
        if (entry !== undefined) entry.viewIds.push(...content.viewIds)
        else if (first === undefined) first = { request: content.request, viewIds: [...content.viewIds] }
        else (others ??= new Map()).set(updateId, { request: content.request, viewIds: [...content.viewIds] })
      } else if (content._tag === "ConfirmationResult") {
        collect(handled, onResult(this, deliver, content, now))
      }
    }
    if (first !== undefined) handled.outgoing.push(...onRequest(this, deliver, first.request, first.viewIds))
    if (others !== undefined) {
      for (const { request, viewIds } of others.values()) handled.outgoing.push(...onRequest(this, deliver, request, viewIds))
    }
    return handled
  }

  /** Arms the synchronizer's deadline sweep for a pending request unless one is armed already. */
  armDeadlineSweep(pending: PendingRequest, now: Micros): ReadonlyArray<Outgoing> {
    return armDeadlineSweep(this, pending, now)
  }

  /** Why this node cannot approve a view, or undefined when it can. */
  checkView(request: ProtocolRequest, inputs: ReadonlyArray<ContractId>, requestId: Micros, synchronizer: SynchronizerInfo): string | undefined {
    return checkView(this, request, inputs, requestId, synchronizer)
  }
}
