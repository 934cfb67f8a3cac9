/**
 * Token-standard transfers. ExternalPartyCoinRules implements the token standard's TransferFactory:
 * TransferFactory_Transfer locks the sender's coin (a LockedCoin held by the DSO until
 * executeBefore) and creates a CoinTransferInstruction, the pending offer (first history entry).
 * The receiver accepts it (the coin is unlocked and transferred: second entry) or rejects it; the
 * sender withdraws it; after executeBefore the sender's automation expires it. Rejection,
 * withdrawal and expiry release the locked coin back to the sender unchanged.
 *
 * The locked amount is the transfer amount plus the holding fees it accrues until executeBefore
 * (and two rounds more), so that the unlocked coin still covers the amount when it is accepted.
 */
import { Schema } from "effect"
import {
  ContractIdRef,
  Numeric,
  Party,
  Text,
  Timestamp,
  amountOf,
  formatAmount,
  parseIso,
  type ContractId,
  type Json
} from "@sandnet/core"
import { defineChoice, defineInterface, defineTemplate, type UpdateContext } from "../ledger/template.ts"
import { COIN_INSTRUMENT, LockedCoin_Unlock } from "./coin.ts"
import { OpenMiningRound, holdingFeeRate } from "./config.ts"
import { expiryOf, isExpired } from "./expiry.ts"
import { AllocationFactoryInterface } from "./allocation-api.ts"
import { CoinPackage, TransferInstructionApiPackage } from "./packages.ts"
import { EMPTY_META, PENDING_RECEIVER_ACCEPTANCE } from "./shared-views.ts"
import { TransferPreapproval, TransferPreapproval_Send } from "./preapproval.ts"
import { CoinRules_Transfer } from "./rules.ts"

export const TransferInstructionInterface = defineInterface({
  pkg: TransferInstructionApiPackage,
  module: "Splice.Api.Token.TransferInstructionV1",
  entity: "TransferInstruction",
  choices: [
    { name: "TransferInstruction_Accept", consuming: true },
    { name: "TransferInstruction_Reject", consuming: true },
    { name: "TransferInstruction_Withdraw", consuming: true }
  ]
})

export const TransferFactoryInterface = defineInterface({
  pkg: TransferInstructionApiPackage,
  module: "Splice.Api.Token.TransferInstructionV1",
  entity: "TransferFactory",
  choices: [{ name: "TransferFactory_Transfer", consuming: false }]
})

export const Metadata = Schema.Struct({ values: Schema.Record({ key: Schema.String, value: Schema.String }) })
export type Metadata = typeof Metadata.Type

export const AnyValue = Schema.Union(
  Schema.Struct({ tag: Schema.Literal("AV_ContractId"), value: ContractIdRef }),
  Schema.Struct({ tag: Schema.Literal("AV_Text"), value: Text }),
  Schema.Struct({ tag: Schema.Literal("AV_Bool"), value: Schema.Boolean })
)
export type AnyValue = typeof AnyValue.Type

/** The token standard's ChoiceContext: contract ids the registry hands out, by well-known key. */
export const ChoiceContext = Schema.Struct({ values: Schema.Record({ key: Schema.String, value: AnyValue }) })
export type ChoiceContext = typeof ChoiceContext.Type

export const ExtraArgs = Schema.Struct({ context: ChoiceContext, meta: Metadata })
export type ExtraArgs = typeof ExtraArgs.Type

/** Keys of the choice context (as the real registry names them, with the product renamed). */
export const ContextKeys = {
  coinRules: "coin-rules",
  openRound: "open-round",
  transferPreapproval: "transfer-preapproval",
  expireLock: "expire-lock"
} as const

export const emptyMeta: Metadata = { values: {} }

export const TokenTransfer = Schema.Struct({
  sender: Party,
  receiver: Party,
  amount: Numeric,
  instrumentId: Schema.Struct({ admin: Party, id: Text }),
  requestedAt: Timestamp,
  executeBefore: Timestamp,
  inputHoldingCids: Schema.Array(ContractIdRef),
  meta: Metadata
})
export type TokenTransfer = typeof TokenTransfer.Type

export const contextCid = (ctx: UpdateContext, context: ChoiceContext, key: string): ContractId => {
  const value = context.values[key]
  if (value === undefined || value.tag !== "AV_ContractId") return ctx.fail(`the choice context lacks the contract id ${key}`)
  return value.value
}

// ---------------------------------------------------------------- the instruction

export const CoinTransferInstructionPayload = Schema.Struct({
  lockedCoin: ContractIdRef,
  transfer: TokenTransfer
})
export type CoinTransferInstructionPayload = typeof CoinTransferInstructionPayload.Type

export const CoinTransferInstruction = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.CoinTransferInstruction",
  entity: "CoinTransferInstruction",
  payload: CoinTransferInstructionPayload,
  signatories: (p) => [p.transfer.instrumentId.admin, p.transfer.sender],
  observers: (p) => [p.transfer.receiver],
  interfaces: [
    {
      interfaceId: TransferInstructionInterface.interfaceId,
      view: (p) => ({
        originalInstructionCid: null,
        transfer: p.transfer as unknown as Json,
        status: PENDING_RECEIVER_ACCEPTANCE,
        meta: EMPTY_META
      })
    }
  ]
})

const pendingResult = (instructionCid: ContractId, changeCids: ReadonlyArray<Json>): Json => ({
  output: { tag: "TransferInstructionResult_Pending", value: { transferInstructionCid: instructionCid } },
  senderChangeCids: [...changeCids],
  meta: { values: {} }
})

const failedResult = (changeCids: ReadonlyArray<Json>): Json => ({
  output: { tag: "TransferInstructionResult_Failed", value: {} },
  senderChangeCids: [...changeCids],
  meta: { values: {} }
})

/** Releases the locked coin back to the sender (reject, withdraw, expire). */
export const release = (ctx: UpdateContext, lockedCoin: ContractId): ContractId =>
  (ctx.exercise(LockedCoin_Unlock, lockedCoin, {}) as { coinCid: ContractId }).coinCid

export const TransferInstruction_Accept = defineChoice(CoinTransferInstruction, {
  name: "TransferInstruction_Accept",
  consuming: true,
  interfaceId: TransferInstructionInterface.interfaceId,
  argument: Schema.Struct({ extraArgs: ExtraArgs }),
  controllers: (p) => [p.transfer.receiver],
  body: (ctx, self, arg): Json => {
    const t = self.payload.transfer
    ctx.require(!isExpired(expiryOf(t.executeBefore), ctx.ledgerTime), "the transfer instruction has expired")
    const coinCid = release(ctx, self.payload.lockedCoin)
    const result = coinTransfer(ctx, arg.extraArgs.context, t.instrumentId.admin, { sender: t.sender, receiver: t.receiver, amount: t.amount, inputs: [coinCid] })
    return {
      output: { tag: "TransferInstructionResult_Completed", value: { receiverHoldingCids: result.createdCoins.map((c) => c.value) } },
      senderChangeCids: result.senderChangeCoin === null ? [] : [result.senderChangeCoin],
      meta: { values: {} }
    }
  }
})

export const TransferInstruction_Reject = defineChoice(CoinTransferInstruction, {
  name: "TransferInstruction_Reject",
  consuming: true,
  interfaceId: TransferInstructionInterface.interfaceId,
  argument: Schema.Struct({ extraArgs: ExtraArgs }),
  controllers: (p) => [p.transfer.receiver],
  body: (ctx, self): Json => failedResult([release(ctx, self.payload.lockedCoin)])
})

export const TransferInstruction_Withdraw = defineChoice(CoinTransferInstruction, {
  name: "TransferInstruction_Withdraw",
  consuming: true,
  interfaceId: TransferInstructionInterface.interfaceId,
  argument: Schema.Struct({ extraArgs: ExtraArgs }),
  controllers: (p) => [p.transfer.sender],
  body: (ctx, self): Json => failedResult([release(ctx, self.payload.lockedCoin)])
})

/** After executeBefore the sender (its wallet automation) closes the instruction and takes the coin back. */
export const CoinTransferInstruction_Expire = defineChoice(CoinTransferInstruction, {
  name: "CoinTransferInstruction_Expire",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.transfer.sender],
  body: (ctx, self): Json => {
    ctx.require(isExpired(expiryOf(self.payload.transfer.executeBefore), ctx.ledgerTime), "the transfer instruction has not expired")
    return failedResult([release(ctx, self.payload.lockedCoin)])
  }
})

// ---------------------------------------------------------------- the factory

export const ExternalPartyCoinRulesPayload = Schema.Struct({ dso: Party })
export type ExternalPartyCoinRulesPayload = typeof ExternalPartyCoinRulesPayload.Type

/** The DSO's rules for parties that sign outside the node; the token standard's transfer factory. */
export const ExternalPartyCoinRules = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.ExternalPartyCoinRules",
  entity: "ExternalPartyCoinRules",
  payload: ExternalPartyCoinRulesPayload,
  signatories: (p) => [p.dso],
  interfaces: [
    { interfaceId: TransferFactoryInterface.interfaceId, view: (p) => ({ admin: p.dso, meta: EMPTY_META }) },
    { interfaceId: AllocationFactoryInterface.interfaceId, view: (p) => ({ admin: p.dso, meta: EMPTY_META }) }
  ]
})

export const TransferFactoryArgument = Schema.Struct({ expectedAdmin: Party, transfer: TokenTransfer, extraArgs: ExtraArgs })
export type TransferFactoryArgument = typeof TransferFactoryArgument.Type

/** Rounds of holding fee a lock reserves for: until executeBefore, plus two. */
export const lockReserveRounds = (now: number, executeBefore: number, tick: number): number => Math.ceil(Math.max(0, executeBefore - now) / tick) + 2

export type TransferResult = { createdCoins: ReadonlyArray<{ value: string }>; senderChangeCoin: string | null }

/**
 * One CoinRules_Transfer of `amount` out of `inputs` from sender to receiver, with the coin rules and
 * the open round the choice context names (the sender pays the fees; no beneficiaries).
 */
export const coinTransfer = (
  ctx: UpdateContext,
  context: ChoiceContext,
  dso: string,
  leg: { readonly sender: string; readonly receiver: string; readonly amount: string; readonly inputs: ReadonlyArray<string> }
): TransferResult =>
  ctx.exercise(CoinRules_Transfer, contextCid(ctx, context, ContextKeys.coinRules), {
    transfer: {
      sender: leg.sender,
      provider: leg.sender,
      inputs: leg.inputs.map((value) => ({ tag: "InputCoin" as const, value })),
      outputs: [{ receiver: leg.receiver, receiverFeeRatio: "0.0000000000", amount: leg.amount }],
      beneficiaries: null
    },
    context: { openMiningRound: contextCid(ctx, context, ContextKeys.openRound), featuredAppRight: null },
    expectedDso: dso
  }) as TransferResult

export const changeOf = (result: TransferResult): ReadonlyArray<Json> => (result.senderChangeCoin === null ? [] : [result.senderChangeCoin])

const completedResult = (result: TransferResult): Json => ({
  output: { tag: "TransferInstructionResult_Completed", value: { receiverHoldingCids: result.createdCoins.map((c) => c.value) } },
  senderChangeCids: [...changeOf(result)],
  meta: { values: {} }
})

/** A self-transfer (`transferKind` self): the inputs merge into one holding of the amount, and the change. */
const selfTransfer = (ctx: UpdateContext, dso: string, t: TokenTransfer, context: ChoiceContext): Json =>
  completedResult(coinTransfer(ctx, context, dso, { sender: t.sender, receiver: t.sender, amount: t.amount, inputs: t.inputHoldingCids }))

/** A direct transfer (`transferKind` direct): through the receiver's preapproval, in one step. */
const directTransfer = (ctx: UpdateContext, dso: string, t: TokenTransfer, context: ChoiceContext): Json => {
  const preapprovalCid = contextCid(ctx, context, ContextKeys.transferPreapproval)
  const preapproval = ctx.fetch(TransferPreapproval, preapprovalCid).payload
  ctx.require(preapproval.receiver === t.receiver && preapproval.dso === dso, "the transfer preapproval is not the receiver's")
  return completedResult(
    ctx.exercise(TransferPreapproval_Send, preapprovalCid, {
      sender: t.sender,
      coinRules: contextCid(ctx, context, ContextKeys.coinRules),
      context: { openMiningRound: contextCid(ctx, context, ContextKeys.openRound), featuredAppRight: null },
      inputs: t.inputHoldingCids.map((value) => ({ tag: "InputCoin" as const, value })),
      amount: t.amount,
      description: null
    }) as TransferResult
  )
}

/** An offer (`transferKind` offer): the amount and its holding fee until executeBefore are locked, the receiver accepts. */
const offerTransfer = (ctx: UpdateContext, dso: string, t: TokenTransfer, context: ChoiceContext): Json => {
  const executeBefore = parseIso(t.executeBefore) ?? 0
  const roundCid = contextCid(ctx, context, ContextKeys.openRound)
  const round = ctx.fetch(OpenMiningRound, roundCid).payload
  const reserve = holdingFeeRate(round) * BigInt(lockReserveRounds(ctx.ledgerTime, executeBefore, Number(round.tickDuration.microseconds)))
  const locked = amountOf(t.amount) + reserve
  const result = ctx.exercise(CoinRules_Transfer, contextCid(ctx, context, ContextKeys.coinRules), {
    transfer: {
      sender: t.sender,
      provider: t.sender,
      inputs: t.inputHoldingCids.map((value) => ({ tag: "InputCoin" as const, value })),
      outputs: [
        {
          receiver: t.sender,
          receiverFeeRatio: "0.0000000000",
          amount: formatAmount(locked),
          lock: { holders: [dso], expiresAt: t.executeBefore, optContext: `transfer to ${t.receiver}` }
        }
      ],
      beneficiaries: null
    },
    context: { openMiningRound: roundCid, featuredAppRight: null },
    expectedDso: dso
  }) as TransferResult
  const lockedCoin = result.createdCoins[0]?.value
  if (lockedCoin === undefined) return ctx.fail("the lock created no coin")
  const instructionCid = ctx.create(CoinTransferInstruction, { lockedCoin, transfer: t })
  return pendingResult(instructionCid, changeOf(result))
}

/**
 * The token standard's transfer: a self-transfer when sender and receiver are one party, a direct
 * transfer when the choice context names the receiver's preapproval, an offer otherwise (as the
 * registry's `transferKind` said). The amount is a Numeric 10 (`2000` becomes `2000.0000000000`).
 */
export const TransferFactory_Transfer = defineChoice(ExternalPartyCoinRules, {
  name: "TransferFactory_Transfer",
  consuming: false,
  interfaceId: TransferFactoryInterface.interfaceId,
  argument: TransferFactoryArgument,
  controllers: (_p, arg) => [arg.transfer.sender],
  body: (ctx, self, arg): Json => {
    const t = { ...arg.transfer, amount: formatAmount(amountOf(arg.transfer.amount)) }
    const dso = self.payload.dso
    ctx.require(arg.expectedAdmin === dso, "expectedAdmin is not the coin's admin")
    ctx.require(t.instrumentId.admin === dso && t.instrumentId.id === COIN_INSTRUMENT, `unknown instrument ${t.instrumentId.id}`)
    ctx.require(amountOf(t.amount) > 0n, "the amount must be positive")
    ctx.require((parseIso(t.executeBefore) ?? 0) > ctx.ledgerTime, "executeBefore must be in the future")
    ctx.require((parseIso(t.requestedAt) ?? Number.MAX_SAFE_INTEGER) <= ctx.ledgerTime, "requestedAt must not be in the future")
    ctx.require(t.inputHoldingCids.length > 0, "a transfer needs input holdings")
    const context = arg.extraArgs.context
    if (t.sender === t.receiver) return selfTransfer(ctx, dso, t, context)
    if (context.values[ContextKeys.transferPreapproval] !== undefined) return directTransfer(ctx, dso, t, context)
    return offerTransfer(ctx, dso, t, context)
  }
})

/** The choice context a wallet or the registry hands out for accepting a transfer instruction. */
export const choiceContext = (coinRules: ContractId, openRound: ContractId): ChoiceContext => ({
  values: { [ContextKeys.coinRules]: { tag: "AV_ContractId", value: coinRules }, [ContextKeys.openRound]: { tag: "AV_ContractId", value: openRound } }
})
