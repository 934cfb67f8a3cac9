/**
 * Tagged errors of the durable store. Appends fail with a precise reason; anything the database
 * itself reports is a `StorageError` naming the operation that failed.
 */
import { Schema } from "effect"

/**
 * An entry, snapshot key or batch that can never be stored: empty or oversized names, a seq that
 * is not a positive safe integer, a body that is not JSON.
 */
export class InvalidEntry extends Schema.TaggedError<InvalidEntry>()("InvalidEntry", {
  stream: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `invalid entry for stream ${JSON.stringify(this.stream)}: ${this.reason}`
  }
}

/** The append would leave a hole: the stream's next seq is `expected`, the entry carries `actual`. */
export class SequenceGap extends Schema.TaggedError<SequenceGap>()("SequenceGap", {
  stream: Schema.String,
  expected: Schema.Number,
  actual: Schema.Number
}) {
  override get message() {
    return `sequence gap in stream ${JSON.stringify(this.stream)}: expected seq ${this.expected}, got ${this.actual}`
  }
}

/** The seq is already taken: the stream's last committed (or earlier in the same batch) seq is `lastSeq`. */
export class DuplicateSequence extends Schema.TaggedError<DuplicateSequence>()("DuplicateSequence", {
  stream: Schema.String,
  seq: Schema.Number,
  lastSeq: Schema.Number
}) {
  override get message() {
    return `duplicate seq ${this.seq} in stream ${JSON.stringify(this.stream)} (last seq is ${this.lastSeq})`
  }
}

/** The database failed or disagreed with the store's view (e.g. another writer on the same schema). */
export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", {
  operation: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/** The store's layer has been released; nothing more can be written. */
export class StoreClosed extends Schema.TaggedError<StoreClosed>()("StoreClosed", {}) {
  override get message() {
    return "the event store is closed"
  }
}

/** A store option is unusable (bad schema name, bad data directory, data directory in use). */
export class StoreConfigError extends Schema.TaggedError<StoreConfigError>()("StoreConfigError", {
  option: Schema.String,
  message: Schema.String
}) {}

/** The embedded PGlite database or its socket server could not be started. */
export class PgliteStartupError extends Schema.TaggedError<PgliteStartupError>()("PgliteStartupError", {
  dataDir: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/** Why an `append` / `write` can fail. */
export type AppendError = InvalidEntry | SequenceGap | DuplicateSequence | StorageError | StoreClosed
