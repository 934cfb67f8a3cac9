import { describe, expect, it } from "@effect/vitest"
import { InvariantViolation } from "@sandnet/core"
import { FastCheck as fc } from "effect"
import {
  finalStateNames,
  start,
  stateNames,
  stateOf,
  step,
  submissionDecision,
  TRACKING_ID_STATES,
  trackingIdMachine,
  type TrackingIdEvent,
  type TrackingIdState
} from "../../src/machines/index.ts"
import { checkPaths, checkRandomWalk, checkRefusals, checkRoundTrips, roundTrip, walk, type StatePaths } from "./harness.ts"

const input = { trackingId: "9f1c-tracking" }
const submit: TrackingIdEvent = { type: "submit" }
const succeed: TrackingIdEvent = { type: "succeed", contractId: "00offer" }
const fail: TrackingIdEvent = { type: "fail", reason: "sender has no wallet" }

const probes: ReadonlyArray<TrackingIdEvent> = [submit, succeed, fail]

const paths: StatePaths<typeof trackingIdMachine> & Record<TrackingIdState, unknown> = {
  free: { events: [], allowed: ["submit"] },
  inProgress: { events: [submit], allowed: ["succeed", "fail"] },
  created: { events: [submit, succeed], allowed: [] }
}

describe("tracking id lifecycle", () => {
  it("declares free, inProgress and created, with created final", () => {
    expect(stateNames(trackingIdMachine)).toEqual([...TRACKING_ID_STATES])
    expect(finalStateNames(trackingIdMachine)).toEqual(["created"])
  })

  it("answers proceed, 429 (inProgress) and 409 (alreadyCreated) along the way", () => {
    expect(submissionDecision(undefined)).toBe("proceed")
    const free = start(trackingIdMachine, input)
    expect(submissionDecision(free)).toBe("proceed")
    const inProgress = walk(trackingIdMachine, input, [submit])
    expect(submissionDecision(inProgress)).toBe("inProgress")
    const created = walk(trackingIdMachine, input, [submit, succeed])
    expect(submissionDecision(created)).toBe("alreadyCreated")
    expect(created.context.contractId).toBe("00offer")
  })

  it("is free again after a failure, remembering why, and may then succeed", () => {
    const failed = walk(trackingIdMachine, input, [submit, fail])
    expect(stateOf(failed)).toBe("free")
    expect(submissionDecision(failed)).toBe("proceed")
    expect(failed.context).toEqual({
      trackingId: input.trackingId,
      attempts: 1,
      failures: 1,
      lastFailureReason: "sender has no wallet",
      contractId: null
    })
    const created = walk(trackingIdMachine, input, [submit, fail, submit, succeed])
    expect(created.context).toMatchObject({ attempts: 2, failures: 1, lastFailureReason: "sender has no wallet" })
  })

  it("walks every allowed path", () => {
    checkPaths(trackingIdMachine, input, paths)
  })

  it("refuses a second submit while in progress and anything once created", () => {
    checkRefusals(trackingIdMachine, input, paths, probes)
  })

  it("survives a JSON round trip in every state", () => {
    checkRoundTrips(trackingIdMachine, input, paths, probes)
    const afterFailure = walk(trackingIdMachine, input, [submit, fail])
    expect(roundTrip(trackingIdMachine, afterFailure).context).toEqual(afterFailure.context)
  })

  it("refuses an empty tracking id", () => {
    expect(() => start(trackingIdMachine, { trackingId: "" })).toThrow(InvariantViolation)
  })

  it("keeps counters increasing, and once created answers alreadyCreated forever", () => {
    const event: fc.Arbitrary<TrackingIdEvent> = fc.oneof(
      fc.constant(submit),
      fc.string({ minLength: 1 }).map((contractId): TrackingIdEvent => ({ type: "succeed", contractId })),
      fc.string().map((reason): TrackingIdEvent => ({ type: "fail", reason }))
    )
    fc.assert(
      fc.property(fc.array(event, { maxLength: 16 }), (events) => {
        checkRandomWalk(trackingIdMachine, input, events, TRACKING_ID_STATES)
        let snapshot = start(trackingIdMachine, input)
        let createdWith: string | null = null
        for (const e of events) {
          const before = snapshot.context
          snapshot = step(trackingIdMachine, snapshot, e).snapshot
          expect(snapshot.context.attempts).toBeGreaterThanOrEqual(before.attempts)
          expect(snapshot.context.failures).toBeGreaterThanOrEqual(before.failures)
          expect(snapshot.context.failures).toBeLessThanOrEqual(snapshot.context.attempts)
          if (createdWith !== null) {
            expect(submissionDecision(snapshot)).toBe("alreadyCreated")
            expect(snapshot.context.contractId).toBe(createdWith)
          } else if (stateOf(snapshot) === "created") {
            createdWith = snapshot.context.contractId
          }
        }
      })
    )
  })
})
