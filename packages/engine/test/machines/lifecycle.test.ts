import { describe, expect, it } from "@effect/vitest"
import { InvariantViolation } from "@sandnet/core"
import { assign, setup } from "xstate"
import {
  accepts,
  isFinal,
  persist,
  replay,
  restore,
  start,
  stateOf,
  step,
  trackingIdMachine,
  transferOfferMachine,
  type TrackingIdEvent
} from "../../src/machines/index.ts"

const offerInput = {
  offerContractId: "00offer",
  trackingId: "t-1",
  sender: "alice::1220",
  receiver: "bob::1220",
  amount: "1",
  description: "",
  expiresAt: 1_000
}

describe("lifecycle helpers", () => {
  it("persists to plain JSON tagged with the machine id and version", () => {
    const created = start(transferOfferMachine, offerInput)
    const persisted = persist(transferOfferMachine, created)
    expect(JSON.parse(JSON.stringify(persisted))).toEqual({
      machine: "transferOffer",
      version: "1",
      state: "created",
      context: { ...offerInput, acceptedAt: null, failureReason: null }
    })
  })

  it("restores final snapshots as final", () => {
    const expired = step(transferOfferMachine, start(transferOfferMachine, offerInput), { type: "expire", ledgerTime: 1_000 })
    const restored = restore(transferOfferMachine, JSON.parse(JSON.stringify(persist(transferOfferMachine, expired.snapshot))))
    expect(stateOf(restored)).toBe("expired")
    expect(isFinal(restored)).toBe(true)
    expect(step(transferOfferMachine, restored, { type: "accept", ledgerTime: 0 }).accepted).toBe(false)
  })

  it("refuses to restore another machine's snapshot, another version, an unknown state or a bad context", () => {
    const persisted = JSON.parse(JSON.stringify(persist(transferOfferMachine, start(transferOfferMachine, offerInput))))
    expect(() => restore(trackingIdMachine, persisted)).toThrow(InvariantViolation)
    expect(() => restore(transferOfferMachine, { ...persisted, version: "0" })).toThrow(InvariantViolation)
    expect(() => restore(transferOfferMachine, { ...persisted, state: "open" })).toThrow(InvariantViolation)
    expect(() => restore(transferOfferMachine, { ...persisted, context: { ...persisted.context, expiresAt: "soon" } })).toThrow(
      /expiresAt/
    )
    expect(() => restore(transferOfferMachine, { ...persisted, context: null })).toThrow(InvariantViolation)
    expect(() => restore(transferOfferMachine, "created")).toThrow(InvariantViolation)
  })

  it("refuses to persist a context that JSON would change", () => {
    const loose = setup({ types: { context: {} as { n: bigint } } }).createMachine({
      id: "loose",
      context: { n: 1n },
      initial: "only",
      states: { only: {} }
    })
    expect(() => persist(loose, start(loose, undefined))).toThrow(InvariantViolation)
  })

  it("tells a wrong-state refusal from a failed condition", () => {
    const created = start(transferOfferMachine, offerInput)
    const wrongState = step(transferOfferMachine, created, { type: "complete" })
    expect(wrongState).toMatchObject({ accepted: false, refusal: { kind: "notAllowedInState", state: "created", event: "complete" } })
    const tooLate = step(transferOfferMachine, created, { type: "accept", ledgerTime: 1_000 })
    expect(tooLate).toMatchObject({ accepted: false, refusal: { kind: "conditionFailed", guards: ["beforeExpiry"] } })
    expect(accepts(created, { type: "accept", ledgerTime: 999 })).toBe(true)
    expect(accepts(created, { type: "accept", ledgerTime: 1_000 })).toBe(false)
  })

  it("replays a log, collecting refusals without applying them", () => {
    const log: ReadonlyArray<TrackingIdEvent> = [
      { type: "submit" },
      { type: "submit" },
      { type: "fail", reason: "timeout" },
      { type: "submit" },
      { type: "succeed", contractId: "00c" },
      { type: "submit" }
    ]
    const { snapshot, refusals } = replay(trackingIdMachine, start(trackingIdMachine, { trackingId: "x" }), log)
    expect(stateOf(snapshot)).toBe("created")
    expect(snapshot.context).toMatchObject({ attempts: 2, failures: 1, contractId: "00c" })
    expect(refusals).toEqual([
      { kind: "notAllowedInState", state: "inProgress", event: "submit" },
      { kind: "notAllowedInState", state: "created", event: "submit" }
    ])
  })

  it("rethrows a broken invariant inside an action instead of hiding it in the snapshot", () => {
    const strict = setup({ types: { context: {} as { n: number }, events: {} as { type: "bump" } } }).createMachine({
      id: "strict",
      context: { n: 0 },
      initial: "only",
      states: {
        only: {
          on: {
            bump: {
              actions: assign(() => {
                throw new InvariantViolation("counter went backwards")
              })
            }
          }
        }
      }
    })
    expect(() => step(strict, start(strict, undefined), { type: "bump" })).toThrow("counter went backwards")
  })
})
