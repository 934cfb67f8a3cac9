/**
 * The stored index rows (ACS, scan) and the derived indexes are for readers of the store other than
 * the node. A node told its store has none (`keepsIndexes: false`, what `sandnet start --in-memory`
 * does) writes neither, still journals everything, and a node that keeps indexes, started later on
 * the same journals, brings the rows in line at its start.
 */
import { SIMULATION_EPOCH } from "@sandnet/core"
import { EventStore, type EventStoreService } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"

const INDEX_ROWS_KEY = "index-rows"
const DERIVED_KEY = "indexes"

/** Starts a node runtime on `store` (genesis, or a replay of what the store holds), then shuts it down. */
const runNode = async (store: EventStoreService, keepsIndexes: boolean): Promise<number> => {
  const scope = Effect.runSync(Scope.make())
  const ledgerEnd = await Effect.runPromise(
    Effect.gen(function* () {
      const storage = yield* Node.makeNodeStorage(store, { keepsIndexes })
      const runtime = yield* Node.makeNodeRuntime({ storage, tickIntervalMillis: 5, clock: { _tag: "manual", start: SIMULATION_EPOCH } })
      return yield* runtime.read((engine) => Effect.succeed(engine.network.validators[0]!.participant.logic.ledgerEnd))
    }).pipe(Scope.extend(scope))
  )
  await Effect.runPromise(Scope.close(scope, Exit.void))
  return ledgerEnd
}

const rowsOf = (store: EventStoreService, stream: string) => Effect.runPromise(store.listSnapshots(stream))
const has = async (store: EventStoreService, stream: string, key: string) => Option.isSome(await Effect.runPromise(store.getSnapshot(stream, key)))

const withMemoryStore = async (use: (store: EventStoreService) => Promise<void>) => {
  const scope = Effect.runSync(Scope.make())
  try {
    await use(Context.get(await Effect.runPromise(Layer.buildWithScope(EventStore.memory, scope)), EventStore))
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

describe("stored index rows", () => {
  it("a node that keeps indexes stores the ACS and scan rows, the marker and, at shutdown, the derived indexes", async () => {
    await withMemoryStore(async (store) => {
      await runNode(store, true)
      expect((await rowsOf(store, Node.Streams.acsIndex("validator1"))).length).toBeGreaterThan(0)
      expect((await rowsOf(store, Node.Streams.acsIndex("sv1"))).length).toBeGreaterThan(0)
      expect((await rowsOf(store, Node.Streams.scanIndex("sv1"))).length).toBeGreaterThan(0)
      expect(await has(store, Node.Streams.derived, INDEX_ROWS_KEY)).toBe(true)
      expect(await has(store, Node.Streams.derived, DERIVED_KEY)).toBe(true)
    })
  }, 60_000)

  it("a node whose store has no other readers writes none of them, and a node that keeps indexes aligns them later", async () => {
    await withMemoryStore(async (store) => {
      const ledgerEnd = await runNode(store, false)
      expect(ledgerEnd).toBeGreaterThan(0)
      const streams = await Effect.runPromise(store.streams())
      expect(streams).toContain(Node.Streams.participant("validator1"))
      for (const stream of [Node.Streams.acsIndex("validator1"), Node.Streams.acsIndex("sv1"), Node.Streams.scanIndex("sv1")]) {
        expect(await rowsOf(store, stream)).toEqual([])
      }
      expect(await has(store, Node.Streams.derived, INDEX_ROWS_KEY)).toBe(false)
      expect(await has(store, Node.Streams.derived, DERIVED_KEY)).toBe(false)

      // The same journals, replayed by a node that keeps indexes: same ledger, rows brought in line.
      expect(await runNode(store, true)).toBe(ledgerEnd)
      const acs = await rowsOf(store, Node.Streams.acsIndex("validator1"))
      expect(acs.length).toBeGreaterThan(0)
      expect(await has(store, Node.Streams.derived, INDEX_ROWS_KEY)).toBe(true)
    })
  }, 60_000)
})
