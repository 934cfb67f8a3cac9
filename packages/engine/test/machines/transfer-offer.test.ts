import { describe, expect, it } from "@effect/vitest"
import { InvariantViolation } from "@sandnet/core"
import { FastCheck as fc } from "effect"
import {
  finalStateNames,
  start,
  stateNames,
  stateOf,
  step,
  TRANSFER_OFFER_STATES,
  transferOfferMachine,
  type TransferOfferEvent,
  type TransferOfferInput,
  type TransferOfferState
} from "../../src/machines/index.ts"
import { checkPaths, checkRandomWalk, checkRefusals, checkRoundTrips, walk, type StatePaths } from "./harness.ts"

const EXPIRES_AT = 1_767_225_600_000_000 + 3_600_000_000

const input: TransferOfferInput = {
  offerContractId: "00offer",
  trackingId: "track-1",
  sender: "alice::1220",
  receiver: "bob::1220",
  amount: "12.5",
  description: "lunch",
  expiresAt: EXPIRES_AT
}

const accept = (ledgerTime: number): TransferOfferEvent => ({ type: "accept", ledgerTime })
const expire = (ledgerTime: number): TransferOfferEvent => ({ type: "expire", ledgerTime })
const reject: TransferOfferEvent = { type: "reject" }
const withdraw: TransferOfferEvent = { type: "withdraw" }
const complete: TransferOfferEvent = { type: "complete" }
const fail: TransferOfferEvent = { type: "fail", reason: "insufficient funds" }

/** One event of every type, with times that every guard would let through if the state allowed it. */
const probes: ReadonlyArray<TransferOfferEvent> = [
  accept(EXPIRES_AT - 1),
  expire(EXPIRES_AT),
  reject,
  withdraw,
  complete,
  fail
]

/** How to reach each state, and which event types it takes. */
const paths: StatePaths<typeof transferOfferMachine> & Record<TransferOfferState, unknown> = {
  created: { events: [], allowed: ["accept", "expire", "reject", "withdraw"] },
  accepted: { events: [accept(EXPIRES_AT - 10)], allowed: ["complete", "fail"] },
  completed: { events: [accept(EXPIRES_AT - 10), complete], allowed: [] },
  failed: { events: [accept(EXPIRES_AT - 10), fail], allowed: [] },
  rejected: { events: [reject], allowed: [] },
  withdrawn: { events: [withdraw], allowed: [] },
  expired: { events: [expire(EXPIRES_AT + 5)], allowed: [] }
}

describe("legacy transfer offer lifecycle", () => {
  it("declares the spec's states, with the closed ones final", () => {
    expect(stateNames(transferOfferMachine)).toEqual([...TRANSFER_OFFER_STATES])
    expect(finalStateNames(transferOfferMachine)).toEqual(["completed", "failed", "rejected", "withdrawn", "expired"])
  })

  it("starts created with the offer's terms and no outcome", () => {
    const created = start(transferOfferMachine, input)
    expect(stateOf(created)).toBe("created")
    expect(created.context).toEqual({ ...input, acceptedAt: null, failureReason: null })
  })

  it("walks every allowed path", () => {
    checkPaths(transferOfferMachine, input, paths)
  })

  it("records the acceptance time and the failure reason", () => {
    const accepted = walk(transferOfferMachine, input, [accept(EXPIRES_AT - 7)])
    expect(accepted.context.acceptedAt).toBe(EXPIRES_AT - 7)
    const failed = walk(transferOfferMachine, input, [accept(EXPIRES_AT - 7), fail])
    expect(failed.context.failureReason).toBe("insufficient funds")
    const completed = walk(transferOfferMachine, input, [accept(EXPIRES_AT - 7), complete])
    expect(completed.context.failureReason).toBeNull()
  })

  it("refuses, in every state, the events that state does not take", () => {
    checkRefusals(transferOfferMachine, input, paths, probes)
  })

  it("accepts up to one microsecond before expiresAt, and refuses at expiresAt", () => {
    const created = start(transferOfferMachine, input)
    expect(stateOf(step(transferOfferMachine, created, accept(EXPIRES_AT - 1)).snapshot)).toBe("accepted")
    const atExpiry = step(transferOfferMachine, created, accept(EXPIRES_AT))
    expect(atExpiry).toEqual({
      accepted: false,
      snapshot: created,
      refusal: { kind: "conditionFailed", state: "created", event: "accept", guards: ["beforeExpiry"] }
    })
    expect(step(transferOfferMachine, created, accept(EXPIRES_AT + 1)).accepted).toBe(false)
  })

  it("expires at expiresAt and not a microsecond before", () => {
    const created = start(transferOfferMachine, input)
    const early = step(transferOfferMachine, created, expire(EXPIRES_AT - 1))
    expect(early.accepted).toBe(false)
    if (!early.accepted) expect(early.refusal).toMatchObject({ kind: "conditionFailed", guards: ["atOrAfterExpiry"] })
    expect(stateOf(step(transferOfferMachine, created, expire(EXPIRES_AT)).snapshot)).toBe("expired")
  })

  it("can no longer be accepted once expired", () => {
    const expired = walk(transferOfferMachine, input, [expire(EXPIRES_AT)])
    const late = step(transferOfferMachine, expired, accept(EXPIRES_AT - 1))
    expect(late.accepted).toBe(false)
  })

  it("survives a JSON round trip in every state", () => {
    checkRoundTrips(transferOfferMachine, input, paths, [...probes, accept(EXPIRES_AT), expire(EXPIRES_AT - 1)])
  })

  it("rejects terms that break the amount rules", () => {
    expect(() => start(transferOfferMachine, { ...input, amount: "-1" })).toThrow(InvariantViolation)
    expect(() => start(transferOfferMachine, { ...input, amount: "0" })).toThrow(InvariantViolation)
    expect(() => start(transferOfferMachine, { ...input, amount: "1.00000000001" })).toThrow(InvariantViolation)
  })

  it("never leaves its states on random event sequences, and final states stay final", () => {
    const time = fc.oneof(
      fc.integer({ min: EXPIRES_AT - 2, max: EXPIRES_AT + 1 }),
      fc.integer({ min: 0, max: 2 * EXPIRES_AT })
    )
    const event: fc.Arbitrary<TransferOfferEvent> = fc.oneof(
      time.map(accept),
      time.map(expire),
      fc.constant(reject),
      fc.constant(withdraw),
      fc.constant(complete),
      fc.string().map((reason): TransferOfferEvent => ({ type: "fail", reason }))
    )
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), (events) => {
        checkRandomWalk(transferOfferMachine, input, events, TRANSFER_OFFER_STATES)
      })
    )
  })
})
