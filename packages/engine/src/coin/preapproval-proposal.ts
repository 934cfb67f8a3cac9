/**
 * TransferPreapprovalProposal (package splice-wallet): how a receiver asks its validator operator
 * for a TransferPreapproval without the operator's signature up front, as the Wallet SDK does for
 * external parties. The receiver signs the proposal; the provider (the operator) accepts it, which
 * creates the preapproval through the rules and pays its fee.
 *
 * The fee (preapproval.ts, transferPreapprovalFee) is paid from the accept's `inputs`; a provider
 * without the coin cannot accept (Splice's validator then retries, "Insufficient funds to create
 * transfer pre-approval").
 */
import { Schema } from "effect"
import { Party, Timestamp, parseIso, type Json } from "@sandnet/core"
import { defineChoice, defineTemplate } from "../ledger/template.ts"
import { PaymentTransferContext } from "./offers.ts"
import { WalletPackage } from "./packages.ts"
import { CoinRules_CreateTransferPreapproval } from "./preapproval.ts"
import { TransferInput } from "./rules.ts"

export const TransferPreapprovalProposalPayload = Schema.Struct({
  receiver: Party,
  provider: Party,
  /** The DSO the receiver expects on the preapproval (optional only for upgrade's sake upstream). */
  expectedDso: Schema.NullOr(Party)
})
export type TransferPreapprovalProposalPayload = typeof TransferPreapprovalProposalPayload.Type

export const TransferPreapprovalProposal = defineTemplate({
  pkg: WalletPackage,
  module: "Splice.Wallet.TransferPreapproval",
  entity: "TransferPreapprovalProposal",
  payload: TransferPreapprovalProposalPayload,
  signatories: (p) => [p.receiver],
  observers: (p) => [p.provider]
})

export const TransferPreapprovalProposal_Accept = defineChoice(TransferPreapprovalProposal, {
  name: "TransferPreapprovalProposal_Accept",
  consuming: true,
  argument: Schema.Struct({ context: PaymentTransferContext, inputs: Schema.Array(TransferInput), expiresAt: Timestamp }),
  controllers: (p) => [p.provider],
  body: (ctx, self, arg): Json => {
    const expiresAt = parseIso(arg.expiresAt) ?? 0
    ctx.require(expiresAt > ctx.ledgerTime, "expiresAt is not in the past")
    const { transferPreapprovalCid } = ctx.exercise(CoinRules_CreateTransferPreapproval, arg.context.coinRules, {
      receiver: self.payload.receiver,
      provider: self.payload.provider,
      expiresAt: arg.expiresAt,
      expectedDso: self.payload.expectedDso,
      // The provider pays the fee from its inputs (the rules charge it).
      context: arg.context.context,
      inputs: arg.inputs
    }) as { transferPreapprovalCid: string }
    return { transferPreapprovalCid }
  }
})
