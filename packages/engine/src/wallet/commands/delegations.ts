/**
 * Minting delegations: the delegate accepts (replacing an older delegation of the same
 * beneficiary) or rejects a beneficiary's proposal, and ends a delegation it holds.
 */
import { Effect } from "effect"
import type { ContractId } from "@sandnet/core"
import {
  MintingDelegation,
  MintingDelegationProposal,
  MintingDelegationProposal_Accept,
  MintingDelegationProposal_Reject,
  MintingDelegation_Reject,
  type MintingDelegationPayload
} from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { mintingDelegationMachine } from "../../machines/minting-delegation.ts"
import type * as Api from "../api.ts"
import { payloadOf, type WalletContext } from "../context.ts"
import { DelegationNotFound, type WalletError } from "../errors.ts"
import { allowed, mintingProposalLifecycle } from "../lifecycles.ts"
import { submitted, type Outcome } from "../outcome.ts"
import { expectSuccess, submit } from "../submission.ts"

export const decideMintingDelegationProposal = (wallet: WalletContext, user: string, contractId: ContractId, decision: "accept" | "reject"): Effect.Effect<Outcome<Api.AcceptMintingDelegationProposalResponse | void>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const contract = wallet.participant.logic.visibleContract(contractId, new Set([party]))
    if (contract === undefined || contract.created.templateId !== MintingDelegationProposal.templateId) return yield* new DelegationNotFound({ contractId })
    const delegation = payloadOf<{ delegation: MintingDelegationPayload }>(contract).delegation
    if (delegation.delegate !== party) return yield* new DelegationNotFound({ contractId })
    // The delegation's contract id is not known before the ledger creates it; asking does not record it.
    const step = decision === "accept" ? { type: "accept" as const, delegationContractId: "" } : { type: "reject" as const }
    yield* allowed(mintingDelegationMachine, mintingProposalLifecycle(wallet, contract), step, contractId, "")
    const existing = [...wallet.participant.logic.acs.ofTemplate(MintingDelegation.templateId, party)].find((c) => {
      const p = payloadOf<MintingDelegationPayload>(c)
      return p.beneficiary === delegation.beneficiary && p.delegate === party
    })
    const commandId = `wallet:minting-${decision}:${contractId}`
    const command =
      decision === "accept"
        ? Commands.exercise(MintingDelegationProposal_Accept, contractId, { existingDelegationCid: existing?.created.contractId ?? null })
        : Commands.exercise(MintingDelegationProposal_Reject, contractId, {})
    yield* submit(wallet, [party], [], commandId, [command], [], [])
    return submitted({
      commandId,
      actAs: [party],
      finish: (c) =>
        expectSuccess(c, (results) => (decision === "accept" ? { contract_id: String((results[0] as { mintingDelegationCid?: string } | null)?.mintingDelegationCid ?? "") } : undefined))
    })
  })

export const rejectMintingDelegation = (wallet: WalletContext, user: string, contractId: ContractId): Effect.Effect<Outcome<void>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const contract = wallet.participant.logic.visibleContract(contractId, new Set([party]))
    if (contract === undefined || contract.created.templateId !== MintingDelegation.templateId || payloadOf<MintingDelegationPayload>(contract).delegate !== party) {
      return yield* new DelegationNotFound({ contractId })
    }
    const commandId = `wallet:minting-terminate:${contractId}`
    yield* submit(wallet, [party], [], commandId, [Commands.exercise(MintingDelegation_Reject, contractId, {})], [], [])
    return submitted({ commandId, actAs: [party], finish: (c) => expectSuccess(c, () => undefined) })
  })

