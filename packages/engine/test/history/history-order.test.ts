/**
 * The scan's history order (scan/history-order.ts) pages as the sort of the whole history it
 * replaced did: updates by (migration id, record time), ties in ingestion order; events (an
 * update, a verdict, or both, one per update id) by key then id, an update's key winning over its
 * verdict's, whatever order they were ingested in; and the same whether the orders were kept from
 * the start or built from the logs at some point (a simulation's scans build them when first read).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { ScanApi } from "@sandnet/engine"
import { buildHistoryOrders, EventOrder, UpdateOrder, type HistoryKey, type HistoryOrders, type Ingested } from "../../src/scan/history-order.ts"

const key = fc.record({ migrationId: fc.nat({ max: 2 }), recordTime: fc.nat({ max: 6 }) })
/** An update or a verdict of one of a few update ids, in arrival order. */
const arrival = fc.record({ kind: fc.constantFrom("update", "verdict"), id: fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"), key })
const after = fc.option(key, { nil: undefined })
/** Chunk sizes: the smallest ones split and empty chunks on nearly every arrival. */
const chunkSize = fc.constantFrom(2, 3, 5, 1024)

describe("the scan's history order", () => {
  it("pages updates and events as sorting the whole history does", () => {
    fc.assert(
      // `builtAt`: how many arrivals came before the orders were made from the logs (ScanStore's
      // "built when read"), placed one by one after that; past the end, kept from the start
      fc.property(fc.array(arrival, { maxLength: 60 }), after, fc.nat({ max: 12 }), chunkSize, fc.nat({ max: 70 }), (arrivals, from, limit, size, builtAt) => {
        let orders: HistoryOrders | undefined = builtAt > arrivals.length ? { updates: new UpdateOrder(size), events: new EventOrder(size) } : undefined
        const updateLog: Array<Ingested> = []
        const verdictLog: Array<Ingested> = []
        const updateKeys: Array<HistoryKey> = []
        const updateKeyOf = new Map<string, HistoryKey>()
        const verdictKeyOf = new Map<string, HistoryKey>()
        for (const [i, a] of arrivals.entries()) {
          if (i === builtAt) orders = buildHistoryOrders(updateLog, verdictLog, size)
          if (a.kind === "update") {
            // as ScanStore.onCommitted: the event moves to the update's key
            orders?.events.place(a.id, a.key, updateKeyOf.get(a.id) ?? verdictKeyOf.get(a.id))
            orders?.updates.add(a.key, updateKeys.length)
            updateKeys.push(a.key)
            updateLog.push({ id: a.id, key: a.key })
            updateKeyOf.set(a.id, a.key)
          } else if (!verdictKeyOf.has(a.id)) {
            // as ScanStore.ingestVerdict: the first verdict per id; it places an event only without an update
            if (!updateKeyOf.has(a.id)) orders?.events.place(a.id, a.key, undefined)
            verdictLog.push({ id: a.id, key: a.key })
            verdictKeyOf.set(a.id, a.key)
          }
        }
        const { updates, events } = orders ?? buildHistoryOrders(updateLog, verdictLog, size)
        // the reference: what scan/updates.ts computed before, by sorting everything
        const expectedUpdates = updateKeys
          .map((k, position) => ({ k, position }))
          .filter(({ k }) => from === undefined || ScanApi.compareKeys(k, from) > 0)
          .sort((x, y) => ScanApi.compareKeys(x.k, y.k))
          .slice(0, limit)
          .map(({ position }) => position)
        const keyed = new Map<string, HistoryKey>(updateKeyOf)
        for (const [id, k] of verdictKeyOf) if (!keyed.has(id)) keyed.set(id, k)
        const expectedEvents = [...keyed]
          .filter(([, k]) => from === undefined || ScanApi.compareKeys(k, from) > 0)
          .sort(([idA, a], [idB, b]) => ScanApi.compareKeys(a, b) || (idA < idB ? -1 : idA > idB ? 1 : 0))
          .slice(0, limit)
          .map(([id]) => id)
        expect(updates.positionsAfter(from, limit)).toEqual(expectedUpdates)
        expect(events.idsAfter(from, limit)).toEqual(expectedEvents)
        expect(events.length).toBe(keyed.size)
        expect(updates.length).toBe(updateKeys.length)
      }),
      { numRuns: 1000 }
    )
  })
})
