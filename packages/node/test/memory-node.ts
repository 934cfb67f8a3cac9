/**
 * A node runtime on the memory store over a backing that outlives it: close it and start another
 * on the same backing to restart the node (the tests' restarts without a database).
 */
import { EventStore, makeMemoryBacking, type EventStoreService, type MemoryBacking } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as Node from "../src/index.ts"

export const startOnBacking = async (backing: MemoryBacking, options: Omit<Node.NodeRuntimeOptions, "storage">, storageOptions: Node.NodeStorageOptions = {}) => {
  const scope = Effect.runSync(Scope.make())
  const started = await Effect.runPromise(
    Effect.gen(function* () {
      const store = Context.get(yield* Layer.buildWithScope(EventStore.memoryWith(backing), scope), EventStore)
      const storage = yield* Node.makeNodeStorage(store, storageOptions)
      return { runtime: yield* Node.makeNodeRuntime({ ...options, storage }), store }
    }).pipe(Scope.extend(scope))
  )
  return { ...started, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/**
 * What a kill -9 leaves of a node on `store`: what it committed, copied into a new backing (its
 * entries, and its key-value rows as the backing holds them); the node itself goes on elsewhere.
 */
export const crashCopy = async (store: EventStoreService, backing: MemoryBacking): Promise<MemoryBacking> => {
  const copy = makeMemoryBacking()
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(
    Effect.gen(function* () {
      const target = Context.get(yield* Layer.buildWithScope(EventStore.memoryWith(copy), scope), EventStore)
      for (const [, entries] of yield* store.readAll()) for (let i = 0; i < entries.length; i += 2000) yield* target.append(entries.slice(i, i + 2000))
    })
  )
  await Effect.runPromise(Scope.close(scope, Exit.void))
  for (const [stream, rows] of backing.snapshots) copy.snapshots.set(stream, new Map(rows))
  return copy
}
