/**
 * The coin configuration (CoinConfig: transfer, issuance and synchronizer fees, in USD) and the
 * mining-round templates. A round moves open -> summarizing -> issuing -> closed on the tick:
 *
 *   OpenMiningRound        transfers reference it; reward coupons are registered against it
 *   SummarizingMiningRound no new coupons; the DSO totals the round's coupons
 *   IssuingMiningRound     carries the issuance per coupon; coupons are minted into coin
 *   ClosedMiningRound      unclaimed coupons of the round expire
 *
 * The templates carry no choices: the DSO moves rounds with choices on CoinRules (rounds.ts).
 */
import { Schema } from "effect"
import { Int64, Numeric, Party, Text, Timestamp, amountOf, divAmount, type Amount } from "@sandnet/core"
import { defineChoice, defineTemplate } from "../ledger/template.ts"
import { CoinPackage } from "./packages.ts"
import { RelTime, Round } from "./schemas.ts"

export const TransferConfig = Schema.Struct({
  createFee: Schema.Struct({ fee: Numeric }),
  /** Holding fee in USD per round. */
  holdingFee: Schema.Struct({ rate: Numeric }),
  transferFee: Schema.Struct({ initialRate: Numeric, steps: Schema.Array(Schema.Struct({ _1: Numeric, _2: Numeric })) }),
  lockHolderFee: Schema.Struct({ fee: Numeric }),
  /** USD paid as an app reward for a featured one-step transfer. */
  extraFeaturedAppRewardAmount: Numeric,
  maxNumInputs: Int64,
  maxNumOutputs: Int64,
  maxNumLockHolders: Int64
})
export type TransferConfig = typeof TransferConfig.Type

/**
 * How much coin a round issues and how it is split (Splice's IssuanceConfig). Percentages are
 * fractions of the round's issuance; caps are coin per coupon unit, except the faucet cap (USD per
 * liveness record).
 */
export const IssuanceConfig = Schema.Struct({
  coinToIssuePerYear: Numeric,
  validatorRewardPercentage: Numeric,
  appRewardPercentage: Numeric,
  validatorRewardCap: Numeric,
  featuredAppRewardCap: Numeric,
  unfeaturedAppRewardCap: Numeric,
  optValidatorFaucetCap: Schema.NullOr(Numeric)
})
export type IssuanceConfig = typeof IssuanceConfig.Type

export const SynchronizerFeesConfig = Schema.Struct({
  baseRateTrafficLimits: Schema.Struct({ burstAmount: Int64, burstWindow: RelTime }),
  /** USD per MB of extra traffic. */
  extraTrafficPrice: Numeric,
  readVsWriteScalingFactor: Int64,
  /** Minimum traffic purchase, in bytes. */
  minTopupAmount: Int64
})

export const CoinConfig = Schema.Struct({
  transferConfig: TransferConfig,
  issuanceCurve: Schema.Struct({ initialValue: IssuanceConfig, futureValues: Schema.Array(Schema.Struct({ _1: RelTime, _2: IssuanceConfig })) }),
  decentralizedSynchronizer: Schema.Struct({ activeSynchronizer: Text, fees: SynchronizerFeesConfig }),
  tickDuration: RelTime
})
export type CoinConfig = typeof CoinConfig.Type

/** Splice's initial issuance curve (the first half year), with the product renamed. */
export const DEFAULT_ISSUANCE_CONFIG: IssuanceConfig = {
  coinToIssuePerYear: "40000000000.0000000000",
  validatorRewardPercentage: "0.0500000000",
  appRewardPercentage: "0.1500000000",
  validatorRewardCap: "0.2000000000",
  featuredAppRewardCap: "100.0000000000",
  unfeaturedAppRewardCap: "0.6000000000",
  optValidatorFaucetCap: "2.8500000000"
}

export const OpenMiningRoundPayload = Schema.Struct({
  dso: Party,
  round: Round,
  /** USD per coin. */
  coinPrice: Numeric,
  /** Transfers may use the round from this time on. */
  opensAt: Timestamp,
  /** The round is expected to close (become summarizing) at this time; never before. */
  targetClosesAt: Timestamp,
  issuingFor: RelTime,
  transferConfigUsd: TransferConfig,
  issuanceConfig: IssuanceConfig,
  tickDuration: RelTime
})
export type OpenMiningRoundPayload = typeof OpenMiningRoundPayload.Type

export const OpenMiningRound = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Round",
  entity: "OpenMiningRound",
  payload: OpenMiningRoundPayload,
  signatories: (p) => [p.dso]
})

/** Lets a party without the DSO's authority read a round it was disclosed (Splice's OpenMiningRound_Fetch). */
export const OpenMiningRound_Fetch = defineChoice(OpenMiningRound, {
  name: "OpenMiningRound_Fetch",
  consuming: false,
  argument: Schema.Struct({ p: Party }),
  controllers: (_round, arg) => [arg.p],
  body: (_ctx, self) => self.payload
})

export const SummarizingMiningRoundPayload = Schema.Struct({
  dso: Party,
  round: Round,
  coinPrice: Numeric,
  issuanceConfig: IssuanceConfig,
  tickDuration: RelTime
})
export type SummarizingMiningRoundPayload = typeof SummarizingMiningRoundPayload.Type

export const SummarizingMiningRound = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Round",
  entity: "SummarizingMiningRound",
  payload: SummarizingMiningRoundPayload,
  signatories: (p) => [p.dso]
})

const IssuancePerCoupon = {
  issuancePerValidatorRewardCoupon: Numeric,
  issuancePerFeaturedAppRewardCoupon: Numeric,
  issuancePerUnfeaturedAppRewardCoupon: Numeric,
  issuancePerSvRewardCoupon: Numeric,
  optIssuancePerValidatorFaucetCoupon: Schema.NullOr(Numeric)
}

export const IssuingMiningRoundPayload = Schema.Struct({
  dso: Party,
  round: Round,
  ...IssuancePerCoupon,
  /** Coupons of the round can be minted from this time on. */
  opensAt: Timestamp,
  targetClosesAt: Timestamp
})
export type IssuingMiningRoundPayload = typeof IssuingMiningRoundPayload.Type

export const IssuingMiningRound = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Round",
  entity: "IssuingMiningRound",
  payload: IssuingMiningRoundPayload,
  signatories: (p) => [p.dso]
})

export const ClosedMiningRoundPayload = Schema.Struct({
  dso: Party,
  round: Round,
  ...IssuancePerCoupon
})
export type ClosedMiningRoundPayload = typeof ClosedMiningRoundPayload.Type

export const ClosedMiningRound = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Round",
  entity: "ClosedMiningRound",
  payload: ClosedMiningRoundPayload,
  signatories: (p) => [p.dso]
})

/** Holding fee per round in coin for a coin created in this round: USD rate divided by the price. */
export const holdingFeeRate = (round: OpenMiningRoundPayload): Amount => {
  let rate = holdingFeeRates.get(round)
  if (rate === undefined) holdingFeeRates.set(round, (rate = divAmount(amountOf(round.transferConfigUsd.holdingFee.rate), amountOf(round.coinPrice))))
  return rate
}

/** Payloads are immutable: a round's fee rate is computed once however many coins it creates. */
const holdingFeeRates = new WeakMap<OpenMiningRoundPayload, Amount>()

/** Converts USD to coin at the round's price. */
export const usdToCoin = (usd: Amount, round: { readonly coinPrice: string }): Amount => divAmount(usd, amountOf(round.coinPrice))
