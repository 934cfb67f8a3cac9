/**
 * What a participant (validator node) is asked and what it records: submission requests, command
 * completions, its journal events, its configuration, and the internal records of requests and
 * commands in flight that its roles (submission, confirmation, commit, reassignment, completions)
 * share through its state.
 */
import type { ArchivedLogLimits } from "../history/archived-log.ts"
import {
  micros,
  type ActiveContract,
  type CommittedUpdate,
  type ContractId,
  type Json,
  type Micros,
  type PackageDescription,
  type ParticipantUid,
  type PartyId,
  type SynchronizerId,
  type TraceContext,
  type TrafficSummary,
  type Verdict
} from "@sandnet/core"
import type { Command } from "../ledger/interpreter.ts"
import { sortedList } from "../ledger/party-lists.ts"
import type { Outgoing } from "../network/network.ts"
import type { ProtocolRequest } from "../protocol/messages.ts"
import type { PartyHosting, SynchronizerInfo } from "../topology.ts"

export interface SubmitRequest {
  /** The ledger API user submitting (kept with the command: its completions are that user's). */
  readonly userId?: string
  /** The client's submission id (Commands.submission_id), echoed in the completion. */
  readonly submissionId?: string
  readonly actAs: ReadonlyArray<PartyId>
  readonly readAs?: ReadonlyArray<PartyId>
  readonly commandId: string
  readonly workflowId?: string
  readonly commands: ReadonlyArray<Command>
  /** Contracts the submitter may use without seeing them (explicit disclosure). */
  readonly disclosedContracts?: ReadonlyArray<ActiveContract>
  readonly synchronizerId?: SynchronizerId
  readonly externalTransactionHash?: string
  readonly traceContext?: TraceContext
  /**
   * Executes a transaction prepared earlier (interactive submission): interpretation reuses its
   * seed and ledger time, and must yield exactly the prepared nodes (what the parties signed), or
   * the command is rejected as stale.
   */
  readonly prepared?: {
    readonly transactionSeed: string
    readonly ledgerTime: Micros
    readonly nodes: Json
  }
}

export interface ReassignRequest {
  readonly submitter: PartyId
  readonly commandId: string
  readonly workflowId?: string
  readonly contractId: ContractId
  readonly targetSynchronizer: SynchronizerId
}

export type Completion =
  | {
      readonly _tag: "Succeeded"
      readonly commandId: string
      readonly actAs: ReadonlyArray<PartyId>
      readonly updateId: string
      readonly offset: number
      readonly recordTime: Micros
      readonly results: ReadonlyArray<Json>
    }
  | {
      readonly _tag: "Failed"
      readonly commandId: string
      readonly actAs: ReadonlyArray<PartyId>
      readonly updateId: string | undefined
      readonly code: string
      readonly reason: string
    }

/**
 * A completion as the ledger API's command completion service shows it: the command's outcome
 * with the submitting user, where and when it was decided, and its offset. A successful command's
 * offset is its update's; a failed one carries the ledger end at the time of the failure (Sandnet
 * gives rejections no offset of their own: the update log's offsets stay dense). Completions are
 * kept in the order they happened, so their offsets never decrease.
 */
export interface CompletionRecord {
  readonly completion: Completion
  readonly userId: string | undefined
  readonly submissionId: string | undefined
  readonly synchronizerId: SynchronizerId
  readonly recordTime: Micros
  readonly offset: number
  /** When the participant decided the command (its `CommandCompleted` event): how long its id stays taken counts from it. */
  readonly completedAt: Micros
}

/**
 * What the participant's logic did with one message: what to send, and the completions of its
 * own commands that the message decided, in order. The logic holds no waiters: the actor (where
 * the Effect runtime is) hands the completions to whoever awaits them.
 */
export interface Handled {
  readonly outgoing: ReadonlyArray<Outgoing>
  readonly completions: ReadonlyArray<Completion>
}

/** A message that decided nothing and sends nothing. */
export const nothingHandled: Handled = { outgoing: [], completions: [] }

/** What handling one message has produced so far (the mutable form of `Handled`). */
export interface Collected {
  readonly outgoing: Array<Outgoing>
  readonly completions: Array<Completion>
}

export const collected = (): Collected => ({ outgoing: [], completions: [] })

/** Adds what a step handled to what the message handled so far. */
export const collect = (into: Collected, handled: Handled): void => {
  for (const out of handled.outgoing) into.outgoing.push(out)
  for (const completion of handled.completions) into.completions.push(completion)
}

/** The node's journal: replaying these events rebuilds the participant. */
export type ParticipantEvent =
  | { readonly _tag: "PartyAllocated"; readonly party: PartyId }
  /**
   * A party hosted with an explicit hosting (external parties, multi-hosted parties); an external
   * party's signing keys in the journal's form (External.signingKeysToJson).
   */
  | { readonly _tag: "PartyHosted"; readonly hosting: PartyHosting; readonly signingKeys: Json | undefined }
  /** Packages of an uploaded DAR that the node did not know, as the upload checked them. */
  | { readonly _tag: "PackagesUploaded"; readonly uploadedAt: Micros; readonly packages: ReadonlyArray<UploadedPackage> }
  /** Known packages the node started vetting on its synchronizers (each such change is a new vetting serial). */
  | { readonly _tag: "PackagesVetted"; readonly packageIds: ReadonlyArray<string> }
  | { readonly _tag: "UpdateCommitted"; readonly entry: CommittedUpdate }
  | { readonly _tag: "CommandCompleted"; readonly commandKey: string; readonly completion: Completion; readonly at: Micros }
  | { readonly _tag: "SubmissionCounter"; readonly nonce: number }
  | {
      readonly _tag: "CommandSubmitted"
      readonly commandKey: string
      readonly commandId: string
      readonly actAs: ReadonlyArray<PartyId>
      /** The submitting ledger API user, when the submission named one. */
      readonly userId?: string
      readonly submissionId?: string
      readonly messageId: string
      readonly synchronizerId: SynchronizerId
      readonly maxSequencingTime: Micros
      readonly updateId: string
      readonly results: ReadonlyArray<Json>
      readonly at: Micros
    }

/** A package as the journal keeps it: its id and description (the archive is the description's encoding). */
export interface UploadedPackage {
  readonly packageId: string
  readonly description: PackageDescription
}

export interface CommitListener {
  /**
   * Called for every transaction and reassignment committed at this node, in offset order (not
   * for topology updates: nothing listens for them; replaying readers skip them by kind).
   */
  readonly onCommitted?: (entry: CommittedUpdate, now: Micros) => ReadonlyArray<Outgoing>
  /** Called for every verdict this node receives (super validators receive all of them). */
  readonly onVerdict?: (verdict: Verdict, trafficSummary: TrafficSummary, request: ProtocolRequest) => void
  /** Called for completions of this node's own commands. */
  readonly onCompletion?: (completion: Completion, now: Micros) => ReadonlyArray<Outgoing>
}

/** A confirmation request this node saw and awaits the verdict of (kept in memory only). */
export interface PendingRequest {
  readonly requestId: Micros
  readonly synchronizer: SynchronizerInfo
  readonly request: ProtocolRequest
  readonly locked: Array<ContractId>
  readonly deadline: Micros
}

/** A submission sent to a sequencer whose receipt (or failure) has not arrived yet. */
export interface InFlightSubmission {
  readonly messageId: string
  readonly commandKey: string
  readonly synchronizer: SynchronizerInfo
  readonly maxSequencingTime: Micros
  readonly updateId: string
  sequenced: boolean
}

/** A command of this node, by command key: in flight, or decided (for deduplication). */
export type CommandEntry = InFlightCommand | DecidedCommand

/** A command submitted and not decided yet: what its completion will need. */
export interface InFlightCommand {
  readonly status: "inFlight"
  readonly actAs: ReadonlyArray<PartyId>
  readonly commandId: string
  /** The submitting ledger API user, when the submission named one. */
  readonly userId: string | undefined
  readonly submissionId: string | undefined
  /** Where the submission went (a completion's synchronizer). */
  readonly synchronizerId: SynchronizerId
  readonly results: ReadonlyArray<Json>
  /** The update id of this attempt (a command failed before may be submitted again). */
  readonly updateId: string
  /** This attempt's submission: what a restored node looks at again when its deadline passes. */
  readonly messageId: string
  readonly maxSequencingTime: Micros
}

/**
 * A decided command, kept for the deduplication period: its outcome is its completion record
 * (`completions`, which keeps older ones compressed), found by position. Three fields, where the
 * whole entry with its completion and results had cost about 0.7 KB per transaction of a soak.
 */
export interface DecidedCommand {
  readonly status: "succeeded" | "failed"
  readonly completedAt: Micros
  /** The completion record's index in the participant's `completions`. */
  readonly completionAt: number
}

export interface ParticipantStats {
  submitted: number
  committed: number
  rejected: number
  confirmationsSent: number
}

/** How long an accepted command's id stays taken (the ledger API's maximum deduplication duration). */
export const MAX_DEDUPLICATION: Micros = micros.days(7)

export const commandKeyOf = (commandId: string, actAs: ReadonlyArray<PartyId>): string =>
  // One submitter almost always (every participant computes the key on every commit): no copy, sort or join.
  (actAs.length === 1 ? actAs[0]! : sortedList(actAs).join(",")) + "|" + commandId

export interface ParticipantConfig {
  readonly uid: ParticipantUid
  readonly name: string
  readonly namespace: string
  readonly isSuperValidator: boolean
  readonly defaultSynchronizer: SynchronizerId
  /** How much of the update log stays as objects (the rest is compressed); the default when absent. */
  readonly historyLimits?: ArchivedLogLimits | undefined
}

/** The submitting parties of a request. */
export const submittersOf = (request: ProtocolRequest): ReadonlyArray<PartyId> =>
  request.kind === "transaction" ? request.submitters : [request.submitter]
