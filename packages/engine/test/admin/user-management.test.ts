import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Ref, Schema } from "effect"
import {
  AdminEvent,
  AdminEventJson,
  AdminJournal,
  DEFAULT_ADMIN_LIMITS,
  PARTICIPANT_ADMIN_USER_ID,
  Rights,
  UserManagement,
  checkIssuer,
  emptyAdminState,
  replay,
  type AdminEvent as AdminEventType
} from "../../src/admin/index.ts"

const idp = (n: number, overrides: Partial<{ issuer: string; jwksUrl: string; audience: string }> = {}) => ({
  identityProviderId: `idp-${n}`,
  issuer: overrides.issuer ?? `https://issuer-${n}.example.com/realms/r${n}`,
  jwksUrl: overrides.jwksUrl ?? `http://127.0.0.1:9999/jwks/${n}`,
  ...(overrides.audience !== undefined ? { audience: overrides.audience } : {})
})

/** A user management whose journal is kept in a Ref, so that tests can replay it. */
const withJournal = Effect.gen(function* () {
  const journal = yield* Ref.make<ReadonlyArray<AdminEventType>>([])
  const layer = UserManagement.layer().pipe(
    Layer.provide(Layer.succeed(AdminJournal, { append: (events) => Ref.update(journal, (all) => [...all, ...events]) }))
  )
  const service = yield* Effect.provide(UserManagement, layer)
  return { service, journal }
})

describe("identity provider configurations", () => {
  it.effect("create, get, list, update with a field mask, delete", () =>
    Effect.gen(function* () {
      const um = yield* UserManagement
      const created = yield* um.createIdentityProviderConfig(idp(1, { audience: "sandnet" }))
      expect(created).toEqual({ ...idp(1, { audience: "sandnet" }), isDeactivated: false })
      expect(yield* um.getIdentityProviderConfig("idp-1")).toEqual(created)

      // issuer and jwksUrl may be empty when not updated; only masked fields change.
      const deactivated = yield* um.updateIdentityProviderConfig({
        config: { identityProviderId: "idp-1", issuer: "", jwksUrl: "", isDeactivated: true, audience: "ignored" },
        updateMask: ["is_deactivated"]
      })
      expect(deactivated).toEqual({ ...created, isDeactivated: true })

      const moved = yield* um.updateIdentityProviderConfig({
        config: { identityProviderId: "idp-1", issuer: "https://new.example.com", jwksUrl: "https://new.example.com/jwks" },
        updateMask: ["issuer", "jwksUrl", "audience"]
      })
      expect(moved).toEqual({
        identityProviderId: "idp-1",
        isDeactivated: true,
        issuer: "https://new.example.com",
        jwksUrl: "https://new.example.com/jwks"
      })

      yield* um.createIdentityProviderConfig(idp(0))
      expect((yield* um.listIdentityProviderConfigs).map((c) => c.identityProviderId)).toEqual(["idp-0", "idp-1"])
      yield* um.deleteIdentityProviderConfig("idp-1")
      const missing = yield* Effect.flip(um.getIdentityProviderConfig("idp-1"))
      expect(missing._tag).toBe("IdentityProviderConfigNotFound")
    }).pipe(Effect.provide(UserManagement.layerMemory())))

  it.effect("refuses duplicates, duplicate issuers and more than the maximum", () =>
    Effect.gen(function* () {
      const um = yield* UserManagement
      expect(DEFAULT_ADMIN_LIMITS.maxIdentityProviderConfigs).toBe(16)
      for (let n = 0; n < um.limits.maxIdentityProviderConfigs; n++) yield* um.createIdentityProviderConfig(idp(n))
      expect((yield* Effect.flip(um.createIdentityProviderConfig(idp(99))))._tag).toBe("TooManyIdentityProviderConfigs")
      expect((yield* Effect.flip(um.createIdentityProviderConfig(idp(3))))._tag).toBe(
        "IdentityProviderConfigAlreadyExists"
      )
      yield* um.deleteIdentityProviderConfig("idp-15")
      const sameIssuer = { ...idp(50), issuer: idp(2).issuer }
      expect((yield* Effect.flip(um.createIdentityProviderConfig(sameIssuer)))._tag).toBe(
        "IdentityProviderIssuerAlreadyExists"
      )
      yield* um.createIdentityProviderConfig(idp(50))
    }).pipe(Effect.provide(UserManagement.layerMemory())))

  it("validates issuers: https, host, no query, no fragment, no user info", () => {
    expect(checkIssuer("https://login.example.com:8443/realms/x")).toBeUndefined()
    expect(checkIssuer("http://login.example.com")).toMatch(/https/)
    expect(checkIssuer("https://login.example.com/?a=1")).toMatch(/query/)
    expect(checkIssuer("https://login.example.com/?")).toMatch(/query/)
    expect(checkIssuer("https://login.example.com/#frag")).toMatch(/fragment/)
    expect(checkIssuer("https://user:pw@login.example.com")).toMatch(/user/)
    expect(checkIssuer("login.example.com")).toMatch(/absolute URL/)
    expect(checkIssuer("")).toMatch(/empty/)
  })

  it.effect("names the invalid field and rejects unknown mask paths", () =>
    Effect.gen(function* () {
      const um = yield* UserManagement
      const badIssuer = yield* Effect.flip(um.createIdentityProviderConfig(idp(1, { issuer: "https://x.example.com?q" })))
      expect(badIssuer).toMatchObject({ _tag: "InvalidArgument", field: "issuer" })
      const badId = yield* Effect.flip(um.createIdentityProviderConfig({ ...idp(1), identityProviderId: "no!pe" }))
      expect(badId).toMatchObject({ _tag: "InvalidArgument", field: "identityProviderId" })
      yield* um.createIdentityProviderConfig(idp(1))
      const badMask = yield* Effect.flip(
        um.updateIdentityProviderConfig({ config: { ...idp(1), issuer: "" }, updateMask: ["colour"] })
      )
      expect(badMask).toMatchObject({ _tag: "InvalidArgument", field: "updateMask.paths" })
      const emptyMask = yield* Effect.flip(um.updateIdentityProviderConfig({ config: idp(1), updateMask: [] }))
      expect(emptyMask).toMatchObject({ _tag: "InvalidArgument", field: "updateMask.paths" })
    }).pipe(Effect.provide(UserManagement.layerMemory())))
})

describe("users and rights", () => {
  it.effect("the participant administrator exists from the start", () =>
    Effect.gen(function* () {
      const um = yield* UserManagement
      const admin = yield* um.getUser(PARTICIPANT_ADMIN_USER_ID)
      expect(admin.rights).toEqual([Rights.participantAdmin])
    }).pipe(Effect.provide(UserManagement.layerMemory())))

  it.effect("create, grant, revoke, update with resource versions, delete", () =>
    Effect.gen(function* () {
      const um = yield* UserManagement
      const party = "alice::1220" + "ab".repeat(32)
      const created = yield* um.createUser({
        user: { id: "alice", primaryParty: party, metadata: { annotations: { "b.example.com/x": "1", a: "2" } } },
        rights: [Rights.canActAs(party), Rights.canActAs(party)]
      })
      expect(created.user).toEqual({
        id: "alice",
        primaryParty: party,
        isDeactivated: false,
        identityProviderId: "",
        metadata: { resourceVersion: "0", annotations: { a: "2", "b.example.com/x": "1" } },
        primaryPartyAuthentication: false
      })
      expect(created.rights).toEqual([Rights.canActAs(party)])

      expect(yield* um.grantUserRights("alice", [Rights.canActAs(party), Rights.canReadAs("bob")])).toEqual([
        Rights.canReadAs("bob")
      ])
      expect(yield* um.revokeUserRights("alice", [Rights.canReadAs("bob"), Rights.participantAdmin])).toEqual([
        Rights.canReadAs("bob")
      ])
      // Rights changes leave the resource version alone.
      expect((yield* um.getUser("alice")).user.metadata.resourceVersion).toBe("0")

      const updated = yield* um.updateUser({
        user: { id: "alice", isDeactivated: true, metadata: { resourceVersion: "0", annotations: { a: "", c: "3" } } },
        updateMask: ["is_deactivated", "metadata.annotations"]
      })
      expect(updated.isDeactivated).toBe(true)
      expect(updated.metadata).toEqual({ resourceVersion: "1", annotations: { "b.example.com/x": "1", c: "3" } })

      const stale = yield* Effect.flip(
        um.updateUser({ user: { id: "alice", metadata: { resourceVersion: "0" } }, updateMask: ["primaryParty"] })
      )
      expect(stale._tag).toBe("ConcurrentUserUpdate")

      expect((yield* Effect.flip(um.createUser({ user: { id: "alice" } })))._tag).toBe("UserAlreadyExists")
      yield* um.deleteUser("alice")
      expect((yield* Effect.flip(um.getUser("alice")))._tag).toBe("UserNotFound")
    }).pipe(Effect.provide(UserManagement.layerMemory())))

  it.effect("limits rights per user and validates ids", () =>
    Effect.gen(function* () {
      const um = yield* UserManagement
      const many = Array.from({ length: 4 }, (_, i) => Rights.canReadAs(`p${i}`))
      expect((yield* Effect.flip(um.createUser({ user: { id: "u" }, rights: many })))._tag).toBe("TooManyUserRights")
      yield* um.createUser({ user: { id: "u" }, rights: many.slice(0, 3) })
      expect((yield* Effect.flip(um.grantUserRights("u", [Rights.participantAdmin])))._tag).toBe("TooManyUserRights")
      expect(yield* Effect.flip(um.createUser({ user: { id: "no spaces" } }))).toMatchObject({
        _tag: "InvalidArgument",
        field: "user.id"
      })
      expect(yield* Effect.flip(um.createUser({ user: { id: "v", identityProviderId: "missing" } }))).toMatchObject({
        _tag: "IdentityProviderConfigNotFound"
      })
    }).pipe(Effect.provide(UserManagement.layerMemory({ limits: { maxRightsPerUser: 3 } }))))

  it.effect("pages users in id order; other identity providers' users are invisible in a scope", () =>
    Effect.gen(function* () {
      const um = yield* UserManagement
      yield* um.createIdentityProviderConfig(idp(1))
      for (const id of ["d", "b", "a", "c"]) yield* um.createUser({ user: { id } })
      yield* um.createUser({ user: { id: "e", identityProviderId: "idp-1" } })
      const first = yield* um.listUsers({ pageSize: 2 })
      expect(first.users.map((u) => u.id)).toEqual(["a", "b"])
      const second = yield* um.listUsers({ pageSize: 2, pageToken: first.nextPageToken })
      expect(second.users.map((u) => u.id)).toEqual(["c", "d"])
      const third = yield* um.listUsers({ pageSize: 2, pageToken: second.nextPageToken })
      expect(third).toEqual({ users: [expect.objectContaining({ id: "e" })], nextPageToken: "" })
      expect((yield* um.listUsers({ scope: "idp-1" })).users.map((u) => u.id)).toEqual(["e"])
      expect((yield* Effect.flip(um.getUser("a", "idp-1")))._tag).toBe("UserNotFound")
      expect((yield* Effect.flip(um.listUsers({ pageToken: "%%%" })))._tag).toBe("InvalidArgument")
      yield* um.updateUserIdentityProvider("e", "idp-1", "")
      expect((yield* um.getUser("e", "")).user.identityProviderId).toBe("")
    }).pipe(Effect.provide(UserManagement.layerMemory({ participantAdminUserId: null }))))
})

describe("journal", () => {
  it.effect("every change is a JSON event; replaying the journal rebuilds the same state", () =>
    Effect.gen(function* () {
      const { service: um, journal } = yield* withJournal
      yield* um.createIdentityProviderConfig(idp(1, { audience: "aud" }))
      yield* um.createUser({ user: { id: "alice", identityProviderId: "idp-1" }, rights: [Rights.canActAs("alice")] })
      yield* um.grantUserRights("alice", [Rights.identityProviderAdmin])
      yield* um.updateIdentityProviderConfig({ config: { ...idp(1), isDeactivated: true }, updateMask: ["is_deactivated"] })
      yield* um.updateUser({ user: { id: "alice", primaryParty: "alice" }, updateMask: ["primary_party"] })
      yield* um.revokeUserRights("alice", [Rights.canActAs("alice")])
      // A refused command journals nothing.
      yield* Effect.flip(um.createUser({ user: { id: "alice" } }))

      const events = yield* Ref.get(journal)
      expect(events.map((e) => e._tag)).toEqual([
        "UserCreated",
        "IdentityProviderConfigCreated",
        "UserCreated",
        "UserRightsGranted",
        "IdentityProviderConfigUpdated",
        "UserUpdated",
        "UserRightsRevoked"
      ])
      const stored = events.map((event) => Schema.encodeSync(AdminEventJson)(event))
      const restored = stored.map((text) => Schema.decodeUnknownSync(AdminEventJson)(text))
      expect(restored).toEqual(events)
      for (const event of events) expect(Schema.is(AdminEvent)(event)).toBe(true)

      const rebuilt = replay(restored, emptyAdminState)
      const live = yield* um.state
      expect([...rebuilt.users.entries()]).toEqual([...live.users.entries()])
      expect([...rebuilt.identityProviders.entries()]).toEqual([...live.identityProviders.entries()])
      expect(rebuilt.version).toBe(events.length)

      // A service started from the journal does not recreate what exists.
      const again = yield* Effect.provide(UserManagement, UserManagement.layerFrom(restored).pipe(Layer.provide(AdminJournal.none)))
      expect((yield* again.getUser("alice")).user.primaryParty).toBe("alice")
      expect((yield* again.state).version).toBe(events.length)
    }))

  it("apply refuses events that do not fit the state", () => {
    const created: AdminEventType = { _tag: "UserCreated", at: 0, user: {
      id: "x",
      primaryParty: "",
      isDeactivated: false,
      identityProviderId: "",
      metadata: { resourceVersion: "0", annotations: {} },
      primaryPartyAuthentication: false
    }, rights: [] }
    expect(() => replay([created, created])).toThrow(/created twice/)
    expect(() => replay([{ _tag: "UserDeleted", at: 0, userId: "nobody" }])).toThrow(/unknown user/)
    expect(Either.isRight(Schema.decodeUnknownEither(AdminEventJson)(JSON.stringify(created)))).toBe(true)
  })
})
