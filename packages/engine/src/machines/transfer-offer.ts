/**
 * Legacy wallet transfer offer (POST /v0/wallet/transfer-offers). The coin is not locked while the
 * offer is open; the sender's wallet automation pays only after the receiver accepted, and the
 * payment fails if the sender lacks coin at that time.
 *
 *   created --accept (ledgerTime < expiresAt)--> accepted --complete--> completed
 *                                                         --fail(reason)--> failed
 *   created --reject--> rejected | --withdraw--> withdrawn | --expire (ledgerTime >= expiresAt)--> expired
 */
import { invariant, isAmountString, parseAmount, type Micros } from "@sandnet/core"
import { Schema } from "effect"
import { assign, setup } from "xstate"
import { isExpired } from "../coin/expiry.ts"
import { inertContext } from "./lifecycle.ts"

export const TransferOfferContext = Schema.Struct({
  offerContractId: Schema.String,
  trackingId: Schema.String,
  sender: Schema.String,
  receiver: Schema.String,
  /** Numeric 10 decimal string, strictly positive. */
  amount: Schema.String,
  description: Schema.String,
  /** Microseconds since the epoch, compared with the ledger effective time of accept / expire. */
  expiresAt: Schema.Number,
  /** Ledger time of the accepting transaction. */
  acceptedAt: Schema.NullOr(Schema.Number),
  /** Why the accepted offer could not be paid (e.g. the sender lacks coin). */
  failureReason: Schema.NullOr(Schema.String)
})
export type TransferOfferContext = typeof TransferOfferContext.Type

export interface TransferOfferInput {
  readonly offerContractId: string
  readonly trackingId: string
  readonly sender: string
  readonly receiver: string
  readonly amount: string
  readonly description: string
  readonly expiresAt: Micros
}

export type TransferOfferEvent =
  /** The receiver accepts; ledgerTime is the accepting transaction's ledger effective time. */
  | { readonly type: "accept"; readonly ledgerTime: Micros }
  | { readonly type: "reject" }
  | { readonly type: "withdraw" }
  /** Raised by the engine once ledger effective time passes expiresAt. */
  | { readonly type: "expire"; readonly ledgerTime: Micros }
  /** The sender's automation paid the receiver. */
  | { readonly type: "complete" }
  /** The sender's automation could not pay (e.g. "insufficient funds"). */
  | { readonly type: "fail"; readonly reason: string }

export const TRANSFER_OFFER_STATES = ["created", "accepted", "completed", "failed", "rejected", "withdrawn", "expired"] as const
export type TransferOfferState = (typeof TRANSFER_OFFER_STATES)[number]

export const transferOfferMachine = setup({
  types: {
    context: {} as TransferOfferContext,
    events: {} as TransferOfferEvent,
    input: {} as TransferOfferInput
  },
  schemas: { context: TransferOfferContext },
  guards: {
    beforeExpiry: ({ context }, params: { readonly ledgerTime: Micros }) => !isExpired(context.expiresAt, params.ledgerTime),
    atOrAfterExpiry: ({ context }, params: { readonly ledgerTime: Micros }) => isExpired(context.expiresAt, params.ledgerTime)
  },
  actions: {
    recordAcceptance: assign((_, params: { readonly ledgerTime: Micros }) => ({ acceptedAt: params.ledgerTime })),
    recordFailure: assign((_, params: { readonly reason: string }) => ({ failureReason: params.reason }))
  }
}).createMachine({
  id: "transferOffer",
  version: "1",
  initial: "created",
  context: ({ input }) => {
    if (input === undefined) return inertContext<TransferOfferContext>()
    invariant(isAmountString(input.amount), () => `transfer offer amount is not a Numeric 10: ${input.amount}`)
    invariant((parseAmount(input.amount) ?? 0n) > 0n, () => `transfer offer amount must be positive: ${input.amount}`)
    invariant(Number.isInteger(input.expiresAt), () => `expiresAt must be whole microseconds: ${input.expiresAt}`)
    const { offerContractId, trackingId, sender, receiver, amount, description, expiresAt } = input
    return {
      offerContractId,
      trackingId,
      sender,
      receiver,
      amount,
      description,
      expiresAt,
      acceptedAt: null,
      failureReason: null
    }
  },
  states: {
    created: {
      on: {
        accept: {
          target: "accepted",
          guard: { type: "beforeExpiry", params: ({ event }) => ({ ledgerTime: event.ledgerTime }) },
          actions: { type: "recordAcceptance", params: ({ event }) => ({ ledgerTime: event.ledgerTime }) }
        },
        reject: { target: "rejected" },
        withdraw: { target: "withdrawn" },
        expire: {
          target: "expired",
          guard: { type: "atOrAfterExpiry", params: ({ event }) => ({ ledgerTime: event.ledgerTime }) }
        }
      }
    },
    accepted: {
      on: {
        complete: { target: "completed" },
        fail: { target: "failed", actions: { type: "recordFailure", params: ({ event }) => ({ reason: event.reason }) } }
      }
    },
    completed: { type: "final" },
    failed: { type: "final" },
    rejected: { type: "final" },
    withdrawn: { type: "final" },
    expired: { type: "final" }
  }
})
