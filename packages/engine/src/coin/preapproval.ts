/**
 * TransferPreapproval: a receiver's standing consent to receive coin in one step. The provider is
 * the receiver's validator operator, who also renews it; it is visible to the receiver, the
 * provider and the DSO (super validators) only. Sending through it needs no offer.
 */
import { Schema } from "effect"
import { ContractIdRef, MICROS_PER_DAY, Numeric, Party, Text, Timestamp, amountOf, divAmount, formatAmount, parseIso, toIso, type Amount, type Json, type Micros } from "@sandnet/core"
import { defineChoice, defineTemplate, type UpdateContext } from "../ledger/template.ts"
import { CoinPackage } from "./packages.ts"
import { Coin } from "./coin.ts"
import { CoinRules, CoinRules_Transfer, TransferContext, TransferInput, requireOpenRound } from "./rules.ts"

/** Splice's default preapproval fee: roughly $1 a year, as a daily rate (USD). */
export const TRANSFER_PREAPPROVAL_FEE_USD_PER_DAY = "0.0027400000"

/** The coin a provider pays for a preapproval that lives `lifetime` (Splice's computeTransferPreapprovalFee). */
export const transferPreapprovalFee = (lifetime: Micros, coinPrice: string): Amount =>
  divAmount((amountOf(TRANSFER_PREAPPROVAL_FEE_USD_PER_DAY) * BigInt(Math.max(0, lifetime))) / BigInt(MICROS_PER_DAY), amountOf(coinPrice))

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
  expectedDso: Schema.optional(Schema.NullOr(Party)),
  /**
   * The provider's payment of the preapproval fee (Splice's `context` and `inputs`), as the
   * TransferPreapprovalProposal_Accept passes it. Without them no fee is charged (the wallet API's
   * and the simulator's preapprovals).
   */
  context: Schema.optional(TransferContext),
  inputs: Schema.optional(Schema.Array(TransferInput))
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
    if (arg.context !== undefined && arg.inputs !== undefined) payPreapprovalFee(ctx, self, arg.provider, expiresAt, arg.context, arg.inputs)
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

/**
 * The provider pays TRANSFER_PREAPPROVAL_FEE_USD_PER_DAY for each day of the preapproval's lifetime,
 * in coin at the open round's price: split off its inputs into a coin of its own and burned
 * (Splice's splitAndBurn).
 */
const payPreapprovalFee = (
  ctx: UpdateContext,
  rules: { readonly contractId: string; readonly payload: { readonly dso: string } },
  provider: string,
  expiresAt: Micros,
  context: TransferContext,
  inputs: ReadonlyArray<TransferInput>
): void => {
  const round = requireOpenRound(ctx, context.openMiningRound)
  const fee = transferPreapprovalFee(expiresAt - ctx.ledgerTime, round.coinPrice)
  if (fee <= 0n) return
  const transfer = ctx.exercise(CoinRules_Transfer, rules.contractId, {
    transfer: {
      sender: provider,
      provider,
      inputs,
      outputs: [{ receiver: provider, receiverFeeRatio: "0.0000000000", amount: formatAmount(fee) }],
      beneficiaries: null
    },
    context: { ...context, featuredAppRight: null },
    expectedDso: rules.payload.dso
  }) as { createdCoins: ReadonlyArray<{ value: string }> }
  const burnCid = transfer.createdCoins[0]?.value
  if (burnCid === undefined) return ctx.fail("the transfer created no coin to burn")
  ctx.archive(Coin, burnCid)
}

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

