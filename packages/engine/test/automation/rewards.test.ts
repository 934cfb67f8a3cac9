import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { amountOf, micros } from "@sandnet/core"
import { AppRewardCoupon, ValidatorRewardCoupon } from "../../src/index.ts"
import { makeEconomy, op } from "../wallet/support.ts"

describe("reward collection", () => {
  it.effect("a featured one-step transfer earns the provider an app reward; validator rewards and liveness are minted once the round issues", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy()
      const [w1, w2] = e.wallets
      const sv = e.network.superValidators[0]!.participant.logic
      yield* op(e, w1!.onboardUser({ name: "alice" }))
      const bob = yield* op(e, w2!.onboardUser({ name: "bob" }))
      yield* op(e, w1!.tap("alice", { amount: "1000" }))
      yield* op(e, w2!.createTransferPreapproval("bob"))
      // Bob's validator operator provides bob's preapproval; it features itself (a development network).
      yield* op(e, w2!.selfGrantFeaturedAppRight("operator"))
      const sent = yield* op(e, w1!.transferPreapprovalSend("alice", { receiver_party_id: bob.party_id, amount: "25", deduplication_id: "featured-1" }))
      expect(sent.featured).toBe(true)
      const appCoupons = [...sv.acs.ofTemplate(AppRewardCoupon.templateId, e.network.dso)].map((c) => c.created.createArguments as { provider: string; amount: string; featured: boolean })
      // extraFeaturedAppRewardAmount (1 USD) / coin price (0.005 USD) = 200 coin.
      expect(appCoupons).toEqual([expect.objectContaining({ provider: e.network.validators[1]!.operator, amount: "200.0000000000", featured: true })])
      const validatorCoupons = [...sv.acs.ofTemplate(ValidatorRewardCoupon.templateId, e.network.dso)].map((c) => c.created.createArguments as { user: string; amount: string })
      expect(validatorCoupons).toEqual([expect.objectContaining({ amount: "25.0000000000" })])
      const before1 = amountOf((yield* op(e, w1!.getBalance("operator"))).effective_unlocked_qty)
      const before2 = amountOf((yield* op(e, w2!.getBalance("operator"))).effective_unlocked_qty)
      // Round 1 (the transfer's) is summarized after its close, issues a tick later, for two ticks.
      yield* e.advance(micros.minutes(80))
      const after1 = amountOf((yield* op(e, w1!.getBalance("operator"))).effective_unlocked_qty)
      const after2 = amountOf((yield* op(e, w2!.getBalance("operator"))).effective_unlocked_qty)
      const a1 = e.wallets[0]!.automation!.stats
      const a2 = e.wallets[1]!.automation!.stats
      expect(a1.validatorCouponsCollected).toBe(1)
      expect(a2.appCouponsCollected).toBe(1)
      expect(a1.livenessRecordsCollected).toBeGreaterThan(0)
      expect(a1.rewardsMinted).toBeGreaterThan(0n)
      expect(after1).toBeGreaterThan(before1)
      // The featured coupon: 200 coin at the featured issuance (capped at 100 per coupon unit): 20,000 coin.
      expect(after2 - before2).toBeGreaterThanOrEqual(amountOf("20000"))
      expect([...sv.acs.ofTemplate(AppRewardCoupon.templateId, e.network.dso)]).toHaveLength(0)
    })
  )
})
