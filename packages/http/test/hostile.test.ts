/**
 * Issue 15, "Hostile input": bodies nested thousands of levels deep, paths that do not decode or
 * are too long, requests without Host or with huge headers, oversized bodies on a closing
 * connection, trailing slashes and case, unbounded party ids. Every answer is the surface's own
 * error shape (docs/api.md, "Hostile input"), and the node keeps serving everyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connect } from "node:net"
import { nestsDeeperThan } from "../src/json-body.ts"
import { call, type Call } from "./support.ts"
import { onboard, startWalletNode, tokenOf, wallet, type WalletTestNode } from "./wallet-support.ts"

let node: WalletTestNode
let aliceToken: string
beforeAll(async () => {
  node = await startWalletNode()
  await onboard(node, "alice")
  aliceToken = await tokenOf("alice")
}, 60_000)
afterAll(() => node.close())

type SurfaceName = "scan" | "wallet" | "registry" | "ledger"

/** A POST endpoint with a JSON body on each surface, and the token it needs. */
const postEndpoints = (): ReadonlyArray<{ readonly surface: SurfaceName; readonly path: string; readonly token: string | undefined }> => [
  { surface: "scan", path: "/api/scan/v0/events", token: undefined },
  { surface: "wallet", path: "/api/validator/v0/wallet/tap", token: aliceToken },
  { surface: "registry", path: "/registry/transfer-instruction/v1/transfer-factory", token: undefined },
  { surface: "ledger", path: "/v2/updates", token: node.admin }
]

/** The `{error}` shape of scan, wallet and registry: returns the message. */
const errorShape = (reply: Call, status: number): string => {
  expect({ status: reply.status, contentType: reply.contentType }).toEqual({ status, contentType: "application/json" })
  const body = reply.json as { error?: unknown }
  expect(typeof body.error).toBe("string")
  return body.error as string
}

/** The ledger's standard error body (JsCantonError): returns it. */
const cantonShape = (reply: Call, status: number, code: string): { code: string; cause: string } => {
  expect({ status: reply.status, contentType: reply.contentType }).toEqual({ status, contentType: "application/json" })
  expect(reply.json).toMatchObject({ code, cause: expect.any(String), context: expect.any(Object), resources: expect.any(Array), errorCategory: expect.any(Number) })
  return reply.json as { code: string; cause: string }
}

/** The ledger's 400 for a value it cannot decode: text/plain naming where. */
const ledgerInvalidValue = (reply: Call): string => {
  expect({ status: reply.status, contentType: reply.contentType }).toEqual({ status: 400, contentType: "text/plain; charset=utf-8" })
  expect(reply.text).toMatch(/^Invalid value for: /)
  return reply.text
}

/** Asserts the surface's error shape for a status; for the ledger, `code` is the Canton code expected. */
const surfaceError = (surface: SurfaceName, reply: Call, status: number, code: string): string =>
  surface === "ledger" ? cantonShape(reply, status, code).cause : errorShape(reply, status)

const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth)

describe("deeply nested JSON bodies", () => {
  for (const depth of [3_000, 100_000]) {
    it(`a body nested ${depth} levels is 400 in the surface's shape on every surface, and the node keeps answering`, async () => {
      for (const { surface, path, token } of postEndpoints()) {
        for (const body of [nested(depth), `{"amount":${nested(depth)},"beginExclusive":${nested(depth)}}`]) {
          const version = call(`${node.url}/v2/version`, { token: node.admin })
          const reply = await call(`${node.url}${path}`, { method: "POST", token, rawBody: body })
          const text = surface === "ledger" ? ledgerInvalidValue(reply) : errorShape(reply, 400)
          expect(text).toContain("deeper than 512 levels")
          expect((await version).status).toBe(200)
        }
      }
    })
  }

  it("nesting up to the limit is decoded as usual (a field of the wrong type, not a nesting error)", async () => {
    const reply = await wallet(node, "POST", "/v0/wallet/tap", aliceToken, JSON.parse(`{"amount":${nested(511)}}`) as unknown)
    expect(errorShape(reply, 400)).toContain("amount")
    expect(reply.text).not.toContain("deeper than")
  })

  it("brackets inside strings do not count", async () => {
    const reply = await call(`${node.url}/api/validator/v0/wallet/tap`, { method: "POST", token: aliceToken, rawBody: JSON.stringify({ amount: "1", note: "[{".repeat(5_000) }) })
    expect(reply.status).toBe(200)
  })
})

describe("paths that cannot be routed", () => {
  const roots: ReadonlyArray<readonly [SurfaceName, string]> = [
    ["scan", "/api/scan/v0/"],
    ["wallet", "/api/validator/v0/wallet/transfer-offers/"],
    ["registry", "/registry/metadata/v1/instruments/"],
    ["ledger", "/v2/users/"]
  ]
  for (const [surface, prefix] of roots) {
    it(`${surface}: bad percent-encoding and over-long segments are 404 in the surface's shape`, async () => {
      for (const bad of ["%FF", "%zz", "%", "a%2", "x".repeat(1_025)]) {
        const reply = await call(`${node.url}${prefix}${bad}`, { token: surface === "ledger" ? node.admin : aliceToken })
        expect(surfaceError(surface, reply, 404, "ROUTE_NOT_FOUND")).toContain("no route for GET")
      }
    })
  }

  it("outside every surface: 404 with an {error} body", async () => {
    expect(errorShape(await call(`${node.url}/nowhere/%FF`), 404)).toContain("no route")
  })
})

/** Sends raw bytes and reads the whole answer (the node closes the connection after it). */
const rawExchange = (bytes: string | Buffer): Promise<{ status: number; headers: string; body: string }> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(node.url)
    const socket = connect(Number(port), hostname)
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      const [head = "", ...rest] = text.split("\r\n\r\n")
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body: rest.join("\r\n\r\n") })
    })
    socket.end(bytes)
  })

describe("requests the HTTP parser or the Host check refuses", () => {
  const paths: ReadonlyArray<readonly [SurfaceName, string]> = [
    ["scan", "/api/scan/v0/dso"],
    ["wallet", "/api/validator/v0/wallet/balance"],
    ["registry", "/registry/metadata/v1/info"],
    ["ledger", "/v2/version"]
  ]
  for (const [surface, path] of paths) {
    it(`${surface}: headers over the limit are 431, a broken header or a missing Host 400, each in the surface's shape`, async () => {
      const big = await rawExchange(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(40_000)}\r\nConnection: close\r\n\r\n`)
      const bigBody = JSON.parse(big.body) as Record<string, unknown>
      expect(big.status).toBe(431)
      if (surface === "ledger") expect(bigBody).toMatchObject({ code: "REQUEST_HEADERS_TOO_LARGE", cause: expect.any(String) })
      else expect(bigBody).toEqual({ error: expect.stringContaining("too large") })

      const broken = await rawExchange(`GET ${path} HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n`)
      expect(broken.status).toBe(400)
      if (surface === "ledger") expect(JSON.parse(broken.body)).toMatchObject({ code: "MALFORMED_HTTP_REQUEST", cause: expect.stringContaining("malformed HTTP request") })
      else expect(JSON.parse(broken.body)).toEqual({ error: expect.stringContaining("malformed HTTP request") })

      const noHost = await rawExchange(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`)
      expect(noHost.status).toBe(400)
      if (surface === "ledger") {
        expect(noHost.headers.toLowerCase()).toContain("content-type: text/plain")
        expect(noHost.body).toBe("Invalid value for: header Host (an HTTP/1.1 request must send a Host header)")
      } else {
        expect(JSON.parse(noHost.body)).toEqual({ error: "Invalid value for: header Host (an HTTP/1.1 request must send a Host header)" })
      }
    })
  }
})

describe("paths match exactly", () => {
  it("a trailing slash on a by-id route is not the list route: 404 in the surface's shape", async () => {
    for (const path of ["/v2/users/", "/v2/idps/", "/v2/parties/", "/v2/packages/"]) {
      expect(cantonShape(await call(`${node.url}${path}`, { token: node.admin }), 404, "ROUTE_NOT_FOUND").cause).toContain(path)
    }
    expect(errorShape(await call(`${node.url}/registry/metadata/v1/instruments/`), 404)).toContain("/registry/metadata/v1/instruments/")
    // without the slash they are the list routes
    for (const path of ["/v2/users", "/v2/idps", "/v2/parties", "/v2/packages"]) expect((await call(`${node.url}${path}`, { token: node.admin })).status).toBe(200)
    expect((await call(`${node.url}/registry/metadata/v1/instruments`)).status).toBe(200)
  })

  it("a method no surface routes (PROPFIND, LOCK) is 404 in the surface's shape, not a bodiless 404", async () => {
    for (const method of ["PROPFIND", "LOCK"]) {
      expect(cantonShape(await call(`${node.url}/v2/version`, { method, token: node.admin }), 404, "ROUTE_NOT_FOUND").cause).toContain(`no route for ${method}`)
      expect(errorShape(await call(`${node.url}/api/scan/v0/dso`, { method }), 404)).toContain(`no route for ${method}`)
      expect(errorShape(await call(`${node.url}/nowhere`, { method }), 404)).toContain("no route")
    }
  })

  it("paths are case-sensitive", async () => {
    cantonShape(await call(`${node.url}/v2/Users`, { token: node.admin }), 404, "ROUTE_NOT_FOUND")
    errorShape(await call(`${node.url}/api/scan/v0/DSO`), 404)
    expect((await call(`${node.url}/api/scan/v0/dso`)).status).toBe(200)
  })
})

describe("the wallet's transfer preapproval", () => {
  it("a second create is 409 naming the existing contract in transfer_preapproval_contract_id", async () => {
    await onboard(node, "pat")
    const token = await tokenOf("pat")
    const created = await wallet(node, "POST", "/v0/wallet/transfer-preapproval", token)
    expect(created.status).toBe(200)
    const cid = (created.json as { transfer_preapproval_contract_id: string }).transfer_preapproval_contract_id
    const again = await wallet(node, "POST", "/v0/wallet/transfer-preapproval", token)
    expect(errorShape(again, 409)).toContain(cid)
    expect(again.json).toEqual({ error: expect.any(String), transfer_preapproval_contract_id: cid })
  })
})

describe("an oversized body on a connection the client closes", () => {
  const oversized = Buffer.alloc(12 * 1024 * 1024, 0x20) // over the 10 MiB limit, under the 64 MiB drained
  const send = (path: string, token: string | undefined) =>
    rawExchange(
      Buffer.concat([
        Buffer.from(
          `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${oversized.length}\r\nConnection: close\r\n` +
            (token === undefined ? "" : `Authorization: Bearer ${token}\r\n`) +
            "\r\n"
        ),
        oversized
      ])
    )

  it("the client sends the whole body and reads the 413 in the surface's shape (no EPIPE)", async () => {
    const scan = await send("/api/scan/v0/events", undefined)
    expect({ status: scan.status, body: JSON.parse(scan.body) as unknown }).toEqual({ status: 413, body: { error: "request body exceeds the limit of 10485760 bytes" } })
    const wallet = await send("/api/validator/v0/wallet/tap", aliceToken)
    expect({ status: wallet.status, body: JSON.parse(wallet.body) as unknown }).toEqual({ status: 413, body: { error: "request body exceeds the limit of 10485760 bytes" } })
  })

  it("the ledger answers it as an invalid body (400 text/plain), read by the client as well", async () => {
    const ledger = await send("/v2/updates", node.admin)
    expect({ status: ledger.status, body: ledger.body }).toEqual({ status: 400, body: "Invalid value for: body (request body exceeds the limit of 10485760 bytes)" })
  })
})

describe("party ids in filters are bounded (255 characters, Canton's limit)", () => {
  const eventFormat = (party: string) => ({ filtersByParty: { [party]: {} }, verbose: false })
  const requests = (party: string): ReadonlyArray<readonly [string, unknown]> => [
    ["/v2/updates?limit=10", { beginExclusive: 0, updateFormat: { includeTransactions: { transactionShape: "TRANSACTION_SHAPE_ACS_DELTA", eventFormat: eventFormat(party) } } }],
    ["/v2/updates/flats?limit=10", { beginExclusive: 0, filter: eventFormat(party) }],
    ["/v2/state/active-contracts?limit=10", { activeAtOffset: 0, eventFormat: eventFormat(party) }],
    ["/v2/events/events-by-contract-id", { contractId: `00${"ab".repeat(32)}`, eventFormat: eventFormat(party) }],
    ["/v2/commands/completions?limit=10", { userId: "participant_admin", parties: [party], beginExclusive: 0 }]
  ]

  it("a 10,000-character party key is 400 INVALID_ARGUMENT in the ledger's shape", async () => {
    for (const [path, body] of requests("p".repeat(10_000))) {
      const reply = await call(`${node.url}${path}`, { method: "POST", token: node.admin, body })
      expect(cantonShape(reply, 400, "INVALID_ARGUMENT").cause, path).toContain("at most 255 characters")
    }
  })

  it("256 characters is refused, 255 is not refused for its length", async () => {
    for (const [path, body] of requests("q".repeat(256))) {
      expect(cantonShape(await call(`${node.url}${path}`, { method: "POST", token: node.admin, body }), 400, "INVALID_ARGUMENT").cause, path).toContain("at most 255")
    }
    for (const [path, body] of requests("q".repeat(255))) {
      expect((await call(`${node.url}${path}`, { method: "POST", token: node.admin, body })).text, path).not.toContain("at most 255")
    }
  })
})

describe("the served OpenAPI documents declare 409, 429 and 501 where they are answered", () => {
  type Spec = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> }>> }
  const document = async (name: string) => (await call(`${node.url}/docs/${name}.json`)).json as Spec
  const statuses = (spec: Spec, path: string, method: string) => Object.keys(spec.paths[path]?.[method]?.responses ?? {})

  it("ledger: command submissions and admin writes declare 409; reads do not", async () => {
    const ledger = await document("ledger")
    for (const path of ["/v2/commands/submit-and-wait", "/v2/commands/submit-and-wait-for-transaction", "/v2/commands/async/submit", "/v2/users", "/v2/parties"]) {
      expect(statuses(ledger, path, "post"), path).toContain("409")
    }
    expect(ledger.paths["/v2/commands/submit-and-wait"]?.["post"]?.responses["409"]?.content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/JsCantonError" })
    expect(statuses(ledger, "/v2/updates", "post")).not.toContain("409")
    expect(statuses(ledger, "/v2/version", "get")).toEqual(["200", "400", "default"])
  })

  it("wallet: commands declare 409, 429 and 503; the preapproval's 409 names the contract; reserved endpoints declare 501", async () => {
    const spec = await document("wallet")
    const paths = Object.keys(spec.paths)
    const offers = paths.find((p) => p.endsWith("/v0/wallet/transfer-offers"))
    const preapproval = paths.find((p) => p.endsWith("/v0/wallet/transfer-preapproval"))
    expect(statuses(spec, offers ?? "", "post")).toEqual(expect.arrayContaining(["409", "429", "503"]))
    expect(spec.paths[preapproval ?? ""]?.["post"]?.responses["409"]?.content?.["application/json"]?.schema).toMatchObject({
      required: ["error", "transfer_preapproval_contract_id"]
    })
    const all = [...(["scan", "wallet", "registry", "ledger"] as const)]
    let reserved = 0
    for (const name of all) {
      const doc = await document(name)
      for (const item of Object.values(doc.paths)) {
        for (const op of Object.values(item) as Array<{ summary?: string; responses: Record<string, unknown> }>) {
          if (op.summary?.includes("(501)") === true) {
            reserved++
            expect(Object.keys(op.responses)).toContain("501")
          }
        }
      }
    }
    expect(reserved).toBeGreaterThan(0)
  })
})

describe("the ledger's 400s: text/plain for what cannot be decoded, the standard body for what Canton's validation refuses", () => {
  const format = (party: string) => ({ includeTransactions: { eventFormat: { filtersByParty: { [party]: {} } }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" } })
  const party = async () => ((await wallet(node, "GET", "/v0/wallet/user-status", aliceToken)).json as { party_id: string }).party_id

  it("a body that does not decode is text/plain", async () => {
    ledgerInvalidValue(await call(`${node.url}/v2/updates?limit=1`, { method: "POST", token: node.admin, body: { beginExclusive: "x" } }))
    ledgerInvalidValue(await call(`${node.url}/v2/updates?limit=1`, { method: "POST", token: node.admin, rawBody: "{" }))
  })

  it("INVALID_DAR, OFFSET_AFTER_LEDGER_END and a bad pageToken are JSON (JsCantonError)", async () => {
    const dar = await call(`${node.url}/v2/packages`, { method: "POST", token: node.admin, rawBody: new Uint8Array([1, 2, 3]), headers: { "content-type": "application/octet-stream" } })
    cantonShape(dar, 400, "INVALID_DAR")
    const p = await party()
    const after = await call(`${node.url}/v2/updates?limit=1`, { method: "POST", token: aliceToken, body: { beginExclusive: 1_000_000, updateFormat: format(p) } })
    cantonShape(after, 400, "OFFSET_AFTER_LEDGER_END")
    const garbage = await call(`${node.url}/v2/updates/get-updates-page`, { method: "POST", token: aliceToken, body: { updateFormat: format(p), pageToken: "not-a-token" } })
    expect(cantonShape(garbage, 400, "INVALID_ARGUMENT").cause).toContain("pageToken")
    const acs = await call(`${node.url}/v2/state/active-contracts-page`, { method: "POST", token: aliceToken, body: { eventFormat: { filtersByParty: { [p]: {} } }, pageToken: "eyJ2IjoxfQ" } })
    expect(cantonShape(acs, 400, "INVALID_ARGUMENT").cause).toContain("pageToken")
  })
})

describe("the nesting pre-scan", () => {
  it("counts brackets outside strings only, escapes included", () => {
    expect(nestsDeeperThan("[[]]", 2)).toBe(false)
    expect(nestsDeeperThan("[[[]]]", 2)).toBe(true)
    expect(nestsDeeperThan('[{"a":"[[[[\\"[[["}]', 2)).toBe(false)
    expect(nestsDeeperThan('[["a\\\\"]]', 1)).toBe(true) // the string ends after an even run of backslashes
    expect(nestsDeeperThan('["a\\\\\\"]]]"]', 1)).toBe(false) // an odd run escapes the quote
    expect(nestsDeeperThan('["unterminated', 0)).toBe(true)
    expect(nestsDeeperThan('"[[[[', 0)).toBe(false)
  })
})
