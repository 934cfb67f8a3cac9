/**
 * Bad input on every route, generated. The operations are those of the four surfaces' OpenAPI
 * documents as the node serves them (`/docs/<surface>.json`); each request has odd path segments
 * and query values, a body that is malformed JSON, a JSON value of the wrong shape, or one shaped by
 * the operation's own schema with edge values in its fields (empty, huge, negative, non-ASCII, NUL,
 * ids of the wrong kind), and no token, a garbage one, an unknown user's, a user's or the
 * participant admin's. Whatever comes in, the answer is the surface's own: a 2xx, or an error in
 * the surface's error shape (docs/api.md, "Errors"), never a 5xx but the declared 501s, and the
 * node keeps serving. The node's sandnet admin routes (reset, time) are left out: they change what
 * every other request sees.
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, devToken, type Call } from "./support.ts"
import { onboard, startWalletNode, tokenOf, type WalletTestNode } from "./wallet-support.ts"

/** Requests per dialect; `SANDNET_BAD_INPUT_RUNS` asks for more (a longer hunt, by hand). */
const RUNS = Number(process.env["SANDNET_BAD_INPUT_RUNS"] ?? 600)

type Surface = "scan" | "wallet" | "registry" | "ledger"
const SURFACES: ReadonlyArray<Surface> = ["scan", "wallet", "registry", "ledger"]

/** The part of an OpenAPI schema the generator reads. */
interface JsonSchema {
  readonly $ref?: string
  readonly type?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly allOf?: ReadonlyArray<JsonSchema>
  readonly items?: JsonSchema
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
}

interface OpenApiDocument {
  readonly servers?: ReadonlyArray<{ readonly url: string }>
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  readonly components?: { readonly schemas?: Readonly<Record<string, JsonSchema>> }
}

interface Operation {
  readonly surface: Surface
  readonly method: string
  /** The full path, `{name}` where a segment goes. */
  readonly path: string
  readonly query: ReadonlyArray<string>
  readonly body: JsonSchema | undefined
  readonly document: OpenApiDocument
}

const METHODS = ["get", "post", "put", "patch", "delete"]

const operationsOf = (surface: Surface, document: OpenApiDocument): Array<Operation> => {
  const prefix = document.servers?.[0]?.url ?? ""
  const out: Array<Operation> = []
  for (const [path, item] of Object.entries(document.paths)) {
    if (path.startsWith("/v2/sandnet/")) continue
    for (const [method, raw] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue
      const op = raw as { parameters?: ReadonlyArray<{ in: string; name: string }>; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }
      const query = (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name)
      out.push({ surface, method: method.toUpperCase(), path: prefix + path, query, body: op.requestBody?.content?.["application/json"]?.schema, document })
    }
  }
  return out
}

const resolve = (document: OpenApiDocument, schema: JsonSchema | undefined, depth: number): JsonSchema | undefined => {
  if (schema?.$ref === undefined || depth > 8) return schema
  return resolve(document, document.components?.schemas?.[schema.$ref.split("/").pop() ?? ""], depth + 1)
}

/** Strings that have broken parsers: empty, blank, NUL, huge, numeric edges, ids of the wrong kind, bad percent escapes. */
const ODD_STRINGS = [
  "", " ", "\u0000", "x", "ü", "0", "-1", "1e309", "99999999999999999999999", "1.5", "null", "[]", "{}", "..", "%ZZ",
  "a::b", "DSO::1220", "#u:1", "2026-13-45T99:99:99Z", "x".repeat(5_000),
  "1220" + "ab".repeat(32), "00" + "ab".repeat(40)
]
const oddString = fc.oneof(fc.constantFrom(...ODD_STRINGS), fc.string(), fc.integer().map(String))
const anyJson = fc.jsonValue({ maxDepth: 3 })
const oddValue = fc.oneof(anyJson, oddString, fc.constantFrom(null, -1, 2 ** 53, 1e308, -0, 1.5), fc.array(oddString, { maxLength: 3 }))

/** Values of roughly the schema's shape, with odd leaves (and now and then a value of another shape). */
const shaped = (document: OpenApiDocument, schema0: JsonSchema | undefined, depth: number): fc.Arbitrary<unknown> => {
  const schema = resolve(document, schema0, 0)
  if (schema === undefined || depth > 5) return oddValue
  const alternatives = schema.oneOf ?? schema.anyOf
  if (alternatives !== undefined && alternatives.length > 0) return fc.oneof(...alternatives.map((s) => shaped(document, s, depth + 1)))
  if (schema.allOf !== undefined && schema.allOf.length > 0) return shaped(document, schema.allOf[0], depth + 1)
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.oneof(fc.constantFrom(...schema.enum), oddString)
  switch (schema.type) {
    case "string":
      return fc.oneof({ weight: 3, arbitrary: oddString }, { weight: 1, arbitrary: oddValue })
    case "integer":
    case "number":
      return fc.oneof(fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 63), 1e21, 1.5, 1e308), fc.integer(), oddValue)
    case "boolean":
      return fc.oneof(fc.boolean(), oddValue)
    case "array":
      return fc.oneof({ weight: 4, arbitrary: fc.array(shaped(document, schema.items, depth + 1), { maxLength: 3 }) }, { weight: 1, arbitrary: oddValue })
  }
  const fields = Object.entries(schema.properties ?? {})
  if (fields.length === 0) return oddValue
  const record = fc.record(Object.fromEntries(fields.map(([name, field]) => [name, shaped(document, field, depth + 1)])), {
    requiredKeys: (schema.required ?? []).filter((name) => fields.some(([field]) => field === name))
  })
  return fc.oneof({ weight: 5, arbitrary: record }, { weight: 1, arbitrary: oddValue })
}

const MALFORMED_BODIES = ["", "{", "nul", "[1,", '{"a":1}x', '"\\ud800"', "\u0000"]

const bodyOf = (op: Operation): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: shaped(op.document, op.body, 0).map((value) => JSON.stringify(value) ?? "null") },
    { weight: 1, arbitrary: anyJson.map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_BODIES) }
  )

/** A request for `op`: its path segments, query and body generated, one of `tokens` (what a failure prints: the document left out). */
const requestOf = (op: Operation, tokens: ReadonlyArray<string | undefined>) =>
  fc.record({
    op: fc.constant({ surface: op.surface, method: op.method, path: op.path }),
    segments: fc.array(oddString, { minLength: 4, maxLength: 4 }),
    query: fc.dictionary(fc.constantFrom(...op.query, "x"), oddString, { maxKeys: 3 }),
    body: op.method === "GET" ? fc.constant(undefined) : bodyOf(op),
    token: fc.constantFrom(...tokens)
  })

/** The surface's error shape: `{error}` JSON on scan, wallet and registry; on the ledger a JsCantonError, or a decoding failure's text. */
const expectErrorShape = (surface: Surface, reply: Call): void => {
  if (surface !== "ledger") {
    expect(reply.contentType).toMatch(/^application\/json/)
    expect(reply.json).toMatchObject({ error: expect.any(String) })
  } else if (reply.contentType.startsWith("text/plain")) {
    expect(reply.text).toMatch(/^Invalid value for: /)
  } else {
    expect(reply.contentType).toMatch(/^application\/json/)
    expect(reply.json).toMatchObject({ code: expect.any(String), cause: expect.any(String), resources: expect.any(Array), errorCategory: expect.any(Number) })
  }
}

describe.each(["spec", "upstream"] as const)("bad input on every route of the four surfaces, %s names", (dialect) => {
  let node: WalletTestNode
  let operations: ReadonlyArray<Operation> = []
  let tokens: ReadonlyArray<string | undefined> = []

  beforeAll(async () => {
    node = await startWalletNode({ dialect })
    await onboard(node, "alice")
    tokens = [undefined, "not-a-token", await devToken("nobody"), await tokenOf("alice"), node.admin]
    const documents = await Promise.all(SURFACES.map(async (surface) => [surface, (await call(`${node.url}/docs/${surface}.json`)).json as OpenApiDocument] as const))
    operations = documents.flatMap(([surface, document]) => operationsOf(surface, document))
  }, 60_000)
  afterAll(() => node.close())

  it("finds the operations of every surface in its served OpenAPI document", () => {
    for (const surface of SURFACES) expect(operations.filter((op) => op.surface === surface).length).toBeGreaterThan(10)
  })

  it("answers a 2xx or the surface's error shape, never a 5xx but a declared 501, and keeps serving", async () => {
    const request = fc.constantFrom(...operations).chain((op) => requestOf(op, tokens))
    await fc.assert(
      fc.asyncProperty(request, async ({ op, segments, query, body, token }) => {
        let i = 0
        const path = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(segments[i++ % segments.length]!))
        const search = new URLSearchParams(query).toString()
        const reply = await call(`${node.url}${path}${search === "" ? "" : `?${search}`}`, {
          method: op.method,
          token,
          ...(body === undefined ? {} : { rawBody: body, headers: { "content-type": "application/json" } })
        })
        expect(reply.status === 501 || reply.status < 500, `${op.method} ${path}: ${reply.status} ${reply.text.slice(0, 200)}`).toBe(true)
        if (reply.status >= 400) expectErrorShape(op.surface, reply)
      }),
      { numRuns: RUNS }
    )
    const health = await call(`${node.url}/sandnet/health`)
    expect(health.status).toBe(200)
  }, 120_000)
})
