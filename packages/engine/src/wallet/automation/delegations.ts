/** Merge delegations: the operator accepts the merge-delegation proposals its users make at onboarding (when configured). */
import { Effect } from "effect"
import type { ContractId } from "@sandnet/core"
import { MergeDelegationProposal_Accept } from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { refusalOf } from "../../machines/lifecycle.ts"
import { mergeProposalLifecycle } from "../lifecycles.ts"
import { ok, type AutomationState } from "./state.ts"

/** Files a merge-delegation proposal to the operator. Whether to act at once. */
export const fileMergeProposal = (auto: AutomationState, contractId: ContractId, p: { readonly delegation: { readonly operator: string } }): boolean => {
  if (p.delegation.operator !== auto.operator || !auto.config.acceptMergeDelegations) return false
  auto.proposalQueue.add(contractId)
  return true
}

/** Accepts the queued proposals that are still active. */
export const acceptMergeProposals = (auto: AutomationState): Effect.Effect<void> =>
  Effect.gen(function* () {
    const acs = auto.wallet.participant.logic.acs
    for (const cid of [...auto.proposalQueue]) {
      auto.proposalQueue.delete(cid)
      const c = acs.get(cid)
      if (c === undefined) continue
      // Its lifecycle must still take an accept (the delegation's contract id comes from the ledger; asking does not record it).
      if (refusalOf(mergeProposalLifecycle(auto.wallet, c), { type: "accept", delegationContractId: "" }) !== undefined) continue
      yield* auto.run([auto.operator], [], `auto:merge-delegation:${cid}`, [Commands.exercise(MergeDelegationProposal_Accept, cid, {})], [], [], ok(() => auto.stats.mergeDelegationsAccepted++))
    }
  })
