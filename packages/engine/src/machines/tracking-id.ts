/**
 * Exactly-once submission key of POST /v0/wallet/transfer-offers and buy-traffic requests.
 *
 *   free --submit--> inProgress --succeed(contractId)--> created   (final)
 *                    inProgress --fail(reason)--> free             (a resubmission may proceed)
 *
 * A new submission with the same tracking id gets `submissionDecision`: proceed (free),
 * inProgress (HTTP 429, retry with back-off) or alreadyCreated (HTTP 409, check the status).
 */
import { invariant } from "@sandnet/core"
import { Schema } from "effect"
import { assign, setup, type SnapshotFrom } from "xstate"
import { inertContext } from "./lifecycle.ts"

export const TrackingIdContext = Schema.Struct({
  trackingId: Schema.String,
  /** Submissions that proceeded (free -> inProgress); only increases. */
  attempts: Schema.Number,
  /** Submissions that failed without creating anything; only increases. */
  failures: Schema.Number,
  /** The reason of the latest failure, kept after a later success for diagnosis. */
  lastFailureReason: Schema.NullOr(Schema.String),
  /** The contract the submission created (the offer, or the buy-traffic request). */
  contractId: Schema.NullOr(Schema.String)
})
export type TrackingIdContext = typeof TrackingIdContext.Type

export interface TrackingIdInput {
  readonly trackingId: string
}

export type TrackingIdEvent =
  /** A submission with this tracking id starts processing. */
  | { readonly type: "submit" }
  /** The command succeeded and created `contractId`. */
  | { readonly type: "succeed"; readonly contractId: string }
  /** The command failed and no contract exists. */
  | { readonly type: "fail"; readonly reason: string }

export const TRACKING_ID_STATES = ["free", "inProgress", "created"] as const
export type TrackingIdState = (typeof TRACKING_ID_STATES)[number]

export const trackingIdMachine = setup({
  types: {
    context: {} as TrackingIdContext,
    events: {} as TrackingIdEvent,
    input: {} as TrackingIdInput
  },
  schemas: { context: TrackingIdContext },
  actions: {
    countAttempt: assign(({ context }) => {
      const attempts = context.attempts + 1
      invariant(attempts > context.attempts, "tracking id attempts only increase")
      return { attempts }
    }),
    recordFailure: assign(({ context }, params: { readonly reason: string }) => {
      const failures = context.failures + 1
      invariant(failures <= context.attempts, "a tracking id cannot fail more often than it was submitted")
      return { failures, lastFailureReason: params.reason }
    }),
    recordCreation: assign((_, params: { readonly contractId: string }) => {
      invariant(params.contractId.length > 0, "a created tracking id names its contract")
      return { contractId: params.contractId }
    })
  }
}).createMachine({
  id: "trackingId",
  version: "1",
  initial: "free",
  context: ({ input }) => {
    if (input === undefined) return inertContext<TrackingIdContext>()
    invariant(input.trackingId.length > 0, "a tracking id is not empty")
    return { trackingId: input.trackingId, attempts: 0, failures: 0, lastFailureReason: null, contractId: null }
  },
  states: {
    free: {
      on: { submit: { target: "inProgress", actions: "countAttempt" } }
    },
    inProgress: {
      on: {
        succeed: {
          target: "created",
          actions: { type: "recordCreation", params: ({ event }) => ({ contractId: event.contractId }) }
        },
        fail: {
          target: "free",
          actions: { type: "recordFailure", params: ({ event }) => ({ reason: event.reason }) }
        }
      }
    },
    created: { type: "final" }
  }
})

/** What a new submission with this tracking id gets. */
export type SubmissionDecision = "proceed" | "inProgress" | "alreadyCreated"

/**
 * Answers a new submission. `undefined` stands for a tracking id never seen, which may proceed.
 * Callers map inProgress to HTTP 429 and alreadyCreated to HTTP 409.
 */
export const submissionDecision = (
  snapshot: SnapshotFrom<typeof trackingIdMachine> | undefined
): SubmissionDecision => {
  if (snapshot === undefined) return "proceed"
  switch (snapshot.value) {
    case "free":
      return "proceed"
    case "inProgress":
      return "inProgress"
    case "created":
      return "alreadyCreated"
  }
}
