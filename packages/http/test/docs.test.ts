/** The /docs pages and the OpenAPI documents generated from the endpoint Schemas. */
import { afterAll, beforeAll, expect, it } from "vitest"
import { call, startNode, type TestNode } from "./support.ts"

let node: TestNode
beforeAll(async () => {
  node = await startNode()
})
afterAll(() => node.close())

type Spec = {
  servers?: Array<{ url: string }>
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, unknown> }>; parameters: Array<{ name: string }> }>>
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; name?: string }> }
}

it("/docs lists the four documents", async () => {
  const page = await call(`${node.url}/docs`)
  expect(page.status).toBe(200)
  expect(page.contentType).toMatch(/text\/html/)
  for (const name of ["scan", "wallet", "registry", "ledger"]) {
    expect(page.text).toContain(`/docs/${name}.json`)
  }
})

it("the ledger document has the reference's paths, operation ids and error shapes", async () => {
  const spec = (await call(`${node.url}/docs/ledger.json`)).json as Spec
  expect(Object.keys(spec.paths)).toEqual(
    expect.arrayContaining(["/v2/idps", "/v2/idps/{idp-id}", "/v2/users", "/v2/users/{user-id}/rights", "/v2/authenticated-user"])
  )
  const create = spec.paths["/v2/idps"]?.["post"]
  expect(create?.operationId).toBe("postV2Idps")
  expect(Object.keys(create?.responses ?? {})).toEqual(["200", "400", "409", "default"])
  expect(create?.responses["400"]?.content).toHaveProperty("text/plain")
  expect(spec.paths["/v2/idps/{idp-id}"]?.["get"]?.parameters.map((p) => p.name)).toEqual(["idp-id"])
  expect(spec.components.schemas).toHaveProperty("JsCantonError")
  expect(spec.components.schemas).toHaveProperty("IdentityProviderConfig")
  expect(spec.components.schemas).not.toHaveProperty("HttpApiDecodeError")
  expect(spec.components.securitySchemes["apiKeyAuth"]).toMatchObject({ type: "apiKey", name: "Sec-WebSocket-Protocol" })
  expect(spec.components.securitySchemes["httpAuth"]).toMatchObject({ type: "http" })
  // The developer controls beyond the spec are documented too: time, reset, snapshots.
  expect(Object.keys(spec.paths)).toEqual(
    expect.arrayContaining([
      "/v2/sandnet/time",
      "/v2/sandnet/time/advance",
      "/v2/sandnet/reset",
      "/v2/sandnet/snapshot",
      "/v2/sandnet/snapshots",
      "/v2/sandnet/snapshots/{snapshot-id}",
      "/v2/sandnet/restore",
      "/v2/sandnet/restore/archive"
    ])
  )
  expect(spec.paths["/v2/sandnet/restore/archive"]?.["post"]?.operationId).toBe("postV2SandnetRestoreArchive")
})

it("scan, wallet and registry documents use {error} bodies and describe their endpoints", async () => {
  const scan = (await call(`${node.url}/docs/scan.json`)).json as Spec
  expect(scan.servers).toEqual([{ url: "/api/scan" }])
  const ans = scan.paths["/v0/ans-rules"]?.["post"]
  expect(Object.keys(ans?.responses ?? {})).toEqual(expect.arrayContaining(["200", "400"]))
  expect(scan.components.schemas).toHaveProperty("ErrorResponse")
  const wallet = (await call(`${node.url}/docs/wallet.json`)).json as Spec
  expect(wallet.servers).toEqual([{ url: "/api/validator" }])
  expect(wallet.paths["/v0/wallet/transfer-offers"]?.["post"]?.responses).toHaveProperty("401")
  const registry = (await call(`${node.url}/docs/registry.json`)).json as Spec
  expect(Object.keys(registry.paths)).toEqual(
    expect.arrayContaining(["/registry/transfer-instruction/v2/{transferInstructionId}/choice-contexts/reject"])
  )
})

it("each surface has a reference page", async () => {
  const page = await call(`${node.url}/docs/ledger`)
  expect(page.status).toBe(200)
  expect(page.contentType).toMatch(/text\/html/)
  expect(page.text).toContain("JSON Ledger API HTTP endpoints (Sandnet)")
})
