/**
 * The DSO's round choices on CoinRules (Splice's AmuletRules round choices), run by DSO automation
 * on the tick:
 *
 *   CoinRules_AdvanceOpenMiningRounds   the oldest of three open rounds becomes summarizing; a new
 *                                       open round is created that opens one tick later
 *   CoinRules_MiningRound_StartIssuing  a summarizing round becomes issuing, with the issuance per
 *                                       coupon computed from the round's coupon totals
 *   CoinRules_MiningRound_Close         an issuing round past its targetClosesAt becomes closed
 *   CoinRules_ClaimExpiredRewards       unminted coupons of a closed round expire
 *   CoinRules_MiningRound_Archive       a closed round is archived
 *
 * Timing (tick T): a round opens one tick after it is created and stays open two ticks; it issues
 * from one tick after it started issuing, for two ticks.
 */
import { Schema } from "effect"
import {
  ContractIdRef,
  Int64,
  Numeric,
  amountOf,
  divAmount,
  formatAmount,
  maxAmount,
  minAmount,
  mulAmount,
  parseIso,
  toIso,
  type Amount,
  type Json
} from "@sandnet/core"
import { defineChoice } from "../ledger/template.ts"
import {
  ClosedMiningRound,
  IssuingMiningRound,
  OpenMiningRound,
  SummarizingMiningRound,
  type IssuanceConfig
} from "./config.ts"
import {
  AppRewardCoupon,
  AppRewardCoupon_DsoExpire,
  UnclaimedReward,
  ValidatorLivenessActivityRecord_DsoExpire,
  ValidatorRewardCoupon_DsoExpire
} from "./rewards.ts"
import { CoinRules, configAt } from "./rules.ts"
import { roundNumber } from "./schemas.ts"

const micros = (relTime: { readonly microseconds: string }): number => Number(relTime.microseconds)

export const AdvanceArgument = Schema.Struct({
  coinPrice: Numeric,
  roundToArchiveCid: ContractIdRef,
  middleRoundCid: ContractIdRef,
  latestRoundCid: ContractIdRef
})

export const CoinRules_AdvanceOpenMiningRounds = defineChoice(CoinRules, {
  name: "CoinRules_AdvanceOpenMiningRounds",
  consuming: false,
  argument: AdvanceArgument,
  controllers: (p) => [p.dso],
  body: (ctx, self, arg): Json => {
    const now = ctx.ledgerTime
    const toArchive = ctx.fetch(OpenMiningRound, arg.roundToArchiveCid).payload
    const middle = ctx.fetch(OpenMiningRound, arg.middleRoundCid).payload
    const latest = ctx.fetch(OpenMiningRound, arg.latestRoundCid).payload
    ctx.require(amountOf(arg.coinPrice) > 0n, "the coin price must be positive")
    ctx.require(roundNumber(middle.round) === roundNumber(toArchive.round) + 1, "middleRound is one after roundToArchive")
    ctx.require(roundNumber(latest.round) === roundNumber(middle.round) + 1, "latestRound is one after middleRound")
    ctx.require((parseIso(toArchive.targetClosesAt) ?? 0) <= now, "roundToArchive is past targetClosesAt")
    ctx.require((parseIso(latest.opensAt) ?? Number.MAX_SAFE_INTEGER) <= now, "latestRound is open")
    ctx.require((parseIso(middle.opensAt) ?? 0) + micros(middle.tickDuration) <= now, "middle round has been open for at least one tick")
    ctx.archive(OpenMiningRound, arg.roundToArchiveCid)
    const summarizingRoundCid = ctx.create(SummarizingMiningRound, {
      dso: toArchive.dso,
      round: toArchive.round,
      coinPrice: toArchive.coinPrice,
      issuanceConfig: toArchive.issuanceConfig,
      tickDuration: toArchive.tickDuration
    })
    const config = configAt(self.payload, now)
    const tick = micros(config.tickDuration)
    const opensAt = Math.max(now, parseIso(latest.opensAt) ?? now) + tick
    const issuingFor = micros(latest.issuingFor) + micros(latest.tickDuration)
    const openRoundCid = ctx.create(OpenMiningRound, {
      dso: self.payload.dso,
      round: { number: String(roundNumber(latest.round) + 1) },
      coinPrice: arg.coinPrice,
      opensAt: toIso(opensAt),
      targetClosesAt: toIso(opensAt + 2 * tick),
      issuingFor: { microseconds: String(issuingFor) },
      transferConfigUsd: config.transferConfig,
      issuanceConfig: issuanceConfigAt(config.issuanceCurve, issuingFor),
      tickDuration: config.tickDuration
    })
    return { summarizingRoundCid, openRoundCid }
  }
})

const issuanceConfigAt = (
  curve: { readonly initialValue: IssuanceConfig; readonly futureValues: ReadonlyArray<{ readonly _1: { readonly microseconds: string }; readonly _2: IssuanceConfig }> },
  issuingFor: number
): IssuanceConfig => {
  let config = curve.initialValue
  for (const step of curve.futureValues) if (micros(step._1) <= issuingFor) config = step._2
  return config
}

/** Coupon totals of a round, computed by the DSO from the coupons registered against it. */
export const OpenMiningRoundSummary = Schema.Struct({
  totalValidatorRewardCoupons: Numeric,
  totalFeaturedAppRewardCoupons: Numeric,
  totalUnfeaturedAppRewardCoupons: Numeric,
  totalSvRewardWeight: Int64,
  optTotalValidatorFaucetCoupons: Schema.NullOr(Int64)
})
export type OpenMiningRoundSummary = typeof OpenMiningRoundSummary.Type

export interface IssuanceTranche {
  readonly rewardsToIssue: Amount
  readonly issuancePerCoupon: Amount
  readonly unclaimedRewards: Amount
}

/** Splice's computeIssuanceTranche: as much per coupon as the tranche allows, up to the cap. */
export const computeIssuanceTranche = (rewardsToIssue: Amount, capPerCoupon: Amount, totalCoupons: Amount): IssuanceTranche => {
  if (totalCoupons <= 0n) return { rewardsToIssue, issuancePerCoupon: capPerCoupon, unclaimedRewards: rewardsToIssue }
  const scaledTotal = mulAmount(capPerCoupon, totalCoupons)
  const capped = minAmount(rewardsToIssue, scaledTotal)
  const issuancePerCoupon = scaledTotal === 0n ? 0n : divAmount(mulAmount(capped, capPerCoupon), scaledTotal)
  return { rewardsToIssue, issuancePerCoupon, unclaimedRewards: maxAmount(0n, rewardsToIssue - mulAmount(issuancePerCoupon, totalCoupons)) }
}

export interface IssuingRoundParameters {
  readonly issuancePerValidatorRewardCoupon: Amount
  readonly issuancePerFeaturedAppRewardCoupon: Amount
  readonly issuancePerUnfeaturedAppRewardCoupon: Amount
  readonly issuancePerSvRewardCoupon: Amount
  readonly issuancePerValidatorFaucetCoupon: Amount
  readonly unclaimed: Amount
}

const YEAR_MICROS = 365n * 24n * 3600n * 1_000_000n

/** Splice's computeIssuingRoundParameters (no development fund; SV rewards are not minted). */
export const computeIssuingRoundParameters = (
  tickDuration: number,
  coinPrice: Amount,
  config: IssuanceConfig,
  summary: OpenMiningRoundSummary
): IssuingRoundParameters => {
  const perYear = amountOf(config.coinToIssuePerYear)
  const toIssueInRound = (perYear * BigInt(tickDuration)) / YEAR_MICROS
  const validator = computeIssuanceTranche(
    mulAmount(toIssueInRound, amountOf(config.validatorRewardPercentage)),
    amountOf(config.validatorRewardCap),
    amountOf(summary.totalValidatorRewardCoupons)
  )
  const faucet = computeIssuanceTranche(
    validator.unclaimedRewards,
    divAmount(amountOf(config.optValidatorFaucetCap ?? "2.85"), coinPrice),
    BigInt(summary.optTotalValidatorFaucetCoupons ?? "0") * 10_000_000_000n
  )
  const featuredTotal = amountOf(summary.totalFeaturedAppRewardCoupons)
  const unfeatured = computeIssuanceTranche(
    mulAmount(toIssueInRound, amountOf(config.appRewardPercentage)),
    amountOf(config.unfeaturedAppRewardCap),
    featuredTotal + amountOf(summary.totalUnfeaturedAppRewardCoupons)
  )
  const featured = computeIssuanceTranche(
    unfeatured.unclaimedRewards,
    amountOf(config.featuredAppRewardCap) - amountOf(config.unfeaturedAppRewardCap),
    featuredTotal
  )
  const toSvs = maxAmount(0n, toIssueInRound - validator.rewardsToIssue - unfeatured.rewardsToIssue)
  return {
    issuancePerValidatorRewardCoupon: validator.issuancePerCoupon,
    issuancePerFeaturedAppRewardCoupon: unfeatured.issuancePerCoupon + featured.issuancePerCoupon,
    issuancePerUnfeaturedAppRewardCoupon: unfeatured.issuancePerCoupon,
    issuancePerSvRewardCoupon: toSvs,
    issuancePerValidatorFaucetCoupon: faucet.issuancePerCoupon,
    unclaimed: faucet.unclaimedRewards + featured.unclaimedRewards
  }
}

export const CoinRules_MiningRound_StartIssuing = defineChoice(CoinRules, {
  name: "CoinRules_MiningRound_StartIssuing",
  consuming: false,
  argument: Schema.Struct({ miningRoundCid: ContractIdRef, summary: OpenMiningRoundSummary }),
  controllers: (p) => [p.dso],
  body: (ctx, self, arg): Json => {
    const round = ctx.fetch(SummarizingMiningRound, arg.miningRoundCid).payload
    ctx.archive(SummarizingMiningRound, arg.miningRoundCid)
    const s = arg.summary
    for (const total of [s.totalValidatorRewardCoupons, s.totalFeaturedAppRewardCoupons, s.totalUnfeaturedAppRewardCoupons]) {
      ctx.require(amountOf(total) >= 0n, "coupon totals are not negative")
    }
    ctx.require(Number(s.optTotalValidatorFaucetCoupons ?? "0") >= 0, "the faucet coupon count is not negative")
    const tick = micros(round.tickDuration)
    const params = computeIssuingRoundParameters(tick, amountOf(round.coinPrice), round.issuanceConfig, s)
    if (params.unclaimed > 0n) ctx.create(UnclaimedReward, { dso: self.payload.dso, amount: formatAmount(params.unclaimed) })
    const opensAt = ctx.ledgerTime + tick
    const issuingRoundCid = ctx.create(IssuingMiningRound, {
      dso: round.dso,
      round: round.round,
      issuancePerValidatorRewardCoupon: formatAmount(params.issuancePerValidatorRewardCoupon),
      issuancePerFeaturedAppRewardCoupon: formatAmount(params.issuancePerFeaturedAppRewardCoupon),
      issuancePerUnfeaturedAppRewardCoupon: formatAmount(params.issuancePerUnfeaturedAppRewardCoupon),
      issuancePerSvRewardCoupon: formatAmount(params.issuancePerSvRewardCoupon),
      optIssuancePerValidatorFaucetCoupon: formatAmount(params.issuancePerValidatorFaucetCoupon),
      opensAt: toIso(opensAt),
      targetClosesAt: toIso(opensAt + 2 * tick)
    })
    return { issuingRoundCid }
  }
})

export const CoinRules_MiningRound_Close = defineChoice(CoinRules, {
  name: "CoinRules_MiningRound_Close",
  consuming: false,
  argument: Schema.Struct({ issuingRoundCid: ContractIdRef }),
  controllers: (p) => [p.dso],
  body: (ctx, _self, arg): Json => {
    const issuing = ctx.fetch(IssuingMiningRound, arg.issuingRoundCid).payload
    ctx.require((parseIso(issuing.targetClosesAt) ?? 0) <= ctx.ledgerTime, "the issuing round is past targetClosesAt")
    ctx.archive(IssuingMiningRound, arg.issuingRoundCid)
    const closedRoundCid = ctx.create(ClosedMiningRound, {
      dso: issuing.dso,
      round: issuing.round,
      issuancePerValidatorRewardCoupon: issuing.issuancePerValidatorRewardCoupon,
      issuancePerFeaturedAppRewardCoupon: issuing.issuancePerFeaturedAppRewardCoupon,
      issuancePerUnfeaturedAppRewardCoupon: issuing.issuancePerUnfeaturedAppRewardCoupon,
      issuancePerSvRewardCoupon: issuing.issuancePerSvRewardCoupon,
      optIssuancePerValidatorFaucetCoupon: issuing.optIssuancePerValidatorFaucetCoupon
    })
    return { closedRoundCid }
  }
})

export const CoinRules_MiningRound_Archive = defineChoice(CoinRules, {
  name: "CoinRules_MiningRound_Archive",
  consuming: false,
  argument: Schema.Struct({ closedRoundCid: ContractIdRef }),
  controllers: (p) => [p.dso],
  body: (ctx, _self, arg): Json => {
    ctx.archive(ClosedMiningRound, arg.closedRoundCid)
    return {}
  }
})

export const CoinRules_ClaimExpiredRewards = defineChoice(CoinRules, {
  name: "CoinRules_ClaimExpiredRewards",
  consuming: false,
  argument: Schema.Struct({
    closedRoundCid: ContractIdRef,
    validatorRewardCouponCids: Schema.Array(ContractIdRef),
    appCouponCids: Schema.Array(ContractIdRef),
    optValidatorLivenessActivityRecordCids: Schema.NullOr(Schema.Array(ContractIdRef))
  }),
  controllers: (p) => [p.dso],
  body: (ctx, self, arg): Json => {
    const closed = ctx.fetch(ClosedMiningRound, arg.closedRoundCid).payload
    let unclaimed = 0n
    for (const cid of arg.validatorRewardCouponCids) {
      const result = ctx.exercise(ValidatorRewardCoupon_DsoExpire, cid, { closedRoundCid: arg.closedRoundCid }) as { amount: string }
      unclaimed += mulAmount(amountOf(result.amount), amountOf(closed.issuancePerValidatorRewardCoupon))
    }
    for (const cid of arg.appCouponCids) {
      const featured = ctx.fetch(AppRewardCoupon, cid).payload.featured
      const result = ctx.exercise(AppRewardCoupon_DsoExpire, cid, { closedRoundCid: arg.closedRoundCid }) as { amount: string }
      const per = featured ? closed.issuancePerFeaturedAppRewardCoupon : closed.issuancePerUnfeaturedAppRewardCoupon
      unclaimed += mulAmount(amountOf(result.amount), amountOf(per))
    }
    for (const cid of arg.optValidatorLivenessActivityRecordCids ?? []) {
      ctx.exercise(ValidatorLivenessActivityRecord_DsoExpire, cid, { closedRoundCid: arg.closedRoundCid })
      unclaimed += amountOf(closed.optIssuancePerValidatorFaucetCoupon ?? "0")
    }
    const unclaimedRewardCid = unclaimed > 0n ? ctx.create(UnclaimedReward, { dso: self.payload.dso, amount: formatAmount(unclaimed) }) : null
    return { unclaimedRewardCid, expiredCoupons: String(arg.validatorRewardCouponCids.length + arg.appCouponCids.length + (arg.optValidatorLivenessActivityRecordCids?.length ?? 0)) }
  }
})
