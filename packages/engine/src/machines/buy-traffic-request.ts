/**
 * Wallet buy-traffic request (POST /v0/wallet/buy-traffic-requests). The wallet automation pays
 * for the traffic before the request expires, or the request fails.
 *
 *   created --complete (ledgerTime < expiresAt)--> completed
 *   created --expire (ledgerTime >= expiresAt)--> failed, failureReason "expired"
 *   created --reject(reason)--> failed, failureReason "rejected"
 *
 * The status endpoint reports created / completed / failed with the failure reason
 * (`buyTrafficRequestStatus`).
 */
import { invariant, type Micros } from "@sandnet/core"
import { Schema } from "effect"
import { assign, setup, type SnapshotFrom } from "xstate"
import { isExpired } from "../coin/expiry.ts"
import { inertContext } from "./lifecycle.ts"

export const BuyTrafficFailureReason = Schema.Literal("expired", "rejected")
export type BuyTrafficFailureReason = typeof BuyTrafficFailureReason.Type

export const BuyTrafficRequestContext = Schema.Struct({
  trackingId: Schema.String,
  /** The wallet user who pays. */
  endUserParty: Schema.String,
  /** The participant or mediator whose traffic is topped up. */
  memberId: Schema.String,
  synchronizerId: Schema.String,
  migrationId: Schema.Number,
  /** Bytes of traffic; a whole number above zero. */
  trafficAmount: Schema.Number,
  /** Microseconds since the epoch, compared with the ledger effective time of complete / expire. */
  expiresAt: Schema.Number,
  /** Ledger time of the paying transaction, once completed. */
  completedAt: Schema.NullOr(Schema.Number),
  failureReason: Schema.NullOr(BuyTrafficFailureReason),
  /** The ledger's explanation when the purchase was rejected. */
  rejectionReason: Schema.NullOr(Schema.String)
})
export type BuyTrafficRequestContext = typeof BuyTrafficRequestContext.Type

export interface BuyTrafficRequestInput {
  readonly trackingId: string
  readonly endUserParty: string
  readonly memberId: string
  readonly synchronizerId: string
  readonly migrationId: number
  readonly trafficAmount: number
  readonly expiresAt: Micros
}

export type BuyTrafficRequestEvent =
  /** The automation bought the traffic; ledgerTime is that transaction's ledger effective time. */
  | { readonly type: "complete"; readonly ledgerTime: Micros }
  /** Raised by the engine once ledger effective time passes expiresAt. */
  | { readonly type: "expire"; readonly ledgerTime: Micros }
  /** The purchase was rejected (e.g. the user lacks coin). */
  | { readonly type: "reject"; readonly reason: string }

export const BUY_TRAFFIC_REQUEST_STATES = ["created", "completed", "failed"] as const
export type BuyTrafficRequestState = (typeof BUY_TRAFFIC_REQUEST_STATES)[number]

export const buyTrafficRequestMachine = setup({
  types: {
    context: {} as BuyTrafficRequestContext,
    events: {} as BuyTrafficRequestEvent,
    input: {} as BuyTrafficRequestInput
  },
  schemas: { context: BuyTrafficRequestContext },
  guards: {
    beforeExpiry: ({ context }, params: { readonly ledgerTime: Micros }) => !isExpired(context.expiresAt, params.ledgerTime),
    atOrAfterExpiry: ({ context }, params: { readonly ledgerTime: Micros }) => isExpired(context.expiresAt, params.ledgerTime)
  },
  actions: {
    recordCompletion: assign((_, params: { readonly ledgerTime: Micros }) => ({ completedAt: params.ledgerTime })),
    recordExpiry: assign({ failureReason: "expired" as const }),
    recordRejection: assign((_, params: { readonly reason: string }) => ({
      failureReason: "rejected" as const,
      rejectionReason: params.reason
    }))
  }
}).createMachine({
  id: "buyTrafficRequest",
  version: "1",
  initial: "created",
  context: ({ input }) => {
    if (input === undefined) return inertContext<BuyTrafficRequestContext>()
    const { trackingId, endUserParty, memberId, synchronizerId, migrationId, trafficAmount, expiresAt } = input
    invariant(
      Number.isInteger(trafficAmount) && trafficAmount > 0,
      () => `traffic amount must be a whole number of bytes above zero, got ${trafficAmount}`
    )
    invariant(Number.isInteger(migrationId) && migrationId >= 0, () => `migration id must be >= 0, got ${migrationId}`)
    invariant(Number.isInteger(expiresAt), () => `expiresAt must be whole microseconds: ${expiresAt}`)
    return {
      trackingId,
      endUserParty,
      memberId,
      synchronizerId,
      migrationId,
      trafficAmount,
      expiresAt,
      completedAt: null,
      failureReason: null,
      rejectionReason: null
    }
  },
  states: {
    created: {
      on: {
        complete: {
          target: "completed",
          guard: { type: "beforeExpiry", params: ({ event }) => ({ ledgerTime: event.ledgerTime }) },
          actions: { type: "recordCompletion", params: ({ event }) => ({ ledgerTime: event.ledgerTime }) }
        },
        expire: {
          target: "failed",
          guard: { type: "atOrAfterExpiry", params: ({ event }) => ({ ledgerTime: event.ledgerTime }) },
          actions: "recordExpiry"
        },
        reject: {
          target: "failed",
          actions: { type: "recordRejection", params: ({ event }) => ({ reason: event.reason }) }
        }
      }
    },
    completed: { type: "final" },
    failed: { type: "final" }
  }
})

/** What the status endpoint reports for a request. */
export type BuyTrafficRequestStatus =
  | { readonly status: "created" }
  | { readonly status: "completed" }
  | {
      readonly status: "failed"
      readonly failureReason: BuyTrafficFailureReason
      readonly rejectionReason: string | null
    }

export const buyTrafficRequestStatus = (
  snapshot: SnapshotFrom<typeof buyTrafficRequestMachine>
): BuyTrafficRequestStatus => {
  switch (snapshot.value) {
    case "created":
      return { status: "created" }
    case "completed":
      return { status: "completed" }
    case "failed": {
      const { failureReason, rejectionReason } = snapshot.context
      invariant(failureReason !== null, "a failed buy-traffic request records why")
      return { status: "failed", failureReason, rejectionReason }
    }
  }
}
