/** What a time advance answers and how it fails (advance.ts); apart so that the service's types need not import the advance. */
import type { Micros } from "@sandnet/core"
import { Schema } from "effect"

/** The node is shutting down: it takes no more work (HTTP: 503 NODE_SHUTTING_DOWN). */
export class NodeShuttingDown extends Schema.TaggedError<NodeShuttingDown>()("NodeShuttingDown", {
  message: Schema.String
}) {}

/** An advanceId used before for an advance by another amount. */
export class AdvanceIdReused extends Schema.TaggedError<AdvanceIdReused>()("AdvanceIdReused", {
  advanceId: Schema.String,
  message: Schema.String
}) {}

/** A step of an advance failed; `rolledBack`: ledger time is where it was before the request. */
export class AdvanceFailed extends Schema.TaggedError<AdvanceFailed>()("AdvanceFailed", {
  message: Schema.String,
  rolledBack: Schema.Boolean,
  /** The engine's time after the failure (and the rollback). */
  now: Schema.Number
}) {}

export type AdvanceError = NodeShuttingDown | AdvanceIdReused | AdvanceFailed

export interface AdvanceOptions {
  /** Makes the request idempotent: a retry with the same id does not move time again. */
  readonly advanceId?: string | undefined
}

export interface AdvanceResult {
  /** The engine's time once the target is reached. */
  readonly now: Micros
  /** Steps run by this call (0: a retry of an advance already done). */
  readonly steps: number
}
