/** /v2/idps over real HTTP: create, list, get, update with a field mask, delete, limits, validation. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminToken, call, type Call, startNode, type TestNode } from "./support.ts"

let node: TestNode
let admin: string

beforeAll(async () => {
  node = await startNode()
  admin = await adminToken()
})
afterAll(() => node.close())

const config = (id: string, overrides: Record<string, unknown> = {}) => ({
  identityProviderId: id,
  issuer: `https://${id}.example.com/realms/main`,
  jwksUrl: `https://${id}.example.com/jwks`,
  ...overrides
})
const create = (body: unknown) => call(`${node.url}/v2/idps`, { token: admin, body })
const plain400 = (response: Call) => {
  expect(response.status).toBe(400)
  expect(response.contentType).toMatch(/^text\/plain/)
  return response.text
}

describe("identity provider configurations", () => {
  it("create, list, get, update, delete", async () => {
    const created = await create({ identityProviderConfig: config("alpha", { audience: "ledger" }) })
    expect(created.status).toBe(200)
    expect(created.json).toEqual({
      identityProviderConfig: {
        identityProviderId: "alpha",
        isDeactivated: false,
        issuer: "https://alpha.example.com/realms/main",
        jwksUrl: "https://alpha.example.com/jwks",
        audience: "ledger"
      }
    })
    expect((await create({ identityProviderConfig: config("beta") })).json).toMatchObject({
      identityProviderConfig: { audience: "" }
    })

    const list = await call(`${node.url}/v2/idps`, { token: admin })
    expect(list.status).toBe(200)
    expect((list.json as { identityProviderConfigs: Array<{ identityProviderId: string }> }).identityProviderConfigs.map(
      (c) => c.identityProviderId
    )).toEqual(["alpha", "beta"])

    const got = await call(`${node.url}/v2/idps/alpha`, { token: admin })
    expect(got.json).toEqual(created.json)

    // Only the masked fields change; issuer may be left empty when it is not updated.
    const updated = await call(`${node.url}/v2/idps/alpha`, {
      method: "PATCH",
      token: admin,
      body: {
        identityProviderConfig: { identityProviderId: "alpha", issuer: "", jwksUrl: "https://keys.example.com/alpha", audience: "" },
        updateMask: { paths: ["jwks_url", "audience"], unknownFields: { fields: {} } }
      }
    })
    expect(updated.status).toBe(200)
    expect(updated.json).toEqual({
      identityProviderConfig: {
        identityProviderId: "alpha",
        isDeactivated: false,
        issuer: "https://alpha.example.com/realms/main",
        jwksUrl: "https://keys.example.com/alpha",
        audience: ""
      }
    })

    const deleted = await call(`${node.url}/v2/idps/beta`, { method: "DELETE", token: admin })
    expect(deleted.status).toBe(200)
    expect(deleted.json).toEqual({})
    const gone = await call(`${node.url}/v2/idps/beta`, { token: admin })
    expect(gone.status).toBe(404)
    expect(gone.json).toMatchObject({
      code: "IDP_CONFIG_NOT_FOUND",
      errorCategory: 11,
      grpcCodeValue: 5,
      resources: [["IDENTITY_PROVIDER_CONFIG", "beta"]]
    })
  })

  it("refuses a duplicate id (409) and a duplicate issuer (409)", async () => {
    await create({ identityProviderConfig: config("gamma") })
    const again = await create({ identityProviderConfig: config("gamma") })
    expect(again.status).toBe(409)
    expect(again.json).toMatchObject({ code: "IDP_CONFIG_ALREADY_EXISTS", errorCategory: 10, grpcCodeValue: 6 })
    const sameIssuer = await create({ identityProviderConfig: config("delta", { issuer: config("gamma").issuer }) })
    expect(sameIssuer.status).toBe(409)
    expect(sameIssuer.json).toMatchObject({ code: "IDP_CONFIG_ISSUER_ALREADY_EXISTS" })
  })

  it("names the invalid issuer: query, fragment, http scheme", async () => {
    for (const [issuer, reason] of [
      ["https://idp.example.com/realms/x?tenant=1", "query"],
      ["https://idp.example.com/realms/x#top", "fragment"],
      ["http://idp.example.com/realms/x", "https"]
    ] as const) {
      const text = plain400(await create({ identityProviderConfig: config("epsilon", { issuer }) }))
      expect(text).toMatch(/^Invalid value for: body \(identityProviderConfig\.issuer: /)
      expect(text).toContain(reason)
    }
  })

  it("names missing fields, bad ids and bad masks", async () => {
    const missing = plain400(await create({ identityProviderConfig: { identityProviderId: "zeta", issuer: "https://z.example.com" } }))
    expect(missing).toBe("Invalid value for: body (identityProviderConfig.jwksUrl: is missing)")
    const badId = plain400(await create({ identityProviderConfig: config("bad!id") }))
    expect(badId).toMatch(/identityProviderConfig\.identityProviderId: must be a LedgerString/)
    const badPath = plain400(await call(`${node.url}/v2/idps/bad!id`, { token: admin }))
    expect(badPath).toMatch(/^Invalid value for: path parameter idp-id \(must be a LedgerString/)
    const badMask = plain400(
      await call(`${node.url}/v2/idps/alpha`, {
        method: "PATCH",
        token: admin,
        body: { identityProviderConfig: config("alpha"), updateMask: { paths: ["colour"] } }
      })
    )
    expect(badMask).toMatch(/updateMask\.paths: unknown update path 'colour'/)
    const mismatch = plain400(
      await call(`${node.url}/v2/idps/alpha`, {
        method: "PATCH",
        token: admin,
        body: { identityProviderConfig: config("other"), updateMask: { paths: ["issuer"] } }
      })
    )
    expect(mismatch).toMatch(/path parameter idp-id/)
  })

  it("allows at most 16 configurations (Canton's MaxIdentityProviders)", async () => {
    const existing = (
      (await call(`${node.url}/v2/idps`, { token: admin })).json as { identityProviderConfigs: Array<unknown> }
    ).identityProviderConfigs.length
    for (let i = existing; i < 16; i++) {
      expect((await create({ identityProviderConfig: config(`fill-${i}`) })).status).toBe(200)
    }
    const over = await create({ identityProviderConfig: config("one-too-many") })
    expect(over.status).toBe(400)
    expect(over.contentType).toMatch(/application\/json/)
    expect(over.json).toMatchObject({
      code: "TOO_MANY_IDENTITY_PROVIDER_CONFIGS",
      errorCategory: 9,
      grpcCodeValue: 9,
      context: expect.objectContaining({ max: "16" })
    })
    expect((await call(`${node.url}/v2/idps/fill-15`, { method: "DELETE", token: admin })).status).toBe(200)
    expect((await create({ identityProviderConfig: config("one-too-many") })).status).toBe(200)
  })
})
