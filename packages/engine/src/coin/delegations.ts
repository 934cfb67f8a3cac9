/**
 * Delegations a wallet user grants its wallet provider (package splice-wallet).
 *
 * Merge: at onboarding the user signs a MergeDelegationProposal; the provider (validator operator)
 * accepts it. With the MergeDelegation active, the provider merges the user's holdings: a
 * self-transfer of the user's coins into one (no outputs: everything is change). The provider's
 * automation batches merges of several users in one BatchMergeUtility_MergeHoldings, at most 100
 * input holdings per batch.
 *
 * Minting: an external party (the beneficiary) proposes a MintingDelegation to a wallet user (the
 * delegate), who accepts, rejects, or later rejects the delegation; the beneficiary may withdraw.
 * With it the delegate mints the beneficiary's rewards into the beneficiary's coin.
 */
import { Schema } from "effect"
import { ContractIdRef, Int64, Party, Timestamp, parseIso, type Json } from "@sandnet/core"
import { defineChoice, defineTemplate } from "../ledger/template.ts"
import { PaymentTransferContext } from "./offers.ts"
import { WalletPackage } from "./packages.ts"
import { CoinRules_Transfer, TransferInput } from "./rules.ts"

export const MAX_MERGE_BATCH = 100

export const MergeDelegationPayload = Schema.Struct({ owner: Party, operator: Party, dso: Party, meta: Schema.Record({ key: Schema.String, value: Schema.String }) })
export type MergeDelegationPayload = typeof MergeDelegationPayload.Type

export const MergeDelegation = defineTemplate({
  pkg: WalletPackage,
  module: "Splice.Wallet.MergeDelegation",
  entity: "MergeDelegation",
  payload: MergeDelegationPayload,
  signatories: (p) => [p.owner, p.operator]
})

export const MergeDelegationProposal = defineTemplate({
  pkg: WalletPackage,
  module: "Splice.Wallet.MergeDelegation",
  entity: "MergeDelegationProposal",
  payload: Schema.Struct({ delegation: MergeDelegationPayload }),
  signatories: (p) => [p.delegation.owner],
  observers: (p) => [p.delegation.operator]
})

export const MergeDelegationProposal_Accept = defineChoice(MergeDelegationProposal, {
  name: "MergeDelegationProposal_Accept",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.delegation.operator],
  body: (ctx, self): Json => ({ mergeDelegationCid: ctx.create(MergeDelegation, self.payload.delegation) })
})

export const MergeDelegationProposal_Reject = defineChoice(MergeDelegationProposal, {
  name: "MergeDelegationProposal_Reject",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.delegation.operator],
  body: (): Json => ({})
})

export const MergeDelegationProposal_Withdraw = defineChoice(MergeDelegationProposal, {
  name: "MergeDelegationProposal_Withdraw",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.delegation.owner],
  body: (): Json => ({})
})

/** Merges the owner's holdings into one coin (a self-transfer without outputs). */
export const MergeDelegation_Merge = defineChoice(MergeDelegation, {
  name: "MergeDelegation_Merge",
  consuming: false,
  argument: Schema.Struct({ inputs: Schema.Array(TransferInput), context: PaymentTransferContext }),
  controllers: (p) => [p.operator],
  body: (ctx, self, arg): Json => {
    ctx.require(arg.inputs.length >= 2, "a merge takes at least two holdings")
    return ctx.exercise(CoinRules_Transfer, arg.context.coinRules, {
      transfer: { sender: self.payload.owner, provider: self.payload.operator, inputs: arg.inputs, outputs: [], beneficiaries: null },
      context: { ...arg.context.context, featuredAppRight: null },
      expectedDso: self.payload.dso
    })
  }
})

/** The owner revokes the delegation (e.g. when offboarded). */
export const MergeDelegation_Revoke = defineChoice(MergeDelegation, {
  name: "MergeDelegation_Revoke",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.owner],
  body: (): Json => ({})
})

/** The provider's batch of merges; created and exercised in one command, so it never stays active. */
export const BatchMergeUtility = defineTemplate({
  pkg: WalletPackage,
  module: "Splice.Wallet.MergeDelegation",
  entity: "BatchMergeUtility",
  payload: Schema.Struct({ operator: Party }),
  signatories: (p) => [p.operator]
})

export const BatchMergeUtility_MergeHoldings = defineChoice(BatchMergeUtility, {
  name: "BatchMergeUtility_MergeHoldings",
  consuming: true,
  argument: Schema.Struct({
    merges: Schema.Array(Schema.Struct({ delegationCid: ContractIdRef, inputs: Schema.Array(TransferInput) })),
    context: PaymentTransferContext
  }),
  controllers: (p) => [p.operator],
  body: (ctx, _self, arg): Json => {
    const total = arg.merges.reduce((n, m) => n + m.inputs.length, 0)
    ctx.require(total <= MAX_MERGE_BATCH, `a merge batch takes at most ${MAX_MERGE_BATCH} holdings, got ${total}`)
    return { results: arg.merges.map((m) => ctx.exercise(MergeDelegation_Merge, m.delegationCid, { inputs: m.inputs, context: arg.context })) }
  }
})

// ---------------------------------------------------------------- minting delegation

export const MintingDelegationPayload = Schema.Struct({
  beneficiary: Party,
  delegate: Party,
  dso: Party,
  expiresAt: Timestamp,
  /** Merge the beneficiary's coins once it holds more than this many. */
  coinMergeLimit: Int64
})
export type MintingDelegationPayload = typeof MintingDelegationPayload.Type

export const MintingDelegation = defineTemplate({
  pkg: WalletPackage,
  module: "Splice.Wallet.MintingDelegation",
  entity: "MintingDelegation",
  payload: MintingDelegationPayload,
  signatories: (p) => [p.beneficiary, p.delegate]
})

export const MintingDelegationProposal = defineTemplate({
  pkg: WalletPackage,
  module: "Splice.Wallet.MintingDelegation",
  entity: "MintingDelegationProposal",
  payload: Schema.Struct({ delegation: MintingDelegationPayload }),
  signatories: (p) => [p.delegation.beneficiary],
  observers: (p) => [p.delegation.delegate]
})

export const MintingDelegationProposal_Accept = defineChoice(MintingDelegationProposal, {
  name: "MintingDelegationProposal_Accept",
  consuming: true,
  argument: Schema.Struct({ existingDelegationCid: Schema.NullOr(ContractIdRef) }),
  controllers: (p) => [p.delegation.delegate],
  body: (ctx, self, arg): Json => {
    if (arg.existingDelegationCid !== null) {
      const existing = ctx.fetch(MintingDelegation, arg.existingDelegationCid).payload
      ctx.require(existing.beneficiary === self.payload.delegation.beneficiary && existing.delegate === self.payload.delegation.delegate, "the existing delegation is not this pair's")
      ctx.archive(MintingDelegation, arg.existingDelegationCid)
    }
    return { mintingDelegationCid: ctx.create(MintingDelegation, self.payload.delegation) }
  }
})

export const MintingDelegationProposal_Reject = defineChoice(MintingDelegationProposal, {
  name: "MintingDelegationProposal_Reject",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.delegation.delegate],
  body: (): Json => ({})
})

export const MintingDelegationProposal_Withdraw = defineChoice(MintingDelegationProposal, {
  name: "MintingDelegationProposal_Withdraw",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.delegation.beneficiary],
  body: (): Json => ({})
})

export const MintingDelegation_Mint = defineChoice(MintingDelegation, {
  name: "MintingDelegation_Mint",
  consuming: false,
  argument: Schema.Struct({ inputs: Schema.Array(TransferInput), context: PaymentTransferContext }),
  controllers: (p) => [p.delegate],
  body: (ctx, self, arg): Json => {
    ctx.require(ctx.ledgerTime < (parseIso(self.payload.expiresAt) ?? 0), "the minting delegation has expired")
    return {
      transferResult: ctx.exercise(CoinRules_Transfer, arg.context.coinRules, {
        transfer: { sender: self.payload.beneficiary, provider: self.payload.delegate, inputs: arg.inputs, outputs: [], beneficiaries: null },
        context: { ...arg.context.context, featuredAppRight: null },
        expectedDso: self.payload.dso
      })
    }
  }
})

export const MintingDelegation_Reject = defineChoice(MintingDelegation, {
  name: "MintingDelegation_Reject",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.delegate],
  body: (): Json => ({})
})

export const MintingDelegation_Withdraw = defineChoice(MintingDelegation, {
  name: "MintingDelegation_Withdraw",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.beneficiary],
  body: (): Json => ({})
})

