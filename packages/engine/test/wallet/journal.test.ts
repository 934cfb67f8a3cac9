import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { micros } from "@sandnet/core"
import { WalletEvent, WalletNode, decodeWalletConfig, defaultWalletConfig, makeWalletApi, replayWalletJournal } from "../../src/index.ts"
import { journaledEconomy, makeEconomy, op } from "./support.ts"

describe("the wallet journal", () => {
  it.effect("is JSON-safe and replays into the same state; a wallet restored from it answers the same", () =>
    Effect.gen(function* () {
      const { e, w1, w2, journal, bob } = yield* journaledEconomy()
      const request = (trackingId: string) => ({ receiver_party_id: bob.party_id, amount: "2", description: "", expires_at: e.clock.now + micros.minutes(5), tracking_id: trackingId })
      const accepted = yield* op(e, w1!.createTransferOffer("alice", request("a")))
      yield* op(e, w1!.createTransferOffer("alice", request("b")))
      yield* op(e, w1!.createTokenStandardTransfer("alice", request("c")))
      yield* op(e, w1!.createBuyTrafficRequest("alice", { receiving_validator_party_id: e.network.validators[0]!.operator, domain_id: e.network.synchronizers[0]!.info.synchronizerId, traffic_amount: 200_000, tracking_id: "d", expires_at: e.clock.now + micros.minutes(5) }))
      yield* op(e, w2!.acceptTransferOffer("bob", accepted.offer_contract_id))
      yield* e.advance(micros.minutes(10))
      // Through JSON and the Schema, as storage would do it.
      const stored = JSON.parse(JSON.stringify(journal)) as unknown
      const decoded = Schema.decodeUnknownSync(Schema.Array(WalletEvent))(stored)
      expect(decoded).toEqual(journal)
      const state = replayWalletJournal(decoded)
      expect([...state.users.keys()]).toEqual(["alice"])
      expect([...state.offers.records()].map((o) => o.offer.state).sort()).toEqual(["completed", "expired"])
      expect([...state.instructions.records()].map((i) => i.instruction.state)).toEqual(["expired"])
      const restored = makeWalletApi(new WalletNode(e.network, e.network.validators[0]!, defaultWalletConfig, decoded), e.settle)
      for (const t of ["a", "b"]) expect(yield* op(e, restored.getTransferOfferStatus("alice", t))).toEqual(yield* op(e, w1!.getTransferOfferStatus("alice", t)))
      expect(yield* op(e, restored.getBuyTrafficRequestStatus("alice", "d"))).toEqual(yield* op(e, w1!.getBuyTrafficRequestStatus("alice", "d")))
      expect(yield* op(e, restored.listTransactions("alice", { page_size: 100 }))).toEqual(yield* op(e, w1!.listTransactions("alice", { page_size: 100 })))
      expect((yield* op(e, restored.listUsers())).usernames).toEqual(["alice", "operator"])
    })
  )

  it.effect("finished lifecycles leave the indexes by command and by contract; their records and statuses stay; replay agrees", () =>
    Effect.gen(function* () {
      const { e, w1, w2, journal, bob } = yield* journaledEconomy()
      const request = (trackingId: string, lifetime: number) => ({ receiver_party_id: bob.party_id, amount: "2", description: "", expires_at: e.clock.now + lifetime, tracking_id: trackingId })
      const done = yield* op(e, w1!.createTransferOffer("alice", request("done", micros.hours(1))))
      const open = yield* op(e, w1!.createTransferOffer("alice", request("open", micros.hours(1))))
      const rejected = yield* op(e, w1!.createTransferOffer("alice", request("rejected", micros.hours(1))))
      yield* op(e, w2!.acceptTransferOffer("bob", done.offer_contract_id))
      yield* op(e, w2!.rejectTransferOffer("bob", rejected.offer_contract_id))
      yield* e.advance(micros.minutes(1))
      const state = w1!.node.state
      expect((yield* op(e, w1!.getTransferOfferStatus("alice", "done"))).status).toBe("completed")
      expect(yield* op(e, w1!.getTransferOfferStatus("alice", "rejected"))).toEqual({ status: "failed", failure_kind: "rejected" })
      expect((yield* op(e, w1!.getTransferOfferStatus("alice", "open"))).status).toBe("created")
      // the open offer's contract alone is followed; the three tracking ids are decided
      expect([...state.offerByContract.keys()]).toEqual([open.offer_contract_id])
      expect([...state.trackingByCommand.keys()]).toEqual([])
      expect(state.offers.size).toBe(3)
      expect(state.tracking.size).toBe(3)
      // the open offer still moves on: the receiver accepts it and the sender's automation completes it
      yield* op(e, w2!.acceptTransferOffer("bob", open.offer_contract_id))
      yield* e.advance(micros.minutes(1))
      expect((yield* op(e, w1!.getTransferOfferStatus("alice", "open"))).status).toBe("completed")
      expect(state.offerByContract.size).toBe(0)
      const replayed = replayWalletJournal(journal)
      expect(replayed.offerByContract).toEqual(state.offerByContract)
      expect(replayed.trackingByCommand).toEqual(state.trackingByCommand)
      expect([...replayed.offers.records()]).toEqual([...state.offers.records()])
      expect([...replayed.tracking.records()]).toEqual([...state.tracking.records()])
    })
  )

  it.effect("history pages newest first and continues after begin_after_id", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 })
      const w = e.wallets[0]!
      yield* op(e, w.onboardUser({ name: "alice" }))
      for (let i = 0; i < 7; i++) yield* op(e, w.tap("alice", { amount: String(i + 1), command_id: `p${i}` }))
      const all = yield* op(e, w.listTransactions("alice", { page_size: 100 }))
      const first = yield* op(e, w.listTransactions("alice", { page_size: 3 }))
      const second = yield* op(e, w.listTransactions("alice", { page_size: 3, begin_after_id: first.items[2]!.event_id }))
      expect([...first.items, ...second.items]).toEqual(all.items.slice(0, 6))
      expect(first.items[0]).toMatchObject({ transaction_type: "balance_change", receivers: [{ amount: "7.0000000000" }] })
    })
  )
})

describe("the wallet configuration", () => {
  it("has documented defaults and refuses unknown or ill-typed fields", () => {
    expect(defaultWalletConfig).toMatchObject({
      validatorWalletUser: "operator",
      pollInterval: 60_000_000,
      buyExtraTraffic: { targetThroughput: 0, minTopupInterval: 600_000_000 },
      merge: { enabled: true, maxHoldings: 10, batchSize: 100 },
      sweep: [],
      autoAcceptTransfers: []
    })
    const ok = decodeWalletConfig({ pollInterval: "30s", buyExtraTraffic: { targetThroughput: 1000, minTopupInterval: "2h" } })
    expect(Either.getOrThrow(ok).buyExtraTraffic.minTopupInterval).toBe(micros.hours(2))
    expect(Either.isLeft(decodeWalletConfig({ pollInterval: "soon" }))).toBe(true)
    expect(Either.isLeft(decodeWalletConfig({ merge: { batchSize: 101 } }))).toBe(true)
    expect(Either.isLeft(decodeWalletConfig({ sweep: [{ sender: "nobody", receiver: "x", maxBalanceUSD: 1, minBalanceUSD: 0 }] }))).toBe(true)
    expect(Either.isLeft(decodeWalletConfig({ unknownKnob: true }))).toBe(true)
  })
})
