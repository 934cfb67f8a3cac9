/**
 * Reassignment of one contract between synchronizers.
 *
 *   assigned(on S, counter n) --unassign(S -> T, counter n + 1, unassignId)--> unassigned
 *   unassigned --assign(same unassignId, source, target and counter)--> assigned(on T, counter n + 1)
 *
 * The counter rules are guards: an unassign must leave the synchronizer the contract is on, for
 * another one, and raise the counter by exactly one; an assign must carry the pending unassign's
 * id, source, target and counter. Anything else is refused. While unassigned the contract is in
 * flight and the registry answers 409 for it (`isInFlight`).
 *
 * Each participant's contract set (ledger/acs.ts) steps it on the unassign and assign events it
 * commits, and asks it whether an assign request matches the unassign in flight there.
 */
import { invariant } from "@sandnet/core"
import { Schema } from "effect"
import { assign, setup, type SnapshotFrom } from "xstate"
import { inertContext } from "./lifecycle.ts"

export const PendingUnassign = Schema.Struct({
  unassignId: Schema.String,
  source: Schema.String,
  target: Schema.String
})
export type PendingUnassign = typeof PendingUnassign.Type

export const ReassignmentContext = Schema.Struct({
  contractId: Schema.String,
  /** The synchronizer the contract is assigned to; while unassigned, the source it left. */
  synchronizerId: Schema.String,
  /** Number of unassignments so far; only increases. */
  reassignmentCounter: Schema.Number,
  /** The unassignment waiting for its assignment, while unassigned. */
  pending: Schema.NullOr(PendingUnassign)
})
export type ReassignmentContext = typeof ReassignmentContext.Type

export interface ReassignmentInput {
  readonly contractId: string
  readonly synchronizerId: string
  /** 0 for a freshly created contract. */
  readonly reassignmentCounter: number
}

export type ReassignmentEvent =
  | {
      readonly type: "unassign"
      readonly unassignId: string
      readonly source: string
      readonly target: string
      /** The counter the unassignment event carries: the current one plus one. */
      readonly reassignmentCounter: number
    }
  | {
      readonly type: "assign"
      readonly unassignId: string
      readonly source: string
      readonly target: string
      readonly reassignmentCounter: number
    }

type Move = Omit<ReassignmentEvent, "type">

export const REASSIGNMENT_STATES = ["assigned", "unassigned"] as const
export type ReassignmentState = (typeof REASSIGNMENT_STATES)[number]

const moveOf = ({ event }: { readonly event: ReassignmentEvent }): Move => ({
  unassignId: event.unassignId,
  source: event.source,
  target: event.target,
  reassignmentCounter: event.reassignmentCounter
})

export const reassignmentMachine = setup({
  types: {
    context: {} as ReassignmentContext,
    events: {} as ReassignmentEvent,
    input: {} as ReassignmentInput
  },
  schemas: { context: ReassignmentContext },
  guards: {
    validUnassign: ({ context }, move: Move) =>
      move.source === context.synchronizerId &&
      move.target !== move.source &&
      move.unassignId.length > 0 &&
      move.reassignmentCounter === context.reassignmentCounter + 1,
    matchesPendingUnassign: ({ context }, move: Move) =>
      context.pending !== null &&
      move.unassignId === context.pending.unassignId &&
      move.source === context.pending.source &&
      move.target === context.pending.target &&
      move.reassignmentCounter === context.reassignmentCounter
  },
  actions: {
    recordUnassign: assign(({ context }, move: Move) => {
      invariant(
        move.reassignmentCounter > context.reassignmentCounter,
        () => `reassignment counter of ${context.contractId} must increase`
      )
      return {
        reassignmentCounter: move.reassignmentCounter,
        pending: { unassignId: move.unassignId, source: move.source, target: move.target }
      }
    }),
    recordAssign: assign(({ context }, move: Move) => {
      invariant(
        move.reassignmentCounter === context.reassignmentCounter,
        () => `assign of ${context.contractId} must keep the counter of its unassign`
      )
      return { synchronizerId: move.target, pending: null }
    })
  }
}).createMachine({
  id: "reassignment",
  version: "1",
  initial: "assigned",
  context: ({ input }) => {
    if (input === undefined) return inertContext<ReassignmentContext>()
    invariant(
      Number.isInteger(input.reassignmentCounter) && input.reassignmentCounter >= 0,
      () => `reassignment counter must be a whole number >= 0, got ${input.reassignmentCounter}`
    )
    const { contractId, synchronizerId, reassignmentCounter } = input
    return { contractId, synchronizerId, reassignmentCounter, pending: null }
  },
  states: {
    assigned: {
      on: {
        unassign: {
          target: "unassigned",
          guard: { type: "validUnassign", params: moveOf },
          actions: { type: "recordUnassign", params: moveOf }
        }
      }
    },
    unassigned: {
      on: {
        assign: {
          target: "assigned",
          guard: { type: "matchesPendingUnassign", params: moveOf },
          actions: { type: "recordAssign", params: moveOf }
        }
      }
    }
  }
})

/** A contract between unassign and assign; the registry answers 409 for it. */
export const isInFlight = (snapshot: SnapshotFrom<typeof reassignmentMachine>): boolean =>
  snapshot.value === "unassigned"
