/**
 * Packages and DARs (built with Packages.buildDar), the version, the OpenAPI document of the
 * ledger surface, and the developer controls (time, reset), over real HTTP.
 */
import type { PackageDescription } from "@sandnet/core"
import { Packages, TransferOffer } from "@sandnet/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { actAs, allocateParty, call, get, post, startLedgerNode, userWith, type LedgerTestNode } from "./ledger-support.ts"

let node: LedgerTestNode
let aliceToken: string

beforeAll(async () => {
  node = await startLedgerNode()
  const alice = await allocateParty(node, "alice")
  aliceToken = await userWith(node, "alice", [actAs(alice)])
})
afterAll(() => node.close())

const app = (version: string, templates: ReadonlyArray<{ name: string; choices: ReadonlyArray<{ name: string; consuming: boolean }> }>): PackageDescription => ({
  name: "my-app",
  version,
  modules: [{ name: "MyApp.Main", templates: templates.map((t) => ({ ...t, implements: [] })), interfaces: [] }]
})
const thing = { name: "Thing", choices: [{ name: "Thing_Do", consuming: true }] }
const v1 = app("1.0.0", [thing])
const v2 = app("2.0.0", [thing, { name: "Other", choices: [] }])
const v3 = app("3.0.0", [{ name: "Thing", choices: [] }])
const darOf = (description: PackageDescription) => Packages.buildDar({ name: description.name, version: description.version, packages: [description] })
const idOf = (description: PackageDescription) => Packages.packageIdOfDescription(description)

const sendDar = (path: string, bytes: Uint8Array, token: string | undefined = node.admin) =>
  call(`${node.url}${path}`, { method: "POST", token, rawBody: bytes, headers: { "content-type": "application/octet-stream" } })
const packageIds = async () => ((await get(node, "/v2/packages", aliceToken)).json as { packageIds: Array<string> }).packageIds

describe("packages and DARs", () => {
  it("lists the built-in packages, sorted", async () => {
    const ids = await packageIds()
    expect(ids).toContain(TransferOffer.pkg.id)
    expect(ids).toEqual([...ids].sort())
    expect((await get(node, "/v2/packages", undefined)).status).toBe(401)
  })

  it("validate: a valid DAR is 200 with an empty body and persists nothing; a corrupt one is INVALID_DAR", async () => {
    const valid = await sendDar("/v2/dars/validate", darOf(v1))
    expect(valid.status).toBe(200)
    expect(valid.text).toBe("")
    expect(await packageIds()).not.toContain(idOf(v1))

    const corrupt = await sendDar("/v2/dars/validate", new TextEncoder().encode("this is not a zip"))
    expect(corrupt.status).toBe(400)
    expect(corrupt.json).toMatchObject({ code: "INVALID_DAR", errorCategory: 8, grpcCodeValue: 3, cause: expect.stringContaining("Dar file is corrupt") })
    const truncated = darOf(v1).slice(0, 100)
    expect((await sendDar("/v2/dars/validate", truncated)).json).toMatchObject({ code: "INVALID_DAR" })

    const unknownSynchronizer = await sendDar(`/v2/dars/validate?synchronizerId=${encodeURIComponent(`other::1220${"a".repeat(64)}`)}`, darOf(v1))
    expect(unknownSynchronizer.status).toBe(400)
    expect(unknownSynchronizer.json).toMatchObject({ code: "INVALID_ARGUMENT" })
    expect((await sendDar("/v2/dars/validate", darOf(v1), aliceToken)).status).toBe(403)
  })

  it("upload, fetch and status; upgrade checks against what is vetted; same name and version is KNOWN_DAR_VERSION", async () => {
    const uploaded = await sendDar("/v2/packages", darOf(v1))
    expect(uploaded.status).toBe(200)
    expect(uploaded.json).toEqual({})
    expect(await packageIds()).toContain(idOf(v1))
    // idempotent
    expect((await sendDar("/v2/dars", darOf(v1))).status).toBe(200)

    const fetched = await call(`${node.url}/v2/packages/${idOf(v1)}`, { token: aliceToken })
    expect(fetched.status).toBe(200)
    expect(fetched.contentType).toBe("application/octet-stream")
    const response = await fetch(`${node.url}/v2/packages/${idOf(v1)}`, { headers: { authorization: `Bearer ${aliceToken}` } })
    expect(response.headers.get("canton-package-hash")).toBe(idOf(v1))
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(Packages.encodeDalf(v1).archive)
    expect((await get(node, `/v2/packages/${idOf(v1)}/status`, aliceToken)).json).toEqual({ packageStatus: "PACKAGE_STATUS_REGISTERED" })
    expect((await get(node, `/v2/packages/${"0".repeat(64)}/status`, aliceToken)).json).toEqual({ packageStatus: "PACKAGE_STATUS_UNSPECIFIED" })
    const missing = await get(node, `/v2/packages/${"0".repeat(64)}`, aliceToken)
    expect(missing.status).toBe(404)
    expect(missing.json).toMatchObject({ code: "PACKAGE_NOT_FOUND", errorCategory: 11 })
    // built-in packages have archives too
    expect((await get(node, `/v2/packages/${TransferOffer.pkg.id}/status`, aliceToken)).json).toEqual({ packageStatus: "PACKAGE_STATUS_REGISTERED" })

    const incompatible = await sendDar("/v2/dars/validate", darOf(v3))
    expect(incompatible.status).toBe(400)
    expect(incompatible.json).toMatchObject({ code: "DAR_NOT_VALID_UPGRADE", errorCategory: 8, cause: expect.stringContaining("Thing_Do") })
    expect((await sendDar("/v2/packages", darOf(v2))).status).toBe(200)

    const clash = await sendDar("/v2/packages", darOf(app("1.0.0", [thing, { name: "Extra", choices: [] }])))
    expect(clash.status).toBe(400)
    expect(clash.json).toMatchObject({ code: "KNOWN_DAR_VERSION" })
    expect((await sendDar("/v2/packages", darOf(v2), aliceToken)).status).toBe(403)

    // uploaded templates can be named in filters
    const filtered = await post(node, "/v2/updates", node.admin, {
      beginExclusive: 0,
      endInclusive: 1,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersForAnyParty: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: "#my-app:MyApp.Main:Other" } } } }] } },
          transactionShape: "TRANSACTION_SHAPE_ACS_DELTA"
        }
      }
    })
    // participant_admin lacks CanReadAsAnyParty: the filter resolved, the right is what is missing
    expect(filtered.status).toBe(403)
  })

  it("a DAR that breaks a built-in package's upgrade is refused", async () => {
    const wallet = TransferOffer.pkg.description()
    const broken: PackageDescription = { ...wallet, version: "99.0.0", modules: wallet.modules.filter((m) => m.name !== "Splice.Wallet.TransferOffer") }
    const answer = await sendDar("/v2/dars/validate", darOf(broken))
    expect(answer.status).toBe(400)
    expect(answer.json).toMatchObject({ code: "DAR_NOT_VALID_UPGRADE" })
  })
})

describe("version and documents", () => {
  it("GET /v2/version", async () => {
    const answer = await get(node, "/v2/version", aliceToken)
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({
      version: "3.5.10",
      features: {
        experimental: { staticTime: { supported: false }, commandInspectionService: { supported: false } },
        userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
        partyManagement: { maxPartiesPageSize: 10000 },
        offsetCheckpoint: { maxOffsetCheckpointEmissionDelay: { seconds: 0, nanos: 0 } },
        packageFeature: { maxVettedPackagesPageSize: 100 }
      }
    })
  })

  it("the ledger document carries the reference's operation ids; unserved endpoints answer 501", async () => {
    const spec = (await call(`${node.url}/docs/ledger.json`)).json as { paths: Record<string, Record<string, { operationId: string }>> }
    const ids = Object.values(spec.paths).flatMap((item) => Object.values(item).map((op) => op.operationId))
    expect(ids).toEqual(
      expect.arrayContaining([
        "postV2Updates",
        "postV2UpdatesUpdate-by-id",
        "postV2UpdatesUpdate-by-offset",
        "getV2UpdatesTransaction-tree-by-offsetOffset",
        "postV2UpdatesTransaction-by-offset",
        "postV2CommandsSubmit-and-wait",
        "postV2CommandsSubmit-and-wait-for-transaction",
        "postV2Interactive-submissionPrepare",
        "postV2Interactive-submissionExecute",
        "getV2StateLedger-end",
        "postV2StateActive-contracts",
        "getV2Parties",
        "postV2Parties",
        "postV2PartiesExternalGenerate-topology",
        "postV2PartiesExternalAllocate",
        "getV2Packages",
        "postV2DarsValidate",
        "getV2Version",
        "postV2Package-vettingList"
      ])
    )
    expect(Object.keys(spec.paths)).toContain("/v2/updates/transaction-tree-by-id/{update-id}")
    // Served endpoints that were reserved once: documented with their shapes, no 501 summary.
    const described = spec as unknown as { paths: Record<string, Record<string, { summary?: string; requestBody?: unknown }>> }
    for (const [path, method] of [
      ["/v2/commands/completions", "post"],
      ["/v2/commands/command-completions", "post"],
      ["/v2/events/events-by-contract-id", "post"],
      ["/v2/contracts/contract-by-id", "post"],
      ["/v2/updates/get-updates-page", "post"],
      ["/v2/state/active-contracts-page", "post"],
      ["/v2/package-vetting/list", "post"],
      ["/v2/interactive-submission/preferred-packages", "post"]
    ] as const) {
      const operation = described.paths[path]?.[method]
      expect(operation?.summary, path).toBeUndefined()
      expect(operation?.requestBody, path).toBeDefined()
    }
    const reserved = await post(node, "/v2/package-vetting/update", node.admin, {})
    expect(reserved.status).toBe(501)
    expect(reserved.json).toMatchObject({ code: "UNSUPPORTED_OPERATION", errorCategory: 14 })
  })
})

describe("settings", () => {
  it("LedgerApiConfig.participant serves another node's participant, e.g. sv1", async () => {
    const sv = await startLedgerNode({ ledger: { participant: "sv1" } })
    try {
      const answer = await get(sv, "/v2/parties/participant-id", sv.admin)
      expect((answer.json as { participantId: string }).participantId).toMatch(/^sv1::1220[0-9a-f]{64}$/)
    } finally {
      await sv.close()
    }
  })
})

describe("developer controls", () => {
  it("time: read, advance by a duration or microseconds (ParticipantAdmin), invalid values named", async () => {
    const before = (await get(node, "/v2/sandnet/time", aliceToken)).json as { now: string; microseconds: number }
    expect(before.now).toBe(new Date(before.microseconds / 1000).toISOString().replace("Z", "000Z"))
    const advanced = await post(node, "/v2/sandnet/time/advance", node.admin, { duration: "10m" })
    expect(advanced.status).toBe(200)
    expect((advanced.json as { microseconds: number }).microseconds).toBe(before.microseconds + 600_000_000)
    const again = await post(node, "/v2/sandnet/time/advance", node.admin, { microseconds: 1_000_000 })
    expect((again.json as { microseconds: number }).microseconds).toBe(before.microseconds + 601_000_000)
    const both = await post(node, "/v2/sandnet/time/advance", node.admin, { microseconds: 1, duration: "1s" })
    expect(both.status).toBe(400)
    expect(both.text).toBe("Invalid value for: body (microseconds: exactly one of microseconds and duration must be set)")
    const bad = await post(node, "/v2/sandnet/time/advance", node.admin, { duration: "soon" })
    expect(bad.text).toBe('Invalid value for: body (duration: "soon" is not a duration (e.g. 250ms, 30s, 10m, 1h, 2d))')
    const backwards = await post(node, "/v2/sandnet/time/advance", node.admin, { microseconds: -1 })
    expect(backwards.status).toBe(400)
    expect((await post(node, "/v2/sandnet/time/advance", aliceToken, { duration: "1s" })).status).toBe(403)
  })

  it("reset: a fresh network (ParticipantAdmin); users stay, parties and uploads go", async () => {
    expect((await post(node, "/v2/sandnet/reset", aliceToken, {})).status).toBe(403)
    const reset = await post(node, "/v2/sandnet/reset", node.admin, {})
    expect(reset.status).toBe(200)
    expect(reset.json).toEqual({})
    const parties = (await get(node, "/v2/parties", node.admin)).json as { partyDetails: Array<{ party: string }> }
    expect(parties.partyDetails.map((p) => p.party).some((p) => p.startsWith("alice::"))).toBe(false)
    expect(await packageIds()).not.toContain(idOf(v1))
    expect((await get(node, "/v2/users/alice", node.admin)).status).toBe(200)
  })
})
