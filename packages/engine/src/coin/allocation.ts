/**
 * Token-standard allocations. ExternalPartyCoinRules implements the token standard's
 * AllocationFactory: AllocationFactory_Allocate locks the sender's coin for one transfer leg of a
 * settlement (a LockedCoin held by the DSO until the settlement's settleBefore) and creates a
 * CoinAllocation, which implements the Allocation interface:
 *
 * - Allocation_ExecuteTransfer (the executor, sender and receiver, as the settlement app holds
 *   their authority): the coin is unlocked and the leg's amount transferred to the receiver, the
 *   rest returns to the sender;
 * - Allocation_Withdraw (the sender) and Allocation_Cancel (executor, sender and receiver): the
 *   locked coin is released back to the sender unchanged.
 *
 * The locked amount is the leg's amount plus the holding fees it accrues until settleBefore (and
 * two rounds more), as for a transfer offer (instruction.ts).
 */
import { Schema } from "effect"
import { ContractIdRef, Numeric, Party, Text, Timestamp, amountOf, formatAmount, parseIso, type Json } from "@sandnet/core"
import { defineChoice, defineTemplate, type UpdateContext } from "../ledger/template.ts"
import { AllocationFactoryInterface, AllocationInterface } from "./allocation-api.ts"
import { COIN_INSTRUMENT } from "./coin.ts"
import { OpenMiningRound, holdingFeeRate } from "./config.ts"
import { expiryOf, isExpired } from "./expiry.ts"
import {
  ContextKeys,
  ExternalPartyCoinRules,
  ExtraArgs,
  Metadata,
  changeOf,
  coinTransfer,
  contextCid,
  lockReserveRounds,
  release,
  type TransferResult
} from "./instruction.ts"
import { CoinPackage } from "./packages.ts"
import { CoinRules_Transfer } from "./rules.ts"
import { EMPTY_META } from "./shared-views.ts"

/** A reference to the settlement in the app that asks for it. */
export const SettlementReference = Schema.Struct({ id: Text, cid: Schema.optional(Schema.NullOr(ContractIdRef)) })

export const SettlementInfo = Schema.Struct({
  executor: Party,
  settlementRef: SettlementReference,
  requestedAt: Timestamp,
  allocateBefore: Timestamp,
  settleBefore: Timestamp,
  meta: Metadata
})
export type SettlementInfo = typeof SettlementInfo.Type

export const TransferLeg = Schema.Struct({
  sender: Party,
  receiver: Party,
  amount: Numeric,
  instrumentId: Schema.Struct({ admin: Party, id: Text }),
  meta: Metadata
})
export type TransferLeg = typeof TransferLeg.Type

/** The token standard's AllocationSpecification: one transfer leg of a settlement. */
export const AllocationSpecification = Schema.Struct({ settlement: SettlementInfo, transferLegId: Text, transferLeg: TransferLeg })
export type AllocationSpecification = typeof AllocationSpecification.Type

// ---------------------------------------------------------------- the allocation

export const CoinAllocationPayload = Schema.Struct({ lockedCoin: ContractIdRef, allocation: AllocationSpecification })
export type CoinAllocationPayload = typeof CoinAllocationPayload.Type

/** The parties that execute or cancel an allocation (the token standard's allocationControllers). */
export const allocationControllers = (a: AllocationSpecification): ReadonlyArray<string> => [
  a.settlement.executor,
  a.transferLeg.sender,
  a.transferLeg.receiver
]

export const CoinAllocation = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.CoinAllocation",
  entity: "CoinAllocation",
  payload: CoinAllocationPayload,
  signatories: (p) => [p.allocation.transferLeg.instrumentId.admin, p.allocation.transferLeg.sender],
  observers: (p) => [p.allocation.settlement.executor],
  interfaces: [
    {
      interfaceId: AllocationInterface.interfaceId,
      view: (p) => ({ allocation: p.allocation as unknown as Json, holdingCids: [p.lockedCoin], meta: EMPTY_META })
    }
  ]
})

const AllocationChoiceArgument = Schema.Struct({ extraArgs: ExtraArgs })

/**
 * Withdraw and cancel: the locked coin back to the sender, unchanged. When the registry's context
 * says `expire-lock` false (the lock expired and its owner already took the coin back), the
 * allocation just closes.
 */
const unlockAllocation = (ctx: UpdateContext, p: CoinAllocationPayload, extraArgs: ExtraArgs): Json => {
  const expireLock = extraArgs.context.values[ContextKeys.expireLock]
  const lockGone = expireLock?.tag === "AV_Bool" && !expireLock.value
  return { senderHoldingCids: lockGone ? [] : [release(ctx, p.lockedCoin)], meta: { values: {} } }
}

/** The leg's amount goes to the receiver out of the unlocked coin; the rest returns to the sender. */
export const Allocation_ExecuteTransfer = defineChoice(CoinAllocation, {
  name: "Allocation_ExecuteTransfer",
  consuming: true,
  interfaceId: AllocationInterface.interfaceId,
  argument: AllocationChoiceArgument,
  controllers: (p) => allocationControllers(p.allocation),
  body: (ctx, self, arg): Json => {
    const { settlement, transferLeg: leg } = self.payload.allocation
    ctx.require(!isExpired(expiryOf(settlement.settleBefore), ctx.ledgerTime), "the allocation's settleBefore has passed")
    const coinCid = release(ctx, self.payload.lockedCoin)
    const result = coinTransfer(ctx, arg.extraArgs.context, leg.instrumentId.admin, { sender: leg.sender, receiver: leg.receiver, amount: leg.amount, inputs: [coinCid] })
    return {
      senderHoldingCids: [...changeOf(result)],
      receiverHoldingCids: result.createdCoins.map((c) => c.value),
      meta: { values: {} }
    }
  }
})

export const Allocation_Withdraw = defineChoice(CoinAllocation, {
  name: "Allocation_Withdraw",
  consuming: true,
  interfaceId: AllocationInterface.interfaceId,
  argument: AllocationChoiceArgument,
  controllers: (p) => [p.allocation.transferLeg.sender],
  body: (ctx, self, arg): Json => unlockAllocation(ctx, self.payload, arg.extraArgs)
})

export const Allocation_Cancel = defineChoice(CoinAllocation, {
  name: "Allocation_Cancel",
  consuming: true,
  interfaceId: AllocationInterface.interfaceId,
  argument: AllocationChoiceArgument,
  controllers: (p) => allocationControllers(p.allocation),
  body: (ctx, self, arg): Json => unlockAllocation(ctx, self.payload, arg.extraArgs)
})

// ---------------------------------------------------------------- the factory

export const AllocationFactoryArgument = Schema.Struct({
  expectedAdmin: Party,
  allocation: AllocationSpecification,
  requestedAt: Timestamp,
  inputHoldingCids: Schema.Array(ContractIdRef),
  extraArgs: ExtraArgs
})
export type AllocationFactoryArgument = typeof AllocationFactoryArgument.Type

/** Locks the leg's amount and its holding fee until settleBefore; the lock's holder is the DSO. */
const lockForLeg = (ctx: UpdateContext, dso: string, a: AllocationSpecification, inputs: ReadonlyArray<string>, arg: AllocationFactoryArgument): TransferResult => {
  const roundCid = contextCid(ctx, arg.extraArgs.context, ContextKeys.openRound)
  const round = ctx.fetch(OpenMiningRound, roundCid).payload
  const settleBefore = parseIso(a.settlement.settleBefore) ?? 0
  const reserve = holdingFeeRate(round) * BigInt(lockReserveRounds(ctx.ledgerTime, settleBefore, Number(round.tickDuration.microseconds)))
  return ctx.exercise(CoinRules_Transfer, contextCid(ctx, arg.extraArgs.context, ContextKeys.coinRules), {
    transfer: {
      sender: a.transferLeg.sender,
      provider: a.transferLeg.sender,
      inputs: inputs.map((value) => ({ tag: "InputCoin" as const, value })),
      outputs: [
        {
          receiver: a.transferLeg.sender,
          receiverFeeRatio: "0.0000000000",
          amount: formatAmount(amountOf(a.transferLeg.amount) + reserve),
          lock: { holders: [dso], expiresAt: a.settlement.settleBefore, optContext: `allocation for transfer leg ${a.transferLegId} to ${a.transferLeg.receiver}` }
        }
      ],
      beneficiaries: null
    },
    context: { openMiningRound: roundCid, featuredAppRight: null },
    expectedDso: dso
  }) as TransferResult
}

/**
 * The token standard's allocation: the sender's input holdings pay for a coin locked to the leg
 * (the change returns to the sender) and a CoinAllocation holding it. The amount is a Numeric 10.
 */
export const AllocationFactory_Allocate = defineChoice(ExternalPartyCoinRules, {
  name: "AllocationFactory_Allocate",
  consuming: false,
  interfaceId: AllocationFactoryInterface.interfaceId,
  argument: AllocationFactoryArgument,
  controllers: (_p, arg) => [arg.allocation.transferLeg.sender],
  body: (ctx, self, arg): Json => {
    const leg = { ...arg.allocation.transferLeg, amount: formatAmount(amountOf(arg.allocation.transferLeg.amount)) }
    const allocation: AllocationSpecification = { ...arg.allocation, transferLeg: leg }
    const dso = self.payload.dso
    ctx.require(arg.expectedAdmin === dso, "expectedAdmin is not the coin's admin")
    ctx.require(leg.instrumentId.admin === dso && leg.instrumentId.id === COIN_INSTRUMENT, `unknown instrument ${leg.instrumentId.id}`)
    ctx.require(amountOf(leg.amount) > 0n, "the amount must be positive")
    ctx.require((parseIso(allocation.settlement.allocateBefore) ?? 0) > ctx.ledgerTime, "allocateBefore has passed")
    ctx.require((parseIso(allocation.settlement.settleBefore) ?? 0) > ctx.ledgerTime, "settleBefore must be in the future")
    ctx.require((parseIso(arg.requestedAt) ?? Number.MAX_SAFE_INTEGER) <= ctx.ledgerTime, "requestedAt must not be in the future")
    ctx.require(arg.inputHoldingCids.length > 0, "an allocation needs input holdings")
    const result = lockForLeg(ctx, dso, allocation, arg.inputHoldingCids, arg)
    const lockedCoin = result.createdCoins[0]?.value
    if (lockedCoin === undefined) return ctx.fail("the lock created no coin")
    const allocationCid = ctx.create(CoinAllocation, { lockedCoin, allocation })
    return {
      output: { tag: "AllocationInstructionResult_Completed", value: { allocationCid } },
      senderChangeCids: [...changeOf(result)],
      meta: { values: {} }
    }
  }
})
