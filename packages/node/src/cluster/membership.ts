/**
 * A process's membership of a network spread over processes (docs/storage.md, "A network spread
 * over processes"): the cluster transport, its own node, and where every node's journals live.
 */
import type { ClusterTransportService } from "@sandnet/store"

export interface ClusterMembership {
  readonly transport: ClusterTransportService
  /** This process's node: one of the network's super validators or validators ("sv1", "validator2"). */
  readonly node: string
  /** The schema of a node's journals on the shared server (the same function in every process). */
  readonly schemaOf: (node: string) => string
}

/** The schema of a node of the cluster `cluster`: `<cluster>_<node>`. */
export const clusterNodeSchema = (cluster: string, node: string): string =>
  `${cluster}_${node.toLowerCase().replace(/[^a-z0-9_]+/g, "_")}`.slice(0, 63)
