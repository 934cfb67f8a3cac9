/**
 * A restarted node's stored entries are replayed once and then let go: the storage service hands
 * them to the first engine and keeps none (kept, they were a restarted node's largest object for
 * its life), while what the replay rebuilt is all there.
 */
import { describe, expect, it } from "@effect/vitest"
import { SIMULATION_EPOCH } from "@sandnet/core"
import { EventStore, makeMemoryBacking, type MemoryBacking } from "@sandnet/store"
import { Context, Effect, Layer } from "effect"
import * as Node from "../src/index.ts"

/** A node runtime on the memory store over `backing`; the store lives as long as the scope. */
const startNode = (backing: MemoryBacking) =>
  Effect.gen(function* () {
    const store = Context.get(yield* Layer.build(EventStore.memoryWith(backing)), EventStore)
    const storage = yield* Node.makeNodeStorage(store)
    const runtime = yield* Node.makeNodeRuntime({ storage, wallets: true, automation: true, clock: { _tag: "manual", start: SIMULATION_EPOCH } })
    return { storage, runtime }
  })

const ledgerEnds = (runtime: Node.NodeRuntimeService) =>
  Effect.map(runtime.engine, (engine) => engine.network.participants.map((node) => node.logic.ledgerEnd))

describe("a restarted node's stored entries", () => {
  it.scoped("are taken by the first engine's replay and not kept by the storage", () =>
    Effect.gen(function* () {
      const backing = makeMemoryBacking()
      const first = yield* Effect.scoped(
        Effect.gen(function* () {
          const { storage, runtime } = yield* startNode(backing)
          // a new network: nothing stored, genesis runs, and there is nothing to take
          expect(storage.initial.entryCount).toBe(0)
          yield* runtime.flush
          return { ends: yield* ledgerEnds(runtime), stored: yield* storage.store.readAll() }
        })
      )
      const engineEntries = [...first.stored].filter(([stream]) => stream !== Node.Streams.admin).reduce((n, [, entries]) => n + entries.length, 0)
      expect(engineEntries).toBeGreaterThan(0)

      const { storage, runtime } = yield* startNode(backing)
      expect(storage.initial.entryCount).toBe(engineEntries)
      // the replay rebuilt every participant's ledger
      expect(yield* ledgerEnds(runtime)).toEqual(first.ends)
      // and the storage gave its entries away: a second taking is a bug, and fails loudly
      expect(() => storage.takeInitialEntries()).toThrow(/replayed once/)
    }))
})
