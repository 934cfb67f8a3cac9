/**
 * A node runtime on the memory store over a backing that outlives it: close it and start another
 * on the same backing to restart the node (the tests' restarts without a database).
 */
import { EventStore, type MemoryBacking } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as Node from "../src/index.ts"

export const startOnBacking = async (backing: MemoryBacking, options: Omit<Node.NodeRuntimeOptions, "storage">) => {
  const scope = Effect.runSync(Scope.make())
  const started = await Effect.runPromise(
    Effect.gen(function* () {
      const store = Context.get(yield* Layer.buildWithScope(EventStore.memoryWith(backing), scope), EventStore)
      const storage = yield* Node.makeNodeStorage(store)
      return { runtime: yield* Node.makeNodeRuntime({ ...options, storage }), store }
    }).pipe(Scope.extend(scope))
  )
  return { ...started, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
