/**
 * `PATCH /v2/parties/{party}` over real HTTP: local metadata annotations (merge, removal, clear),
 * the resourceVersion check, `isLocal` not modifiable, identity providers, rights, errors, what
 * `GET /v2/parties` and `/v2/parties/{party}` show, and the details surviving a restart on a
 * stored node (and going with a reset).
 */
import { EventStore, makeMemoryBacking } from "@sandnet/store"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { actAs, allocateParty, call, engineFacts, get, post, startLedgerNode, userWith, type LedgerTestNode } from "./ledger-support.ts"
import { startStoredNode } from "./persistence-support.ts"

type Details = { party: string; isLocal: boolean; localMetadata: { resourceVersion: string; annotations: Record<string, string> }; identityProviderId: string }

const patch = (node: { url: string }, party: string, token: string | undefined, body: unknown) =>
  call(`${node.url}/v2/parties/${encodeURIComponent(party)}`, { method: "PATCH", token, body })
const detailsOf = async (node: { url: string; admin: string }, party: string, idp?: string) =>
  ((await get(node as LedgerTestNode, `/v2/parties/${encodeURIComponent(party)}${idp === undefined ? "" : `?identity-provider-id=${idp}`}`, node.admin)).json as {
    partyDetails: Array<Details>
  }).partyDetails[0]
const annotate = (party: string, annotations: Record<string, string>, paths = ["local_metadata.annotations"], resourceVersion?: string) => ({
  partyDetails: { party, localMetadata: { annotations, ...(resourceVersion === undefined ? {} : { resourceVersion }) } },
  updateMask: { paths }
})

let node: LedgerTestNode
let alice: string
let aliceToken: string

beforeAll(async () => {
  node = await startLedgerNode()
  alice = await allocateParty(node, "alice")
  aliceToken = await userWith(node, "alice", [actAs(alice)])
})
afterAll(() => node.close())

describe("update party details", () => {
  it("sets, merges and removes annotations; each update bumps resourceVersion; GET shows them", async () => {
    expect(await detailsOf(node, alice)).toEqual({ party: alice, isLocal: true, localMetadata: { resourceVersion: "0", annotations: {} }, identityProviderId: "" })
    const first = await patch(node, alice, node.admin, annotate(alice, { team: "blue", tier: "gold" }))
    expect(first.status, first.text).toBe(200)
    expect(first.json).toEqual({
      partyDetails: { party: alice, isLocal: true, localMetadata: { resourceVersion: "1", annotations: { team: "blue", tier: "gold" } }, identityProviderId: "" }
    })
    // Merge: a value sets, "" removes; camelCase paths are accepted; the current version passes.
    const second = await patch(node, alice, node.admin, annotate(alice, { tier: "", region: "eu" }, ["localMetadata"], "1"))
    expect((second.json as { partyDetails: Details }).partyDetails.localMetadata).toEqual({ resourceVersion: "2", annotations: { region: "eu", team: "blue" } })
    expect(await detailsOf(node, alice)).toEqual((second.json as { partyDetails: Details }).partyDetails)
    const listed = ((await get(node, "/v2/parties", node.admin)).json as { partyDetails: Array<Details> }).partyDetails.find((d) => d.party === alice)
    expect(listed?.localMetadata.annotations).toEqual({ region: "eu", team: "blue" })
    // isLocal may be named when it matches; the party in the body may be left empty.
    const same = await patch(node, alice, node.admin, { partyDetails: { party: "", isLocal: true }, updateMask: { paths: ["is_local"] } })
    expect((same.json as { partyDetails: Details }).partyDetails.localMetadata).toEqual({ resourceVersion: "3", annotations: { region: "eu", team: "blue" } })
    // Naming exactly local_metadata.annotations with none clears them.
    const cleared = await patch(node, alice, node.admin, annotate(alice, {}))
    expect((cleared.json as { partyDetails: Details }).partyDetails.localMetadata).toEqual({ resourceVersion: "4", annotations: {} })
  })

  it("a stale resourceVersion is 409 CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED and changes nothing", async () => {
    const before = await detailsOf(node, alice)
    const stale = await patch(node, alice, node.admin, annotate(alice, { x: "y" }, undefined, "1"))
    expect(stale.status).toBe(409)
    expect(stale.json).toMatchObject({ code: "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED", errorCategory: 2, grpcCodeValue: 10 })
    expect(await detailsOf(node, alice)).toEqual(before)
  })

  it("errors: 400 malformed (text/plain naming the field), INVALID_UPDATE_PARTY_DETAILS_REQUEST, 404 unknown party, 401/403", async () => {
    const malformed = await patch(node, alice, node.admin, { partyDetails: { party: alice, localMetadata: { annotations: { a: 1 } } }, updateMask: { paths: ["local_metadata"] } })
    expect(malformed.status).toBe(400)
    expect(malformed.contentType).toMatch(/^text\/plain/)
    expect(malformed.text).toMatch(/annotations/)
    const noMask = await patch(node, alice, node.admin, { partyDetails: { party: alice } })
    expect(noMask.status).toBe(400)
    expect(noMask.text).toMatch(/updateMask/)
    const otherParty = await patch(node, alice, node.admin, annotate(`bob::1220${"c".repeat(64)}`, { a: "b" }))
    expect(otherParty.status).toBe(400)
    expect(otherParty.text).toMatch(/partyDetails\.party/)
    const badKey = await patch(node, alice, node.admin, annotate(alice, { "not a key!": "v" }))
    expect(badKey.status).toBe(400)
    expect(badKey.text).toMatch(/partyDetails\.localMetadata\.annotations/)
    const badVersion = await patch(node, alice, node.admin, annotate(alice, { a: "b" }, undefined, "v7"))
    expect(badVersion.text).toMatch(/partyDetails\.localMetadata\.resourceVersion/)

    const emptyMask = await patch(node, alice, node.admin, { partyDetails: { party: alice }, updateMask: { paths: [] } })
    expect(emptyMask.status).toBe(400)
    expect(emptyMask.json).toMatchObject({ code: "INVALID_UPDATE_PARTY_DETAILS_REQUEST", errorCategory: 8 })
    const unknownPath = await patch(node, alice, node.admin, { partyDetails: { party: alice }, updateMask: { paths: ["display_name"] } })
    expect(unknownPath.json).toMatchObject({ code: "INVALID_UPDATE_PARTY_DETAILS_REQUEST", cause: expect.stringContaining("display_name") })
    const notLocal = await patch(node, alice, node.admin, { partyDetails: { party: alice, isLocal: false }, updateMask: { paths: ["is_local"] } })
    expect(notLocal.json).toMatchObject({ code: "INVALID_UPDATE_PARTY_DETAILS_REQUEST", cause: expect.stringContaining("is_local") })

    const unknown = `nobody::1220${"d".repeat(64)}`
    const missing = await patch(node, unknown, node.admin, annotate(unknown, { a: "b" }))
    expect(missing.status).toBe(404)
    expect(missing.json).toMatchObject({ code: "PARTY_NOT_FOUND", errorCategory: 11 })

    expect((await patch(node, alice, undefined, annotate(alice, { a: "b" }))).status).toBe(401)
    const denied = await patch(node, alice, aliceToken, annotate(alice, { a: "b" }))
    expect(denied.status).toBe(403)
    expect(denied.json).toMatchObject({ code: "PERMISSION_DENIED" })
  })

  it("identity providers: the record joins the request's provider; other providers see it blinded; a wrong one is PERMISSION_DENIED", async () => {
    const idp = { identityProviderId: "idp-p", issuer: "https://idp-p.example.com/realms/main", jwksUrl: "https://idp-p.example.com/jwks" }
    expect((await post(node, "/v2/idps", node.admin, { identityProviderConfig: idp })).status).toBe(200)
    const carol = await allocateParty(node, "carol")
    const unknownIdp = await patch(node, carol, node.admin, { ...annotate(carol, { a: "b" }), partyDetails: { party: carol, identityProviderId: "nope", localMetadata: { annotations: { a: "b" } } } })
    expect(unknownIdp.status).toBe(400)
    expect(unknownIdp.text).toMatch(/partyDetails\.identityProviderId/)
    const joined = await patch(node, carol, node.admin, { partyDetails: { party: carol, identityProviderId: "idp-p", localMetadata: { annotations: { a: "b" } } }, updateMask: { paths: ["local_metadata"] } })
    expect((joined.json as { partyDetails: Details }).partyDetails).toMatchObject({ identityProviderId: "idp-p", localMetadata: { resourceVersion: "1", annotations: { a: "b" } } })
    expect(await detailsOf(node, carol, "idp-p")).toMatchObject({ identityProviderId: "idp-p", isLocal: true, localMetadata: { annotations: { a: "b" } } })
    expect(await detailsOf(node, carol)).toEqual({ party: carol, isLocal: true, localMetadata: { resourceVersion: "0", annotations: {} }, identityProviderId: "" })
    const wrong = await patch(node, carol, node.admin, annotate(carol, { c: "d" }))
    expect(wrong.status).toBe(403)
    expect(wrong.json).toMatchObject({ code: "PERMISSION_DENIED", cause: expect.stringContaining("identity provider") })
  })

  it("the OpenAPI document shows the endpoint with its schemas", async () => {
    const spec = (await call(`${node.url}/docs/ledger.json`)).json as { paths: Record<string, Record<string, { summary?: string; requestBody?: unknown; operationId: string }>> }
    const operation = spec.paths["/v2/parties/{party}"]?.["patch"]
    expect(operation?.operationId).toBe("patchV2PartiesParty")
    expect(operation?.summary).toBeUndefined()
    expect(operation?.requestBody).toBeDefined()
  })
})

describe("party details on a stored node", () => {
  it("survive a restart; a reset drops them with the parties", async () => {
    const backing = makeMemoryBacking()
    const first = await startStoredNode(EventStore.memoryWith(backing))
    const dave = await allocateParty(first as unknown as LedgerTestNode, "dave")
    expect((await patch(first, dave, first.admin, annotate(dave, { kept: "yes" }))).status).toBe(200)
    await first.close()

    const second = await startStoredNode(EventStore.memoryWith(backing))
    expect(await detailsOf(second, dave)).toEqual({ party: dave, isLocal: true, localMetadata: { resourceVersion: "1", annotations: { kept: "yes" } }, identityProviderId: "" })
    const stale = await patch(second, dave, second.admin, annotate(dave, { more: "x" }, undefined, "0"))
    expect(stale.status).toBe(409)
    expect((await post(second as unknown as LedgerTestNode, "/v2/sandnet/reset", second.admin, {})).status).toBe(200)
    await second.close()

    const third = await startStoredNode(EventStore.memoryWith(backing))
    const again = await allocateParty(third as unknown as LedgerTestNode, "dave")
    expect(again).toBe(dave)
    expect(await detailsOf(third, dave)).toEqual({ party: dave, isLocal: true, localMetadata: { resourceVersion: "0", annotations: {} }, identityProviderId: "" })
    expect((await engineFacts(third as unknown as LedgerTestNode)).synchronizerId).toBeDefined()
    await third.close()
  })
})
