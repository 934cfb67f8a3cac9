/**
 * Featured app activity markers become app rewards (Splice's
 * AmuletRules_ConvertFeaturedAppActivityMarkers, CIP-47): the DSO archives a batch of markers and
 * creates one featured AppRewardCoupon per (provider, beneficiary), in the given open round, worth
 * FEATURED_APP_ACTIVITY_MARKER_AMOUNT_USD times the summed weights, in coin at the round's price.
 * The beneficiary mints the coupon once the round issues, like any featured app reward. The DSO's
 * automation converts the markers on every tick (dso/automation.ts).
 */
import { Schema } from "effect"
import { ContractIdRef, amountOf, divAmount, formatAmount, mulAmount, type Json } from "@sandnet/core"
import { defineChoice } from "../ledger/template.ts"
import { AppRewardCoupon, FeaturedAppActivityMarker } from "./rewards.ts"
import { CoinRules, requireOpenRound } from "./rules.ts"

/** What one marker of weight 1 is worth, in USD (Splice's SV default for featuredAppActivityMarkerAmount). */
export const FEATURED_APP_ACTIVITY_MARKER_AMOUNT_USD = "1.0000000000"

export const CoinRules_ConvertFeaturedAppActivityMarkers = defineChoice(CoinRules, {
  name: "CoinRules_ConvertFeaturedAppActivityMarkers",
  consuming: false,
  argument: Schema.Struct({ markerCids: Schema.Array(ContractIdRef), openMiningRoundCid: ContractIdRef }),
  controllers: (p) => [p.dso],
  body: (ctx, self, arg): Json => {
    const dso = self.payload.dso
    // Weights summed per (provider, beneficiary), in the order of the pair (upstream's Map).
    const grouped = new Map<string, { readonly provider: string; readonly beneficiary: string; weight: bigint }>()
    for (const cid of arg.markerCids) {
      const marker = ctx.fetch(FeaturedAppActivityMarker, cid).payload
      ctx.require(marker.dso === dso, "the marker belongs to another DSO")
      ctx.archive(FeaturedAppActivityMarker, cid)
      const key = JSON.stringify([marker.provider, marker.beneficiary])
      const entry = grouped.get(key)
      if (entry === undefined) grouped.set(key, { provider: marker.provider, beneficiary: marker.beneficiary, weight: amountOf(marker.weight) })
      else entry.weight += amountOf(marker.weight)
    }
    const round = requireOpenRound(ctx, arg.openMiningRoundCid)
    const perMarker = divAmount(amountOf(FEATURED_APP_ACTIVITY_MARKER_AMOUNT_USD), amountOf(round.coinPrice))
    const pairs = [...grouped.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v)
    const appRewardCouponCids = perMarker <= 0n
      ? []
      : pairs.map((g) =>
          ctx.create(AppRewardCoupon, {
            dso,
            provider: g.provider,
            featured: true,
            amount: formatAmount(mulAmount(perMarker, g.weight)),
            round: round.round,
            beneficiary: g.beneficiary
          })
        )
    return { appRewardCouponCids }
  }
})
