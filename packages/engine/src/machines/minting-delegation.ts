/**
 * Minting-delegation proposal from an external party (the beneficiary) to a validator's user (the
 * delegate), who may then mint on the beneficiary's behalf.
 *
 *   proposed --accept(delegationContractId)--> accepted
 *   proposed --reject--> rejected (by the delegate) | --withdraw--> withdrawn (by the beneficiary)
 *
 * Accepting archives an older MintingDelegation of the same beneficiary; that is the engine's
 * business (a contract effect), not this proposal's lifecycle.
 */
import { invariant } from "@sandnet/core"
import { Schema } from "effect"
import { assign, setup } from "xstate"
import { inertContext } from "./lifecycle.ts"

export const MintingDelegationContext = Schema.Struct({
  proposalContractId: Schema.String,
  /** The external party that proposes the delegation. */
  beneficiary: Schema.String,
  /** The party that accepts or rejects it. */
  delegate: Schema.String,
  /** The MintingDelegation contract created on acceptance. */
  delegationContractId: Schema.NullOr(Schema.String)
})
export type MintingDelegationContext = typeof MintingDelegationContext.Type

export interface MintingDelegationInput {
  readonly proposalContractId: string
  readonly beneficiary: string
  readonly delegate: string
}

export type MintingDelegationEvent =
  | { readonly type: "accept"; readonly delegationContractId: string }
  | { readonly type: "reject" }
  | { readonly type: "withdraw" }

export const MINTING_DELEGATION_STATES = ["proposed", "accepted", "rejected", "withdrawn"] as const
export type MintingDelegationState = (typeof MINTING_DELEGATION_STATES)[number]

export const mintingDelegationMachine = setup({
  types: {
    context: {} as MintingDelegationContext,
    events: {} as MintingDelegationEvent,
    input: {} as MintingDelegationInput
  },
  schemas: { context: MintingDelegationContext },
  actions: {
    recordDelegation: assign((_, params: { readonly delegationContractId: string }) => {
      invariant(params.delegationContractId.length > 0, "an accepted minting delegation names its contract")
      return { delegationContractId: params.delegationContractId }
    })
  }
}).createMachine({
  id: "mintingDelegation",
  version: "1",
  initial: "proposed",
  context: ({ input }) => {
    if (input === undefined) return inertContext<MintingDelegationContext>()
    const { proposalContractId, beneficiary, delegate } = input
    return {
      proposalContractId,
      beneficiary,
      delegate,
      delegationContractId: null
    }
  },
  states: {
    proposed: {
      on: {
        accept: {
          target: "accepted",
          actions: {
            type: "recordDelegation",
            params: ({ event }) => ({ delegationContractId: event.delegationContractId })
          }
        },
        reject: { target: "rejected" },
        withdraw: { target: "withdrawn" }
      }
    },
    accepted: { type: "final" },
    rejected: { type: "final" },
    withdrawn: { type: "final" }
  }
})
