/**
 * Reward contracts. Transfers register rewards against the open round they use: a
 * ValidatorRewardCoupon for the sender's validator (user = sender) and, for a featured app
 * provider, an AppRewardCoupon. Validators record liveness once per round through their
 * ValidatorLicense. Once the round issues, the beneficiaries mint the coupons into coin as inputs
 * of a transfer (CoinRules_Transfer); coupons left when the round closes expire (the DSO archives
 * them and records the unminted amount as an UnclaimedReward).
 *
 * Coupons are signed by the DSO only, so an unavailable beneficiary never holds up the DSO; the
 * beneficiary is an observer so that its node sees (and can redeem) them.
 */
import { Schema } from "effect"
import { Bool, ContractIdRef, Numeric, ONE, Party, Text, Timestamp, amountOf, formatAmount, parseAmount, toIso, type Json, type PartyId } from "@sandnet/core"
import { defineChoice, defineTemplate, type UpdateContext } from "../ledger/template.ts"
import { ClosedMiningRound, OpenMiningRound } from "./config.ts"
import { CoinPackage } from "./packages.ts"
import { Round, roundNumber } from "./schemas.ts"

const requireClosedRound = (ctx: UpdateContext, closedRoundCid: string, dso: PartyId, round: Round): void => {
  const closed = ctx.fetch(ClosedMiningRound, closedRoundCid).payload
  ctx.require(closed.dso === dso, "the closed round belongs to another DSO")
  ctx.require(closed.round.number === round.number, `the coupon is for round ${round.number}, the closed round is ${closed.round.number}`)
}

export const CloseArgument = Schema.Struct({ closedRoundCid: ContractIdRef })

// ---------------------------------------------------------------- validator rewards

export const ValidatorRewardCouponPayload = Schema.Struct({
  dso: Party,
  /** The sender of the transfer; its validator (through a ValidatorRight) mints the reward. */
  user: Party,
  /** Weight of the coupon: the coin the transfer moved to other parties (transfers carry no fees). */
  amount: Numeric,
  round: Round
})
export type ValidatorRewardCouponPayload = typeof ValidatorRewardCouponPayload.Type

export const ValidatorRewardCoupon = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Coin",
  entity: "ValidatorRewardCoupon",
  payload: ValidatorRewardCouponPayload,
  signatories: (p) => [p.dso],
  observers: (p) => [p.user],
  ensure: (p) => (amountOf(p.amount) > 0n ? undefined : "amount must be positive")
})

export const ValidatorRewardCoupon_DsoExpire = defineChoice(ValidatorRewardCoupon, {
  name: "ValidatorRewardCoupon_DsoExpire",
  consuming: true,
  argument: CloseArgument,
  controllers: (p) => [p.dso],
  body: (ctx, self, arg): Json => {
    requireClosedRound(ctx, arg.closedRoundCid, self.payload.dso, self.payload.round)
    return { amount: self.payload.amount }
  }
})

/** The right of a validator operator to mint the validator rewards of a user it hosts. */
export const ValidatorRightPayload = Schema.Struct({ dso: Party, user: Party, validator: Party })
export type ValidatorRightPayload = typeof ValidatorRightPayload.Type

export const ValidatorRight = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Coin",
  entity: "ValidatorRight",
  payload: ValidatorRightPayload,
  signatories: (p) => [p.user, p.validator]
})

// ---------------------------------------------------------------- app rewards

export const AppRewardCouponPayload = Schema.Struct({
  dso: Party,
  provider: Party,
  featured: Bool,
  /** In coin: extraFeaturedAppRewardAmount (USD) divided by the round's coin price. */
  amount: Numeric,
  round: Round,
  /** Who may mint it; the provider when null. */
  beneficiary: Schema.NullOr(Party)
})
export type AppRewardCouponPayload = typeof AppRewardCouponPayload.Type

export const AppRewardCoupon = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Coin",
  entity: "AppRewardCoupon",
  payload: AppRewardCouponPayload,
  signatories: (p) => [p.dso],
  observers: (p) => (p.beneficiary === null ? [p.provider] : [p.provider, p.beneficiary]),
  ensure: (p) => (amountOf(p.amount) > 0n ? undefined : "amount must be positive")
})

export const appRewardOwner = (p: AppRewardCouponPayload): PartyId => p.beneficiary ?? p.provider

export const AppRewardCoupon_DsoExpire = defineChoice(AppRewardCoupon, {
  name: "AppRewardCoupon_DsoExpire",
  consuming: true,
  argument: CloseArgument,
  controllers: (p) => [p.dso],
  body: (ctx, self, arg): Json => {
    requireClosedRound(ctx, arg.closedRoundCid, self.payload.dso, self.payload.round)
    return { featured: self.payload.featured, amount: self.payload.amount }
  }
})

/** The right of an application provider to earn featured app rewards. */
export const FeaturedAppRightPayload = Schema.Struct({ dso: Party, provider: Party })
export type FeaturedAppRightPayload = typeof FeaturedAppRightPayload.Type

export const FeaturedAppRight = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Coin",
  entity: "FeaturedAppRight",
  payload: FeaturedAppRightPayload,
  signatories: (p) => [p.dso],
  observers: (p) => [p.provider]
})

export const FeaturedAppRight_Withdraw = defineChoice(FeaturedAppRight, {
  name: "FeaturedAppRight_Withdraw",
  consuming: true,
  argument: Schema.Struct({ reason: Text }),
  controllers: (p) => [p.dso],
  body: (): Json => ({})
})

export const FeaturedAppRight_Cancel = defineChoice(FeaturedAppRight, {
  name: "FeaturedAppRight_Cancel",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.provider],
  body: (): Json => ({})
})

/** One beneficiary of a featured app's activity marker and its share (weights add up to at most 1). */
export const AppRewardBeneficiary = Schema.Struct({ beneficiary: Party, weight: Schema.Union(Numeric, Schema.Number) })
export type AppRewardBeneficiary = typeof AppRewardBeneficiary.Type

export const FeaturedAppActivityMarkerPayload = Schema.Struct({ dso: Party, provider: Party, beneficiary: Party, weight: Numeric })
export type FeaturedAppActivityMarkerPayload = typeof FeaturedAppActivityMarkerPayload.Type

/**
 * A featured app's activity the provider records for its beneficiaries (upstream's
 * FeaturedAppActivityMarker). Signed by the DSO alone, which archives it when it converts it into
 * an app reward (CoinRules_ConvertFeaturedAppActivityMarkers, activity-markers.ts).
 */
export const FeaturedAppActivityMarker = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Coin",
  entity: "FeaturedAppActivityMarker",
  payload: FeaturedAppActivityMarkerPayload,
  signatories: (p) => [p.dso],
  observers: (p) => [p.provider, p.beneficiary]
})

/** The provider records activity of its featured app: one marker per beneficiary. */
export const FeaturedAppRight_CreateActivityMarker = defineChoice(FeaturedAppRight, {
  name: "FeaturedAppRight_CreateActivityMarker",
  consuming: false,
  argument: Schema.Struct({ beneficiaries: Schema.Array(AppRewardBeneficiary) }),
  controllers: (p) => [p.provider],
  body: (ctx, self, arg): Json => {
    const weights = arg.beneficiaries.map((b) => parseAmount(typeof b.weight === "number" ? b.weight.toFixed(10) : b.weight) ?? ctx.fail(`beneficiary weight ${b.weight} is not a Numeric 10`))
    ctx.require(arg.beneficiaries.length > 0, "an activity marker needs at least one beneficiary")
    ctx.require(weights.every((w) => w > 0n), "beneficiary weights must be positive")
    ctx.require(weights.reduce((a, w) => a + w, 0n) <= ONE, "beneficiary weights add up to more than 1")
    return {
      activityMarkerCids: arg.beneficiaries.map((b, i) =>
        ctx.create(FeaturedAppActivityMarker, { dso: self.payload.dso, provider: self.payload.provider, beneficiary: b.beneficiary, weight: formatAmount(weights[i]!) })
      )
    }
  }
})

// ---------------------------------------------------------------- liveness

/** A validator's liveness in one round; minted like a coupon at the round's faucet issuance. */
export const ValidatorLivenessActivityRecordPayload = Schema.Struct({ dso: Party, validator: Party, round: Round })
export type ValidatorLivenessActivityRecordPayload = typeof ValidatorLivenessActivityRecordPayload.Type

export const ValidatorLivenessActivityRecord = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.ValidatorLicense",
  entity: "ValidatorLivenessActivityRecord",
  payload: ValidatorLivenessActivityRecordPayload,
  signatories: (p) => [p.dso],
  observers: (p) => [p.validator]
})

export const ValidatorLivenessActivityRecord_DsoExpire = defineChoice(ValidatorLivenessActivityRecord, {
  name: "ValidatorLivenessActivityRecord_DsoExpire",
  consuming: true,
  argument: CloseArgument,
  controllers: (p) => [p.dso],
  body: (ctx, self, arg): Json => {
    requireClosedRound(ctx, arg.closedRoundCid, self.payload.dso, self.payload.round)
    return {}
  }
})

export const FaucetState = Schema.Struct({ firstReceivedFor: Round, lastReceivedFor: Round, numCouponsMissed: Schema.String })

export const ValidatorLicensePayload = Schema.Struct({
  dso: Party,
  validator: Party,
  sponsor: Party,
  faucetState: Schema.NullOr(FaucetState),
  lastActiveAt: Schema.NullOr(Timestamp)
})
export type ValidatorLicensePayload = typeof ValidatorLicensePayload.Type

/** Granted by the DSO to each validator operator: the right to record liveness once per round. */
export const ValidatorLicense = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.ValidatorLicense",
  entity: "ValidatorLicense",
  payload: ValidatorLicensePayload,
  signatories: (p) => [p.dso],
  observers: (p) => [p.validator]
})

export const ValidatorLicense_RecordValidatorLivenessActivity = defineChoice(ValidatorLicense, {
  name: "ValidatorLicense_RecordValidatorLivenessActivity",
  consuming: true,
  argument: Schema.Struct({ openRoundCid: ContractIdRef }),
  controllers: (p) => [p.validator],
  body: (ctx, self, arg): Json => {
    const round = ctx.fetch(OpenMiningRound, arg.openRoundCid).payload
    ctx.require(round.dso === self.payload.dso, "the round belongs to another DSO")
    const n = roundNumber(round.round)
    const state = self.payload.faucetState
    ctx.require(state === null || n > roundNumber(state.lastReceivedFor), `liveness was already recorded for round ${n}`)
    const missed = state === null ? 0 : Number(state.numCouponsMissed) + Math.max(0, n - roundNumber(state.lastReceivedFor) - 1)
    const licenseCid = ctx.create(ValidatorLicense, {
      ...self.payload,
      faucetState: { firstReceivedFor: state?.firstReceivedFor ?? round.round, lastReceivedFor: round.round, numCouponsMissed: String(missed) },
      lastActiveAt: toIso(ctx.ledgerTime)
    })
    const recordCid = ctx.create(ValidatorLivenessActivityRecord, { dso: self.payload.dso, validator: self.payload.validator, round: round.round })
    return { licenseCid, livenessActivityRecordCid: recordCid }
  }
})

// ---------------------------------------------------------------- unclaimed rewards

/** Issuance nobody minted (expired coupons); at the DSO's disposal. Not coin. */
export const UnclaimedRewardPayload = Schema.Struct({ dso: Party, amount: Numeric })

export const UnclaimedReward = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Coin",
  entity: "UnclaimedReward",
  payload: UnclaimedRewardPayload,
  signatories: (p) => [p.dso],
  ensure: (p) => (amountOf(p.amount) > 0n ? undefined : "amount must be positive")
})
