import { describe, expect, it } from "@effect/vitest"
import { InvariantViolation } from "@sandnet/core"
import { FastCheck as fc } from "effect"
import {
  deniesAccess,
  finalStateNames,
  IDENTITY_PROVIDER_STATES,
  identityProviderMachine,
  start,
  startIdentityProvider,
  stateNames,
  stateOf,
  step,
  type IdentityProviderEvent,
  type IdentityProviderState
} from "../../src/machines/index.ts"
import { checkPaths, checkRandomWalk, checkRefusals, checkRoundTrips, roundTrip, walk, type StatePaths } from "./harness.ts"

const input = {
  identityProviderId: "idp-acme",
  issuer: "https://auth.acme.example",
  jwksUrl: "https://auth.acme.example/.well-known/jwks.json",
  audience: ""
}
const deactivate: IdentityProviderEvent = { type: "update", isDeactivated: true }
const reactivate: IdentityProviderEvent = { type: "update", isDeactivated: false }
const rename: IdentityProviderEvent = { type: "update", issuer: "https://login.acme.example" }
const del: IdentityProviderEvent = { type: "delete" }
const probes = [deactivate, reactivate, rename, del]

const paths: StatePaths<typeof identityProviderMachine> & Record<IdentityProviderState, unknown> = {
  active: { events: [], allowed: ["update", "delete"] },
  deactivated: { events: [deactivate], allowed: ["update", "delete"] },
  deleted: { events: [deactivate, del], allowed: [] }
}

describe("identity provider config lifecycle", () => {
  it("declares active, deactivated and deleted, with deleted final", () => {
    expect(stateNames(identityProviderMachine)).toEqual([...IDENTITY_PROVIDER_STATES])
    expect(finalStateNames(identityProviderMachine)).toEqual(["deleted"])
  })

  it("walks every allowed path", () => {
    checkPaths(identityProviderMachine, input, paths)
    checkPaths(identityProviderMachine, input, {
      active: { events: [deactivate, reactivate], allowed: ["update", "delete"] },
      deleted: { events: [del], allowed: [] }
    })
  })

  it("toggles with isDeactivated and denies tokens unless active", () => {
    const active = start(identityProviderMachine, input)
    expect(deniesAccess(active)).toBe(false)
    const deactivated = walk(identityProviderMachine, input, [deactivate])
    expect(stateOf(deactivated)).toBe("deactivated")
    expect(deniesAccess(deactivated)).toBe(true)
    expect(deniesAccess(walk(identityProviderMachine, input, [deactivate, reactivate]))).toBe(false)
    expect(deniesAccess(walk(identityProviderMachine, input, [del]))).toBe(true)
  })

  it("applies field updates without changing state, keeping fields the update omits", () => {
    const renamed = walk(identityProviderMachine, input, [rename])
    expect(stateOf(renamed)).toBe("active")
    expect(renamed.context).toEqual({ ...input, issuer: "https://login.acme.example" })
    const both = walk(identityProviderMachine, input, [
      { type: "update", isDeactivated: true, audience: "https://ledger.acme.example" }
    ])
    expect(stateOf(both)).toBe("deactivated")
    expect(both.context.audience).toBe("https://ledger.acme.example")
    expect(both.context.issuer).toBe(input.issuer)
  })

  it("accepts an update that repeats the current isDeactivated (no state change)", () => {
    const deactivated = walk(identityProviderMachine, input, [deactivate])
    const again = step(identityProviderMachine, deactivated, deactivate)
    expect(again.accepted).toBe(true)
    expect(stateOf(again.snapshot)).toBe("deactivated")
  })

  it("can be created already deactivated", () => {
    expect(stateOf(startIdentityProvider({ ...input, isDeactivated: true }))).toBe("deactivated")
    const active = startIdentityProvider({ ...input, isDeactivated: false })
    expect(stateOf(active)).toBe("active")
    expect(active.context).toEqual(input)
  })

  it("refuses everything once deleted", () => {
    checkRefusals(identityProviderMachine, input, paths, probes)
  })

  it("survives a JSON round trip in every state", () => {
    checkRoundTrips(identityProviderMachine, input, paths, probes)
    const created = startIdentityProvider({ ...input, isDeactivated: true })
    expect(stateOf(roundTrip(identityProviderMachine, created))).toBe("deactivated")
  })

  it("refuses an empty id", () => {
    expect(() => start(identityProviderMachine, { ...input, identityProviderId: "" })).toThrow(InvariantViolation)
  })

  it("never leaves its states on random event sequences, and deleted stays deleted", () => {
    const update = fc
      .record(
        {
          isDeactivated: fc.boolean(),
          issuer: fc.constantFrom("https://a.example", "https://b.example"),
          audience: fc.constantFrom("", "aud-1")
        },
        { requiredKeys: [] }
      )
      .map((fields): IdentityProviderEvent => ({ type: "update", ...fields }))
    const event = fc.oneof({ arbitrary: update, weight: 5 }, { arbitrary: fc.constant(del), weight: 1 })
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), (events) => {
        checkRandomWalk(identityProviderMachine, input, events, IDENTITY_PROVIDER_STATES)
        // The state follows the last isDeactivated given, until a delete.
        let expected: IdentityProviderState = "active"
        for (const e of events) {
          if (expected === "deleted") break
          if (e.type === "delete") expected = "deleted"
          else if (e.isDeactivated !== undefined) expected = e.isDeactivated ? "deactivated" : "active"
        }
        const final = events.reduce((s, e) => step(identityProviderMachine, s, e).snapshot, start(identityProviderMachine, input))
        expect(stateOf(final)).toBe(expected)
      })
    )
  })
})
