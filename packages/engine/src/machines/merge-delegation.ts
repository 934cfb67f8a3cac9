/**
 * Merge delegation: the user signs a MergeDelegationProposal at onboarding; once the wallet
 * provider accepts it, a MergeDelegation is active and the provider may merge the user's holdings
 * (more than 10 holdings, in batches of about 100).
 *
 *   proposal --accept(delegationContractId)--> active --revoke--> revoked
 *   proposal --reject--> rejected | --withdraw--> withdrawn
 *
 * `revoke` is not in the spec's table; it is here so that an offboarded user or a provider that
 * archives the MergeDelegation has a final state instead of a delegation that stays active forever.
 */
import { invariant } from "@sandnet/core"
import { Schema } from "effect"
import { assign, setup } from "xstate"
import { inertContext } from "./lifecycle.ts"

export const MergeDelegationContext = Schema.Struct({
  /** The user whose holdings are merged. */
  user: Schema.String,
  /** The wallet provider (validator operator) allowed to merge them. */
  walletProvider: Schema.String,
  proposalContractId: Schema.String,
  /** The MergeDelegation contract, once active. */
  delegationContractId: Schema.NullOr(Schema.String)
})
export type MergeDelegationContext = typeof MergeDelegationContext.Type

export interface MergeDelegationInput {
  readonly user: string
  readonly walletProvider: string
  readonly proposalContractId: string
}

export type MergeDelegationEvent =
  /** The wallet provider accepts, creating the MergeDelegation contract. */
  | { readonly type: "accept"; readonly delegationContractId: string }
  /** The wallet provider declines the proposal. */
  | { readonly type: "reject" }
  /** The user takes the proposal back before it is accepted. */
  | { readonly type: "withdraw" }
  /** The active delegation is archived (user offboarded or provider gives it up). */
  | { readonly type: "revoke" }

export const MERGE_DELEGATION_STATES = ["proposal", "active", "rejected", "withdrawn", "revoked"] as const
export type MergeDelegationState = (typeof MERGE_DELEGATION_STATES)[number]

export const mergeDelegationMachine = setup({
  types: {
    context: {} as MergeDelegationContext,
    events: {} as MergeDelegationEvent,
    input: {} as MergeDelegationInput
  },
  schemas: { context: MergeDelegationContext },
  actions: {
    recordDelegation: assign((_, params: { readonly delegationContractId: string }) => {
      invariant(params.delegationContractId.length > 0, "an active merge delegation names its contract")
      return { delegationContractId: params.delegationContractId }
    })
  }
}).createMachine({
  id: "mergeDelegation",
  version: "1",
  initial: "proposal",
  context: ({ input }) => {
    if (input === undefined) return inertContext<MergeDelegationContext>()
    const { user, walletProvider, proposalContractId } = input
    return {
      user,
      walletProvider,
      proposalContractId,
      delegationContractId: null
    }
  },
  states: {
    proposal: {
      on: {
        accept: {
          target: "active",
          actions: {
            type: "recordDelegation",
            params: ({ event }) => ({ delegationContractId: event.delegationContractId })
          }
        },
        reject: { target: "rejected" },
        withdraw: { target: "withdrawn" }
      }
    },
    active: {
      on: { revoke: { target: "revoked" } }
    },
    rejected: { type: "final" },
    withdrawn: { type: "final" },
    revoked: { type: "final" }
  }
})
