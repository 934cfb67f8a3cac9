/**
 * The expiry automation's heap holds about what is still live: the entries of offers that were
 * accepted and completed are dropped each time it has grown by a quarter (they would be skipped when due), while
 * what is live still expires when it is due.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { micros } from "@sandnet/core"
import { journaledEconomy, op } from "../wallet/support.ts"

describe("the expiry automation's heap", () => {
  it.effect("drops the offers gone for good and still expires the live ones", () =>
    Effect.gen(function* () {
      const { e, w1, w2, bob } = yield* journaledEconomy({ tap: "10000" })
      const request = (trackingId: string, lifetime: number) => ({ receiver_party_id: bob.party_id, amount: "1", description: "", expires_at: e.clock.now + lifetime, tracking_id: trackingId })
      yield* op(e, w1.createTransferOffer("alice", request("lives", micros.hours(2))))
      const offers = 150
      for (let i = 0; i < offers; i++) {
        const offer = yield* op(e, w1.createTransferOffer("alice", request(`t${i}`, micros.hours(1))))
        yield* op(e, w2.acceptTransferOffer("bob", offer.offer_contract_id))
      }
      yield* e.advance(micros.minutes(1))
      expect((yield* op(e, w1.getTransferOfferStatus("alice", `t${offers - 1}`))).status).toBe("completed")
      // each offer filed two entries (the offer, then the accepted offer): 301 in all without dropping
      const expiry = w1.automation!.expiry
      expect(expiry.size).toBeLessThan(256)
      // the live offer is still filed and expires when due
      yield* e.advance(micros.hours(2) + micros.minutes(5))
      expect(yield* op(e, w1.getTransferOfferStatus("alice", "lives"))).toEqual({ status: "failed", failure_kind: "expired" })
      expect(w1.automation!.stats.offersExpired).toBe(1)
    })
  )
})
