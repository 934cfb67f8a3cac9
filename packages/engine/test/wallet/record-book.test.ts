/**
 * A wallet's records: a finished one moves to an archived log and is found by the digest of its
 * key; it reads back equal, statuses and tracking-id decisions stay as they were, and replay of
 * the journal agrees.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { micros } from "@sandnet/core"
import { archiveDueHistory, historyLogsOf, replayWalletJournal } from "../../src/index.ts"
import { NEVER_ARCHIVE } from "../../src/history/archived-log.ts"
import { RecordBook } from "../../src/wallet/record-book.ts"
import { journaledEconomy, op } from "./support.ts"

interface Item {
  readonly state: "open" | "done"
  readonly n: number
}

const step = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), key: fc.integer({ min: 0, max: 5 }), state: fc.constantFrom("open" as const, "done" as const), n: fc.integer() }),
  fc.record({ kind: fc.constant("archive" as const) })
)

describe("a wallet's record book", () => {
  const sorted = (records: Iterable<Item>) => [...records].map((r) => JSON.stringify(r)).sort()

  it("reads like a map of the last record set per key, whatever is archived", () => {
    fc.assert(
      fc.property(fc.option(fc.nat({ max: 2 }), { nil: undefined }), fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 60 }), (hotEntries, segmentEntries, steps) => {
        // undefined: a simulation's limits, which never archive
        const limits = hotEntries === undefined ? NEVER_ARCHIVE : { hotEntries, segmentEntries, deferUpTo: 4 }
        const book = new RecordBook<Item>((r) => r.state === "done", limits)
        const model = new Map<string, Item>()
        const openModel = new Map<string, Item>()
        for (const s of steps) {
          if (s.kind === "archive") {
            book.finished.archiveDue()
            continue
          }
          const key = `party|transferOffer|${s.key}`
          const record = { state: s.state, n: s.n }
          book.set(key, record)
          model.set(key, record)
          // archiving, a record moves to the end of those under way when it is under way again after it finished
          if (s.state === "open") openModel.set(key, record)
          else openModel.delete(key)
          for (const [k, v] of model) expect(book.get(k)).toEqual(v)
          expect(book.get("party|transferOffer|absent")).toBeUndefined()
          expect(book.size).toBe(model.size)
          if (hotEntries !== undefined) expect([...book.underWayRecords()]).toEqual([...openModel.values()])
          else expect(sorted(book.underWayRecords())).toEqual(sorted(openModel.values()))
          expect(sorted(book.records())).toEqual(sorted(model.values()))
        }
        if (hotEntries === undefined) expect(book.finished.length).toBe(0)
      })
    )
  })
})

describe("finished wallet records, archived", () => {
  // every finished record is archived as soon as a tick asks
  const keeping = { historyLimits: { hotEntries: 0, segmentEntries: 1, deferUpTo: 1_000 } }

  it.effect("answer statuses and tracking-id reuse as before, and replay agrees", () =>
    Effect.gen(function* () {
      const { e, w1, w2, journal, alice, bob } = yield* journaledEconomy({ keeping })
      const request = (trackingId: string) => ({ receiver_party_id: bob.party_id, amount: "2", description: "", expires_at: e.clock.now + micros.hours(1), tracking_id: trackingId })
      const done = yield* op(e, w1.createTransferOffer("alice", request("done")))
      const rejected = yield* op(e, w1.createTransferOffer("alice", request("rejected")))
      const open = yield* op(e, w1.createTransferOffer("alice", request("open")))
      yield* op(e, w2.acceptTransferOffer("bob", done.offer_contract_id))
      yield* op(e, w2.rejectTransferOffer("bob", rejected.offer_contract_id))
      yield* e.advance(micros.minutes(1))
      const statuses = (w: typeof w1) => Effect.all(["done", "rejected", "open"].map((t) => op(e, w!.getTransferOfferStatus("alice", t))))
      const before = yield* statuses(w1)
      expect(before.map((s) => s.status)).toEqual(["completed", "failed", "created"])

      const state = w1.node.state
      expect(archiveDueHistory(e.network, () => true)).toBeGreaterThan(0)
      // the finished offers and the three tracking ids are archived: nothing of them is held as an object
      expect(state.offers.finished.length).toBe(2)
      expect(state.offers.finished.archivedLength).toBe(2)
      expect(state.tracking.finished.archivedLength).toBe(3)
      expect(historyLogsOf(e.network)).toContain(state.offers.finished)
      expect(yield* statuses(w1)).toEqual(before)
      // a tracking id used once is refused again with the contract it created
      const reused = yield* Effect.either(op(e, w1.createTransferOffer("alice", request("done"))))
      expect(Either.isLeft(reused) && reused.left).toMatchObject({ _tag: "TrackingIdAlreadyUsed", trackingId: "done", contractId: done.offer_contract_id })
      // the open offer still moves on
      yield* op(e, w2.acceptTransferOffer("bob", open.offer_contract_id))
      yield* e.advance(micros.minutes(1))
      expect((yield* op(e, w1.getTransferOfferStatus("alice", "open"))).status).toBe("completed")

      const replayed = replayWalletJournal(journal, keeping.historyLimits)
      expect([...replayed.offers.records()]).toEqual([...state.offers.records()])
      expect([...replayed.tracking.records()]).toEqual([...state.tracking.records()])
      expect(alice.party_id).toBe(state.users.get("alice")!.party)
    })
  )
})
