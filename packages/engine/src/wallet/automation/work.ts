/**
 * Files the work each committed transaction brings into the automations' queues (what it created
 * that an automation acts on), and drops the coupons it consumed. Also run over the node's log at
 * start, where only what is still active matters.
 */
import type { CommittedUpdate, CreatedNode } from "@sandnet/core"
import {
  AcceptedTransferOffer,
  BuyTrafficRequest,
  Coin,
  CoinTransferInstruction,
  MergeDelegationProposal,
  TransferOffer,
  TransferPreapproval,
  TransferPreapprovalProposal,
  type AcceptedTransferOfferPayload,
  type BuyTrafficRequestPayload,
  type CoinTransferInstructionPayload,
  type TransferOfferPayload,
  type TransferPreapprovalPayload,
  type TransferPreapprovalProposalPayload
} from "../../coin/index.ts"
import { fileMergeProposal } from "./delegations.ts"
import { fileInstruction } from "./expiry.ts"
import { fileCoin } from "./merge.ts"
import { fileAcceptedOffer, fileOffer } from "./offers.ts"
import { filePreapproval, filePreapprovalProposal } from "./preapprovals.ts"
import { COUPON_TEMPLATES, fileCoupon } from "./rewards.ts"
import type { AutomationState } from "./state.ts"
import { fileBuyTrafficRequest } from "./traffic.ts"

/** Files the work an update brings; returns whether some of it should run at once. */
export const fileWork = (auto: AutomationState, entry: CommittedUpdate, live: boolean): boolean => {
  const update = entry.update
  if (update.kind !== "transaction") return false
  const acs = auto.wallet.participant.logic.acs
  let urgent = false
  for (const node of update.nodes) {
    if (node.kind === "exercised") {
      if (node.consuming) auto.coupons.delete(node.contractId)
      continue
    }
    // Replaying the log: only what is still active matters.
    if (!live && !acs.has(node.contractId)) continue
    if (fileCreated(auto, node)) urgent = true
  }
  return urgent
}

const fileCreated = (auto: AutomationState, node: CreatedNode): boolean => {
  const args: unknown = node.createArguments
  switch (node.templateId) {
    case TransferOffer.templateId:
      return fileOffer(auto, node.contractId, args as TransferOfferPayload)
    case AcceptedTransferOffer.templateId:
      return fileAcceptedOffer(auto, node.contractId, args as AcceptedTransferOfferPayload)
    case CoinTransferInstruction.templateId:
      fileInstruction(auto, node.contractId, args as CoinTransferInstructionPayload)
      return false
    case BuyTrafficRequest.templateId:
      return fileBuyTrafficRequest(auto, node.contractId, args as BuyTrafficRequestPayload)
    case MergeDelegationProposal.templateId:
      return fileMergeProposal(auto, node.contractId, args as { delegation: { operator: string } })
    case TransferPreapproval.templateId:
      filePreapproval(auto, node.contractId, args as TransferPreapprovalPayload)
      return false
    case TransferPreapprovalProposal.templateId:
      return filePreapprovalProposal(auto, node.contractId, args as TransferPreapprovalProposalPayload)
    case Coin.templateId:
      fileCoin(auto, (args as { owner: string }).owner)
      return false
    default:
      if (COUPON_TEMPLATES.has(node.templateId)) fileCoupon(auto, node.templateId, node.contractId, args)
      return false
  }
}
