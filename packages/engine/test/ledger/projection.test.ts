/**
 * A node's projection of a transaction (ledger/projection.ts): the nodes it witnesses, the topmost
 * of them as roots; nodes that see the same part share one projection object, and a node that sees
 * all of it shares the transaction itself.
 */
import { describe, expect, it } from "@effect/vitest"
import type { CreatedNode, ExercisedNode, PartyId, TransactionUpdate } from "@sandnet/core"
import { projectTransaction } from "../../src/ledger/projection.ts"

const exercised = (nodeId: number, childNodeIds: ReadonlyArray<number>, witnesses: ReadonlyArray<string>): ExercisedNode => ({
  kind: "exercised",
  nodeId,
  contractId: `c${nodeId}`,
  templateId: "T:T",
  packageName: "p",
  choice: "Go",
  choiceArgument: {},
  actingParties: [witnesses[0]!],
  consuming: true,
  childNodeIds,
  lastDescendantNodeId: Math.max(nodeId, ...childNodeIds),
  exerciseResult: null,
  stakeholders: [witnesses[0]!],
  witnesses,
  implementedInterfaces: []
})

const created = (nodeId: number, witnesses: ReadonlyArray<string>): CreatedNode => ({
  kind: "created",
  nodeId,
  contractId: `c${nodeId}`,
  templateId: "T:T",
  packageName: "p",
  createArguments: {},
  signatories: [witnesses[0]!],
  observers: [],
  createdAt: 0,
  witnesses,
  interfaceViews: {}
})

// alice exercises node 0; its children: a create only alice sees, and an exercise the dso sees with its own create
const transaction = (): TransactionUpdate => ({
  kind: "transaction",
  updateId: "u1",
  commandId: "cmd",
  workflowId: "",
  submitters: ["alice"],
  submittingParticipant: "p-alice",
  synchronizerId: "sync",
  migrationId: 0,
  recordTime: 1,
  effectiveAt: 1,
  rootNodeIds: [0],
  nodes: [exercised(0, [1, 2], ["alice"]), created(1, ["alice"]), exercised(2, [3], ["alice", "dso"]), created(3, ["alice", "dso"])],
  paidTrafficCost: 0
})

const hosting = (...parties: ReadonlyArray<string>) => (party: PartyId) => parties.includes(party)

describe("a node's projection of a transaction", () => {
  it("keeps the nodes it witnesses, the topmost as roots, and nothing when it witnesses none", () => {
    const update = transaction()
    const dsoView = projectTransaction(update, hosting("dso"))!
    expect(dsoView.nodes.map((n) => n.nodeId)).toEqual([2, 3])
    expect(dsoView.rootNodeIds).toEqual([2])
    expect({ ...dsoView, nodes: undefined, rootNodeIds: undefined }).toEqual({ ...update, nodes: undefined, rootNodeIds: undefined })
    expect(projectTransaction(update, hosting("bob"))).toBeUndefined()
  })

  it("is the transaction itself for a node that sees all of it, and one shared object for nodes that see the same part", () => {
    const update = transaction()
    expect(projectTransaction(update, hosting("alice"))).toBe(update)
    // two super validators' participants, each hosting the DSO (and one a party of its own that sees nothing here)
    const first = projectTransaction(update, hosting("dso"))
    const second = projectTransaction(update, hosting("dso", "carol"))
    expect(second).toBe(first)
    // the same part of another transaction is another projection
    const other = transaction()
    expect(projectTransaction(other, hosting("dso"))).not.toBe(first)
    expect(projectTransaction(other, hosting("dso"))).toEqual(first)
  })
})
