/**
 * The upstream scan reads (src/scan-upstream) answer in upstream's shapes: each answer is checked
 * against the response schema of Splice's scan OpenAPI document, from the fragments copied into
 * fixtures/splice-scan-fragments.json (the test reads nothing outside the project). Also: paging
 * of /v2/updates and /v0/events by (migration id, record time), and the cached-contract semantics
 * of the rounds endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import { allocate, get, post, startEngineNode, tap, type EngineNode } from "./scan-support.ts"

type Schema = { readonly [key: string]: unknown }
const fragments = JSON.parse(readFileSync(new URL("./fixtures/splice-scan-fragments.json", import.meta.url), "utf8")) as { schemas: Record<string, Schema> }

/** The JSON Schema subset the fragments use: type, required, properties, additionalProperties, items, enum, nullable, $ref, allOf, oneOf. */
const validate = (value: unknown, schema: Schema, path: string, errors: Array<string>): void => {
  const ref = schema["$ref"]
  if (typeof ref === "string") return validate(value, fragments.schemas[ref.slice(2)]!, path, errors)
  if (value === null) {
    if (schema["nullable"] !== true && schema["type"] !== undefined) errors.push(`${path}: null`)
    return
  }
  for (const part of (schema["allOf"] as ReadonlyArray<Schema> | undefined) ?? []) validate(value, part, path, errors)
  const oneOf = schema["oneOf"] as ReadonlyArray<Schema> | undefined
  if (oneOf !== undefined) {
    const matching = oneOf.filter((option) => {
      const found: Array<string> = []
      validate(value, option, path, found)
      return found.length === 0
    })
    if (matching.length !== 1) errors.push(`${path}: matches ${matching.length} of the oneOf options`)
  }
  validateType(value, schema, path, errors)
}

const TYPES: Record<string, (v: unknown) => boolean> = {
  object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  array: Array.isArray,
  string: (v) => typeof v === "string",
  integer: Number.isInteger,
  number: (v) => typeof v === "number",
  boolean: (v) => typeof v === "boolean"
}

const validateType = (value: unknown, schema: Schema, path: string, errors: Array<string>): void => {
  const type = schema["type"] as string | undefined
  if (type !== undefined && !TYPES[type]!(value)) return void errors.push(`${path}: expected ${type}, got ${JSON.stringify(value)?.slice(0, 60)}`)
  const enumeration = schema["enum"] as ReadonlyArray<unknown> | undefined
  if (enumeration !== undefined && !enumeration.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} is not one of ${enumeration.join(", ")}`)
  if (Array.isArray(value) && schema["items"] !== undefined) value.forEach((item, i) => validate(item, schema["items"] as Schema, `${path}[${i}]`, errors))
  if (!TYPES["object"]!(value)) return
  const record = value as Record<string, unknown>
  for (const key of (schema["required"] as ReadonlyArray<string> | undefined) ?? []) if (!(key in record)) errors.push(`${path}.${key}: is missing`)
  const properties = (schema["properties"] as Record<string, Schema> | undefined) ?? {}
  const additional = schema["additionalProperties"]
  for (const [key, v] of Object.entries(record)) {
    const property = properties[key] ?? (typeof additional === "object" ? (additional as Schema) : undefined)
    if (property !== undefined) validate(v, property, `${path}.${key}`, errors)
  }
}

const expectShape = (value: unknown, schemaName: string) => {
  const errors: Array<string> = []
  validate(value, fragments.schemas[schemaName]!, schemaName, errors)
  expect(errors).toEqual([])
}

let node: EngineNode

describe("upstream scan reads", () => {
  beforeAll(async () => {
    node = await startEngineNode()
    const alice = await allocate(node, "alice")
    await tap(node, alice, "25")
    await tap(node, alice, "5")
  })
  afterAll(() => node.close())

  it("GET /v0/dso and /v0/dso-party-id", async () => {
    const dso = await get(`${node.url}/api/scan/v0/dso`)
    expect(dso.status).toBe(200)
    expectShape(dso.json, "GetDsoInfoResponse")
    const party = await get(`${node.url}/api/scan/v0/dso-party-id`)
    expectShape(party.json, "GetDsoPartyIdResponse")
    expect((dso.json as { dso_party_id: string }).dso_party_id).toBe((party.json as { dso_party_id: string }).dso_party_id)
  })

  it("POST /v0/open-and-issuing-mining-rounds leaves out the contracts the caller has cached", async () => {
    const first = await post(`${node.url}/api/scan/v0/open-and-issuing-mining-rounds`, { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] })
    expectShape(first.json, "GetOpenAndIssuingMiningRoundsResponse")
    const open = (first.json as { open_mining_rounds: Record<string, { contract?: unknown }> }).open_mining_rounds
    const ids = Object.keys(open)
    expect(ids.length).toBeGreaterThan(0)
    const cached = await post(`${node.url}/api/scan/v0/open-and-issuing-mining-rounds`, { cached_open_mining_round_contract_ids: [ids[0]], cached_issuing_round_contract_ids: [] })
    expectShape(cached.json, "GetOpenAndIssuingMiningRoundsResponse")
    expect((cached.json as { open_mining_rounds: Record<string, { contract?: unknown }> }).open_mining_rounds[ids[0]!]!.contract).toBeUndefined()
  })

  it("GET /v0/closed-rounds, /v0/featured-apps and /v0/admin/sv/voterequests", async () => {
    await node.advance(60 * 60 * 1_000_000)
    expectShape((await get(`${node.url}/api/scan/v0/closed-rounds`)).json, "GetClosedRoundsResponse")
    expectShape((await get(`${node.url}/api/scan/v0/featured-apps`)).json, "ListFeaturedAppRightsResponse")
    expectShape((await get(`${node.url}/api/scan/v0/admin/sv/voterequests`)).json, "ListDsoRulesVoteRequestsResponse")
  })

  it("POST /v2/updates and /v0/events page by record time, in order", async () => {
    const all = await post(`${node.url}/api/scan/v2/updates`, { page_size: 1000 })
    expectShape(all.json, "UpdateHistoryResponseV2")
    const transactions = (all.json as { transactions: ReadonlyArray<{ update_id: string; record_time: string; migration_id: number }> }).transactions
    expect(transactions.length).toBeGreaterThan(2)
    const times = transactions.map((t) => t.record_time)
    expect([...times].sort()).toEqual(times)
    const after = { after_migration_id: transactions[0]!.migration_id, after_record_time: transactions[0]!.record_time }
    const rest = await post(`${node.url}/api/scan/v2/updates`, { page_size: 2, after })
    expect((rest.json as { transactions: ReadonlyArray<{ update_id: string }> }).transactions.map((t) => t.update_id)).toEqual(transactions.slice(1, 3).map((t) => t.update_id))
    const events = await post(`${node.url}/api/scan/v0/events`, { page_size: 1000 })
    expectShape(events.json, "EventHistoryResponse")
    const items = (events.json as { events: ReadonlyArray<{ verdict?: { verdict_result: string } }> }).events
    expect(items.length).toBeGreaterThanOrEqual(transactions.length)
    expect(items.every((e) => e.verdict?.verdict_result === "VERDICT_RESULT_ACCEPTED")).toBe(true)
  })

  it("refuses a page size out of range and an after time that is no time", async () => {
    expect((await post(`${node.url}/api/scan/v2/updates`, { page_size: 0 })).status).toBe(400)
    expect((await post(`${node.url}/api/scan/v0/events`, { page_size: 10, after: { after_migration_id: 0, after_record_time: "yesterday" } })).status).toBe(400)
  })
})
