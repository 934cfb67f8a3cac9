/**
 * Helpers of the storage tests: a node (as `sandnet start` wires it: NodeStorage over an
 * EventStore layer, the persistent runtime, stored user management, the snapshot routes) on a
 * manual clock, that can be closed and started again on the same store.
 */
import { SIMULATION_EPOCH } from "@sandnet/core"
import { EventStore } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as Node from "@sandnet/node"
import * as Http from "../src/index.ts"
import { adminToken } from "./support.ts"

export interface StoredTestNode {
  readonly url: string
  readonly runtime: Node.NodeRuntimeService
  readonly storage: Node.NodeStorageService
  readonly admin: string
  readonly close: () => Promise<void>
}

/** `options`: more of the runtime's options (e.g. wallets and automations on). */
export const startStoredNode = async <E>(store: Layer.Layer<EventStore, E>, options: Omit<Node.NodeRuntimeOptions, "clock" | "storage"> = {}): Promise<StoredTestNode> => {
  const scope = Effect.runSync(Scope.make())
  const storage = Node.nodeStorageLayer.pipe(Layer.provideMerge(store))
  const runtime = Node.persistentNodeRuntimeLayer({ ...options, clock: { _tag: "manual", start: SIMULATION_EPOCH } }).pipe(Layer.provideMerge(storage))
  const users = Node.storedUserManagementLayer().pipe(Layer.provide(storage))
  const layer = Http.serve(Layer.mergeAll(Http.NodeRoutes, Http.StorageRoutes), { http: { port: 0, logRequests: false } }).pipe(
    Layer.provideMerge(users),
    Layer.provideMerge(runtime)
  )
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return {
    url: Effect.runSync(Effect.provide(Http.baseUrl, context)),
    runtime: Context.get(context, Node.NodeRuntime),
    storage: Context.get(context, Node.NodeStorage),
    admin: await adminToken(),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
