/**
 * Authentication over real HTTP: HS256 dev tokens, RS256 tokens of an identity provider whose
 * JWKS is served by a local key server, the websocket header, and every way a token is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  adminToken,
  call,
  devToken,
  foreignSigner,
  startKeyServer,
  startNode,
  type Call,
  type KeyServer,
  type TestNode
} from "./support.ts"

const ISSUER = "https://login.example.com/realms/sandnet"
const AUDIENCE = "https://ledger.example.com"

let node: TestNode
let keys: KeyServer
let admin: string

const whoAmI = (token: string | undefined, headers: Record<string, string> = {}) =>
  call(`${node.url}/v2/authenticated-user`, { token, headers })

const expectCanton = (response: Call, status: number, code: string, category: number, grpc: number) => {
  expect(response.status).toBe(status)
  expect(response.contentType).toMatch(/application\/json/)
  expect(response.json).toMatchObject({ code, errorCategory: category, grpcCodeValue: grpc })
  return response.json as { cause: string; context: Record<string, string> }
}
const expectUnauthenticated = (response: Call, reason: RegExp) => {
  const body = expectCanton(response, 401, "UNAUTHENTICATED", 6, 16)
  expect(body.context["reason"]).toMatch(reason)
}

beforeAll(async () => {
  keys = await startKeyServer()
  node = await startNode()
  admin = await adminToken()
  const created = await call(`${node.url}/v2/idps`, {
    token: admin,
    body: { identityProviderConfig: { identityProviderId: "corp", issuer: ISSUER, jwksUrl: keys.jwksUrl, audience: AUDIENCE } }
  })
  expect(created.status).toBe(200)
  for (const [id, idp] of [
    ["carol", "corp"],
    ["dave", ""]
  ] as const) {
    const user = await call(`${node.url}/v2/users`, {
      token: admin,
      body: {
        user: { id, identityProviderId: idp, primaryParty: `${id}::1220aa` },
        rights: [{ kind: { CanActAs: { value: { party: `${id}::1220aa` } } } }]
      }
    })
    expect(user.status).toBe(200)
  }
})
afterAll(async () => {
  await node.close()
  await keys.close()
})

const carolToken = (claims: Record<string, unknown> = {}, expiresInSeconds = 300) =>
  keys.sign({ iss: ISSUER, aud: AUDIENCE, sub: "carol", scope: "daml_ledger_api", ...claims }, { expiresInSeconds })

describe("dev mode (HS256, secret 'unsafe')", () => {
  it("accepts a token made by makeDevToken", async () => {
    const response = await whoAmI(admin)
    expect(response.status).toBe(200)
    expect(response.json).toMatchObject({ user: { id: "participant_admin", identityProviderId: "" } })
  })

  it("accepts the token in the Sec-WebSocket-Protocol header", async () => {
    const response = await whoAmI(undefined, { "sec-websocket-protocol": `jwt.token.${admin}, daml.ws.auth` })
    expect(response.status).toBe(200)
  })

  it("refuses a missing token, a wrong secret, an expired token and a foreign scope", async () => {
    expectUnauthenticated(await whoAmI(undefined), /no token/)
    expectUnauthenticated(await whoAmI("not-a-jwt"), /well-formed/)
    expectUnauthenticated(await whoAmI(await devToken("participant_admin", { secret: "other" })), /signature/)
    expectUnauthenticated(await whoAmI(await devToken("participant_admin", { expiresInSeconds: -10 })), /expired/)
    expectUnauthenticated(await whoAmI(await devToken("participant_admin", { scope: "openid" })), /daml_ledger_api/)
  })

  it("a valid token of an unknown or deactivated user is 403", async () => {
    const unknown = expectCanton(await whoAmI(await devToken("nobody")), 403, "PERMISSION_DENIED", 7, 7)
    expect(unknown.cause).toMatch(/does not exist/)
    const patched = await call(`${node.url}/v2/users/dave`, {
      method: "PATCH",
      token: admin,
      body: { user: { id: "dave", isDeactivated: true }, updateMask: { paths: ["is_deactivated"] } }
    })
    expect(patched.status).toBe(200)
    const denied = expectCanton(await whoAmI(await devToken("dave")), 403, "PERMISSION_DENIED", 7, 7)
    expect(denied.cause).toMatch(/deactivated/)
    await call(`${node.url}/v2/users/dave`, {
      method: "PATCH",
      token: admin,
      body: { user: { id: "dave", isDeactivated: false }, updateMask: { paths: ["is_deactivated"] } }
    })
    expect((await whoAmI(await devToken("dave"))).status).toBe(200)
  })

  it("a user without a right gets 403 PERMISSION_DENIED", async () => {
    const response = await call(`${node.url}/v2/idps`, { token: await devToken("dave") })
    const body = expectCanton(response, 403, "PERMISSION_DENIED", 7, 7)
    expect(body.cause).toMatch(/ParticipantAdmin/)
  })
})

describe("a node with a dev-mode audience", () => {
  let strict: TestNode
  beforeAll(async () => {
    strict = await startNode({ auth: { audience: "sandnet", secret: "s3cret" } })
  })
  afterAll(() => strict.close())

  it("requires the audience and the configured secret", async () => {
    const url = `${strict.url}/v2/authenticated-user`
    expect((await call(url, { token: await devToken("participant_admin", { secret: "s3cret", audience: "sandnet" }) })).status).toBe(200)
    const noAudience = await call(url, { token: await devToken("participant_admin", { secret: "s3cret" }) })
    expectUnauthenticated(noAudience, /aud/)
    const defaultSecret = await call(url, { token: await devToken("participant_admin", { audience: "sandnet" }) })
    expectUnauthenticated(defaultSecret, /signature/)
  })
})

describe("identity provider tokens (RS256 via JWKS)", () => {
  it("accepts a token of the provider for a user of the provider, by bearer or websocket header", async () => {
    const token = await carolToken()
    const response = await whoAmI(token)
    expect(response.status).toBe(200)
    expect(response.json).toMatchObject({ user: { id: "carol", identityProviderId: "corp" } })
    expect((await whoAmI(undefined, { "sec-websocket-protocol": `jwt.token.${token}, daml.ws.auth` })).status).toBe(200)
  })

  it("caches the key set", async () => {
    const before = keys.fetches()
    for (let i = 0; i < 3; i++) expect((await whoAmI(await carolToken())).status).toBe(200)
    expect(keys.fetches()).toBe(before)
    expect(before).toBe(1)
  })

  it("refuses a wrong audience, an expired token, a bad signature and a foreign issuer", async () => {
    expectUnauthenticated(await whoAmI(await carolToken({ aud: "someone-else" })), /aud/)
    expectUnauthenticated(await whoAmI(await carolToken({}, -60)), /expired/)
    const forge = await foreignSigner()
    expectUnauthenticated(
      await whoAmI(await forge({ iss: ISSUER, aud: AUDIENCE, sub: "carol", exp: Math.floor(Date.now() / 1000) + 60 })),
      /signature/
    )
    expectUnauthenticated(await whoAmI(await carolToken({ iss: "https://evil.example.com" })), /matches no identity provider/)
    // The issuer is compared case-sensitively.
    expectUnauthenticated(await whoAmI(await carolToken({ iss: ISSUER.toUpperCase() })), /matches no identity provider/)
  })

  it("refuses a provider token for a user of another provider", async () => {
    const response = await whoAmI(await carolToken({ sub: "dave" }))
    const body = expectCanton(response, 403, "PERMISSION_DENIED", 7, 7)
    expect(body.cause).toMatch(/not managed by identity provider "corp"/)
  })

  it("a deactivated provider denies all its users (401) until it is reactivated", async () => {
    const toggle = (isDeactivated: boolean) =>
      call(`${node.url}/v2/idps/corp`, {
        method: "PATCH",
        token: admin,
        body: {
          identityProviderConfig: { identityProviderId: "corp", isDeactivated, issuer: "", jwksUrl: "" },
          updateMask: { paths: ["is_deactivated"] }
        }
      })
    const off = await toggle(true)
    expect(off.status).toBe(200)
    expect(off.json).toMatchObject({ identityProviderConfig: { isDeactivated: true, issuer: ISSUER } })
    expectUnauthenticated(await whoAmI(await carolToken()), /identity provider "corp" is deactivated/)
    expect((await toggle(false)).status).toBe(200)
    expect((await whoAmI(await carolToken())).status).toBe(200)
  })

  it("a provider user without a right gets 403", async () => {
    expectCanton(await call(`${node.url}/v2/users`, { token: await carolToken() }), 403, "PERMISSION_DENIED", 7, 7)
  })
})

describe("wallet surface (bearer only, {error})", () => {
  const url = () => `${node.url}/api/validator/v0/wallet/balance`

  it("no token or a bad token is 401 {error}", async () => {
    for (const response of [await call(url()), await call(url(), { token: "garbage" })]) {
      expect(response.status).toBe(401)
      expect(response.json).toEqual({ error: expect.stringMatching(/JWT/) })
    }
    // The websocket header is a ledger-only scheme.
    const viaHeader = await call(url(), { headers: { "sec-websocket-protocol": `jwt.token.${admin}` } })
    expect(viaHeader.status).toBe(401)
  })

  it("a valid token passes (the user need not be onboarded yet); a deactivated user is 403", async () => {
    const passes = await call(url(), { token: await devToken("not-onboarded") })
    expect(passes.status).toBe(501)
    await call(`${node.url}/v2/users/dave`, {
      method: "PATCH",
      token: admin,
      body: { user: { id: "dave", isDeactivated: true }, updateMask: { paths: ["is_deactivated"] } }
    })
    const denied = await call(url(), { token: await devToken("dave") })
    expect(denied.status).toBe(403)
    expect(denied.json).toEqual({ error: expect.stringMatching(/deactivated/) })
  })
})

describe("open surfaces", () => {
  it("scan and registry need no token", async () => {
    expect((await call(`${node.url}/api/scan/v0/ans-rules`, { body: {} })).status).toBe(501)
    expect(
      (await call(`${node.url}/registry/transfer-instruction/v2/00ab/choice-contexts/reject`, { body: {} })).status
    ).toBe(501)
  })
})
