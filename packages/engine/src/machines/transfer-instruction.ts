/**
 * Token-standard transfer offer: a TransferInstruction contract that locks the sender's coin until
 * the receiver accepts (coin moves to the receiver) or the offer closes without a transfer
 * (rejected, expired, withdrawn: the locked coin goes back to the sender).
 *
 *   pending --accept (ledgerTime < expiresAt)--> completed
 *   pending --reject--> rejected | --withdraw--> withdrawn | --expire (ledgerTime >= expiresAt)--> expired
 */
import { invariant, isAmountString, parseAmount, type Micros } from "@sandnet/core"
import { Schema } from "effect"
import { assign, setup, type SnapshotFrom } from "xstate"
import { isExpired } from "../coin/expiry.ts"
import { inertContext } from "./lifecycle.ts"

export const TransferInstructionContext = Schema.Struct({
  instructionId: Schema.String,
  sender: Schema.String,
  receiver: Schema.String,
  /** Numeric 10 decimal string, strictly positive. */
  amount: Schema.String,
  /** The locked holding(s) that back the instruction, in the order the lock was made. */
  lockedHoldingIds: Schema.Array(Schema.String),
  /** Microseconds since the epoch, compared with the ledger effective time of accept / expire. */
  expiresAt: Schema.Number,
  /** Ledger time of the accepting transaction, once completed. */
  completedAt: Schema.NullOr(Schema.Number)
})
export type TransferInstructionContext = typeof TransferInstructionContext.Type

export interface TransferInstructionInput {
  readonly instructionId: string
  readonly sender: string
  readonly receiver: string
  readonly amount: string
  readonly lockedHoldingIds: ReadonlyArray<string>
  readonly expiresAt: Micros
}

export type TransferInstructionEvent =
  /** The receiver accepts; ledgerTime is the accepting transaction's ledger effective time. */
  | { readonly type: "accept"; readonly ledgerTime: Micros }
  /** The receiver rejects. */
  | { readonly type: "reject" }
  /** The sender withdraws before acceptance and reclaims the locked coin. */
  | { readonly type: "withdraw" }
  /** Raised by the engine once ledger effective time passes expiresAt. */
  | { readonly type: "expire"; readonly ledgerTime: Micros }

export const TRANSFER_INSTRUCTION_STATES = ["pending", "completed", "rejected", "expired", "withdrawn"] as const
export type TransferInstructionState = (typeof TRANSFER_INSTRUCTION_STATES)[number]

export const transferInstructionMachine = setup({
  types: {
    context: {} as TransferInstructionContext,
    events: {} as TransferInstructionEvent,
    input: {} as TransferInstructionInput
  },
  schemas: { context: TransferInstructionContext },
  guards: {
    beforeExpiry: ({ context }, params: { readonly ledgerTime: Micros }) => !isExpired(context.expiresAt, params.ledgerTime),
    atOrAfterExpiry: ({ context }, params: { readonly ledgerTime: Micros }) => isExpired(context.expiresAt, params.ledgerTime)
  },
  actions: {
    recordCompletion: assign((_, params: { readonly ledgerTime: Micros }) => ({ completedAt: params.ledgerTime }))
  }
}).createMachine({
  id: "transferInstruction",
  version: "1",
  initial: "pending",
  context: ({ input }) => {
    if (input === undefined) return inertContext<TransferInstructionContext>()
    invariant(isAmountString(input.amount), () => `transfer instruction amount is not a Numeric 10: ${input.amount}`)
    invariant((parseAmount(input.amount) ?? 0n) > 0n, () => `transfer instruction amount must be positive: ${input.amount}`)
    invariant(input.lockedHoldingIds.length > 0, "a transfer instruction locks at least one holding")
    invariant(Number.isInteger(input.expiresAt), () => `expiresAt must be whole microseconds: ${input.expiresAt}`)
    const { instructionId, sender, receiver, amount, expiresAt } = input
    // Copy the array so the context never aliases the caller's (possibly mutable) list.
    const lockedHoldingIds = [...input.lockedHoldingIds]
    return { instructionId, sender, receiver, amount, lockedHoldingIds, expiresAt, completedAt: null }
  },
  states: {
    pending: {
      on: {
        accept: {
          target: "completed",
          guard: { type: "beforeExpiry", params: ({ event }) => ({ ledgerTime: event.ledgerTime }) },
          actions: { type: "recordCompletion", params: ({ event }) => ({ ledgerTime: event.ledgerTime }) }
        },
        reject: { target: "rejected" },
        withdraw: { target: "withdrawn" },
        expire: {
          target: "expired",
          guard: { type: "atOrAfterExpiry", params: ({ event }) => ({ ledgerTime: event.ledgerTime }) }
        }
      }
    },
    completed: { type: "final" },
    rejected: { type: "final" },
    expired: { type: "final" },
    withdrawn: { type: "final" }
  }
})

/** Where the locked coin is: still locked, paid to the receiver, or released back to the sender. */
export type LockedCoinDisposition = "locked" | "transferredToReceiver" | "returnedToSender"

export const lockedCoinDisposition = (
  snapshot: SnapshotFrom<typeof transferInstructionMachine>
): LockedCoinDisposition => {
  switch (snapshot.value) {
    case "pending":
      return "locked"
    case "completed":
      return "transferredToReceiver"
    case "rejected":
    case "expired":
    case "withdrawn":
      return "returnedToSender"
  }
}
