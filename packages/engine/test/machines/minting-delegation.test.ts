import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  finalStateNames,
  MINTING_DELEGATION_STATES,
  mintingDelegationMachine,
  start,
  stateNames,
  stateOf,
  type MintingDelegationEvent,
  type MintingDelegationState
} from "../../src/machines/index.ts"
import { checkPaths, checkRandomWalk, checkRefusals, checkRoundTrips, walk, type StatePaths } from "./harness.ts"

const input = { proposalContractId: "00proposal", beneficiary: "ext-party::1220", delegate: "bob::1220" }
const accept: MintingDelegationEvent = { type: "accept", delegationContractId: "00minting" }
const reject: MintingDelegationEvent = { type: "reject" }
const withdraw: MintingDelegationEvent = { type: "withdraw" }
const probes = [accept, reject, withdraw]

const paths: StatePaths<typeof mintingDelegationMachine> & Record<MintingDelegationState, unknown> = {
  proposed: { events: [], allowed: ["accept", "reject", "withdraw"] },
  accepted: { events: [accept], allowed: [] },
  rejected: { events: [reject], allowed: [] },
  withdrawn: { events: [withdraw], allowed: [] }
}

describe("minting delegation proposal lifecycle", () => {
  it("declares proposed and its three outcomes, all final", () => {
    expect(stateNames(mintingDelegationMachine)).toEqual([...MINTING_DELEGATION_STATES])
    expect(finalStateNames(mintingDelegationMachine)).toEqual(["accepted", "rejected", "withdrawn"])
  })

  it("records the MintingDelegation contract created on accept", () => {
    expect(stateOf(start(mintingDelegationMachine, input))).toBe("proposed")
    const accepted = walk(mintingDelegationMachine, input, [accept])
    expect(accepted.context).toEqual({ ...input, delegationContractId: "00minting" })
  })

  it("walks every allowed path", () => {
    checkPaths(mintingDelegationMachine, input, paths)
  })

  it("refuses, in every state, the events that state does not take", () => {
    checkRefusals(mintingDelegationMachine, input, paths, probes)
  })

  it("survives a JSON round trip in every state", () => {
    checkRoundTrips(mintingDelegationMachine, input, paths, probes)
  })

  it("never leaves its states on random event sequences, and final states stay final", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...probes), { maxLength: 6 }), (events) => {
        checkRandomWalk(mintingDelegationMachine, input, events, MINTING_DELEGATION_STATES)
      })
    )
  })
})
