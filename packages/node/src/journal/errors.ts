/** The journal's errors: a batch that could not be committed, journals that cannot be replayed. */
import { Schema } from "effect"

/** A write batch of the node's journals could not be committed: the request that produced it fails. */
export class JournalCommitFailed extends Schema.TaggedError<JournalCommitFailed>()("JournalCommitFailed", {
  message: Schema.String
}) {}

/** The stored journals cannot be replayed into an engine (corrupt, or written by another network). */
export class JournalReplayFailed extends Schema.TaggedError<JournalReplayFailed>()("JournalReplayFailed", {
  message: Schema.String
}) {}
