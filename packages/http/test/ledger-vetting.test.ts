/**
 * Package vetting (`/v2/package-vetting/list`, the deprecated GET) and preferred packages
 * (`/v2/interactive-submission/preferred-packages`, the deprecated preferred-package-version),
 * over real HTTP.
 */
import { request as httpRequest } from "node:http"
import type { PackageDescription } from "@sandnet/core"
import { Packages, TransferOffer } from "@sandnet/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { actAs, allocateParty, call, engineFacts, get, post, startLedgerNode, userWith, type LedgerTestNode } from "./ledger-support.ts"

let node: LedgerTestNode
let alice: string
let aliceToken: string
let synchronizerId: string
let participantId: string

const app = (version: string, extra: ReadonlyArray<string> = []): PackageDescription => ({
  name: "vet-app",
  version,
  modules: [
    {
      name: "VetApp.Main",
      templates: ["Thing", ...extra].map((name) => ({ name, choices: [], implements: [] })),
      interfaces: []
    }
  ]
})
const v1 = app("1.0.0")
const v2 = app("2.0.0", ["Other"])
const idOf = (description: PackageDescription) => Packages.packageIdOfDescription(description)
const upload = async (description: PackageDescription, vet = true) => {
  const answer = await call(`${node.url}/v2/dars?vetAllPackages=${vet}`, {
    method: "POST",
    token: node.admin,
    rawBody: Packages.buildDar({ name: description.name, version: description.version, packages: [description] }),
    headers: { "content-type": "application/octet-stream" }
  })
  expect(answer.status).toBe(200)
}

/** A GET with a JSON body (fetch refuses one), as the deprecated form takes it. */
const getWithBody = (path: string, token: string, request: unknown) =>
  new Promise<{ status: number; json: unknown }>((resolve, reject) => {
    const body = JSON.stringify(request)
    const url = new URL(`${node.url}${path}`)
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "GET",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      },
      (res) => {
        let text = ""
        res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as unknown }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

type VettedJson = {
  vettedPackages: Array<{ participantId: string; synchronizerId: string; topologySerial: number; packages: Array<{ packageId: string; packageName?: string; packageVersion?: string }> }>
  nextPageToken: string
}

beforeAll(async () => {
  node = await startLedgerNode()
  alice = await allocateParty(node, "alice")
  aliceToken = await userWith(node, "alice", [actAs(alice)])
  synchronizerId = (await engineFacts(node)).synchronizerId
  participantId = ((await get(node, "/v2/parties/participant-id", aliceToken)).json as { participantId: string }).participantId
})
afterAll(() => node.close())

describe("package vetting list", () => {
  it("lists every participant's vetted packages per synchronizer, sorted, for any authenticated user; uploads bump the serial", async () => {
    const before = (await post(node, "/v2/package-vetting/list", aliceToken, {})).json as VettedJson
    expect(before.nextPageToken).toBe("")
    expect(before.vettedPackages.length).toBeGreaterThan(0)
    const keys = before.vettedPackages.map((v) => `${v.synchronizerId}\n${v.participantId}`)
    expect(keys).toEqual([...keys].sort())
    const own = before.vettedPackages.find((v) => v.participantId === participantId && v.synchronizerId === synchronizerId)
    expect(own?.packages.map((p) => p.packageId)).toContain(TransferOffer.pkg.id)
    const serial = own!.topologySerial

    await upload(v1)
    await upload(v2, false)
    const after = (await post(node, "/v2/package-vetting/list", aliceToken, {
      packageMetadataFilter: { packageNamePrefixes: ["vet-"] },
      topologyStateFilter: { participantIds: [participantId], synchronizerIds: [synchronizerId] }
    })).json as VettedJson
    expect(after).toEqual({
      vettedPackages: [
        { participantId, synchronizerId, topologySerial: serial + 1, packages: [{ packageId: idOf(v1), packageName: "vet-app", packageVersion: "1.0.0" }] }
      ],
      nextPageToken: ""
    })
    // By id; the unvetted upload is not listed.
    const byId = (await post(node, "/v2/package-vetting/list", aliceToken, { packageMetadataFilter: { packageIds: [idOf(v2)] } })).json as VettedJson
    expect(byId.vettedPackages).toEqual([])
    // The deprecated GET takes the same request as its JSON body.
    const deprecated = await getWithBody("/v2/package-vetting", aliceToken, {
      packageMetadataFilter: { packageIds: [idOf(v1)] },
      topologyStateFilter: { participantIds: [participantId] }
    })
    expect(deprecated.status).toBe(200)
    expect((deprecated.json as VettedJson).vettedPackages.map((v) => v.packages)).toEqual(
      (deprecated.json as VettedJson).vettedPackages.map(() => [{ packageId: idOf(v1), packageName: "vet-app", packageVersion: "1.0.0" }])
    )
  })

  it("pages by pageSize and pageToken", async () => {
    const all = ((await post(node, "/v2/package-vetting/list", aliceToken, {})).json as VettedJson).vettedPackages
    const seen: Array<string> = []
    let token = ""
    for (let i = 0; i < all.length + 1; i++) {
      const page = (await post(node, "/v2/package-vetting/list", aliceToken, { pageSize: 1, pageToken: token })).json as VettedJson
      seen.push(...page.vettedPackages.map((v) => v.participantId + v.synchronizerId))
      token = page.nextPageToken
      if (token === "") break
    }
    expect(seen).toEqual(all.map((v) => v.participantId + v.synchronizerId))
  })

  it("errors: 401 without a token, 400 naming a malformed field, INVALID_ARGUMENT for a page too large or a bad token", async () => {
    expect((await post(node, "/v2/package-vetting/list", undefined, {})).status).toBe(401)
    const malformed = await post(node, "/v2/package-vetting/list", aliceToken, { pageSize: "ten" })
    expect(malformed.status).toBe(400)
    expect(malformed.contentType).toMatch(/text\/plain/)
    expect(malformed.text).toMatch(/pageSize/)
    const tooLarge = await post(node, "/v2/package-vetting/list", aliceToken, { pageSize: 101 })
    expect(tooLarge.status).toBe(400)
    expect(tooLarge.json).toMatchObject({ code: "INVALID_ARGUMENT", cause: expect.stringContaining("pageSize") })
    const badToken = await post(node, "/v2/package-vetting/list", aliceToken, { pageToken: "nonsense" })
    expect(badToken.json).toMatchObject({ code: "INVALID_ARGUMENT", cause: expect.stringContaining("pageToken") })
  })

  it("update stays 501", async () => {
    const update = await post(node, "/v2/package-vetting/update", node.admin, {})
    expect(update.status).toBe(501)
    expect(update.json).toMatchObject({ code: "UNSUPPORTED_OPERATION" })
  })
})

describe("preferred packages", () => {
  it("the highest vetted version of the package name for the parties", async () => {
    // v2 was uploaded without vetting: v1 is preferred.
    const answer = await post(node, "/v2/interactive-submission/preferred-packages", aliceToken, {
      packageVettingRequirements: [{ packageName: "vet-app", parties: [alice] }]
    })
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({
      packageReferences: [{ packageId: idOf(v1), packageName: "vet-app", packageVersion: "1.0.0" }],
      synchronizerId
    })
    await upload(v2)
    const after = await post(node, "/v2/interactive-submission/preferred-packages", aliceToken, {
      packageVettingRequirements: [{ packageName: "vet-app", parties: [alice] }],
      synchronizerId,
      vettingValidAt: "2026-01-01T00:00:00Z"
    })
    expect(after.json).toEqual({ packageReferences: [{ packageId: idOf(v2), packageName: "vet-app", packageVersion: "2.0.0" }], synchronizerId })

    const deprecated = await get(node, `/v2/interactive-submission/preferred-package-version?package-name=vet-app&parties=${encodeURIComponent(alice)}`, aliceToken)
    expect(deprecated.status).toBe(200)
    expect(deprecated.json).toEqual({
      packagePreference: { packageReference: { packageId: idOf(v2), packageName: "vet-app", packageVersion: "2.0.0" }, synchronizerId }
    })
  })

  it("errors: unknown package name 404, unhosted party FAILED_PRECONDITION (empty answer on the GET), 400 naming fields, 401", async () => {
    const unknownName = await post(node, "/v2/interactive-submission/preferred-packages", aliceToken, {
      packageVettingRequirements: [{ packageName: "no-such-app", parties: [alice] }]
    })
    expect(unknownName.status).toBe(404)
    expect(unknownName.json).toMatchObject({ code: "PACKAGE_NAMES_NOT_FOUND" })

    const stranger = `stranger::1220${"b".repeat(64)}`
    const unhosted = await post(node, "/v2/interactive-submission/preferred-packages", aliceToken, {
      packageVettingRequirements: [{ packageName: "vet-app", parties: [stranger] }]
    })
    expect(unhosted.status).toBe(400)
    expect(unhosted.json).toMatchObject({ code: "PACKAGE_SELECTION_FAILED", errorCategory: 9, grpcCodeValue: 9 })
    const empty = await get(node, `/v2/interactive-submission/preferred-package-version?package-name=vet-app&parties=${encodeURIComponent(stranger)}`, aliceToken)
    expect(empty.status).toBe(200)
    expect(empty.json).toEqual({})

    const noRequirements = await post(node, "/v2/interactive-submission/preferred-packages", aliceToken, { packageVettingRequirements: [] })
    expect(noRequirements.status).toBe(400)
    expect(noRequirements.text).toMatch(/packageVettingRequirements/)
    const noParties = await post(node, "/v2/interactive-submission/preferred-packages", aliceToken, {
      packageVettingRequirements: [{ packageName: "vet-app", parties: [] }]
    })
    expect(noParties.text).toMatch(/packageVettingRequirements\[0\]\.parties/)
    const badTime = await post(node, "/v2/interactive-submission/preferred-packages", aliceToken, {
      packageVettingRequirements: [{ packageName: "vet-app", parties: [alice] }],
      vettingValidAt: "yesterday"
    })
    expect(badTime.status).toBe(400)
    expect(badTime.text).toMatch(/vettingValidAt/)
    const badSynchronizer = await post(node, "/v2/interactive-submission/preferred-packages", aliceToken, {
      packageVettingRequirements: [{ packageName: "vet-app", parties: [alice] }],
      synchronizerId: `other::1220${"a".repeat(64)}`
    })
    expect(badSynchronizer.json).toMatchObject({ code: "INVALID_ARGUMENT", cause: expect.stringContaining("synchronizerId") })
    const noName = await get(node, "/v2/interactive-submission/preferred-package-version", aliceToken)
    expect(noName.status).toBe(400)
    expect(noName.text).toMatch(/package-name/)
    expect((await post(node, "/v2/interactive-submission/preferred-packages", undefined, { packageVettingRequirements: [] })).status).toBe(401)
  })
})
