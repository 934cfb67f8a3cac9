import { describe, expect, it } from "@effect/vitest"
import { InvariantViolation } from "@sandnet/core"
import { FastCheck as fc } from "effect"
import {
  finalStateNames,
  isInFlight,
  reassignmentMachine,
  REASSIGNMENT_STATES,
  start,
  stateNames,
  stateOf,
  step,
  type ReassignmentContext,
  type ReassignmentEvent,
  type ReassignmentState
} from "../../src/machines/index.ts"
import { checkPaths, checkRandomWalk, checkRefusals, checkRoundTrips, walk, type StatePaths } from "./harness.ts"

const GLOBAL = "global-domain::1220"
const PRIVATE = "private-sync::1220"
const input = { contractId: "00holding", synchronizerId: GLOBAL, reassignmentCounter: 0 }

const unassign = (counter: number, unassignId = `u${counter}`, source = GLOBAL, target = PRIVATE): ReassignmentEvent => ({
  type: "unassign",
  unassignId,
  source,
  target,
  reassignmentCounter: counter
})
const assign = (counter: number, unassignId = `u${counter}`, source = GLOBAL, target = PRIVATE): ReassignmentEvent => ({
  type: "assign",
  unassignId,
  source,
  target,
  reassignmentCounter: counter
})

const paths: StatePaths<typeof reassignmentMachine> & Record<ReassignmentState, unknown> = {
  assigned: { events: [], allowed: ["unassign"] },
  unassigned: { events: [unassign(1)], allowed: ["assign"] }
}

describe("reassignment lifecycle", () => {
  it("declares assigned and unassigned, neither final", () => {
    expect(stateNames(reassignmentMachine)).toEqual([...REASSIGNMENT_STATES])
    expect(finalStateNames(reassignmentMachine)).toEqual([])
  })

  it("walks every allowed path", () => {
    checkPaths(reassignmentMachine, input, paths)
    checkPaths(reassignmentMachine, input, {
      assigned: { events: [unassign(1), assign(1)], allowed: ["unassign"] },
      unassigned: { events: [unassign(1), assign(1), unassign(2, "u2", PRIVATE, GLOBAL)], allowed: ["assign"] }
    })
  })

  it("raises the counter by one on unassign and keeps it on assign to the target", () => {
    const unassigned = walk(reassignmentMachine, input, [unassign(1)])
    expect(unassigned.context).toEqual({
      contractId: "00holding",
      synchronizerId: GLOBAL,
      reassignmentCounter: 1,
      pending: { unassignId: "u1", source: GLOBAL, target: PRIVATE }
    })
    expect(isInFlight(unassigned)).toBe(true)
    const assigned = walk(reassignmentMachine, input, [unassign(1), assign(1)])
    expect(assigned.context).toEqual({ contractId: "00holding", synchronizerId: PRIVATE, reassignmentCounter: 1, pending: null })
    expect(isInFlight(assigned)).toBe(false)
    const back = walk(reassignmentMachine, input, [
      unassign(1),
      assign(1),
      unassign(2, "u2", PRIVATE, GLOBAL),
      assign(2, "u2", PRIVATE, GLOBAL)
    ])
    expect(back.context).toMatchObject({ synchronizerId: GLOBAL, reassignmentCounter: 2 })
  })

  it("refuses assign while assigned and unassign while unassigned", () => {
    checkRefusals(reassignmentMachine, input, paths, [unassign(1), assign(1)])
    const unassigned = walk(reassignmentMachine, input, [unassign(1)])
    expect(step(reassignmentMachine, unassigned, unassign(2, "u2", GLOBAL, PRIVATE)).accepted).toBe(false)
  })

  it("refuses an unassign that breaks the counter or synchronizer rules", () => {
    const assigned = start(reassignmentMachine, input)
    for (const bad of [
      unassign(0),
      unassign(2),
      unassign(1, "u1", PRIVATE, GLOBAL), // not on the claimed source
      unassign(1, "u1", GLOBAL, GLOBAL), // source = target
      unassign(1, "") // no unassign id
    ]) {
      const result = step(reassignmentMachine, assigned, bad)
      expect(result.accepted).toBe(false)
      if (!result.accepted) expect(result.refusal).toMatchObject({ kind: "conditionFailed", guards: ["validUnassign"] })
    }
  })

  it("refuses an assign that does not match the pending unassign", () => {
    const unassigned = walk(reassignmentMachine, input, [unassign(1)])
    for (const bad of [
      assign(2), // counter + 1 again
      assign(0), // counter not kept
      assign(1, "other"), // another unassign id
      assign(1, "u1", GLOBAL, "third-sync::1220"), // another target
      assign(1, "u1", "third-sync::1220", PRIVATE) // another source
    ]) {
      const result = step(reassignmentMachine, unassigned, bad)
      expect(result.accepted).toBe(false)
      expect(result.snapshot).toBe(unassigned)
      if (!result.accepted) {
        expect(result.refusal).toEqual({
          kind: "conditionFailed",
          state: "unassigned",
          event: "assign",
          guards: ["matchesPendingUnassign"]
        })
      }
    }
  })

  it("survives a JSON round trip in both states", () => {
    checkRoundTrips(reassignmentMachine, input, paths, [unassign(1), assign(1), unassign(2), assign(0)])
  })

  it("refuses a negative or fractional starting counter", () => {
    expect(() => start(reassignmentMachine, { ...input, reassignmentCounter: -1 })).toThrow(InvariantViolation)
    expect(() => start(reassignmentMachine, { ...input, reassignmentCounter: 0.5 })).toThrow(InvariantViolation)
  })

  it("keeps the counter rules on random event sequences", () => {
    const syncs = [GLOBAL, PRIVATE, "third-sync::1220"]
    const move = fc.record({
      unassignId: fc.constantFrom("u1", "u2", "u3", ""),
      source: fc.constantFrom(...syncs),
      target: fc.constantFrom(...syncs),
      reassignmentCounter: fc.integer({ min: 0, max: 4 })
    })
    const randomEvent: fc.Arbitrary<ReassignmentEvent> = fc.oneof(
      move.map((m): ReassignmentEvent => ({ type: "unassign", ...m })),
      move.map((m): ReassignmentEvent => ({ type: "assign", ...m }))
    )
    // Random moves are almost always refused, so half of the tokens stand for "the valid next
    // move from wherever the contract is", resolved while walking.
    const token = fc.oneof(fc.constantFrom(...syncs).map((target) => ({ next: target })), randomEvent)
    fc.assert(
      fc.property(fc.array(token, { maxLength: 20 }), (tokens) => {
        let snapshot = start(reassignmentMachine, input)
        const events: Array<ReassignmentEvent> = []
        for (const t of tokens) {
          const e = "next" in t ? validNext(snapshot.context, t.next, events.length) : t
          events.push(e)
          const before = snapshot.context
          const result = step(reassignmentMachine, snapshot, e)
          snapshot = result.snapshot
          const after = snapshot.context
          if (!result.accepted) continue
          if (e.type === "unassign") {
            expect(after.reassignmentCounter).toBe(before.reassignmentCounter + 1)
            expect(after.pending).toEqual({ unassignId: e.unassignId, source: before.synchronizerId, target: e.target })
          } else {
            expect(after.reassignmentCounter).toBe(before.reassignmentCounter)
            expect(after.synchronizerId).toBe(before.pending?.target)
            expect(e.unassignId).toBe(before.pending?.unassignId)
          }
          expect(isInFlight(snapshot)).toBe(stateOf(snapshot) === "unassigned")
          expect(after.pending === null).toBe(stateOf(snapshot) === "assigned")
        }
        checkRandomWalk(reassignmentMachine, input, events, REASSIGNMENT_STATES)
      })
    )
  })
})

/** The move the rules allow next: complete the pending unassign, or leave for `target`. */
const validNext = (context: ReassignmentContext, target: string, seq: number): ReassignmentEvent => {
  if (context.pending !== null) {
    return { type: "assign", ...context.pending, reassignmentCounter: context.reassignmentCounter }
  }
  const to = target === context.synchronizerId ? `${target}-other` : target
  return unassign(context.reassignmentCounter + 1, `u-${seq}`, context.synchronizerId, to)
}
