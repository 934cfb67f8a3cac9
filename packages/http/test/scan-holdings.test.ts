/**
 * Upstream scan's holdings summaries (src/scan-upstream/holdings.ts): POST /v0/holdings/summary and
 * /v1/holdings/summary sum the owners' coin in the scan's hourly ACS snapshot that the record time
 * picks (`exact`, the default, or `at_or_before`). The answers have upstream's fields
 * (HoldingsSummaryResponse, HoldingsSummary; the V1 ones without the fee fields), listed here.
 */
import { micros } from "@sandnet/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { START, allocate, expectError, iso, post, startEngineNode, tap, type EngineNode } from "./scan-support.ts"

/** Upstream's HoldingsSummary fields, all required strings besides party_id. */
const SUMMARY_FIELDS = [
  "party_id",
  "total_unlocked_coin",
  "total_locked_coin",
  "total_coin_holdings",
  "accumulated_holding_fees_unlocked",
  "accumulated_holding_fees_locked",
  "accumulated_holding_fees_total",
  "total_available_coin"
]
const SUMMARY_V1_FIELDS = SUMMARY_FIELDS.slice(0, 4)

type Summary = Record<string, string>
interface Reply {
  readonly record_time: string
  readonly migration_id: number
  readonly computed_as_of_round?: number
  readonly summaries: ReadonlyArray<Summary>
}

let node: EngineNode
let alice: string
let bob: string
const eleven = "2026-01-01T11:00:00.000000Z"

const summary = async (body: Record<string, unknown>, version = "v0") => {
  const reply = await post(`${node.url}/api/scan/${version}/holdings/summary`, { migration_id: 0, ...body })
  return { status: reply.status, json: reply.json as Reply, reply }
}

beforeAll(async () => {
  node = await startEngineNode()
  alice = await allocate(node, "alice")
  bob = await allocate(node, "bob")
  await node.advance(micros.minutes(15)) // 10:45
  await tap(node, alice, "25")
  await tap(node, alice, "5")
  await node.advance(micros.minutes(45)) // 11:30: this tap passes 11:00, so the 11:00 snapshot is taken without it
  await tap(node, bob, "3")
})
afterAll(() => node.close())

describe("POST /api/scan/v0/holdings/summary", () => {
  it("sums each owner's coin in the snapshot taken at the record time, in upstream's shape", async () => {
    const { status, json } = await summary({ record_time: eleven, owner_party_ids: [alice, bob] })
    expect(status).toBe(200)
    expect(Object.keys(json).sort()).toEqual(["computed_as_of_round", "migration_id", "record_time", "summaries"])
    expect(json.record_time).toBe(eleven)
    expect(json.migration_id).toBe(0)
    expect(Number.isInteger(json.computed_as_of_round)).toBe(true)
    for (const s of json.summaries) {
      expect(Object.keys(s).sort()).toEqual([...SUMMARY_FIELDS].sort())
      for (const field of SUMMARY_FIELDS) expect(typeof s[field]).toBe("string")
    }
    const [a, b] = json.summaries
    expect(a!.party_id).toBe(alice)
    expect(Number(a!.total_unlocked_coin)).toBe(30)
    expect(Number(a!.total_locked_coin)).toBe(0)
    expect(Number(a!.total_coin_holdings)).toBe(30)
    expect(Number(a!.accumulated_holding_fees_total)).toBeCloseTo(Number(a!.accumulated_holding_fees_unlocked) + Number(a!.accumulated_holding_fees_locked), 10)
    expect(Number(a!.total_available_coin)).toBeCloseTo(30 - Number(a!.accumulated_holding_fees_unlocked), 10)
    // bob's tap came after 11:00: nothing in this snapshot
    expect(b).toMatchObject({ party_id: bob, total_unlocked_coin: "0.0000000000", total_coin_holdings: "0.0000000000" })
  })

  it("computes the fees as of the round asked for: more rounds, more fees", async () => {
    const early = (await summary({ record_time: eleven, owner_party_ids: [alice], as_of_round: 0 })).json
    const late = (await summary({ record_time: eleven, owner_party_ids: [alice], as_of_round: 5000 })).json
    expect(early.computed_as_of_round).toBe(0)
    expect(late.computed_as_of_round).toBe(5000)
    expect(Number(early.summaries[0]!.accumulated_holding_fees_unlocked)).toBe(0)
    expect(Number(late.summaries[0]!.accumulated_holding_fees_unlocked)).toBeGreaterThan(0)
    expect(Number(late.summaries[0]!.total_available_coin)).toBeLessThan(30)
  })

  it("with at_or_before takes the latest snapshot at or before the time; exact needs a snapshot's time", async () => {
    const later = await summary({ record_time: "2026-01-01T11:20:00Z", record_time_match: "at_or_before", owner_party_ids: [alice] })
    expect(later.status).toBe(200)
    expect(later.json.record_time).toBe(eleven)
    expect(expectError((await summary({ record_time: "2026-01-01T11:20:00Z", owner_party_ids: [alice] })).reply, 404)).toContain("2026-01-01T11:20:00")
    expect(expectError((await summary({ record_time: iso(START - micros.minutes(1)), record_time_match: "at_or_before", owner_party_ids: [alice] })).reply, 404)).toContain("no ACS snapshot")
  })

  it("refuses a record time that is no time and an empty owner list with 400", async () => {
    expectError((await summary({ record_time: "yesterday", owner_party_ids: [alice] })).reply, 400)
    expectError((await summary({ record_time: eleven, owner_party_ids: [] })).reply, 400)
    expectError((await summary({ record_time: eleven, owner_party_ids: [alice], record_time_match: "nearest" })).reply, 400)
  })
})

describe("POST /api/scan/v1/holdings/summary", () => {
  it("answers the totals without the fee fields", async () => {
    const { status, json } = await summary({ record_time: eleven, owner_party_ids: [alice] }, "v1")
    expect(status).toBe(200)
    expect(Object.keys(json).sort()).toEqual(["migration_id", "record_time", "summaries"])
    expect(Object.keys(json.summaries[0]!).sort()).toEqual([...SUMMARY_V1_FIELDS].sort())
    expect(Number(json.summaries[0]!.total_coin_holdings)).toBe(30)
  })
})
