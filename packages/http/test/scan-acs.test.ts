/**
 * Scan S9 (GET /v0/history/bulk/acs) and the bulk objects it points to, on a two-SV node: hourly
 * snapshots of the DSO's ACS, downloadable gzipped JSON lines whose sha256 is the digest and is
 * the same at both super validators.
 */
import { Either } from "effect"
import { createHash } from "node:crypto"
import { gunzipSync } from "node:zlib"
import { micros, type CreatedNode, type TransactionUpdate } from "@sandnet/core"
import { ScanApi } from "@sandnet/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { START, allocate, expectError, get, iso, obj, scanUpdate, startEngineNode, tap, type EngineNode } from "./scan-support.ts"

let node: EngineNode
let alice: string
let genesisId: string
/** DSO contracts right after genesis. */
let genesisContracts: ReadonlyArray<string>

beforeAll(async () => {
  node = await startEngineNode({ network: { superValidators: 2 } })
  const engine = await node.engine()
  const sv1 = engine.network.superValidators[0]!
  genesisId = sv1.scan.updates.at(0)!.update.updateId
  genesisContracts = [...sv1.participant.logic.acs.all()]
    .filter((c) => c.created.signatories.includes(engine.network.dso) || c.created.observers.includes(engine.network.dso))
    .map((c) => c.created.contractId)
    .sort()
  alice = await allocate(node, "alice")
})
afterAll(() => node.close())

const acsUrl = (at: string) => `${node.url}/api/scan/v0/history/bulk/acs?at_or_before_record_time=${encodeURIComponent(at)}`
const at = (minutesAfterStart: number) => iso(START + micros.minutes(minutesAfterStart))

interface Listing {
  readonly record_time: string
  readonly object_refs: ReadonlyArray<{ readonly url: string; readonly digest: string }>
}

const listing = async (time: string): Promise<Listing> => {
  const reply = await get(acsUrl(time))
  expect(reply.status).toBe(200)
  expect(Object.keys(obj(reply.json))).toEqual(["record_time", "object_refs"])
  return reply.json as Listing
}

const download = async (url: string): Promise<Uint8Array> => {
  const response = await fetch(url)
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toBe("application/gzip")
  return new Uint8Array(await response.arrayBuffer())
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const lines = (bytes: Uint8Array): ReadonlyArray<Record<string, unknown>> =>
  gunzipSync(bytes)
    .toString("utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)

const coinOf = async (updateId: string): Promise<string> =>
  (((await scanUpdate(node, updateId)).update as TransactionUpdate).nodes.find((n) => n.kind === "created") as CreatedNode).contractId

/** The digest and bytes of the same snapshot, computed at another super validator. */
const atSv = async (sv: number, time: string) => {
  const engine = await node.engine()
  const scan = engine.network.superValidators[sv]!.scan
  const listed = ScanApi.acsSnapshotAtOrBefore(scan, Date.parse(time) * 1000)
  if (Either.isLeft(listed)) throw new Error(listed.left.message)
  const name = listed.right.objects[0]!.name
  const bytes = ScanApi.acsSnapshotObject(scan, name)
  if (Either.isLeft(bytes)) throw new Error(bytes.left.message)
  return { recordTime: iso(listed.right.recordTime), digest: listed.right.objects[0]!.digest, bytes: bytes.right }
}

let coinX: string
let coinY: string
let coinZ: string

describe("S9 GET /v0/history/bulk/acs", () => {
  it("has a snapshot at the first update: gzipped JSON lines of ActiveContract items, digest = sha256 of the bytes", async () => {
    const listed = await listing(at(0))
    expect(listed.record_time).toBe("2026-01-01T10:30:00.000000Z")
    expect(listed.object_refs).toHaveLength(1)
    const ref = listed.object_refs[0]!
    expect(ref.url).toBe(`${node.url}/api/scan/v0/history/bulk/objects/acs-${START}-0.jsonl.gz`)
    expect(ref.digest).toMatch(/^[0-9a-f]{64}$/)
    const bytes = await download(ref.url)
    expect(sha256(bytes)).toBe(ref.digest)
    const items = lines(bytes)
    expect(items.map((i) => i["contract_id"])).toEqual(genesisContracts)
    const engine = await node.engine()
    const first = engine.network.superValidators[0]!.participant.logic.acs.get(genesisContracts[0]!)!
    expect(items[0]).toEqual({
      contract_id: first.created.contractId,
      created_at: iso(first.created.createdAt),
      created_in_update_id: genesisId,
      create_arguments: first.created.createArguments,
      observers: [...first.created.observers].sort(),
      package_name: first.created.packageName,
      signatories: [...first.created.signatories].sort(),
      template_id: first.created.templateId
    })
    // The same snapshot at the second super validator: same bytes, same digest.
    const other = await atSv(1, at(0))
    expect(other.recordTime).toBe(listed.record_time)
    expect(other.digest).toBe(ref.digest)
    expect(sha256(other.bytes)).toBe(ref.digest)
    expect(Buffer.from(other.bytes).equals(Buffer.from(bytes))).toBe(true)
  })

  it("takes a snapshot at each full hour of record time once an update passed it", async () => {
    await node.advance(micros.minutes(15)) // 10:45
    coinX = await coinOf(await tap(node, alice, "7"))
    // The 11:00 boundary has not been passed yet.
    expect((await listing(at(20))).record_time).toBe(at(0))
    await node.advance(micros.minutes(45)) // 11:30
    coinY = await coinOf(await tap(node, alice, "8"))
    const eleven = await listing(at(75))
    expect(eleven.record_time).toBe("2026-01-01T11:00:00.000000Z")
    const ids = lines(await download(eleven.object_refs[0]!.url)).map((i) => i["contract_id"])
    expect(ids).toContain(coinX)
    expect(ids).not.toContain(coinY)
    expect(ids).toEqual([...ids].sort())
    // Before the hour: still the first snapshot.
    expect((await listing(at(29))).record_time).toBe(at(0))
  })

  it("gives every hour between two updates its own snapshot time, identical at both super validators", async () => {
    await node.advance(micros.minutes(100)) // 13:10
    coinZ = await coinOf(await tap(node, alice, "9"))
    const noon = await listing("2026-01-01T12:30:00Z")
    expect(noon.record_time).toBe("2026-01-01T12:00:00.000000Z")
    const one = await listing("2026-01-01T13:05:00.123456Z")
    expect(one.record_time).toBe("2026-01-01T13:00:00.000000Z")
    const latest = await listing("2030-01-01T00:00:00Z")
    expect(latest.record_time).toBe("2026-01-01T13:00:00.000000Z")
    const bytes = await download(one.object_refs[0]!.url)
    const ids = lines(bytes).map((i) => i["contract_id"])
    expect(ids).toContain(coinY)
    expect(ids).not.toContain(coinZ)
    const other = await atSv(1, "2026-01-01T13:05:00Z")
    expect(other.digest).toBe(one.object_refs[0]!.digest)
    expect(sha256(bytes)).toBe(other.digest)
  })

  it("answers 404 before the first snapshot, 400 for a malformed or missing time", async () => {
    expect(expectError(await get(acsUrl(at(-1))), 404)).toBe(`no ACS snapshot at or before ${at(-1)}`)
    expect(expectError(await get(acsUrl("noon")), 400)).toMatch(/at_or_before_record_time/)
    expect(expectError(await get(`${node.url}/api/scan/v0/history/bulk/acs`), 400)).toMatch(/at_or_before_record_time/)
  })

  it("serves only the objects of snapshots that were taken", async () => {
    const object = (name: string) => get(`${node.url}/api/scan/v0/history/bulk/objects/${name}`)
    expect(expectError(await object("acs-123-0.jsonl.gz"), 404)).toBe("bulk storage object acs-123-0.jsonl.gz not found")
    expectError(await object(`acs-${START}-1.jsonl.gz`), 404)
    expectError(await object("passwd"), 404)
  })
})
