/**
 * Errors of the engine's command submission. Codes follow the Canton ledger API's error codes so
 * the HTTP layer can answer with the standard error body the real system gives.
 */
import { Schema } from "effect"

export class CommandRejected extends Schema.TaggedError<CommandRejected>()("CommandRejected", {
  /** Canton error code, e.g. DUPLICATE_COMMAND, SUBMISSION_ALREADY_IN_FLIGHT. */
  code: Schema.String,
  message: Schema.String
}) {}

export class PartyAlreadyExists extends Schema.TaggedError<PartyAlreadyExists>()("PartyAlreadyExists", {
  party: Schema.String
}) {}

export class UnknownSynchronizer extends Schema.TaggedError<UnknownSynchronizer>()("UnknownSynchronizer", {
  synchronizerId: Schema.String
}) {}

export const ErrorCodes = {
  duplicateCommand: "DUPLICATE_COMMAND",
  alreadyInFlight: "SUBMISSION_ALREADY_IN_FLIGHT",
  notSequencedTimeout: "NOT_SEQUENCED_TIMEOUT",
  localVerdictTimeout: "LOCAL_VERDICT_TIMEOUT",
  trafficExceeded: "SEQUENCER_TRAFFIC_EXCEEDED",
  partyNotHosted: "PARTY_NOT_KNOWN_ON_LEDGER",
  noSynchronizer: "NO_SYNCHRONIZER_FOR_SUBMISSION",
  lockedContracts: "LOCAL_VERDICT_LOCKED_CONTRACTS",
  inactiveContracts: "LOCAL_VERDICT_INACTIVE_CONTRACTS",
  ledgerTimeOutOfBounds: "LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND",
  duplicateUpdate: "LOCAL_VERDICT_DUPLICATE_UPDATE_ID",
  reassignmentMismatch: "LOCAL_VERDICT_REASSIGNMENT_MISMATCH",
  preparedTransactionStale: "INTERPRETATION_PREPARED_TRANSACTION_STALE"
} as const
