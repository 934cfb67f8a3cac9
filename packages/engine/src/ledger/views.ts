/**
 * View decomposition: each root node starts a view; a child node starts a sub-view when its
 * informees are not all informees of its parent's view (so that parties only confirm what they
 * are entitled to see). A view's confirming parties are the signatories and actors of its nodes.
 */
import { sha256OfParts, type ContractId, type PartyId, type TxNode } from "@sandnet/core"
import { isSubset, sortInPlace } from "./party-lists.ts"

export interface ViewInfo {
  readonly viewId: number
  readonly parentViewId: number | undefined
  readonly nodeIds: ReadonlyArray<number>
  readonly informees: ReadonlyArray<PartyId>
  readonly confirmingParties: ReadonlyArray<PartyId>
  /** Pre-existing contracts used by this view's own nodes (exercised or fetched). */
  readonly inputContractIds: ReadonlyArray<ContractId>
  readonly subViews: ReadonlyArray<number>
  readonly viewHash: string
  /** Approximate serialized size in bytes, for traffic accounting. */
  readonly size: number
}

/** What the interpreter records of each node for its witnesses and views. */
export interface NodeMeta {
  readonly informees: ReadonlyArray<PartyId>
  readonly confirmers: ReadonlyArray<PartyId>
  parent: number | undefined
  /** Pre-existing contracts used directly by this node (its target, or fetched inside its body). */
  readonly inputs: Array<ContractId>
  size: number
}

/** A view while its nodes are placed. */
interface Building {
  viewId: number
  parentViewId: number | undefined
  nodeIds: Array<number>
  informees: Set<PartyId>
  confirmers: Set<PartyId>
  inputs: Array<ContractId>
  subViews: Array<number>
  size: number
}

export const decomposeViews = (
  nodes: ReadonlyArray<TxNode>,
  meta: ReadonlyArray<NodeMeta>,
  rootNodeIds: ReadonlyArray<number>,
  seed: string
): { views: ReadonlyArray<ViewInfo>; rootViews: ReadonlyArray<number> } => {
  const building: Array<Building> = []
  const viewOfNode = new Array<number>(nodes.length)
  const rootViews: Array<number> = []
  const open = (parentViewId: number | undefined): Building => {
    const view: Building = {
      viewId: building.length,
      parentViewId,
      nodeIds: [],
      informees: new Set(),
      confirmers: new Set(),
      inputs: [],
      subViews: [],
      size: 0
    }
    building.push(view)
    if (parentViewId === undefined) rootViews.push(view.viewId)
    else building[parentViewId]!.subViews.push(view.viewId)
    return view
  }
  const place = (nodeId: number, view: Building): void => {
    const m = meta[nodeId]!
    view.nodeIds.push(nodeId)
    for (const p of m.informees) view.informees.add(p)
    for (const p of m.confirmers) view.confirmers.add(p)
    view.inputs.push(...m.inputs)
    view.size += m.size
    viewOfNode[nodeId] = view.viewId
  }
  const visit = (nodeId: number, view: Building): void => {
    place(nodeId, view)
    const node = nodes[nodeId]!
    if (node.kind !== "exercised") return
    for (const child of node.childNodeIds) {
      const childInformees = meta[child]!.informees
      const target = isSubset(childInformees, view.informees) ? view : open(view.viewId)
      visit(child, target)
    }
  }
  for (const root of rootNodeIds) visit(root, open(undefined))
  const views = building.map((v) => viewInfoOf(v, seed))
  return { views, rootViews }
}

/** A placed view in its final form: parties sorted, inputs once each, and its hash. */
const viewInfoOf = (v: Building, seed: string): ViewInfo => {
  const informees = sortInPlace([...v.informees])
  const confirmingParties = sortInPlace([...v.confirmers])
  return {
    viewId: v.viewId,
    parentViewId: v.parentViewId,
    nodeIds: v.nodeIds,
    informees,
    confirmingParties,
    inputContractIds: [...new Set(v.inputs)],
    subViews: v.subViews,
    viewHash: sha256OfParts("view", seed, String(v.viewId), v.nodeIds.join(","), informees.join(",")),
    size: v.size
  }
}
