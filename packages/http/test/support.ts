/**
 * Test helpers: a node on a free port (real HTTP over loopback), dev tokens, a local JWKS server
 * with RS256 keys made by jose, and small fetch wrappers.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as Http from "../src/index.ts"
import type { Admin } from "../src/engine-admin.ts"

export interface TestNode {
  readonly url: string
  readonly close: () => Promise<void>
}

export const startNode = async (
  options: {
    readonly http?: Partial<Http.HttpNodeSettings>
    readonly auth?: Partial<Http.AuthSettings>
    readonly admin?: Admin.UserManagementOptions
  } = {}
): Promise<TestNode> => {
  const scope = Effect.runSync(Scope.make())
  const layer = Http.layerMemory({
    http: { port: 0, logRequests: false, ...options.http },
    auth: options.auth,
    admin: options.admin
  })
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const url = Effect.runSync(Effect.provide(Http.baseUrl, context))
  return { url, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

export const devToken = (user: string, options: Omit<Http.DevTokenOptions, "user"> = {}): Promise<string> =>
  Effect.runPromise(Http.makeDevToken({ user, ...options }))

export const adminToken = () => devToken("participant_admin")

export interface Call {
  readonly status: number
  readonly contentType: string
  readonly text: string
  readonly json: unknown
}

export const call = async (
  url: string,
  init: { method?: string; token?: string | undefined; body?: unknown; rawBody?: string | Uint8Array; headers?: Record<string, string> } = {}
): Promise<Call> => {
  const headers: Record<string, string> = { ...init.headers }
  if (init.token !== undefined) headers["authorization"] = `Bearer ${init.token}`
  let body: string | Uint8Array | undefined
  if (init.rawBody !== undefined) body = init.rawBody
  else if (init.body !== undefined) body = JSON.stringify(init.body)
  if (body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json"
  const response = await fetch(url, { method: init.method ?? (body === undefined ? "GET" : "POST"), headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  let json: unknown = undefined
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text, json }
}

/** A JWKS server on a free loopback port serving the public half of an RS256 key pair. */
export interface KeyServer {
  readonly jwksUrl: string
  readonly sign: (claims: Record<string, unknown>, options?: { readonly expiresInSeconds?: number }) => Promise<string>
  /** Fetches of the key set so far (to see the cache at work). */
  readonly fetches: () => number
  readonly close: () => Promise<void>
}

export const startKeyServer = async (): Promise<KeyServer> => {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true })
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "test-key", alg: "RS256", use: "sig" }
  let fetches = 0
  const server: Server = createServer((_request, response) => {
    fetches++
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
    sign: (claims, options = {}) => {
      let jwt = new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "test-key" }).setIssuedAt()
      if (options.expiresInSeconds !== undefined) {
        jwt = jwt.setExpirationTime(Math.floor(Date.now() / 1000) + options.expiresInSeconds)
      }
      return jwt.sign(privateKey)
    },
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** Another key pair, to forge tokens whose signature cannot verify. */
export const foreignSigner = async () => {
  const { privateKey } = await generateKeyPair("RS256")
  return (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "test-key" }).setIssuedAt().sign(privateKey)
}

/**
 * The body of a registry transfer-factory request (what the Wallet SDK sends before a transfer): 10 of
 * `instrument` administered by `admin`, from `sender` to `receiver`, the debug fields left out.
 */
export const transferFactoryRequest = (p: { readonly sender: string; readonly receiver: string; readonly admin: string; readonly instrument: string }) => ({
  choiceArguments: {
    expectedAdmin: p.admin,
    transfer: {
      sender: p.sender,
      receiver: p.receiver,
      amount: "10.0000000000",
      instrumentId: { admin: p.admin, id: p.instrument },
      lock: null,
      requestedAt: "2026-01-01T00:00:00Z",
      executeBefore: "2027-01-01T00:00:00Z",
      inputHoldingCids: [],
      meta: { values: {} }
    },
    extraArgs: { context: { values: {} }, meta: { values: {} } }
  },
  excludeDebugFields: true
})
