/**
 * The wallet's ledger follower: what it does on each update its node commits (index the history,
 * step the lifecycles of the offers, transfer instructions, buy-traffic requests and delegations it
 * follows, on the exercises that close or move them) and on each completion of the node's commands
 * (free the coins the command held, settle its tracking id, count it, tell the hooks).
 */
import { invariant, type CommittedUpdate, type ContractId, type ExercisedNode, type Micros, type TransactionUpdate } from "@sandnet/core"
import type { AnyStateMachine, EventFromLogic, SnapshotFrom } from "xstate"
import { MergeDelegation, MergeDelegationProposal, MintingDelegationProposal, type MintingDelegationPayload } from "../coin/index.ts"
import { buyTrafficRequestMachine } from "../machines/buy-traffic-request.ts"
import { start, step } from "../machines/lifecycle.ts"
import { mergeDelegationMachine } from "../machines/merge-delegation.ts"
import { mintingDelegationMachine } from "../machines/minting-delegation.ts"
import { transferInstructionMachine } from "../machines/transfer-instruction.ts"
import { transferOfferMachine } from "../machines/transfer-offer.ts"
import type { Completion } from "../participant/index.ts"
import type { WalletContext } from "./context.ts"
import { indexHistory } from "./history.ts"
import type { OfferFailureKind, OfferRecord } from "./journal.ts"
import { persistSnapshot, restoreSnapshot } from "./snapshots.ts"
import { onTrackedCompletion } from "./tracking.ts"

/** Follows the node's ledger from now on (what it committed before is indexed by the caller). */
export const followLedger = (wallet: WalletContext): void =>
  wallet.participant.logic.addListener({
    onCommitted: (entry) => {
      indexHistory(wallet, entry)
      observe(wallet, entry)
      return []
    },
    onCompletion: (completion, now) => {
      onCompletion(wallet, completion, now)
      return []
    }
  })

/** What a completion of the node's commands does to the wallet: frees its coins, settles its tracking id, counts it. */
const onCompletion = (wallet: WalletContext, completion: Completion, now: Micros): void => {
  wallet.reservations.release(completion.commandId)
  if (wallet.state.trackingByCommand.has(completion.commandId)) onTrackedCompletion(wallet, completion.commandId, completion)
  if (completion._tag === "Failed" && completion.commandId.startsWith("wallet:")) wallet.stats.commandsFailed++
  if (completion._tag === "Succeeded" && completion.commandId.startsWith("wallet:send:")) {
    wallet.stats.oneStepTransfers++
    if (wallet.featuredCommands.has(completion.commandId)) wallet.stats.featuredTransfers++
  }
  wallet.featuredCommands.delete(completion.commandId)
  for (const hook of wallet.completionHooks) hook(completion, now)
}

/**
 * A step the ledger committed. Its lifecycle must take it: the contract checked the same rules (the
 * expiry rule is one function, coin/expiry.ts), so a refusal is a defect in Sandnet, not a step to
 * drop; it breaks an invariant.
 */
const committedStep = <M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>, event: EventFromLogic<M>, contractId: ContractId): SnapshotFrom<M> => {
  const result = step(machine, snapshot, event)
  invariant(result.accepted, () => `${machine.id} of ${contractId}: the ledger committed ${event.type}, its lifecycle refused it (${result.accepted ? "" : JSON.stringify(result.refusal)})`)
  return result.snapshot
}

/** Steps the lifecycles of what the wallet follows (offers, instructions, buy-traffic requests, delegations) on the exercises the ledger shows. */
const observe = (wallet: WalletContext, entry: CommittedUpdate): void => {
  const update = entry.update
  if (update.kind !== "transaction") return
  for (const node of update.nodes) {
    if (node.kind === "created") {
      if (node.templateId === MergeDelegationProposal.templateId) onMergeProposal(wallet, node.contractId, node.createArguments)
      else if (node.templateId === MintingDelegationProposal.templateId) onMintingProposal(wallet, node.contractId, node.createArguments)
      continue
    }
    const offerKey = wallet.state.offerByContract.get(node.contractId)
    if (offerKey !== undefined) onOfferExercise(wallet, offerKey, node, update)
    const instructionKey = wallet.state.instructionByContract.get(node.contractId)
    if (instructionKey !== undefined) onInstructionExercise(wallet, instructionKey, node, update)
    const trafficKey = wallet.state.buyTrafficByContract.get(node.contractId)
    if (trafficKey !== undefined) onBuyTrafficExercise(wallet, trafficKey, node, update)
    if (node.templateId === MergeDelegationProposal.templateId) onMergeProposalExercise(wallet, node)
    else if (node.templateId === MergeDelegation.templateId && node.consuming) onMergeDelegationArchived(wallet, node)
    else if (node.templateId === MintingDelegationProposal.templateId) onMintingProposalExercise(wallet, node)
  }
}

const stepOffer = (wallet: WalletContext, key: string, record: OfferRecord, event: Parameters<typeof step<typeof transferOfferMachine>>[2], patch: Partial<OfferRecord>): void => {
  const offer = committedStep(transferOfferMachine, restoreSnapshot(transferOfferMachine, record.offer), event, record.offerContractId)
  wallet.apply({ _tag: "OfferChanged", key, record: { ...record, ...patch, offer: persistSnapshot(transferOfferMachine, offer) } })
}

const onOfferExercise = (wallet: WalletContext, key: string, node: ExercisedNode, update: TransactionUpdate): void => {
  const record = wallet.state.offers.get(key)
  if (record === undefined || !node.consuming) return
  const result = node.exerciseResult as { acceptedTransferOffer?: string; transferResult?: { createdCoins?: ReadonlyArray<{ value: string }> } } | null
  const reason = (node.choiceArgument as { reason?: string } | null)?.reason ?? null
  switch (node.choice) {
    case "TransferOffer_Accept":
      wallet.stats.offersAccepted++
      stepOffer(wallet, key, record, { type: "accept", ledgerTime: update.effectiveAt }, { acceptedContractId: result?.acceptedTransferOffer ?? null, acceptedTransactionId: update.updateId })
      break
    case "TransferOffer_Reject":
      failOffer(wallet, key, record, { type: "reject" }, "rejected", null, update)
      break
    case "TransferOffer_Withdraw":
      failOffer(wallet, key, record, { type: "withdraw" }, "withdrawn", reason, update)
      break
    case "TransferOffer_Expire":
      wallet.stats.offersExpired++
      failOffer(wallet, key, record, { type: "expire", ledgerTime: update.effectiveAt }, "expired", null, update)
      break
    case "AcceptedTransferOffer_Complete":
      wallet.stats.offersCompleted++
      stepOffer(wallet, key, record, { type: "complete" }, { completedContractId: result?.transferResult?.createdCoins?.[0]?.value ?? null, completedTransactionId: update.updateId })
      break
    case "AcceptedTransferOffer_Abort":
      failOffer(wallet, key, record, { type: "fail", reason: reason ?? "aborted by the sender" }, "withdrawn", reason, update)
      break
    case "AcceptedTransferOffer_Withdraw":
      failOffer(wallet, key, record, { type: "fail", reason: reason ?? "withdrawn by the receiver" }, "rejected", reason, update)
      break
    case "AcceptedTransferOffer_Expire":
      wallet.stats.offersExpired++
      failOffer(wallet, key, record, { type: "fail", reason: "expired" }, "expired", null, update)
      break
  }
}

const failOffer = (
  wallet: WalletContext,
  key: string,
  record: OfferRecord,
  event: Parameters<typeof step<typeof transferOfferMachine>>[2],
  kind: OfferFailureKind,
  reason: string | null,
  update: TransactionUpdate
): void => {
  wallet.stats.offersFailed++
  stepOffer(wallet, key, record, event, { failureKind: kind, withdrawnReason: reason, completedTransactionId: update.updateId })
}

const onInstructionExercise = (wallet: WalletContext, key: string, node: ExercisedNode, update: TransactionUpdate): void => {
  const record = wallet.state.instructions.get(key)
  if (record === undefined || !node.consuming) return
  const event: Parameters<typeof step<typeof transferInstructionMachine>>[2] | undefined =
    node.choice === "TransferInstruction_Accept"
      ? { type: "accept", ledgerTime: update.effectiveAt }
      : node.choice === "TransferInstruction_Reject"
        ? { type: "reject" }
        : node.choice === "TransferInstruction_Withdraw"
          ? { type: "withdraw" }
          : node.choice === "CoinTransferInstruction_Expire"
            ? { type: "expire", ledgerTime: update.effectiveAt }
            : undefined
  if (event === undefined) return
  const instruction = committedStep(transferInstructionMachine, restoreSnapshot(transferInstructionMachine, record.instruction), event, node.contractId)
  if (event.type === "accept") wallet.stats.tokenTransfersCompleted++
  else wallet.stats.tokenTransfersClosed++
  const output = (node.exerciseResult as { output?: { value?: { receiverHoldingCids?: ReadonlyArray<string> } } } | null)?.output?.value?.receiverHoldingCids ?? []
  wallet.apply({
    _tag: "InstructionChanged",
    key,
    record: { ...record, instruction: persistSnapshot(transferInstructionMachine, instruction), finalTransactionId: update.updateId, receiverHoldingCids: [...output] }
  })
}

const onBuyTrafficExercise = (wallet: WalletContext, key: string, node: ExercisedNode, update: TransactionUpdate): void => {
  const record = wallet.state.buyTraffic.get(key)
  if (record === undefined || !node.consuming) return
  const reason = (node.choiceArgument as { reason?: string } | null)?.reason ?? "rejected"
  const event: Parameters<typeof step<typeof buyTrafficRequestMachine>>[2] | undefined =
    node.choice === "BuyTrafficRequest_Complete"
      ? { type: "complete", ledgerTime: update.effectiveAt }
      : node.choice === "BuyTrafficRequest_Expire"
        ? { type: "expire", ledgerTime: update.effectiveAt }
        : node.choice === "BuyTrafficRequest_Cancel"
          ? { type: "reject", reason }
          : undefined
  if (event === undefined) return
  const request = committedStep(buyTrafficRequestMachine, restoreSnapshot(buyTrafficRequestMachine, record.request), event, node.contractId)
  wallet.apply({
    _tag: "BuyTrafficChanged",
    key,
    record: { ...record, request: persistSnapshot(buyTrafficRequestMachine, request), completedTransactionId: event.type === "complete" ? update.updateId : null }
  })
}

const onMergeProposal = (wallet: WalletContext, contractId: ContractId, args: unknown): void => {
  const delegation = (args as { delegation: { owner: string; operator: string } }).delegation
  if (!wallet.participant.logic.hosts(delegation.owner)) return
  const snapshot = start(mergeDelegationMachine, { user: delegation.owner, walletProvider: delegation.operator, proposalContractId: contractId })
  wallet.apply({ _tag: "MergeDelegationChanged", owner: delegation.owner, record: { contractId, delegation: persistSnapshot(mergeDelegationMachine, snapshot) } })
}

const onMergeProposalExercise = (wallet: WalletContext, node: ExercisedNode): void => {
  if (!node.consuming) return
  for (const [owner, record] of wallet.state.mergeDelegations) {
    if (record.contractId !== node.contractId) continue
    const event: Parameters<typeof step<typeof mergeDelegationMachine>>[2] | undefined =
      node.choice === "MergeDelegationProposal_Accept"
        ? { type: "accept", delegationContractId: String((node.exerciseResult as { mergeDelegationCid?: string } | null)?.mergeDelegationCid ?? "") }
        : node.choice === "MergeDelegationProposal_Reject"
          ? { type: "reject" }
          : node.choice === "MergeDelegationProposal_Withdraw"
            ? { type: "withdraw" }
            : undefined
    if (event === undefined) return
    const delegation = committedStep(mergeDelegationMachine, restoreSnapshot(mergeDelegationMachine, record.delegation), event, node.contractId)
    const contractId = event.type === "accept" ? event.delegationContractId : record.contractId
    wallet.apply({ _tag: "MergeDelegationChanged", owner, record: { contractId, delegation: persistSnapshot(mergeDelegationMachine, delegation) } })
    return
  }
}

const onMergeDelegationArchived = (wallet: WalletContext, node: ExercisedNode): void => {
  for (const [owner, record] of wallet.state.mergeDelegations) {
    if (record.contractId !== node.contractId || record.delegation.state !== "active") continue
    const delegation = committedStep(mergeDelegationMachine, restoreSnapshot(mergeDelegationMachine, record.delegation), { type: "revoke" }, node.contractId)
    wallet.apply({ _tag: "MergeDelegationChanged", owner, record: { ...record, delegation: persistSnapshot(mergeDelegationMachine, delegation) } })
    return
  }
}

const onMintingProposal = (wallet: WalletContext, contractId: ContractId, args: unknown): void => {
  const delegation = (args as { delegation: MintingDelegationPayload }).delegation
  if (!wallet.participant.logic.hosts(delegation.delegate)) return
  const snapshot = start(mintingDelegationMachine, { proposalContractId: contractId, beneficiary: delegation.beneficiary, delegate: delegation.delegate })
  wallet.apply({ _tag: "MintingDelegationChanged", proposalContractId: contractId, record: { contractId, delegation: persistSnapshot(mintingDelegationMachine, snapshot) } })
}

const onMintingProposalExercise = (wallet: WalletContext, node: ExercisedNode): void => {
  const record = wallet.state.mintingDelegations.get(node.contractId)
  if (record === undefined || !node.consuming) return
  const event: Parameters<typeof step<typeof mintingDelegationMachine>>[2] | undefined =
    node.choice === "MintingDelegationProposal_Accept"
      ? { type: "accept", delegationContractId: String((node.exerciseResult as { mintingDelegationCid?: string } | null)?.mintingDelegationCid ?? "") }
      : node.choice === "MintingDelegationProposal_Reject"
        ? { type: "reject" }
        : node.choice === "MintingDelegationProposal_Withdraw"
          ? { type: "withdraw" }
          : undefined
  if (event === undefined) return
  const delegation = committedStep(mintingDelegationMachine, restoreSnapshot(mintingDelegationMachine, record.delegation), event, node.contractId)
  wallet.apply({
    _tag: "MintingDelegationChanged",
    proposalContractId: node.contractId,
    record: { contractId: event.type === "accept" ? event.delegationContractId : record.contractId, delegation: persistSnapshot(mintingDelegationMachine, delegation) }
  })
}

