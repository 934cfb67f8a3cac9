import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { amountOf, micros } from "@sandnet/core"
import { makeEconomy, op } from "../wallet/support.ts"

describe("traffic", () => {
  it.effect("the top-up automation buys traffic (tapping first on a development network) and the sequencer credits it", () =>
    Effect.gen(function* () {
      // 50 MB granted at genesis; sustaining 20 kB/s for 1h needs 72 MB, so the wallet tops up at once.
      const e = yield* makeEconomy({ validators: 1 }, () => ({ buyExtraTraffic: { targetThroughput: 20_000, minTopupInterval: "1h" } }))
      const member = e.network.validators[0]!.participant.logic.uid
      const sequencer = e.network.synchronizers[0]!.sequencer.logic
      const before = sequencer.trafficOf(member, e.clock.now).extraTrafficLimit
      yield* e.advance(micros.minutes(3))
      const stats = e.wallets[0]!.automation!.stats
      expect(stats.taps).toBeGreaterThanOrEqual(1)
      expect(stats.trafficPurchases).toBe(1)
      expect(stats.trafficBytesBought).toBe(72_000_000)
      expect(sequencer.trafficOf(member, e.clock.now).extraTrafficLimit).toBe(before + 72_000_000)
      // At most one top-up per minTopupInterval.
      yield* e.advance(micros.minutes(30))
      expect(stats.trafficPurchases).toBe(1)
      // 72 MB at 16.67 USD/MB and 0.005 USD per coin.
      expect(stats.trafficCoinBurned).toBe(amountOf("240048"))
    })
  )

  it.effect("a buy-traffic request is paid by the wallet automation, or rejected when the user lacks coin", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 })
      const w = e.wallets[0]!
      yield* op(e, w.onboardUser({ name: "alice" }))
      yield* op(e, w.tap("alice", { amount: "1000" }))
      const operator = e.network.validators[0]!.operator
      const domain = e.network.synchronizers[0]!.info.synchronizerId
      const request = (trackingId: string) => ({ receiving_validator_party_id: operator, domain_id: domain, traffic_amount: 200_000, tracking_id: trackingId, expires_at: e.clock.now + micros.minutes(30) })
      const created = yield* op(e, w.createBuyTrafficRequest("alice", request("b1")))
      expect(created.request_contract_id).toMatch(/^00/)
      yield* e.advance(micros.seconds(2))
      const done = yield* op(e, w.getBuyTrafficRequestStatus("alice", "b1"))
      expect(done.status).toBe("completed")
      // 0.2 MB costs 3.334 USD = 666.8 coin: alice has about 333 left, not enough for another.
      yield* op(e, w.createBuyTrafficRequest("alice", request("b2")))
      yield* e.advance(micros.seconds(2))
      expect(yield* op(e, w.getBuyTrafficRequestStatus("alice", "b2"))).toMatchObject({ status: "failed", failure_reason: "rejected" })
      const again = yield* Effect.either(op(e, w.createBuyTrafficRequest("alice", request("b1"))))
      expect(Either.isLeft(again) && again.left._tag).toBe("TrackingIdAlreadyUsed")
      const tooSmall = yield* Effect.either(op(e, w.createBuyTrafficRequest("alice", { ...request("b3"), traffic_amount: 10 })))
      expect(Either.isLeft(tooSmall) && tooSmall.left._tag).toBe("InvalidArgument")
    })
  )
})
