/**
 * Featured app activity markers become app rewards (Splice's AmuletRules_ConvertFeaturedAppActivityMarkers,
 * run by the DSO's automation on every tick): a provider's markers turn into featured
 * AppRewardCoupons of the latest open round, one per (provider, beneficiary) with the weights
 * summed, each worth 1 USD per unit of weight; the beneficiaries' wallets mint them once the round
 * issues, and exactly that much coin appears.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { amountOf, micros, mulAmount, type ActiveContract } from "@sandnet/core"
import {
  AppRewardCoupon,
  Coin,
  Commands,
  FeaturedAppActivityMarker,
  FeaturedAppRight,
  FeaturedAppRight_CreateActivityMarker,
  IssuingMiningRound,
  type AppRewardCouponPayload,
  type CoinPayload,
  type IssuingMiningRoundPayload
} from "../../src/index.ts"
import { makeEconomy, op } from "../wallet/support.ts"

const payload = <P>(c: ActiveContract): P => c.created.createArguments as unknown as P

describe("featured app activity markers", () => {
  it.effect("the DSO converts markers into featured app reward coupons, which the beneficiaries mint in the issuing round; coin is conserved", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 })
      const w = e.wallets[0]!
      const participant = e.network.validators[0]!.participant
      const sv = e.network.superValidators[0]!.participant.logic
      const app = (yield* op(e, w.onboardUser({ name: "app" }))).party_id
      const carol = (yield* op(e, w.onboardUser({ name: "carol" }))).party_id
      yield* op(e, w.selfGrantFeaturedAppRight("app"))
      const right = [...participant.logic.acs.ofTemplate(FeaturedAppRight.templateId, app)][0]!
      // Two recorded activities: app 0.5 + carol 0.5, then app alone.
      for (const [i, beneficiaries] of [[{ beneficiary: app, weight: "0.5" }, { beneficiary: carol, weight: "0.5" }], [{ beneficiary: app, weight: "1.0" }]].entries()) {
        yield* e.run(participant.submit({ actAs: [app], commandId: `activity-${i}`, commands: [Commands.exercise(FeaturedAppRight_CreateActivityMarker, right.created.contractId, { beneficiaries })], disclosedContracts: [] }))
      }
      yield* e.settle
      expect([...sv.acs.ofTemplate(FeaturedAppActivityMarker.templateId, e.network.dso)]).toHaveLength(3)

      // The next DSO tick converts them: one coupon per (provider, beneficiary), 1 USD / 0.005 = 200 coin per unit of weight.
      yield* e.advance(e.network.config.tickDuration)
      expect([...sv.acs.ofTemplate(FeaturedAppActivityMarker.templateId, e.network.dso)]).toHaveLength(0)
      const coupons = [...sv.acs.ofTemplate(AppRewardCoupon.templateId, e.network.dso)].map((c) => payload<AppRewardCouponPayload>(c))
      const round = coupons[0]?.round.number
      expect(coupons.map(({ provider, beneficiary, amount, featured }) => ({ provider, beneficiary, amount, featured })).sort((a, b) => (a.beneficiary! < b.beneficiary! ? -1 : 1))).toEqual(
        [
          { provider: app, beneficiary: app, amount: "300.0000000000", featured: true },
          { provider: app, beneficiary: carol, amount: "100.0000000000", featured: true }
        ].sort((a, b) => (a.beneficiary < b.beneficiary ? -1 : 1))
      )
      expect(coupons.every((c) => c.round.number === round)).toBe(true)
      expect(e.dso.reduce((n, d) => n + d.stats.markersConverted, 0)).toBe(3)

      // Minted once the coupons' round issues: exactly amount x issuancePerFeaturedAppRewardCoupon each.
      const coinOf = (party: string) => [...participant.logic.acs.ofTemplate(Coin.templateId, party)].reduce((n, c) => n + amountOf(payload<CoinPayload>(c).amount.initialAmount), 0n)
      expect([coinOf(app), coinOf(carol)]).toEqual([0n, 0n])
      let issuance: string | undefined
      for (let minutes = 0; minutes < 80; minutes += 5) {
        yield* e.advance(micros.minutes(5))
        for (const c of sv.acs.ofTemplate(IssuingMiningRound.templateId, e.network.dso)) {
          const p = payload<IssuingMiningRoundPayload>(c)
          if (p.round.number === round) issuance = p.issuancePerFeaturedAppRewardCoupon
        }
      }
      expect(amountOf(issuance ?? "0")).toBeGreaterThan(0n)
      expect([...sv.acs.ofTemplate(AppRewardCoupon.templateId, e.network.dso)]).toHaveLength(0)
      expect(w.automation!.stats.appCouponsCollected).toBe(2)
      expect([coinOf(app), coinOf(carol)]).toEqual([mulAmount(amountOf("300"), amountOf(issuance!)), mulAmount(amountOf("100"), amountOf(issuance!))])
    })
  )
})
