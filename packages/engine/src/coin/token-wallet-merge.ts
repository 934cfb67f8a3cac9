/**
 * Splice's token-standard merge delegation (package splice-util-token-standard-wallet, module
 * Splice.Util.Token.Wallet.MergeDelegation), as the Wallet SDK's `token.utxos.delegatedMerge` uses
 * it: the owner proposes a MergeDelegation to an operator (its wallet provider), the operator
 * accepts (MergeDelegationProposal_Accept); the operator's BatchMergeUtility then merges owners' holdings, each merge a
 * token-standard TransferFactory_Transfer self-transfer made with the owner's authority (the owner
 * signs the MergeDelegation).
 *
 * Same names in both dialects (no "coin" in them). Sandnet's own wallet delegation (splice-wallet's
 * Splice.Wallet.MergeDelegation, delegations.ts) is a separate package with its own automation.
 */
import { Schema } from "effect"
import { ContractIdRef, Party, type Json } from "@sandnet/core"
import { defineChoice, defineTemplate } from "../ledger/template.ts"
import { Metadata, TransferFactory_Transfer, TransferFactoryArgument } from "./instruction.ts"
import { TokenStandardWalletPackage } from "./packages.ts"

const MODULE = "Splice.Util.Token.Wallet.MergeDelegation"

export const TokenMergeDelegationPayload = Schema.Struct({ operator: Party, owner: Party, meta: Metadata })
export type TokenMergeDelegationPayload = typeof TokenMergeDelegationPayload.Type

export const TokenMergeDelegation = defineTemplate({
  pkg: TokenStandardWalletPackage,
  module: MODULE,
  entity: "MergeDelegation",
  payload: TokenMergeDelegationPayload,
  signatories: (p) => [p.operator, p.owner]
})

export const TokenMergeDelegationProposal = defineTemplate({
  pkg: TokenStandardWalletPackage,
  module: MODULE,
  entity: "MergeDelegationProposal",
  payload: Schema.Struct({ delegation: TokenMergeDelegationPayload }),
  signatories: (p) => [p.delegation.owner],
  observers: (p) => [p.delegation.operator]
})

export const TokenMergeDelegationProposal_Accept = defineChoice(TokenMergeDelegationProposal, {
  name: "MergeDelegationProposal_Accept",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.delegation.operator],
  body: (ctx, self): Json => ({ delegationCid: ctx.create(TokenMergeDelegation, self.payload.delegation) })
})

/** Upstream's TransferCall: a TransferFactory_Transfer to exercise on a factory. */
export const TokenMergeTransfer = Schema.Struct({ factoryCid: ContractIdRef, choiceArg: TransferFactoryArgument })

export const TokenMergeArgument = Schema.Struct({
  optMergeTransfer: Schema.NullOr(TokenMergeTransfer),
  /** Upstream's extra transfer from the operator to the owner within the merge; Sandnet refuses one (not made yet). */
  optExtraTransfer: Schema.optional(Schema.NullOr(TokenMergeTransfer))
})

/**
 * The operator merges the owner's holdings: a TransferFactory_Transfer whose sender and receiver
 * are the owner (a self-transfer), made with the owner's authority. None: nothing to merge.
 */
export const TokenMergeDelegation_Merge = defineChoice(TokenMergeDelegation, {
  name: "MergeDelegation_Merge",
  consuming: false,
  argument: TokenMergeArgument,
  controllers: (p) => [p.operator],
  body: (ctx, self, arg): Json => {
    ctx.require(arg.optExtraTransfer === undefined || arg.optExtraTransfer === null, "Sandnet does not make a merge's extra transfer (optExtraTransfer) yet")
    const merge = arg.optMergeTransfer
    if (merge === null) return ctx.fail("at least one of optMergeTransfer or optExtraTransfer must be provided")
    const t = merge.choiceArg.transfer
    ctx.require(t.sender === self.payload.owner && t.receiver === self.payload.owner, "a merge is a self-transfer of the delegation's owner")
    return { optMergeResult: ctx.exercise(TransferFactory_Transfer, merge.factoryCid, merge.choiceArg) }
  }
})

/** The operator's utility that runs many owners' merges in one transaction. */
export const TokenBatchMergeUtility = defineTemplate({
  pkg: TokenStandardWalletPackage,
  module: MODULE,
  entity: "BatchMergeUtility",
  payload: Schema.Struct({ operator: Party }),
  signatories: (p) => [p.operator]
})

export const TokenBatchMergeUtility_BatchMerge = defineChoice(TokenBatchMergeUtility, {
  name: "BatchMergeUtility_BatchMerge",
  consuming: false,
  argument: Schema.Struct({
    mergeCalls: Schema.Array(Schema.Struct({ delegationCid: ContractIdRef, choiceArg: TokenMergeArgument }))
  }),
  controllers: (p) => [p.operator],
  body: (ctx, _self, arg): Json => ({ results: arg.mergeCalls.map((c) => ctx.exercise(TokenMergeDelegation_Merge, c.delegationCid, c.choiceArg)) })
})
