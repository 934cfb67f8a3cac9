/**
 * What one node (or one party) sees of a transaction: the nodes that have a witness among the
 * given parties, with the topmost of them as roots. Node ids stay those of the full tree.
 *
 * Nodes that see the same part of a transaction share one projection (an update is immutable):
 * the super validators all see the DSO's part of an accepted offer, say, and each kept a copy of
 * it, which the history hash then serialized once per copy (27% of the digested text of a 6-hour
 * economy run). A node that sees all of it shares the update itself, as before.
 */
import type { PartyId, TransactionUpdate, TxNode } from "@sandnet/core"

/**
 * Per transaction, its partial projections so far: one or two as a rule (the DSO's part, a
 * counterparty's; at most one per participant that commits it), so a short list found by its nodes,
 * not a map keyed by text (a serving node keeps this for every transaction whose full update it
 * still holds).
 */
const partialProjections = new WeakMap<TransactionUpdate, Array<TransactionUpdate>>()

const keepsExactly = (projection: TransactionUpdate, kept: ReadonlyArray<TxNode>): boolean =>
  projection.nodes.length === kept.length && projection.nodes.every((node, i) => node === kept[i])

export const projectTransaction = (
  update: TransactionUpdate,
  sees: (party: PartyId) => boolean
): TransactionUpdate | undefined => {
  // no closure per call: every node that commits a transaction projects it
  let all = true
  let any = false
  for (const node of update.nodes) {
    if (node.witnesses.some(sees)) any = true
    else all = false
  }
  if (!any) return undefined
  if (all) return update
  const kept: Array<TxNode> = []
  const keptIds = new Set<number>()
  const parentOf = new Map<number, number>()
  for (const node of update.nodes) {
    if (node.kind === "exercised") for (const child of node.childNodeIds) parentOf.set(child, node.nodeId)
    if (node.witnesses.some(sees)) {
      kept.push(node)
      keptIds.add(node.nodeId)
    }
  }
  const known = partialProjections.get(update)
  const shared = known?.find((projection) => keepsExactly(projection, kept))
  if (shared !== undefined) return shared
  // A witness of a node witnesses its whole subtree, so a kept node's parent is either kept or
  // has no visible ancestor at all: kept nodes without a kept parent are the new roots.
  const rootNodeIds = kept.filter((n) => {
    const parent = parentOf.get(n.nodeId)
    return parent === undefined || !keptIds.has(parent)
  }).map((n) => n.nodeId)
  const projection: TransactionUpdate = { ...update, nodes: kept, rootNodeIds }
  if (known === undefined) partialProjections.set(update, [projection])
  else known.push(projection)
  return projection
}
