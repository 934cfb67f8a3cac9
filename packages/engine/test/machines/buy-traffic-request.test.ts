import { describe, expect, it } from "@effect/vitest"
import { InvariantViolation } from "@sandnet/core"
import { FastCheck as fc } from "effect"
import {
  BUY_TRAFFIC_REQUEST_STATES,
  buyTrafficRequestMachine,
  buyTrafficRequestStatus,
  finalStateNames,
  start,
  stateNames,
  stateOf,
  step,
  type BuyTrafficRequestEvent,
  type BuyTrafficRequestInput,
  type BuyTrafficRequestState
} from "../../src/machines/index.ts"
import { checkPaths, checkRandomWalk, checkRefusals, checkRoundTrips, walk, type StatePaths } from "./harness.ts"

const EXPIRES_AT = 1_767_225_600_000_000 + 600_000_000

const input: BuyTrafficRequestInput = {
  trackingId: "traffic-1",
  endUserParty: "alice::1220",
  memberId: "PAR::validator-1::1220",
  synchronizerId: "global-domain::1220",
  migrationId: 0,
  trafficAmount: 2_000_000,
  expiresAt: EXPIRES_AT
}

const complete = (ledgerTime: number): BuyTrafficRequestEvent => ({ type: "complete", ledgerTime })
const expire = (ledgerTime: number): BuyTrafficRequestEvent => ({ type: "expire", ledgerTime })
const reject: BuyTrafficRequestEvent = { type: "reject", reason: "insufficient funds" }
const probes = [complete(EXPIRES_AT - 1), expire(EXPIRES_AT), reject]

const paths: StatePaths<typeof buyTrafficRequestMachine> & Record<BuyTrafficRequestState, unknown> = {
  created: { events: [], allowed: ["complete", "expire", "reject"] },
  completed: { events: [complete(EXPIRES_AT - 50)], allowed: [] },
  failed: { events: [reject], allowed: [] }
}

describe("buy-traffic request lifecycle", () => {
  it("declares created, completed and failed, the last two final", () => {
    expect(stateNames(buyTrafficRequestMachine)).toEqual([...BUY_TRAFFIC_REQUEST_STATES])
    expect(finalStateNames(buyTrafficRequestMachine)).toEqual(["completed", "failed"])
  })

  it("walks every allowed path", () => {
    checkPaths(buyTrafficRequestMachine, input, paths)
    checkPaths(buyTrafficRequestMachine, input, { failed: { events: [expire(EXPIRES_AT)], allowed: [] } })
  })

  it("reports the status the wallet API shows", () => {
    expect(buyTrafficRequestStatus(start(buyTrafficRequestMachine, input))).toEqual({ status: "created" })
    const completed = walk(buyTrafficRequestMachine, input, [complete(EXPIRES_AT - 1)])
    expect(buyTrafficRequestStatus(completed)).toEqual({ status: "completed" })
    expect(completed.context.completedAt).toBe(EXPIRES_AT - 1)
    expect(buyTrafficRequestStatus(walk(buyTrafficRequestMachine, input, [expire(EXPIRES_AT)]))).toEqual({
      status: "failed",
      failureReason: "expired",
      rejectionReason: null
    })
    expect(buyTrafficRequestStatus(walk(buyTrafficRequestMachine, input, [reject]))).toEqual({
      status: "failed",
      failureReason: "rejected",
      rejectionReason: "insufficient funds"
    })
  })

  it("completes at expiresAt - 1 but not at expiresAt", () => {
    const created = start(buyTrafficRequestMachine, input)
    expect(step(buyTrafficRequestMachine, created, complete(EXPIRES_AT - 1)).accepted).toBe(true)
    const late = step(buyTrafficRequestMachine, created, complete(EXPIRES_AT))
    expect(late.accepted).toBe(false)
    if (!late.accepted) expect(late.refusal).toMatchObject({ kind: "conditionFailed", guards: ["beforeExpiry"] })
  })

  it("expires at expiresAt but not at expiresAt - 1", () => {
    const created = start(buyTrafficRequestMachine, input)
    const early = step(buyTrafficRequestMachine, created, expire(EXPIRES_AT - 1))
    expect(early.accepted).toBe(false)
    if (!early.accepted) expect(early.refusal).toMatchObject({ kind: "conditionFailed", guards: ["atOrAfterExpiry"] })
    expect(stateOf(step(buyTrafficRequestMachine, created, expire(EXPIRES_AT)).snapshot)).toBe("failed")
  })

  it("refuses everything once completed or failed", () => {
    checkRefusals(buyTrafficRequestMachine, input, paths, probes)
  })

  it("survives a JSON round trip in every state", () => {
    checkRoundTrips(buyTrafficRequestMachine, input, paths, [...probes, complete(EXPIRES_AT), expire(EXPIRES_AT - 1)])
  })

  it("refuses a traffic amount that is not a positive whole number of bytes", () => {
    expect(() => start(buyTrafficRequestMachine, { ...input, trafficAmount: 0 })).toThrow(InvariantViolation)
    expect(() => start(buyTrafficRequestMachine, { ...input, trafficAmount: 1.5 })).toThrow(InvariantViolation)
  })

  it("never leaves its states on random event sequences, and final states stay final", () => {
    const time = fc.oneof(fc.integer({ min: EXPIRES_AT - 2, max: EXPIRES_AT + 1 }), fc.integer({ min: 0, max: 2 * EXPIRES_AT }))
    const event: fc.Arbitrary<BuyTrafficRequestEvent> = fc.oneof(
      time.map(complete),
      time.map(expire),
      fc.string().map((reason): BuyTrafficRequestEvent => ({ type: "reject", reason }))
    )
    fc.assert(
      fc.property(fc.array(event, { maxLength: 8 }), (events) => {
        checkRandomWalk(buyTrafficRequestMachine, input, events, BUY_TRAFFIC_REQUEST_STATES)
        const final = events.reduce((s, e) => step(buyTrafficRequestMachine, s, e).snapshot, start(buyTrafficRequestMachine, input))
        // Failed always says why; completed never does.
        const status = buyTrafficRequestStatus(final)
        expect(status.status === "failed").toBe(final.context.failureReason !== null)
      })
    )
  })
})
