/**
 * The wallet asks the lifecycle machines before it acts: whether the offer, transfer instruction
 * or delegation it is about to accept, reject or withdraw still allows that step now (an accept at
 * the ledger time the accepting transaction will get). The lifecycle is the wallet's recorded
 * snapshot when it follows the contract (its user created it, owns it, or is its delegate), else
 * the one the contract shows (an active offer or instruction is open, a proposal is proposed). A
 * refusal is an error the user sees (an automation leaves that contract alone), never a silently
 * dropped step.
 */
import { Either } from "effect"
import type { ActiveContract, ContractId } from "@sandnet/core"
import type { AnyStateMachine, EventFromLogic, SnapshotFrom } from "xstate"
import { expiryOf } from "../coin/expiry.ts"
import type { CoinTransferInstructionPayload, MintingDelegationPayload, TransferOfferPayload } from "../coin/index.ts"
import { refusalOf, start } from "../machines/lifecycle.ts"
import { mergeDelegationMachine } from "../machines/merge-delegation.ts"
import { mintingDelegationMachine } from "../machines/minting-delegation.ts"
import { transferInstructionMachine } from "../machines/transfer-instruction.ts"
import { transferOfferMachine } from "../machines/transfer-offer.ts"
import { payloadOf, type WalletContext } from "./context.ts"
import { LifecycleStepRefused, OfferExpired } from "./errors.ts"
import { restoreSnapshot } from "./snapshots.ts"

/** The lifecycle of an active TransferOffer. */
export const offerLifecycle = (wallet: WalletContext, contract: ActiveContract): SnapshotFrom<typeof transferOfferMachine> => {
  const key = wallet.state.offerByContract.get(contract.created.contractId)
  const record = key === undefined ? undefined : wallet.state.offers.get(key)
  if (record !== undefined) return restoreSnapshot(transferOfferMachine, record.offer)
  const p = payloadOf<TransferOfferPayload>(contract)
  return start(transferOfferMachine, {
    offerContractId: contract.created.contractId,
    trackingId: p.trackingId,
    sender: p.sender,
    receiver: p.receiver,
    amount: p.amount.amount,
    description: p.description,
    expiresAt: expiryOf(p.expiresAt)
  })
}

/** The lifecycle of an active CoinTransferInstruction. */
export const instructionLifecycle = (wallet: WalletContext, contract: ActiveContract): SnapshotFrom<typeof transferInstructionMachine> => {
  const key = wallet.state.instructionByContract.get(contract.created.contractId)
  const record = key === undefined ? undefined : wallet.state.instructions.get(key)
  if (record !== undefined) return restoreSnapshot(transferInstructionMachine, record.instruction)
  const p = payloadOf<CoinTransferInstructionPayload>(contract)
  return start(transferInstructionMachine, {
    instructionId: contract.created.contractId,
    sender: p.transfer.sender,
    receiver: p.transfer.receiver,
    amount: p.transfer.amount,
    lockedHoldingIds: [p.lockedCoin],
    expiresAt: expiryOf(p.transfer.executeBefore)
  })
}

/** The lifecycle of an active MergeDelegationProposal (recorded by the wallet of its owner). */
export const mergeProposalLifecycle = (wallet: WalletContext, contract: ActiveContract): SnapshotFrom<typeof mergeDelegationMachine> => {
  const { owner, operator } = payloadOf<{ delegation: { owner: string; operator: string } }>(contract).delegation
  const record = wallet.state.mergeDelegations.get(owner)
  if (record !== undefined && record.contractId === contract.created.contractId) return restoreSnapshot(mergeDelegationMachine, record.delegation)
  return start(mergeDelegationMachine, { user: owner, walletProvider: operator, proposalContractId: contract.created.contractId })
}

/** The lifecycle of an active MintingDelegationProposal. */
export const mintingProposalLifecycle = (wallet: WalletContext, contract: ActiveContract): SnapshotFrom<typeof mintingDelegationMachine> => {
  const record = wallet.state.mintingDelegations.get(contract.created.contractId)
  if (record !== undefined) return restoreSnapshot(mintingDelegationMachine, record.delegation)
  const { beneficiary, delegate } = payloadOf<{ delegation: MintingDelegationPayload }>(contract).delegation
  return start(mintingDelegationMachine, { proposalContractId: contract.created.contractId, beneficiary, delegate })
}

/**
 * Whether the lifecycle allows `event` now: nothing, or why not. A step refused by an expiry guard
 * is OfferExpired (the contract's expiry, `expiresAt`, is in the error); any other refusal is
 * LifecycleStepRefused.
 */
export const allowed = <M extends AnyStateMachine>(
  machine: M,
  snapshot: SnapshotFrom<M>,
  event: EventFromLogic<M>,
  contractId: ContractId,
  expiresAt: string
): Either.Either<void, OfferExpired | LifecycleStepRefused> => {
  const refusal = refusalOf<M>(snapshot, event)
  if (refusal === undefined) return Either.right(undefined)
  if (refusal.kind === "conditionFailed" && refusal.guards.includes("beforeExpiry")) return Either.left(new OfferExpired({ contractId, expiresAt }))
  const reason = refusal.kind === "conditionFailed" ? `refused by ${refusal.guards.join(", ")}` : "not a step of this state"
  return Either.left(new LifecycleStepRefused({ lifecycle: machine.id, contractId, state: refusal.state, step: refusal.event, reason }))
}
