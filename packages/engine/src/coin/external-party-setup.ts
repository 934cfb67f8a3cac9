/**
 * The external-party setup proposal: the validator operator proposes to set up an external party's
 * wallet; the party's acceptance creates its ValidatorRight and TransferPreapproval. A contract
 * template like the other coin templates; the wallet's external-party commands drive it.
 */
import { Schema } from "effect"
import { ContractIdRef, Party, Timestamp, type Json } from "@sandnet/core"
import { PackageDef, defineChoice, defineTemplate } from "../ledger/template.ts"
import { CoinRules_CreateTransferPreapproval } from "./preapproval.ts"
import { ValidatorRight } from "./rewards.ts"

export const ExternalPartySetupPackage = new PackageDef("splice-coin-external-party", "0.1.0")

export const ExternalPartySetupProposalPayload = Schema.Struct({
  validator: Party,
  user: Party,
  dso: Party,
  preapprovalExpiresAt: Timestamp
})
export type ExternalPartySetupProposalPayload = typeof ExternalPartySetupProposalPayload.Type

/** The validator operator proposes to set up an external party's wallet (its ValidatorRight and TransferPreapproval). */
export const ExternalPartySetupProposal = defineTemplate({
  pkg: ExternalPartySetupPackage,
  module: "Splice.CoinRules",
  entity: "ExternalPartySetupProposal",
  payload: ExternalPartySetupProposalPayload,
  signatories: (p) => [p.validator],
  observers: (p) => [p.user]
})

/**
 * The external party accepts: its ValidatorRight (user and validator) and its TransferPreapproval
 * (provider: the validator), through the rules the DSO signed.
 */
export const ExternalPartySetupProposal_Accept = defineChoice(ExternalPartySetupProposal, {
  name: "ExternalPartySetupProposal_Accept",
  consuming: true,
  argument: Schema.Struct({ coinRules: ContractIdRef }),
  controllers: (p) => [p.user],
  body: (ctx, self, arg): Json => {
    const validatorRightCid = ctx.create(ValidatorRight, { dso: self.payload.dso, user: self.payload.user, validator: self.payload.validator })
    const created = ctx.exercise(CoinRules_CreateTransferPreapproval, arg.coinRules, {
      receiver: self.payload.user,
      provider: self.payload.validator,
      expiresAt: self.payload.preapprovalExpiresAt
    }) as { readonly transferPreapprovalCid: string }
    return { validatorRightCid, transferPreapprovalCid: created.transferPreapprovalCid }
  }
})

