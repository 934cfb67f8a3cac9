/**
 * The NodeRuntime layers: without storage (tests, throwaway engines), on the NodeStorage in
 * context, and for one node of a network spread over processes.
 */
import { makeClusterTransport, type StorageError, type StoreConfigError } from "@sandnet/store"
import { Effect, Layer } from "effect"
import { clusterNodeSchema } from "../cluster/membership.ts"
import { agreeOnShape, type ClusterShapeMismatch } from "../cluster/shape.ts"
import { JournalReplayFailed } from "../journal/errors.ts"
import { NodeStorage } from "../storage/node-storage.ts"
import { makeNodeRuntime } from "./runtime.ts"
import { NodeRuntime, type NodeRuntimeOptions } from "./service.ts"

/** A runtime without storage (tests, throwaway engines): nothing is persisted. */
export const nodeRuntimeLayer = (options: Omit<NodeRuntimeOptions, "storage"> = {}): Layer.Layer<NodeRuntime> =>
  Layer.scoped(NodeRuntime, Effect.orDie(makeNodeRuntime(options)))

/** A runtime on the NodeStorage in context: resumes from its journals and journals everything. */
export const persistentNodeRuntimeLayer = (
  options: Omit<NodeRuntimeOptions, "storage"> = {}
): Layer.Layer<NodeRuntime, JournalReplayFailed, NodeStorage> =>
  Layer.scoped(NodeRuntime, Effect.flatMap(NodeStorage, (storage) => makeNodeRuntime({ ...options, storage })))

export interface ClusterNodeOptions {
  /** The PostgreSQL server every process of the cluster uses. */
  readonly url: string
  /** The cluster's schema (its mailbox and agreed configuration); node schemas are `<cluster>_<node>`. */
  readonly cluster: string
  /** This process's node ("sv1", "validator2"). */
  readonly node: string
  /**
   * The network's shape as this process's flags gave it (undefined: not given). sv1 decides it;
   * the other processes wait for sv1's decision and refuse to start when their flags differ.
   */
  readonly superValidators: number | undefined
  readonly validators: number | undefined
}

/**
 * A runtime for one node of a network spread over processes (cluster/link.ts) on the NodeStorage in
 * context, which must be the node's own schema (`clusterNodeSchema(cluster, node)`) on the same server.
 */
export const clusterNodeRuntimeLayer = (
  options: Omit<NodeRuntimeOptions, "storage" | "cluster" | "network">,
  cluster: ClusterNodeOptions
): Layer.Layer<NodeRuntime, JournalReplayFailed | ClusterShapeMismatch | StorageError | StoreConfigError, NodeStorage> =>
  Layer.scoped(
    NodeRuntime,
    Effect.gen(function* () {
      const storage = yield* NodeStorage
      const transport = yield* makeClusterTransport({ url: cluster.url, schema: cluster.cluster })
      const agreed = yield* agreeOnShape(transport, { cluster: cluster.cluster, node: cluster.node, superValidators: cluster.superValidators, validators: cluster.validators })
      const stored = storage.initial.entryCount > 0 ? storage.initial.config : undefined
      if (stored !== undefined && JSON.stringify(stored) !== JSON.stringify(agreed)) {
        return yield* new JournalReplayFailed({ message: `the node's stored network configuration is not the cluster's (${cluster.cluster}): was the cluster's schema dropped?` })
      }
      return yield* makeNodeRuntime({
        ...options,
        storage,
        network: agreed,
        cluster: { transport, node: cluster.node, schemaOf: (node) => clusterNodeSchema(cluster.cluster, node) }
      })
    })
  )
