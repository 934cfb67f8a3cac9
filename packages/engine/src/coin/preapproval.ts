/**
 * TransferPreapproval: a receiver's standing consent to receive coin in one step. The provider is
 * the receiver's validator operator, who also renews it; it is visible to the receiver, the
 * provider and the DSO (super validators) only. Sending through it needs no offer.
 */
import { Schema } from "effect"
import { ContractIdRef, Numeric, Party, Text, Timestamp, parseIso, toIso, type Json } from "@sandnet/core"
import { defineChoice, defineTemplate } from "../ledger/template.ts"
import { CoinPackage } from "./packages.ts"
import { CoinRules, CoinRules_Transfer, TransferContext, TransferInput } from "./rules.ts"

export const TransferPreapprovalPayload = Schema.Struct({
  dso: Party,
  receiver: Party,
  provider: Party,
  validFrom: Timestamp,
  lastRenewedAt: Timestamp,
  expiresAt: Timestamp
})
export type TransferPreapprovalPayload = typeof TransferPreapprovalPayload.Type

export const TransferPreapproval = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.CoinRules",
  entity: "TransferPreapproval",
  payload: TransferPreapprovalPayload,
  signatories: (p) => [p.dso, p.receiver, p.provider]
})

export const CreatePreapprovalArgument = Schema.Struct({
  receiver: Party,
  provider: Party,
  expiresAt: Timestamp,
  /** The DSO the receiver expects the rules to be of (a proposal's `expectedDso`). */
  expectedDso: Schema.optional(Schema.NullOr(Party))
})

/** Receiver and provider ask the rules (signed by the DSO) for a preapproval. */
export const CoinRules_CreateTransferPreapproval = defineChoice(CoinRules, {
  name: "CoinRules_CreateTransferPreapproval",
  consuming: false,
  argument: CreatePreapprovalArgument,
  controllers: (_rules, arg) => [arg.receiver, arg.provider],
  body: (ctx, self, arg): Json => {
    const expiresAt = parseIso(arg.expiresAt) ?? 0
    ctx.require(expiresAt > ctx.ledgerTime, "a preapproval must expire in the future")
    ctx.require(arg.expectedDso == null || arg.expectedDso === self.payload.dso, "the rules are of the expected DSO")
    const now = toIso(ctx.ledgerTime)
    const cid = ctx.create(TransferPreapproval, {
      dso: self.payload.dso,
      receiver: arg.receiver,
      provider: arg.provider,
      validFrom: now,
      lastRenewedAt: now,
      expiresAt: arg.expiresAt
    })
    return { transferPreapprovalCid: cid }
  }
})

export const SendArgument = Schema.Struct({
  sender: Party,
  coinRules: ContractIdRef,
  context: TransferContext,
  inputs: Schema.Array(TransferInput),
  amount: Numeric,
  description: Schema.NullOr(Text)
})
export type SendArgument = typeof SendArgument.Type

export const TransferPreapproval_Send = defineChoice(TransferPreapproval, {
  name: "TransferPreapproval_Send",
  consuming: false,
  argument: SendArgument,
  controllers: (_p, arg) => [arg.sender],
  body: (ctx, self, arg): Json => {
    const expiresAt = parseIso(self.payload.expiresAt) ?? 0
    ctx.require(ctx.ledgerTime < expiresAt, "the transfer preapproval has expired")
    const rules = ctx.fetch(CoinRules, arg.coinRules)
    ctx.require(rules.payload.dso === self.payload.dso, "the rules belong to another DSO")
    return ctx.exercise(CoinRules_Transfer, arg.coinRules, {
      transfer: {
        sender: arg.sender,
        // The preapproval's provider is the app provider of a one-step transfer (featured when it has a right).
        provider: self.payload.provider,
        inputs: arg.inputs,
        outputs: [{ receiver: self.payload.receiver, receiverFeeRatio: "0.0000000000", amount: arg.amount }],
        beneficiaries: null
      },
      context: arg.context,
      expectedDso: self.payload.dso
    })
  }
})

/** The provider (the receiver's validator operator) extends the preapproval. */
export const TransferPreapproval_Renew = defineChoice(TransferPreapproval, {
  name: "TransferPreapproval_Renew",
  consuming: true,
  argument: Schema.Struct({ newExpiresAt: Timestamp }),
  controllers: (p) => [p.provider],
  body: (ctx, self, arg): Json => {
    const newExpiresAt = parseIso(arg.newExpiresAt) ?? 0
    ctx.require(newExpiresAt > (parseIso(self.payload.expiresAt) ?? 0), "a renewal moves the expiry later")
    ctx.require(newExpiresAt > ctx.ledgerTime, "a preapproval must expire in the future")
    const transferPreapprovalCid = ctx.create(TransferPreapproval, { ...self.payload, lastRenewedAt: toIso(ctx.ledgerTime), expiresAt: arg.newExpiresAt })
    return { transferPreapprovalCid }
  }
})

/** The receiver or the provider withdraws the preapproval. */
export const TransferPreapproval_Cancel = defineChoice(TransferPreapproval, {
  name: "TransferPreapproval_Cancel",
  consuming: true,
  argument: Schema.Struct({ p: Party }),
  controllers: (_payload, arg) => [arg.p],
  body: (ctx, self, arg): Json => {
    ctx.require(arg.p === self.payload.receiver || arg.p === self.payload.provider, "only the receiver or the provider can cancel")
    return {}
  }
})

/** The DSO archives an expired preapproval. */
export const TransferPreapproval_Expire = defineChoice(TransferPreapproval, {
  name: "TransferPreapproval_Expire",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.dso],
  body: (ctx, self): Json => {
    ctx.require((parseIso(self.payload.expiresAt) ?? 0) <= ctx.ledgerTime, "the preapproval has not expired")
    return {}
  }
})

