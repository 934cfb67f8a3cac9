import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { micros } from "@sandnet/core"
import { Commands, TransferOffer_Accept } from "../../src/index.ts"
import { makeEconomy, op } from "./support.ts"

describe("legacy transfer offers", () => {
  it("an offer past its expiry can never be accepted", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 120 }), fc.integer({ min: -90, max: 90 }), (lifetimeSeconds, acceptOffsetSeconds) =>
        Effect.runPromise(
          Effect.gen(function* () {
            // No expiry automation: the offer stays on the ledger, only the rule protects it.
            const e = yield* makeEconomy({}, () => ({ expireOffers: false }), { automation: true })
            const [w1, w2] = e.wallets
            yield* op(e, w1!.onboardUser({ name: "alice" }))
            const bob = yield* op(e, w2!.onboardUser({ name: "bob" }))
            yield* op(e, w1!.tap("alice", { amount: "10" }))
            const expiresAt = e.clock.now + micros.seconds(lifetimeSeconds)
            const offer = yield* op(e, w1!.createTransferOffer("alice", { receiver_party_id: bob.party_id, amount: "1", description: "", expires_at: expiresAt, tracking_id: "x" }))
            const target = Math.max(e.clock.now, expiresAt + micros.seconds(acceptOffsetSeconds))
            yield* e.advance(target - e.clock.now)
            const late = e.clock.now >= expiresAt
            const viaWallet = yield* Effect.either(op(e, w2!.acceptTransferOffer("bob", offer.offer_contract_id)))
            if (late) {
              expect(Either.isLeft(viaWallet) && viaWallet.left._tag).toBe("OfferExpired")
              // Straight to the ledger, bypassing the wallet's check: the contract refuses too.
              const direct = yield* Effect.either(
                e.run(e.network.validators[1]!.participant.submit({ actAs: [bob.party_id], commandId: "direct", commands: [Commands.exercise(TransferOffer_Accept, offer.offer_contract_id, {})] }))
              )
              expect(Either.isLeft(direct)).toBe(true)
              expect((yield* op(e, w1!.getTransferOfferStatus("alice", "x"))).status).toBe("created")
            } else {
              expect(Either.isRight(viaWallet)).toBe(true)
              expect(["accepted", "completed"]).toContain((yield* op(e, w1!.getTransferOfferStatus("alice", "x"))).status)
            }
          })
        )
      ),
      { numRuns: 20 }
    )
  }, 120_000)

  it.effect("status follows the offer: expired by the sender's automation, rejected, withdrawn, aborted for lack of coin", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy()
      const [w1, w2] = e.wallets
      yield* op(e, w1!.onboardUser({ name: "alice" }))
      const bob = yield* op(e, w2!.onboardUser({ name: "bob" }))
      yield* op(e, w1!.tap("alice", { amount: "5" }))
      const request = (trackingId: string, amount = "1", lifetime = micros.minutes(30)) => ({
        receiver_party_id: bob.party_id,
        amount,
        description: trackingId,
        expires_at: e.clock.now + lifetime,
        tracking_id: trackingId
      })
      yield* op(e, w1!.createTransferOffer("alice", request("expires", "1", micros.minutes(2))))
      const rejected = yield* op(e, w1!.createTransferOffer("alice", request("rejected")))
      const withdrawn = yield* op(e, w1!.createTransferOffer("alice", request("withdrawn")))
      const tooMuch = yield* op(e, w1!.createTransferOffer("alice", request("too-much", "50")))
      expect((yield* op(e, w2!.listTransferOffers("bob"))).offers).toHaveLength(4)
      yield* op(e, w2!.rejectTransferOffer("bob", rejected.offer_contract_id))
      yield* op(e, w1!.withdrawTransferOffer("alice", withdrawn.offer_contract_id))
      yield* op(e, w2!.acceptTransferOffer("bob", tooMuch.offer_contract_id))
      yield* e.advance(micros.minutes(5))
      expect(yield* op(e, w1!.getTransferOfferStatus("alice", "expires"))).toEqual({ status: "failed", failure_kind: "expired" })
      expect(yield* op(e, w1!.getTransferOfferStatus("alice", "rejected"))).toEqual({ status: "failed", failure_kind: "rejected" })
      expect(yield* op(e, w1!.getTransferOfferStatus("alice", "withdrawn"))).toMatchObject({ status: "failed", failure_kind: "withdrawn" })
      const aborted = yield* op(e, w1!.getTransferOfferStatus("alice", "too-much"))
      expect(aborted).toMatchObject({ status: "failed", failure_kind: "withdrawn" })
      expect(aborted.status === "failed" ? aborted.withdrawn_reason : "").toContain("insufficient funds")
      expect((yield* op(e, w2!.listTransferOffers("bob"))).offers).toHaveLength(0)
      const unknown = yield* Effect.either(op(e, w1!.getTransferOfferStatus("alice", "never")))
      expect(Either.isLeft(unknown) && unknown.left._tag).toBe("TrackingIdNotFound")
      // Bob's history shows the notifications; alice's the failures.
      const history = yield* op(e, w1!.listTransactions("alice", { page_size: 50 }))
      expect(history.items.filter((i) => i.transaction_type === "notification").map((i) => (i.transaction_type === "notification" ? i.details : ""))).toEqual(
        expect.arrayContaining(["Transfer offer expired", "Transfer offer rejected by the receiver", "Transfer offer withdrawn by the sender", "Accepted transfer offer aborted by the sender"])
      )
    })
  )

  it.effect("the receiver's wallet accepts offers from configured senders automatically", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({}, (i) => (i === 1 ? { autoAcceptTransfers: [{ receiver: bobParty(), fromParties: ["*"] }] } : {}))
      const [w1, w2] = e.wallets
      yield* op(e, w1!.onboardUser({ name: "alice" }))
      const bob = yield* op(e, w2!.onboardUser({ name: "bob" }))
      expect(bob.party_id).toBe(bobParty())
      yield* op(e, w1!.tap("alice", { amount: "20" }))
      yield* op(e, w1!.createTransferOffer("alice", { receiver_party_id: bob.party_id, amount: "4", description: "auto", expires_at: e.clock.now + micros.hours(1), tracking_id: "auto" }))
      yield* e.advance(micros.seconds(2))
      expect((yield* op(e, w1!.getTransferOfferStatus("alice", "auto"))).status).toBe("completed")
      expect((yield* op(e, w2!.getBalance("bob"))).effective_unlocked_qty).toBe("4.0000000000")
      expect(w2!.automation!.stats.offersAutoAccepted).toBe(1)
    })
  )
})

/** bob's party on validator2 of the default network (the hint and the validator's namespace). */
const bobParty = (): string => `bob::${namespace("validator2")}`
import { namespaceOf } from "@sandnet/core"
const namespace = (name: string): string => namespaceOf(`sandnet:participant:${name}`)
