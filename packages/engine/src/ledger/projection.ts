/**
 * What one node (or one party) sees of a transaction: the nodes that have a witness among the
 * given parties, with the topmost of them as roots. Node ids stay those of the full tree.
 */
import type { PartyId, TransactionUpdate, TxNode } from "@sandnet/core"

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
  // A witness of a node witnesses its whole subtree, so a kept node's parent is either kept or
  // has no visible ancestor at all: kept nodes without a kept parent are the new roots.
  const rootNodeIds = kept.filter((n) => {
    const parent = parentOf.get(n.nodeId)
    return parent === undefined || !keptIds.has(parent)
  }).map((n) => n.nodeId)
  return { ...update, nodes: kept, rootNodeIds }
}
