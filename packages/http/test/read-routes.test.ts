/**
 * The read routes (read-routes.ts) answer exactly as the Effect path: one node runtime and one user
 * management served twice, by a listener that asks the read table first and by one without it.
 * Every read route is requested on both, successes and errors (unknown and malformed ids, no
 * token, a bad token, a user without a wallet, a deactivated user): status, content type, length
 * and body must be the same bytes. A success must come from the read table (counted), an error
 * from the Effect path.
 */
import { Effect, Either, Exit, Layer, Scope, type Context } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Node from "@sandnet/node"
import * as Http from "../src/index.ts"
import { Admin } from "../src/engine-admin.ts"
import { adminToken, call, devToken, type Call } from "./support.ts"
import { START } from "./wallet-support.ts"

let scope: Scope.CloseableScope
let fast = ""
let slow = ""
/** Reads the read table answered with a success. */
let answered = 0
let admin = ""
let alice = ""
let updateId = ""

/** The runtime as the fast listener sees it: its plain reads counted when they succeed. */
const counting = Layer.effect(
  Node.NodeRuntime,
  Effect.map(Node.NodeRuntime, (runtime): Node.NodeRuntimeService => ({
    ...runtime,
    readNow: (read, answer, otherwise) =>
      runtime.readNow(
        read,
        (value) => {
          if (Either.isEither(value) && Either.isRight(value)) answered++
          answer(value)
        },
        otherwise
      )
  }))
)

const listen = async (
  base: Context.Context<Node.NodeRuntime | Admin.UserManagement>,
  options: Http.ServeOptions,
  runtime: Layer.Layer<Node.NodeRuntime> = Layer.succeedContext(base)
) => {
  const layer = Layer.fresh(Http.serve(Http.NodeRoutes, { http: { port: 0, logRequests: false }, ...options })).pipe(Layer.provide(runtime), Layer.provide(Layer.succeedContext(base)))
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return Effect.runSync(Effect.provide(Http.baseUrl, context))
}

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const shared = Layer.merge(
    Node.nodeRuntimeLayer({ clock: { _tag: "manual", start: START }, tickIntervalMillis: 20, wallets: true, automation: true }),
    Admin.UserManagement.layerMemory()
  )
  const base = await Effect.runPromise(Layer.buildWithScope(shared, scope))
  slow = await listen(base, {})
  fast = await listen(base, { reads: Http.NodeReadRoutes }, counting.pipe(Layer.provide(Layer.succeedContext(base))))
  admin = await adminToken()
  alice = await devToken("alice")
  const walletCall = (path: string, token: string, body: unknown) => call(`${slow}/api/validator${path}`, { token, body })
  expect((await walletCall("/v0/admin/users", admin, { name: "alice" })).status).toBe(200)
  const bob = (await walletCall("/v0/admin/users", admin, { name: "bob" })).json as { party_id: string }
  expect((await walletCall("/v0/wallet/tap", alice, { amount: "1000" })).status).toBe(200)
  const history = (await walletCall("/v0/wallet/transactions", alice, { page_size: 1 })).json as { items: Array<{ event_id: string }> }
  updateId = history.items[0]!.event_id.split(":")[0]!
  const offer = { receiver_party_id: bob.party_id, amount: "1", description: "read routes", expires_at: START + 3_600_000_000, tracking_id: "read-routes-1" }
  expect((await walletCall("/v0/wallet/transfer-offers", alice, offer)).status).toBe(200)
}, 120_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

interface Answer extends Call {
  readonly contentLength: string
}

const get = async (url: string, token: string | undefined): Promise<Answer> => {
  const response = await fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } })
  const text = await response.text()
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", contentLength: response.headers.get("content-length") ?? "", text, json: undefined }
}

/** The same request on both listeners (the fast one twice: the first may verify the token); how many the read table answered. */
const bothWays = async (path: string, token?: string) => {
  const viaEffect = await get(`${slow}${path}`, token)
  await get(`${fast}${path}`, token)
  const before = answered
  const viaReads = await get(`${fast}${path}`, token)
  return { viaEffect, viaReads, fromReadTable: answered - before }
}

const same = (ways: { readonly viaEffect: Answer; readonly viaReads: Answer }) => {
  const pick = (a: Answer) => ({ status: a.status, contentType: a.contentType, contentLength: a.contentLength, text: a.text })
  expect(pick(ways.viaReads)).toEqual(pick(ways.viaEffect))
}

describe("read routes answer as the Effect path", () => {
  it("scan lookups (event, update v0 and v1): a known update (read table), an unknown one (404), a malformed id (400)", async () => {
    for (const route of ["/api/scan/v0/events", "/api/scan/v0/updates", "/api/scan/v1/updates"]) {
      const known = await bothWays(`${route}/${updateId}`)
      expect(known.viaEffect.status).toBe(200)
      expect(known.fromReadTable).toBe(1)
      same(known)
      const unknown = await bothWays(`${route}/1220${"ab".repeat(32)}`)
      expect(unknown.viaEffect.status).toBe(404)
      expect(unknown.fromReadTable).toBe(0)
      same(unknown)
      const malformed = await bothWays(`${route}/not-an-update-id`)
      expect(malformed.viaEffect.status).toBe(400)
      same(malformed)
    }
    // A query string is the Effect path's (its parameters are decoded there).
    const encoded = await bothWays(`/api/scan/v0/events/${updateId}?daml_value_encoding=compact_json`)
    expect(encoded.fromReadTable).toBe(0)
    same(encoded)
  })

  it("wallet reads: a user's (read table), no token and a bad one (401), a user without a wallet (404)", async () => {
    const reads = ["balance", "transfer-offers", "coins", "accepted-transfer-offers", "token-standard/transfers"]
    for (const path of reads.map((read) => `/api/validator/v0/wallet/${read}`)) {
      const mine = await bothWays(path, alice)
      expect(mine.viaEffect.status).toBe(200)
      expect(mine.fromReadTable).toBe(1)
      same(mine)
      const none = await bothWays(path)
      expect(none.viaEffect.status).toBe(401)
      same(none)
      const forged = await bothWays(path, `${alice.slice(0, -4)}AAAA`)
      expect(forged.viaEffect.status).toBe(401)
      same(forged)
      const stranger = await bothWays(path, await devToken("carol"))
      expect(stranger.viaEffect.status).toBe(404)
      expect(stranger.fromReadTable).toBe(0)
      same(stranger)
    }
    const offers = (await get(`${fast}/api/validator/v0/wallet/transfer-offers`, alice)).text
    expect(JSON.parse(offers)).toMatchObject({ offers: [{ payload: { description: "read routes" } }] })
  })

  it("a known token of a user deactivated since is refused (403) on both", async () => {
    const dave = await devToken("dave")
    expect((await call(`${slow}/api/validator/v0/admin/users`, { token: admin, body: { name: "dave" } })).status).toBe(200)
    expect((await bothWays("/api/validator/v0/wallet/balance", dave)).fromReadTable).toBe(1)
    const user = (await call(`${slow}/v2/users/dave`, { token: admin })).json as { user: { metadata: { resourceVersion: string } } }
    const patched = await call(`${slow}/v2/users/dave`, {
      method: "PATCH",
      token: admin,
      body: { user: { id: "dave", isDeactivated: true, metadata: { resourceVersion: user.user.metadata.resourceVersion } }, updateMask: { paths: ["is_deactivated"] } }
    })
    expect(patched.status).toBe(200)
    const refused = await bothWays("/api/validator/v0/wallet/balance", dave)
    expect(refused.viaEffect.status).toBe(403)
    expect(refused.fromReadTable).toBe(0)
    same(refused)
  })
})
