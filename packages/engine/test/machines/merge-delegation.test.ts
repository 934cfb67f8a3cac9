import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  finalStateNames,
  MERGE_DELEGATION_STATES,
  mergeDelegationMachine,
  start,
  stateNames,
  stateOf,
  type MergeDelegationEvent,
  type MergeDelegationState
} from "../../src/machines/index.ts"
import { checkPaths, checkRandomWalk, checkRefusals, checkRoundTrips, walk, type StatePaths } from "./harness.ts"

const input = { user: "alice::1220", walletProvider: "validator-op::1220", proposalContractId: "00proposal" }
const accept: MergeDelegationEvent = { type: "accept", delegationContractId: "00delegation" }
const reject: MergeDelegationEvent = { type: "reject" }
const withdraw: MergeDelegationEvent = { type: "withdraw" }
const revoke: MergeDelegationEvent = { type: "revoke" }
const probes = [accept, reject, withdraw, revoke]

const paths: StatePaths<typeof mergeDelegationMachine> & Record<MergeDelegationState, unknown> = {
  proposal: { events: [], allowed: ["accept", "reject", "withdraw"] },
  active: { events: [accept], allowed: ["revoke"] },
  rejected: { events: [reject], allowed: [] },
  withdrawn: { events: [withdraw], allowed: [] },
  revoked: { events: [accept, revoke], allowed: [] }
}

describe("merge delegation lifecycle", () => {
  it("declares proposal, active and the closed states", () => {
    expect(stateNames(mergeDelegationMachine)).toEqual([...MERGE_DELEGATION_STATES])
    expect(finalStateNames(mergeDelegationMachine)).toEqual(["rejected", "withdrawn", "revoked"])
  })

  it("starts as a proposal and becomes active when the wallet provider accepts", () => {
    const proposal = start(mergeDelegationMachine, input)
    expect(stateOf(proposal)).toBe("proposal")
    expect(proposal.context.delegationContractId).toBeNull()
    const active = walk(mergeDelegationMachine, input, [accept])
    expect(active.context).toEqual({ ...input, delegationContractId: "00delegation" })
  })

  it("walks every allowed path", () => {
    checkPaths(mergeDelegationMachine, input, paths)
  })

  it("refuses, in every state, the events that state does not take", () => {
    checkRefusals(mergeDelegationMachine, input, paths, probes)
  })

  it("survives a JSON round trip in every state", () => {
    checkRoundTrips(mergeDelegationMachine, input, paths, probes)
  })

  it("never leaves its states on random event sequences, and final states stay final", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...probes), { maxLength: 8 }), (events) => {
        checkRandomWalk(mergeDelegationMachine, input, events, MERGE_DELEGATION_STATES)
      })
    )
  })
})
