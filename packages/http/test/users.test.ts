/** /v2/users, rights and /v2/authenticated-user over real HTTP, including who may do what. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminToken, call, devToken, startNode, type TestNode } from "./support.ts"

let node: TestNode
let admin: string
const PARTY = "alice::1220" + "ab".repeat(32)

beforeAll(async () => {
  node = await startNode()
  admin = await adminToken()
})
afterAll(() => node.close())

const users = () => `${node.url}/v2/users`
const actAs = (party: string) => ({ kind: { CanActAs: { value: { party } } } })
const readAs = (party: string) => ({ kind: { CanReadAs: { value: { party } } } })
const participantAdmin = { kind: { ParticipantAdmin: { value: {} } } }

describe("users", () => {
  it("create, get, update with a field mask and resource versions, delete", async () => {
    const created = await call(users(), {
      token: admin,
      body: {
        user: { id: "alice", primaryParty: PARTY, metadata: { annotations: { "team.example.com/desk": "fx" } } },
        rights: [actAs(PARTY)]
      }
    })
    expect(created.status).toBe(200)
    expect(created.json).toEqual({
      user: {
        id: "alice",
        primaryParty: PARTY,
        isDeactivated: false,
        metadata: { resourceVersion: "0", annotations: { "team.example.com/desk": "fx" } },
        identityProviderId: "",
        primaryPartyAuthentication: false
      }
    })
    expect((await call(`${users()}/alice`, { token: admin })).json).toEqual(created.json)

    const duplicate = await call(users(), { token: admin, body: { user: { id: "alice" } } })
    expect(duplicate.status).toBe(409)
    expect(duplicate.json).toMatchObject({ code: "USER_ALREADY_EXISTS", errorCategory: 10, resources: [["USER_ID", "alice"]] })

    const patch = (body: unknown) => call(`${users()}/alice`, { method: "PATCH", token: admin, body })
    const updated = await patch({
      user: { id: "alice", primaryParty: "", metadata: { resourceVersion: "0", annotations: { "team.example.com/desk": "", note: "x" } } },
      updateMask: { paths: ["primary_party", "metadata.annotations"] }
    })
    expect(updated.status).toBe(200)
    expect(updated.json).toMatchObject({
      user: { primaryParty: "", metadata: { resourceVersion: "1", annotations: { note: "x" } } }
    })
    const stale = await patch({ user: { id: "alice", metadata: { resourceVersion: "0" } }, updateMask: { paths: ["is_deactivated"] } })
    expect(stale.status).toBe(409)
    expect(stale.json).toMatchObject({
      code: "CONCURRENT_USER_UPDATE_DETECTED",
      errorCategory: 2,
      grpcCodeValue: 10,
      retryInfo: "1 second"
    })
    const emptyMask = await patch({ user: { id: "alice" }, updateMask: { paths: [] } })
    expect(emptyMask.status).toBe(400)
    expect(emptyMask.text).toMatch(/updateMask\.paths/)

    expect((await call(`${users()}/alice`, { method: "DELETE", token: admin })).json).toEqual({})
    const gone = await call(`${users()}/alice`, { token: admin })
    expect(gone.status).toBe(404)
    expect(gone.json).toMatchObject({ code: "USER_NOT_FOUND", cause: 'Get user failed for unknown user "alice"' })
  })

  it("lists users in pages, ordered by id", async () => {
    for (const id of ["u3", "u1", "u2"]) await call(users(), { token: admin, body: { user: { id } } })
    const first = await call(`${users()}?pageSize=2`, { token: admin })
    const page1 = first.json as { users: Array<{ id: string }>; nextPageToken: string }
    expect(page1.users.map((u) => u.id)).toEqual(["participant_admin", "u1"])
    expect(page1.nextPageToken).not.toBe("")
    const page2 = (await call(`${users()}?pageSize=2&pageToken=${page1.nextPageToken}`, { token: admin })).json as typeof page1
    expect(page2.users.map((u) => u.id)).toEqual(["u2", "u3"])
    expect(page2.nextPageToken).toBe("")
    const bad = await call(`${users()}?pageToken=not-a-token!`, { token: admin })
    expect(bad.status).toBe(400)
    expect(bad.text).toMatch(/^Invalid value for: query parameter pageToken/)
  })

  it("grants, lists and revokes rights, answering only what changed", async () => {
    await call(users(), { token: admin, body: { user: { id: "bob" }, rights: [actAs("bob::1220aa")] } })
    const granted = await call(`${users()}/bob/rights`, {
      token: admin,
      body: { userId: "bob", rights: [actAs("bob::1220aa"), readAs("carol::1220bb")] }
    })
    expect(granted.json).toEqual({ newlyGrantedRights: [readAs("carol::1220bb")] })
    const listed = await call(`${users()}/bob/rights`, { token: admin })
    expect(listed.json).toEqual({ rights: [actAs("bob::1220aa"), readAs("carol::1220bb")] })
    const revoked = await call(`${users()}/bob/rights`, {
      method: "PATCH",
      token: admin,
      body: { userId: "bob", rights: [readAs("carol::1220bb"), participantAdmin] }
    })
    expect(revoked.json).toEqual({ newlyRevokedRights: [readAs("carol::1220bb")] })
    const noKind = await call(`${users()}/bob/rights`, { token: admin, body: { userId: "bob", rights: [{}] } })
    expect(noKind.status).toBe(400)
    expect(noKind.text).toBe("Invalid value for: body (rights[0].kind: a right kind must be set)")
    const mismatch = await call(`${users()}/bob/rights`, { token: admin, body: { userId: "eve", rights: [] } })
    expect(mismatch.text).toMatch(/path parameter user-id/)
  })
})

describe("who may do what", () => {
  it("a user reads itself and its rights, nobody else", async () => {
    await call(users(), { token: admin, body: { user: { id: "frank" }, rights: [actAs("frank::1220aa")] } })
    const frank = await devToken("frank")
    expect((await call(`${node.url}/v2/authenticated-user`, { token: frank })).json).toMatchObject({ user: { id: "frank" } })
    expect((await call(`${users()}/frank`, { token: frank })).status).toBe(200)
    expect((await call(`${users()}/frank/rights`, { token: frank })).json).toEqual({ rights: [actAs("frank::1220aa")] })
    for (const response of [
      await call(`${users()}/participant_admin`, { token: frank }),
      await call(users(), { token: frank }),
      await call(users(), { token: frank, body: { user: { id: "mallory" } } }),
      await call(`${users()}/frank/rights`, { token: frank, body: { userId: "frank", rights: [participantAdmin] } })
    ]) {
      expect(response.status).toBe(403)
      expect(response.json).toMatchObject({ code: "PERMISSION_DENIED", errorCategory: 7, grpcCodeValue: 7 })
    }
  })

  it("an identity provider administrator manages only its provider's users and cannot hand out participant-wide rights", async () => {
    await call(`${node.url}/v2/idps`, {
      token: admin,
      body: { identityProviderConfig: { identityProviderId: "branch", issuer: "https://branch.example.com", jwksUrl: "https://branch.example.com/jwks" } }
    })
    await call(users(), {
      token: admin,
      body: { user: { id: "grace", identityProviderId: "branch" }, rights: [{ kind: { IdentityProviderAdmin: {} } }] }
    })
    // grace administers "branch" (her tokens would come from that provider); heidi administers the
    // default provider and signs in with dev tokens.
    await call(users(), {
      token: admin,
      body: { user: { id: "heidi" }, rights: [{ kind: { IdentityProviderAdmin: { value: {} } } }] }
    })
    const heidi = await devToken("heidi")
    const inOwn = await call(users(), { token: heidi, body: { user: { id: "ivan" }, rights: [actAs("ivan::1220aa")] } })
    expect(inOwn.status).toBe(200)
    const inOther = await call(users(), { token: heidi, body: { user: { id: "judy", identityProviderId: "branch" } } })
    expect(inOther.status).toBe(403)
    const wide = await call(`${users()}/ivan/rights`, { token: heidi, body: { userId: "ivan", rights: [participantAdmin] } })
    expect(wide.status).toBe(403)
    expect(wide.json).toMatchObject({ cause: expect.stringMatching(/ParticipantAdmin/) })
    // Users of another provider are invisible to her: listing shows only her provider's users.
    const listed = (await call(users(), { token: heidi })).json as { users: Array<{ id: string; identityProviderId: string }> }
    expect(listed.users.every((u) => u.identityProviderId === "")).toBe(true)
    expect((await call(`${users()}/grace`, { token: heidi })).status).toBe(404)
    // Only a participant administrator moves users between providers.
    const move = (token: string) =>
      call(`${users()}/grace/identity-provider-id`, {
        method: "PATCH",
        token,
        body: { userId: "grace", sourceIdentityProviderId: "branch", targetIdentityProviderId: "" }
      })
    expect((await move(heidi)).status).toBe(403)
    expect((await move(admin)).json).toEqual({})
    expect((await call(`${users()}/grace`, { token: heidi })).json).toMatchObject({ user: { identityProviderId: "" } })
  })
})
