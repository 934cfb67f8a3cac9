import { describe, expect, it } from "@effect/vitest"
import { InvariantViolation } from "@sandnet/core"
import { FastCheck as fc } from "effect"
import {
  finalStateNames,
  lockedCoinDisposition,
  start,
  stateNames,
  stateOf,
  step,
  TRANSFER_INSTRUCTION_STATES,
  transferInstructionMachine,
  type TransferInstructionEvent,
  type TransferInstructionInput,
  type TransferInstructionState
} from "../../src/machines/index.ts"
import { checkPaths, checkRandomWalk, checkRefusals, checkRoundTrips, walk, type StatePaths } from "./harness.ts"

const EXPIRES_AT = 1_767_225_600_000_000 + 86_400_000_000

const input: TransferInstructionInput = {
  instructionId: "00instr",
  sender: "alice::1220",
  receiver: "bob::1220",
  amount: "100.0000000000",
  lockedHoldingIds: ["00lockA", "00lockB"],
  expiresAt: EXPIRES_AT
}

const accept = (ledgerTime: number): TransferInstructionEvent => ({ type: "accept", ledgerTime })
const expire = (ledgerTime: number): TransferInstructionEvent => ({ type: "expire", ledgerTime })
const reject: TransferInstructionEvent = { type: "reject" }
const withdraw: TransferInstructionEvent = { type: "withdraw" }

const probes: ReadonlyArray<TransferInstructionEvent> = [accept(EXPIRES_AT - 1), expire(EXPIRES_AT), reject, withdraw]

const paths: StatePaths<typeof transferInstructionMachine> & Record<TransferInstructionState, unknown> = {
  pending: { events: [], allowed: ["accept", "expire", "reject", "withdraw"] },
  completed: { events: [accept(EXPIRES_AT - 100)], allowed: [] },
  rejected: { events: [reject], allowed: [] },
  expired: { events: [expire(EXPIRES_AT + 100)], allowed: [] },
  withdrawn: { events: [withdraw], allowed: [] }
}

describe("token-standard transfer instruction lifecycle", () => {
  it("declares the spec's states, every closed one final", () => {
    expect(stateNames(transferInstructionMachine)).toEqual([...TRANSFER_INSTRUCTION_STATES])
    expect(finalStateNames(transferInstructionMachine)).toEqual(["completed", "rejected", "expired", "withdrawn"])
  })

  it("starts pending with the coin locked", () => {
    const pending = start(transferInstructionMachine, input)
    expect(stateOf(pending)).toBe("pending")
    expect(pending.context).toEqual({ ...input, completedAt: null })
    expect(lockedCoinDisposition(pending)).toBe("locked")
  })

  it("walks every allowed path", () => {
    checkPaths(transferInstructionMachine, input, paths)
  })

  it("pays the receiver on accept and returns the coin to the sender otherwise", () => {
    const completed = walk(transferInstructionMachine, input, [accept(EXPIRES_AT - 3)])
    expect(lockedCoinDisposition(completed)).toBe("transferredToReceiver")
    expect(completed.context.completedAt).toBe(EXPIRES_AT - 3)
    for (const closing of [reject, withdraw, expire(EXPIRES_AT)]) {
      expect(lockedCoinDisposition(walk(transferInstructionMachine, input, [closing]))).toBe("returnedToSender")
    }
  })

  it("refuses, in every state, the events that state does not take", () => {
    checkRefusals(transferInstructionMachine, input, paths, probes)
  })

  it("accepts at expiresAt - 1 and refuses at expiresAt", () => {
    const pending = start(transferInstructionMachine, input)
    expect(stateOf(step(transferInstructionMachine, pending, accept(EXPIRES_AT - 1)).snapshot)).toBe("completed")
    const late = step(transferInstructionMachine, pending, accept(EXPIRES_AT))
    expect(late.accepted).toBe(false)
    if (!late.accepted) {
      expect(late.refusal).toEqual({ kind: "conditionFailed", state: "pending", event: "accept", guards: ["beforeExpiry"] })
    }
  })

  it("expires at expiresAt and not at expiresAt - 1", () => {
    const pending = start(transferInstructionMachine, input)
    const early = step(transferInstructionMachine, pending, expire(EXPIRES_AT - 1))
    expect(early.accepted).toBe(false)
    if (!early.accepted) expect(early.refusal).toMatchObject({ kind: "conditionFailed", guards: ["atOrAfterExpiry"] })
    expect(stateOf(step(transferInstructionMachine, pending, expire(EXPIRES_AT)).snapshot)).toBe("expired")
  })

  it("does not alias the caller's holding list", () => {
    const holdings = ["00lockA"]
    const pending = start(transferInstructionMachine, { ...input, lockedHoldingIds: holdings })
    holdings.push("00other")
    expect(pending.context.lockedHoldingIds).toEqual(["00lockA"])
  })

  it("survives a JSON round trip in every state", () => {
    checkRoundTrips(transferInstructionMachine, input, paths, [...probes, accept(EXPIRES_AT), expire(EXPIRES_AT - 1)])
  })

  it("refuses to lock nothing or a non-positive amount", () => {
    expect(() => start(transferInstructionMachine, { ...input, lockedHoldingIds: [] })).toThrow(InvariantViolation)
    expect(() => start(transferInstructionMachine, { ...input, amount: "0" })).toThrow(InvariantViolation)
    expect(() => start(transferInstructionMachine, { ...input, amount: "-5" })).toThrow(InvariantViolation)
  })

  it("never leaves its states on random event sequences, and final states stay final", () => {
    const time = fc.oneof(fc.integer({ min: EXPIRES_AT - 2, max: EXPIRES_AT + 1 }), fc.integer({ min: 0, max: 2 * EXPIRES_AT }))
    const event: fc.Arbitrary<TransferInstructionEvent> = fc.oneof(
      time.map(accept),
      time.map(expire),
      fc.constant(reject),
      fc.constant(withdraw)
    )
    fc.assert(
      fc.property(fc.array(event, { maxLength: 10 }), (events) => {
        checkRandomWalk(transferInstructionMachine, input, events, TRANSFER_INSTRUCTION_STATES)
      })
    )
  })
})
