import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { micros } from "@sandnet/core"
import { TransferOffer, WalletNode, makeWalletApi, type TransferOfferPayload, type WalletApi, type WalletEvent } from "../../src/index.ts"
import { makeEconomy, op, switchableLink, type Economy } from "./support.ts"

const offerRequest = (e: Economy, receiver: string, trackingId: string) => ({
  receiver_party_id: receiver,
  amount: "3",
  description: "exactly once",
  expires_at: e.clock.now + micros.hours(1),
  tracking_id: trackingId
})

const offersWithTrackingId = (e: Economy, trackingId: string): number =>
  [...e.network.validators[0]!.participant.logic.acs.all()].filter(
    (c) => c.created.templateId === TransferOffer.templateId && (c.created.createArguments as unknown as TransferOfferPayload).trackingId === trackingId
  ).length

describe("tracking ids", () => {
  it.effect("a repeat while in progress is refused (429), after creation too (409), and a failure frees the id", () =>
    Effect.gen(function* () {
      let dropping = false
      const e = yield* makeEconomy({}, () => ({}), { automation: false, link: switchableLink(() => dropping) })
      const w1 = e.wallets[0]!
      yield* op(e, w1.onboardUser({ name: "alice" }))
      const bob = yield* op(e, e.wallets[1]!.onboardUser({ name: "bob" }))
      // The validator loses its sequencer: the submission is never sequenced and times out.
      dropping = true
      yield* op(e, w1.node.createTransferOffer("alice", offerRequest(e, bob.party_id, "t-1")))
      const inProgress = yield* Effect.either(op(e, w1.createTransferOffer("alice", offerRequest(e, bob.party_id, "t-1"))))
      expect(Either.isLeft(inProgress) && inProgress.left._tag).toBe("TrackingIdInProgress")
      yield* e.advance(micros.seconds(70))
      dropping = false
      yield* e.advance(micros.seconds(10))
      expect(w1.node.trackingState(Either.getOrThrow(w1.node.partyOf("alice")), "transferOffer", "t-1")).toBe("free")
      // The retry proceeds and creates the offer, once.
      const created = yield* op(e, w1.createTransferOffer("alice", offerRequest(e, bob.party_id, "t-1")))
      const again = yield* Effect.either(op(e, w1.createTransferOffer("alice", offerRequest(e, bob.party_id, "t-1"))))
      expect(Either.isLeft(again) && again.left._tag === "TrackingIdAlreadyUsed" && again.left.contractId).toBe(created.offer_contract_id)
      expect(yield* op(e, w1.getTransferOfferStatus("alice", "t-1"))).toMatchObject({ status: "created", contract_id: created.offer_contract_id })
      expect(offersWithTrackingId(e, "t-1")).toBe(1)
    })
  )

  it("creates at most one offer per tracking id under any interleaving of retries, settling and restarts", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom("submit", "settle", "restart"), { minLength: 1, maxLength: 10 }), (actions) =>
        Effect.runPromise(
          Effect.gen(function* () {
            const e = yield* makeEconomy({ validators: 1 }, () => ({}), { automation: false })
            const journal: Array<WalletEvent> = []
            let wallet: WalletApi = e.wallets[0]!
            wallet.node.journalSink = (event) => journal.push(event)
            yield* op(e, wallet.onboardUser({ name: "alice" }))
            yield* op(e, wallet.onboardUser({ name: "bob" }))
            const bob = Either.getOrThrow(wallet.node.partyOf("bob"))
            type Model = "free" | "inProgress" | "created"
            let model: Model = "free"
            for (const action of [...actions, "settle" as const]) {
              if (action === "settle") {
                yield* e.settle
                if (model === "inProgress") model = "created"
              } else if (action === "restart") {
                // A restarted wallet: its state comes from the journal alone.
                const node = new WalletNode(e.network, e.network.validators[0]!, wallet.node.config, journal)
                node.journalSink = (event) => journal.push(event)
                wallet = makeWalletApi(node, e.settle)
              } else {
                const result = yield* Effect.either(op(e, wallet.node.createTransferOffer("alice", offerRequest(e, bob, "t"))))
                if (model === "free") {
                  expect(Either.isRight(result)).toBe(true)
                  model = "inProgress"
                } else expect(Either.isLeft(result) && result.left._tag).toBe(model === "inProgress" ? "TrackingIdInProgress" : "TrackingIdAlreadyUsed")
              }
            }
            const submitted = actions.includes("submit")
            expect(offersWithTrackingId(e, "t")).toBe(submitted ? 1 : 0)
            if (!submitted) return
            expect(wallet.node.trackingState(Either.getOrThrow(wallet.node.partyOf("alice")), "transferOffer", "t")).toBe("created")
            expect((yield* op(e, wallet.getTransferOfferStatus("alice", "t"))).status).toBe("created")
          })
        )
      ),
      { numRuns: 25 }
    )
  }, 120_000)
})
