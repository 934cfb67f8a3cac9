/**
 * CoinRules: the DSO-owned rules every coin operation goes through. CoinRules_Transfer moves coin
 * from a sender to receivers: at most 100 inputs and 100 outputs, no transfer, create or lock fee;
 * the holding fees accrued on the inputs are burned. Reward coupons of an issuing round are inputs
 * too: they are minted into coin at the round's issuance per coupon. Receivers other than the sender
 * (and lock holders) must authorize, which is why transfers to others go through a
 * TransferPreapproval, an accepted transfer offer or a transfer instruction that carries their
 * authority.
 *
 * Rewards (Splice's issueRewards, with zero fees): a transfer that moves coin to another party
 * registers a ValidatorRewardCoupon for its sender weighted by the coin moved; when its provider
 * holds a FeaturedAppRight (passed in the context) it also registers an AppRewardCoupon of
 * extraFeaturedAppRewardAmount / coin price for the provider. Self-transfers (merges, locks)
 * register nothing.
 */
import { Schema } from "effect"
import {
  Bool,
  ContractIdRef,
  Numeric,
  Party,
  Timestamp,
  amountOf,
  formatAmount,
  mulAmount,
  parseIso,
  type Amount,
  type ContractId,
  type Json,
  type PartyId
} from "@sandnet/core"
import { defineChoice, defineTemplate, type UpdateContext } from "../ledger/template.ts"
import { Coin, LockedCoin, TimeLock, currentAmount, expiringAmount } from "./coin.ts"
import { CoinConfig, IssuingMiningRound, OpenMiningRound, holdingFeeRate, usdToCoin, type IssuingMiningRoundPayload, type OpenMiningRoundPayload, type TransferConfig } from "./config.ts"
import { CoinPackage } from "./packages.ts"
import {
  AppRewardCoupon,
  FeaturedAppRight,
  ValidatorLivenessActivityRecord,
  ValidatorRewardCoupon,
  ValidatorRight,
  appRewardOwner
} from "./rewards.ts"
import { Round, roundNumber } from "./schemas.ts"

export * from "./config.ts"

export const CoinRulesPayload = Schema.Struct({
  dso: Party,
  configSchedule: Schema.Struct({ initialValue: CoinConfig, futureValues: Schema.Array(Schema.Struct({ _1: Timestamp, _2: CoinConfig })) }),
  isDevNet: Bool
})
export type CoinRulesPayload = typeof CoinRulesPayload.Type

export const CoinRules = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.CoinRules",
  entity: "CoinRules",
  payload: CoinRulesPayload,
  signatories: (p) => [p.dso]
})

/** The configuration in force at `time` (the latest scheduled value at or before it). */
export const configAt = (rules: CoinRulesPayload, time: number): CoinConfig => {
  let config = rules.configSchedule.initialValue
  for (const next of rules.configSchedule.futureValues) if ((parseIso(next._1) ?? Number.MAX_SAFE_INTEGER) <= time) config = next._2
  return config
}

export const TransferInput = Schema.Union(
  Schema.Struct({ tag: Schema.Literal("InputCoin"), value: ContractIdRef }),
  Schema.Struct({ tag: Schema.Literal("InputAppRewardCoupon"), value: ContractIdRef }),
  Schema.Struct({ tag: Schema.Literal("InputValidatorRewardCoupon"), value: ContractIdRef }),
  Schema.Struct({ tag: Schema.Literal("InputValidatorLivenessActivityRecord"), value: ContractIdRef })
)
export type TransferInput = typeof TransferInput.Type

export const TransferOutput = Schema.Struct({
  receiver: Party,
  receiverFeeRatio: Numeric,
  amount: Numeric,
  /** When set, the output is a LockedCoin held by the lock's holders until it expires. */
  lock: Schema.optional(Schema.NullOr(TimeLock))
})
export type TransferOutput = typeof TransferOutput.Type

export const Transfer = Schema.Struct({
  sender: Party,
  provider: Party,
  inputs: Schema.Array(TransferInput),
  outputs: Schema.Array(TransferOutput),
  beneficiaries: Schema.NullOr(Schema.Array(Schema.Struct({ beneficiary: Party, weight: Numeric })))
})
export type Transfer = typeof Transfer.Type

export const TransferContext = Schema.Struct({
  openMiningRound: ContractIdRef,
  /** Proof that the transfer's provider is a featured app provider (its app rewards are featured). */
  featuredAppRight: Schema.NullOr(ContractIdRef),
  /** The issuing rounds that reward-coupon inputs refer to, by round. */
  issuingMiningRounds: Schema.optional(Schema.Array(Schema.Struct({ _1: Round, _2: ContractIdRef }))),
  /** ValidatorRight per user, for the sender to mint its users' validator reward coupons. */
  validatorRights: Schema.optional(Schema.Array(Schema.Struct({ _1: Party, _2: ContractIdRef })))
})
export type TransferContext = typeof TransferContext.Type

export const TransferArgument = Schema.Struct({
  transfer: Transfer,
  context: TransferContext,
  expectedDso: Schema.NullOr(Party)
})
export type TransferArgument = typeof TransferArgument.Type

/**
 * Extension points: values of non-coin inputs the rules do not know, and work after the outputs are
 * created. The economy itself is built in; the defaults do nothing.
 */
export interface TransferHooks {
  /** Value of an input the rules do not handle, archiving it; undefined when not handled. */
  readonly redeemInput: (ctx: UpdateContext, input: TransferInput, transfer: Transfer, round: OpenMiningRoundPayload) => Amount | undefined
  /** Called after outputs are created. */
  readonly afterTransfer: (ctx: UpdateContext, transfer: Transfer, context: TransferContext, round: OpenMiningRoundPayload, dso: PartyId) => void
}

export const transferHooks: { current: TransferHooks } = {
  current: { redeemInput: () => undefined, afterTransfer: () => undefined }
}

/** Checks that the round is open at the transaction's ledger time. */
export const requireOpenRound = (ctx: UpdateContext, roundId: ContractId): OpenMiningRoundPayload => {
  const round = ctx.fetch(OpenMiningRound, roundId).payload
  const opensAt = parseIso(round.opensAt) ?? 0
  ctx.require(opensAt <= ctx.ledgerTime, `round ${round.round.number} is not open yet`)
  return round
}

/** What the inputs of a transfer were worth, by kind. */
interface InputSummary {
  coin: Amount
  holdingFees: Amount
  appRewards: Amount
  validatorRewards: Amount
  validatorFaucet: Amount
}

const issuingRoundFor = (ctx: UpdateContext, context: TransferContext, round: { readonly number: string }, dso: PartyId): IssuingMiningRoundPayload => {
  const entry = (context.issuingMiningRounds ?? []).find((e) => e._1.number === round.number)
  if (entry === undefined) return ctx.fail(`the transfer context names no issuing round for round ${round.number}`)
  const issuing = ctx.fetch(IssuingMiningRound, entry._2).payload
  ctx.require(issuing.dso === dso && issuing.round.number === round.number, `issuing round ${entry._2} is not round ${round.number}`)
  ctx.require((parseIso(issuing.opensAt) ?? 0) <= ctx.ledgerTime, `round ${round.number} does not issue yet`)
  return issuing
}

const redeem = (ctx: UpdateContext, input: TransferInput, transfer: Transfer, context: TransferContext, round: OpenMiningRoundPayload, dso: PartyId, sum: InputSummary): void => {
  switch (input.tag) {
    case "InputCoin": {
      const coin = ctx.fetch(Coin, input.value)
      ctx.require(coin.payload.owner === transfer.sender, `input coin ${input.value} is not owned by the sender`)
      const value = currentAmount(coin.payload.amount, roundNumber(round.round))
      sum.holdingFees += amountOf(coin.payload.amount.initialAmount) - value
      sum.coin += value
      ctx.archive(Coin, input.value)
      return
    }
    case "InputAppRewardCoupon": {
      const coupon = ctx.fetch(AppRewardCoupon, input.value).payload
      ctx.require(coupon.dso === dso, "the coupon belongs to another DSO")
      ctx.require(appRewardOwner(coupon) === transfer.sender, `app reward coupon ${input.value} is not the sender's to mint`)
      const issuing = issuingRoundFor(ctx, context, coupon.round, dso)
      const per = amountOf(coupon.featured ? issuing.issuancePerFeaturedAppRewardCoupon : issuing.issuancePerUnfeaturedAppRewardCoupon)
      sum.appRewards += mulAmount(amountOf(coupon.amount), per)
      ctx.archive(AppRewardCoupon, input.value)
      return
    }
    case "InputValidatorRewardCoupon": {
      const coupon = ctx.fetch(ValidatorRewardCoupon, input.value).payload
      ctx.require(coupon.dso === dso, "the coupon belongs to another DSO")
      if (coupon.user !== transfer.sender) {
        // The sender mints as the user's validator: it must hold the user's ValidatorRight.
        const right = (context.validatorRights ?? []).find((r) => r._1 === coupon.user)
        if (right === undefined) ctx.fail(`no validator right for user ${coupon.user} in the transfer context`)
        const payload = ctx.fetch(ValidatorRight, right?._2 ?? "").payload
        ctx.require(payload.validator === transfer.sender && payload.user === coupon.user && payload.dso === dso, "the validator right does not match")
      }
      const issuing = issuingRoundFor(ctx, context, coupon.round, dso)
      sum.validatorRewards += mulAmount(amountOf(coupon.amount), amountOf(issuing.issuancePerValidatorRewardCoupon))
      ctx.archive(ValidatorRewardCoupon, input.value)
      return
    }
    case "InputValidatorLivenessActivityRecord": {
      const record = ctx.fetch(ValidatorLivenessActivityRecord, input.value).payload
      ctx.require(record.dso === dso, "the record belongs to another DSO")
      ctx.require(record.validator === transfer.sender, `liveness record ${input.value} is not the sender's`)
      const issuing = issuingRoundFor(ctx, context, record.round, dso)
      sum.validatorFaucet += amountOf(issuing.optIssuancePerValidatorFaucetCoupon ?? "0")
      ctx.archive(ValidatorLivenessActivityRecord, input.value)
      return
    }
  }
}

/** Controllers of a transfer: the sender, every receiver and every lock holder. */
export const transferControllers = (transfer: Transfer): ReadonlyArray<PartyId> => {
  const parties = new Set<PartyId>([transfer.sender])
  for (const output of transfer.outputs) {
    parties.add(output.receiver)
    for (const holder of output.lock?.holders ?? []) parties.add(holder)
  }
  return [...parties]
}

/** The transfer's own limits and DSO, before anything is fetched. */
const requireTransferShape = (ctx: UpdateContext, arg: TransferArgument, dso: PartyId, config: TransferConfig): void => {
  const { transfer } = arg
  if (arg.expectedDso !== null) ctx.require(arg.expectedDso === dso, "expectedDso does not match the rules' DSO")
  const maxInputs = Number(config.maxNumInputs)
  const maxOutputs = Number(config.maxNumOutputs)
  ctx.require(transfer.inputs.length <= maxInputs, `a transfer takes at most ${maxInputs} inputs, got ${transfer.inputs.length}`)
  ctx.require(transfer.outputs.length <= maxOutputs, `a transfer takes at most ${maxOutputs} outputs, got ${transfer.outputs.length}`)
  ctx.require(transfer.inputs.length > 0, "a transfer needs at least one input")
}

/** Whether the transfer's provider is featured: the context's FeaturedAppRight, checked to be the provider's. */
const isFeaturedProvider = (ctx: UpdateContext, transfer: Transfer, context: TransferContext, dso: PartyId): boolean => {
  if (context.featuredAppRight === null) return false
  const right = ctx.fetch(FeaturedAppRight, context.featuredAppRight).payload
  ctx.require(right.dso === dso && right.provider === transfer.provider, `featured app right ${context.featuredAppRight} is not the provider's`)
  return true
}

/** Redeems every input once, into `sum`; returns what the hooks' inputs were worth. */
const redeemInputs = (ctx: UpdateContext, transfer: Transfer, context: TransferContext, round: OpenMiningRoundPayload, dso: PartyId, sum: InputSummary): Amount => {
  let hooked = 0n
  const seen = new Set<string>()
  for (const input of transfer.inputs) {
    ctx.require(!seen.has(input.value), `input ${input.value} is listed twice`)
    seen.add(input.value)
    const external = transferHooks.current.redeemInput(ctx, input, transfer, round)
    if (external !== undefined) hooked += external
    else redeem(ctx, input, transfer, context, round, dso, sum)
  }
  return hooked
}

/** Checks every output (positive, its lock valid); returns the total and the part moved to others than the sender. */
const checkOutputs = (ctx: UpdateContext, transfer: Transfer, config: TransferConfig): { readonly outputTotal: Amount; readonly movedToOthers: Amount } => {
  let outputTotal = 0n
  let movedToOthers = 0n
  const maxLockHolders = Number(config.maxNumLockHolders)
  for (const output of transfer.outputs) {
    const amount = amountOf(output.amount)
    ctx.require(amount > 0n, `output amounts must be positive, got ${output.amount}`)
    const lock = output.lock ?? null
    if (lock !== null) {
      ctx.require(lock.holders.length > 0 && lock.holders.length <= maxLockHolders, `a lock has 1 to ${maxLockHolders} holders`)
      ctx.require((parseIso(lock.expiresAt) ?? 0) > ctx.ledgerTime, "a lock must expire in the future")
    }
    outputTotal += amount
    if (output.receiver !== transfer.sender) movedToOthers += amount
  }
  return { outputTotal, movedToOthers }
}

/** Creates each output's Coin or LockedCoin, in order; returns them as the result lists them. */
const createOutputs = (ctx: UpdateContext, transfer: Transfer, dso: PartyId, roundNo: number, rate: Amount): Array<Json> =>
  transfer.outputs.map((output) => {
    const coin = { dso, owner: output.receiver, amount: expiringAmount(amountOf(output.amount), roundNo, rate) }
    const lock = output.lock ?? null
    return lock === null
      ? { tag: "TransferResultCoin", value: ctx.create(Coin, coin) }
      : { tag: "TransferResultLockedCoin", value: ctx.create(LockedCoin, { coin, lock }) }
  })

/** Rewards of a transfer that moved coin to others: the sender's ValidatorRewardCoupon, and a featured provider's AppRewardCoupon. */
const registerRewards = (ctx: UpdateContext, transfer: Transfer, round: OpenMiningRoundPayload, dso: PartyId, movedToOthers: Amount, featured: boolean): void => {
  ctx.create(ValidatorRewardCoupon, { dso, user: transfer.sender, amount: formatAmount(movedToOthers), round: round.round })
  if (featured) {
    const reward = usdToCoin(amountOf(round.transferConfigUsd.extraFeaturedAppRewardAmount), round)
    if (reward > 0n) ctx.create(AppRewardCoupon, { dso, provider: transfer.provider, featured: true, amount: formatAmount(reward), round: round.round, beneficiary: null })
  }
}

export const CoinRules_Transfer = defineChoice(CoinRules, {
  name: "CoinRules_Transfer",
  consuming: false,
  argument: TransferArgument,
  controllers: (_rules, arg) => transferControllers(arg.transfer),
  body: (ctx, self, arg): Json => {
    const { transfer, context } = arg
    const dso = self.payload.dso
    const config = configAt(self.payload, ctx.ledgerTime).transferConfig
    requireTransferShape(ctx, arg, dso, config)
    const round = requireOpenRound(ctx, context.openMiningRound)
    ctx.require(round.dso === dso, "the round belongs to another DSO")
    const roundNo = roundNumber(round.round)
    const featured = isFeaturedProvider(ctx, transfer, context, dso)
    const sum: InputSummary = { coin: 0n, holdingFees: 0n, appRewards: 0n, validatorRewards: 0n, validatorFaucet: 0n }
    const hooked = redeemInputs(ctx, transfer, context, round, dso, sum)
    const inputTotal = sum.coin + sum.appRewards + sum.validatorRewards + sum.validatorFaucet + hooked
    const { outputTotal, movedToOthers } = checkOutputs(ctx, transfer, config)
    ctx.require(
      inputTotal >= outputTotal,
      `insufficient funds: inputs are worth ${formatAmount(inputTotal)}, outputs need ${formatAmount(outputTotal)}`
    )
    const rate = holdingFeeRate(round)
    const createdCoins = createOutputs(ctx, transfer, dso, roundNo, rate)
    const change = inputTotal - outputTotal
    const senderChangeCoin = change > 0n ? ctx.create(Coin, { dso, owner: transfer.sender, amount: expiringAmount(change, roundNo, rate) }) : null
    if (movedToOthers > 0n) registerRewards(ctx, transfer, round, dso, movedToOthers, featured)
    transferHooks.current.afterTransfer(ctx, transfer, context, round, dso)
    return {
      round: { number: round.round.number },
      summary: {
        inputCoinAmount: formatAmount(sum.coin + sum.holdingFees),
        inputAppRewardAmount: formatAmount(sum.appRewards),
        inputValidatorRewardAmount: formatAmount(sum.validatorRewards + sum.validatorFaucet),
        inputValidatorFaucetAmount: formatAmount(sum.validatorFaucet),
        inputOtherAmount: formatAmount(hooked),
        holdingFees: formatAmount(sum.holdingFees),
        outputFees: transfer.outputs.map(() => "0.0000000000"),
        senderChangeFee: "0.0000000000",
        senderChangeAmount: formatAmount(change),
        coinPrice: round.coinPrice
      },
      createdCoins,
      senderChangeCoin
    }
  }
})

/** Coin minted by a CoinRules_Transfer: the rewards its coupon inputs were worth (from its result). */
export const mintedByTransfer = (result: Json): Amount => {
  const summary = (result as { summary?: { inputAppRewardAmount?: string; inputValidatorRewardAmount?: string; inputOtherAmount?: string } } | null)?.summary
  if (summary === undefined) return 0n
  return amountOf(summary.inputAppRewardAmount ?? "0") + amountOf(summary.inputValidatorRewardAmount ?? "0") + amountOf(summary.inputOtherAmount ?? "0")
}

export const TapArgument = Schema.Struct({ receiver: Party, amount: Numeric, openRound: ContractIdRef })

/** Development networks only: mint coin out of thin air. */
export const CoinRules_DevNet_Tap = defineChoice(CoinRules, {
  name: "CoinRules_DevNet_Tap",
  consuming: false,
  argument: TapArgument,
  controllers: (_rules, arg) => [arg.receiver],
  body: (ctx, self, arg): Json => {
    ctx.require(self.payload.isDevNet, "tapping coin is only possible on a development network")
    const amount = amountOf(arg.amount)
    ctx.require(amount > 0n, "tap amount must be positive")
    const round = requireOpenRound(ctx, arg.openRound)
    const coinId = ctx.create(Coin, {
      dso: self.payload.dso,
      owner: arg.receiver,
      amount: expiringAmount(amount, roundNumber(round.round), holdingFeeRate(round))
    })
    return { coinSum: { coin: coinId, round: { number: round.round.number } } }
  }
})

/** Development networks only: a provider grants itself a FeaturedAppRight. */
export const CoinRules_DevNet_FeatureApp = defineChoice(CoinRules, {
  name: "CoinRules_DevNet_FeatureApp",
  consuming: false,
  argument: Schema.Struct({ provider: Party }),
  controllers: (_rules, arg) => [arg.provider],
  body: (ctx, self, arg): Json => {
    ctx.require(self.payload.isDevNet, "self-featuring is only possible on a development network")
    return { featuredAppRightCid: ctx.create(FeaturedAppRight, { dso: self.payload.dso, provider: arg.provider }) }
  }
})
