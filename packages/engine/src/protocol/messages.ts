/**
 * Messages of the synchronization protocol. Members talk to a synchronizer's sequencer with
 * SubmissionRequests; the sequencer totally orders them, stamps the record time and delivers each
 * envelope to its recipients (Deliver). Confirmation requests go to informee participants and the
 * mediator; participants answer with ConfirmationResponses; the mediator sequences the verdict.
 */
import type {
  ActiveContract,
  ContractId,
  Micros,
  ParticipantUid,
  PartyId,
  SynchronizerId,
  TraceContext,
  TrafficSummary,
  UpdateId,
  Verdict
} from "@sandnet/core"
import type { InterpretedTransaction } from "../ledger/interpreter.ts"
import type { Address } from "../network/network.ts"

export interface TransactionRequest {
  readonly kind: "transaction"
  readonly updateId: UpdateId
  readonly commandId: string
  readonly workflowId: string
  readonly submitters: ReadonlyArray<PartyId>
  readonly submittingParticipant: ParticipantUid
  readonly synchronizerId: SynchronizerId
  readonly transaction: InterpretedTransaction
  readonly externalTransactionHash: string | undefined
  readonly traceContext: TraceContext | undefined
}

export interface UnassignRequest {
  readonly kind: "unassign"
  readonly updateId: UpdateId
  readonly commandId: string
  readonly workflowId: string
  readonly submitter: PartyId
  readonly submittingParticipant: ParticipantUid
  readonly contract: ActiveContract
  readonly sourceSynchronizer: SynchronizerId
  readonly targetSynchronizer: SynchronizerId
  /** The counter after the unassign: the contract's counter plus one. */
  readonly reassignmentCounter: number
}

export interface AssignRequest {
  readonly kind: "assign"
  readonly updateId: UpdateId
  readonly commandId: string
  readonly workflowId: string
  readonly submitter: PartyId
  readonly submittingParticipant: ParticipantUid
  readonly contract: ActiveContract
  readonly sourceSynchronizer: SynchronizerId
  readonly targetSynchronizer: SynchronizerId
  readonly unassignId: UpdateId
  readonly reassignmentCounter: number
}

export type ProtocolRequest = TransactionRequest | UnassignRequest | AssignRequest

/** Views of a request as the mediator sees them: who must confirm what. */
export interface RequestView {
  readonly viewId: number
  readonly informees: ReadonlyArray<PartyId>
  readonly confirmingParties: ReadonlyArray<PartyId>
  readonly subViews: ReadonlyArray<number>
  readonly viewHash: string
}

export type EnvelopeContent =
  | { readonly _tag: "ConfirmationRequest"; readonly request: ProtocolRequest; readonly viewIds: ReadonlyArray<number> }
  | { readonly _tag: "MediatorRequest"; readonly request: ProtocolRequest; readonly views: ReadonlyArray<RequestView>; readonly rootViews: ReadonlyArray<number> }
  | {
      readonly _tag: "ConfirmationResponse"
      readonly requestId: Micros
      readonly updateId: UpdateId
      readonly participant: ParticipantUid
      readonly responses: ReadonlyArray<ViewResponse>
    }
  | {
      readonly _tag: "ConfirmationResult"
      readonly requestId: Micros
      readonly request: ProtocolRequest
      readonly verdict: Verdict
      readonly trafficSummary: TrafficSummary
    }
  | { readonly _tag: "TimeProof" }
  | {
      readonly _tag: "SetExtraTrafficLimit"
      readonly member: Address
      /** Total extra traffic purchased by the member so far, in bytes; only ever increases. */
      readonly extraTrafficLimit: number
    }

export interface ViewResponse {
  readonly viewId: number
  readonly parties: ReadonlyArray<PartyId>
  readonly approve: boolean
  readonly reason: string | undefined
}

export interface Envelope {
  readonly recipients: ReadonlyArray<Address>
  readonly content: EnvelopeContent
  /** Serialized size in bytes, the basis of its traffic cost. */
  readonly size: number
  /** The views it carries (for the traffic summary). */
  readonly viewIds: ReadonlyArray<number>
}

export interface SubmissionRequest {
  readonly _tag: "SubmissionRequest"
  readonly sender: Address
  readonly messageId: string
  readonly maxSequencingTime: Micros
  readonly envelopes: ReadonlyArray<Envelope>
  /**
   * Whether the sender wants its receipt (an empty Deliver of its own submission). Submitters of
   * transactions and time proofs do; confirmation responses and verdicts need none.
   */
  readonly receipt?: boolean
}

export interface Deliver {
  readonly _tag: "Deliver"
  readonly synchronizerId: SynchronizerId
  /** The sequencing timestamp: the record time of what it carries. */
  readonly timestamp: Micros
  readonly sender: Address
  /** Set on the sender's own copy (its receipt), so it knows its submission was sequenced. */
  readonly messageId: string | undefined
  readonly contents: ReadonlyArray<EnvelopeContent>
  /** On the mediator's copy of a confirmation request: what the submission cost, per envelope. */
  readonly trafficSummary: TrafficSummary | undefined
}

export interface DeliverError {
  readonly _tag: "DeliverError"
  readonly synchronizerId: SynchronizerId
  readonly timestamp: Micros
  readonly messageId: string
  readonly reason: string
}

export interface MediatorDeadline {
  readonly _tag: "MediatorDeadline"
  readonly requestId: Micros
}

/** A participant's own reminder to check a submission it has not yet seen sequenced. */
export interface SubmissionDeadline {
  readonly _tag: "SubmissionDeadline"
  readonly messageId: string
}

/** A participant's own reminder to time out a request whose verdict did not arrive in time. */
export interface RequestDeadline {
  readonly _tag: "RequestDeadline"
  /** One reminder per synchronizer sweeps all of its pending requests that passed their deadline. */
  readonly synchronizerId: string
}

export type SequencerInbound = SubmissionRequest
export type MemberInbound = Deliver | DeliverError

export type { ContractId }
