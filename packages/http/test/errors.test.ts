/**
 * Request validation and error shapes on each surface, over real HTTP: malformed JSON, wrong
 * types, oversized bodies, unknown routes, reserved endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminToken, call, devToken, startNode, type TestNode } from "./support.ts"

let node: TestNode
let admin: string
let wallet: string
const TEN_MIB = 10 * 1024 * 1024

beforeAll(async () => {
  node = await startNode()
  admin = await adminToken()
  wallet = await devToken("wallet-user")
})
afterAll(() => node.close())

const oversized = () => `{"pad":"${"x".repeat(TEN_MIB)}"}`

const expectErrorBody = (response: { status: number; contentType: string; json: unknown }, status: number) => {
  expect(response.status).toBe(status)
  expect(response.contentType).toMatch(/application\/json/)
  expect(response.json).toEqual({ error: expect.any(String) })
  return (response.json as { error: string }).error
}

describe("scan (open, {error})", () => {
  const url = () => `${node.url}/api/scan/v0/ans-rules`

  it("malformed JSON is 400 with a clear message", async () => {
    const message = expectErrorBody(await call(url(), { rawBody: '{"cached_ans_rules_contract_id": ' }), 400)
    expect(message).toMatch(/malformed JSON/)
  })

  it("a wrong type names the field", async () => {
    const message = expectErrorBody(await call(url(), { body: { cached_ans_rules_contract_id: 5 } }), 400)
    expect(message).toContain("cached_ans_rules_contract_id")
    expect(message).toMatch(/Expected string/)
  })

  it("a missing required field is named", async () => {
    const message = expectErrorBody(await call(`${node.url}/api/scan/v0/admin/sv/voteresults`, { body: {} }), 400)
    expect(message).toContain("limit")
  })

  it("an invalid query parameter is named", async () => {
    const response = await call(`${node.url}/api/scan/v1/updates/abc?contract_value_encoding=xml`)
    expect(expectErrorBody(response, 400)).toMatch(/query parameter contract_value_encoding/)
  })

  it("a valid request to an endpoint the engine does not serve yet is 501", async () => {
    expect(expectErrorBody(await call(url(), { body: {} }), 501)).toMatch(/not implemented/)
  })

  it("an oversized body is 413", async () => {
    expect(expectErrorBody(await call(url(), { rawBody: oversized() }), 413)).toMatch(/exceeds the limit of 10485760 bytes/)
  })

  it("an unknown route is 404 {error}", async () => {
    expect(expectErrorBody(await call(`${node.url}/api/scan/v0/nothing-here`), 404)).toMatch(/no route/)
    expectErrorBody(await call(`${node.url}/api/scan`), 404)
  })
})

describe("wallet (bearer, {error})", () => {
  const url = () => `${node.url}/api/validator/v0/wallet/transfer-offers`
  const offer = {
    receiver_party_id: "bob::1220ab",
    amount: "10.0",
    description: "rent",
    expires_at: 1_800_000_000_000_000,
    tracking_id: "t-1"
  }

  it("malformed JSON is 400", async () => {
    expect(expectErrorBody(await call(url(), { token: wallet, rawBody: "not json" }), 400)).toMatch(/malformed JSON/)
  })

  it("a wrong type names the field", async () => {
    const message = expectErrorBody(await call(url(), { token: wallet, body: { ...offer, expires_at: "soon" } }), 400)
    expect(message).toContain("expires_at")
  })

  it("an oversized body is 413", async () => {
    expectErrorBody(await call(url(), { token: wallet, rawBody: oversized() }), 413)
  })

  it("a valid request is 501 until the engine serves it", async () => {
    expectErrorBody(await call(url(), { token: wallet, body: offer }), 501)
  })

  it("an unknown route is 404 {error}", async () => {
    expectErrorBody(await call(`${node.url}/api/validator/v0/nope`, { token: wallet }), 404)
  })
})

describe("registry (open, {error})", () => {
  const url = () => `${node.url}/registry/transfer-instruction/v2/00abc/choice-contexts/reject`

  it("malformed JSON is 400", async () => {
    expect(expectErrorBody(await call(url(), { rawBody: "[1," }), 400)).toMatch(/malformed JSON/)
  })

  it("a wrong type names the field", async () => {
    expect(expectErrorBody(await call(url(), { body: { excludeDebugFields: "yes" } }), 400)).toContain(
      "excludeDebugFields"
    )
  })

  it("a body that is not JSON by its content type is 400", async () => {
    const response = await call(url(), { rawBody: "a=b", headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(expectErrorBody(response, 400)).toMatch(/Content-Type/)
  })

  it("an oversized body is 413", async () => {
    expectErrorBody(await call(url(), { rawBody: oversized() }), 413)
  })

  it("an unknown route is 404 {error}", async () => {
    expectErrorBody(await call(`${node.url}/registry/no-such-endpoint`), 404)
  })
})

describe("ledger (text/plain 400, JsCantonError otherwise)", () => {
  const url = () => `${node.url}/v2/users`

  const expectPlain400 = (response: { status: number; contentType: string; text: string }) => {
    expect(response.status).toBe(400)
    expect(response.contentType).toMatch(/text\/plain/)
    return response.text
  }

  it("malformed JSON names the body", async () => {
    const text = expectPlain400(await call(url(), { token: admin, rawBody: '{"user": {"id": ' }))
    expect(text).toMatch(/^Invalid value for: body \(malformed JSON/)
  })

  it("a wrong type names the body field", async () => {
    const text = expectPlain400(await call(url(), { token: admin, body: { user: { id: 42 } } }))
    expect(text).toMatch(/^Invalid value for: body \(user\.id: Expected string, actual 42\)$/)
  })

  it("an invalid query parameter is named", async () => {
    const text = expectPlain400(await call(`${url()}?pageSize=many`, { token: admin }))
    expect(text).toMatch(/^Invalid value for: query parameter pageSize/)
  })

  it("an invalid path parameter is named", async () => {
    const text = expectPlain400(await call(`${node.url}/v2/users/${encodeURIComponent("no spaces")}`, { token: admin }))
    expect(text).toMatch(/^Invalid value for: path parameter user-id/)
  })

  it("an oversized body is 400 text/plain", async () => {
    const text = expectPlain400(await call(url(), { token: admin, rawBody: oversized() }))
    expect(text).toMatch(/exceeds the limit of 10485760 bytes/)
  })

  it("an unknown route is 404 with the standard error body", async () => {
    const response = await call(`${node.url}/v2/no-such-thing`, { token: admin })
    expect(response.status).toBe(404)
    expect(response.json).toEqual({
      code: "ROUTE_NOT_FOUND",
      cause: "no route for GET /v2/no-such-thing",
      context: expect.objectContaining({ category: "11" }),
      resources: [],
      errorCategory: 11,
      grpcCodeValue: 5,
      definiteAnswer: false
    })
    // Absent optional values are left out, not null (upstream's JsCantonError declares them optional).
    expect(Object.keys(response.json as object)).not.toContain("correlationId")
    expect(Object.values(response.json as object)).not.toContain(null)
  })
})

it("anything outside the surfaces is 404 JSON", async () => {
  const response = await call(`${node.url}/elsewhere`)
  expect(response.status).toBe(404)
  expect(response.json).toEqual({ error: expect.stringContaining("no route for GET /elsewhere") })
})

it("the node keeps serving after every bad request above", async () => {
  const response = await call(`${node.url}/v2/authenticated-user`, { token: admin })
  expect(response.status).toBe(200)
})

describe("a configured body limit", () => {
  let small: TestNode
  beforeAll(async () => {
    small = await startNode({ http: { maxRequestBytes: 1024 } })
  })
  afterAll(() => small.close())

  it("applies to chunked bodies without Content-Length, and the node answers 413 instead of resetting", async () => {
    const chunk = new TextEncoder().encode("x".repeat(4096))
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 64) controller.enqueue(chunk)
        else controller.close()
      }
    })
    const response = await fetch(`${small.url}/api/scan/v0/ans-rules`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
      duplex: "half"
    } as RequestInit)
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual({ error: "request body exceeds the limit of 1024 bytes" })
    const next = await call(`${small.url}/api/scan/v0/ans-rules`, { body: {} })
    expect(next.status).toBe(501)
  })
})
