/**
 * Participant-local party details (party records): the update decision and its journal, replayed
 * to the same state.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Ref, Schema } from "effect"
import {
  AdminEventJson,
  AdminJournal,
  DEFAULT_ADMIN_LIMITS,
  UserManagement,
  emptyAdminState,
  partyRecordOf,
  replay,
  updatePartyDetails,
  type AdminEvent
} from "../../src/admin/index.ts"

const alice = `alice::1220${"a".repeat(64)}`
const local = { isLocal: true }

describe("party records", () => {
  it("annotations merge, clear; resourceVersion bumps and guards; isLocal is not modifiable; unknown parties", () => {
    const tag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) => (Either.isLeft(e) ? e.left._tag : "ok")
    const first = updatePartyDetails(emptyAdminState, { party: alice, localMetadata: { annotations: { a: "1", b: "2" } }, updateMask: ["local_metadata"] }, local, DEFAULT_ADMIN_LIMITS, 0)
    const decided = Either.getOrThrow(first)
    expect(decided.result.metadata).toEqual({ resourceVersion: "1", annotations: { a: "1", b: "2" } })
    const state = replay(decided.events)
    expect(partyRecordOf(state, alice)).toEqual(decided.result)
    const merged = Either.getOrThrow(
      updatePartyDetails(state, { party: alice, localMetadata: { resourceVersion: "1", annotations: { a: "", c: "3" } }, updateMask: ["localMetadata.annotations"] }, local, DEFAULT_ADMIN_LIMITS, 1)
    )
    expect(merged.result.metadata).toEqual({ resourceVersion: "2", annotations: { b: "2", c: "3" } })
    expect(tag(updatePartyDetails(state, { party: alice, localMetadata: { resourceVersion: "0" }, updateMask: ["local_metadata"] }, local, DEFAULT_ADMIN_LIMITS, 1))).toBe(
      "ConcurrentPartyDetailsUpdate"
    )
    expect(tag(updatePartyDetails(state, { party: alice, isLocal: false, updateMask: ["is_local"] }, local, DEFAULT_ADMIN_LIMITS, 1))).toBe("InvalidPartyDetailsUpdate")
    expect(tag(updatePartyDetails(state, { party: alice, updateMask: [] }, local, DEFAULT_ADMIN_LIMITS, 1))).toBe("InvalidPartyDetailsUpdate")
    expect(tag(updatePartyDetails(state, { party: alice, updateMask: ["display_name"] }, local, DEFAULT_ADMIN_LIMITS, 1))).toBe("InvalidPartyDetailsUpdate")
    expect(tag(updatePartyDetails(state, { party: alice, updateMask: ["local_metadata"] }, undefined, DEFAULT_ADMIN_LIMITS, 1))).toBe("PartyRecordPartyNotFound")
    expect(tag(updatePartyDetails(state, { party: alice, identityProviderId: "idp-x", updateMask: ["local_metadata"] }, local, DEFAULT_ADMIN_LIMITS, 1))).toBe("InvalidArgument")
    expect(
      tag(updatePartyDetails(state, { party: alice, localMetadata: { annotations: { big: "x".repeat(300 * 1024) } }, updateMask: ["local_metadata"] }, local, DEFAULT_ADMIN_LIMITS, 1))
    ).toBe("PartyAnnotationsTooLarge")
    // "local_metadata" without annotations keeps them (and still bumps the version, as Canton).
    const kept = Either.getOrThrow(updatePartyDetails(state, { party: alice, updateMask: ["local_metadata"] }, local, DEFAULT_ADMIN_LIMITS, 1))
    expect(kept.result.metadata).toEqual({ resourceVersion: "2", annotations: { a: "1", b: "2" } })
  })

  it.effect("the service journals the records and their clearing; a replay gives the same state", () =>
    Effect.gen(function* () {
      const journal = yield* Ref.make<ReadonlyArray<AdminEvent>>([])
      const layer = UserManagement.layer().pipe(
        Layer.provide(Layer.succeed(AdminJournal, { append: (events) => Ref.update(journal, (all) => [...all, ...events]) }))
      )
      const um = yield* Effect.provide(UserManagement, layer)
      yield* um.updatePartyDetails({ party: alice, localMetadata: { annotations: { k: "v" } }, updateMask: ["local_metadata"] }, local)
      expect((yield* um.getPartyRecord(alice)).metadata.annotations).toEqual({ k: "v" })
      const stored = (yield* Ref.get(journal)).map((e) => Schema.decodeUnknownSync(AdminEventJson)(Schema.encodeSync(AdminEventJson)(e)))
      expect([...replay(stored).partyRecords.entries()]).toEqual([...(yield* um.state).partyRecords.entries()])
      yield* um.clearPartyRecords
      expect((yield* um.getPartyRecord(alice)).metadata).toEqual({ resourceVersion: "0", annotations: {} })
      expect((yield* Ref.get(journal)).map((e) => e._tag).slice(-2)).toEqual(["PartyRecordUpdated", "PartyRecordsCleared"])
    })
  )
})
