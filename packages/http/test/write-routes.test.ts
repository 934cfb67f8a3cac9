/**
 * The write routes (write-routes.ts) answer as the Effect path: one node runtime and one user
 * management served twice, by a listener that asks the table of read and write routes first and by
 * one without it. The same command on both must give the same status, content type, length and
 * body, a success from the write route (counted) and every failure of the handler rendered as the
 * Effect path renders it; a request a write route leaves (a body that is not JSON or not what the
 * endpoint takes, no content type, a query string, an unknown token, an oversized body) is answered
 * by the Effect path, the body it read handed over. The wallet's commands and the ledger's
 * (submit-and-wait and its variants, the interactive submission's prepare) and the registry's
 * factories and choice contexts (an open surface) alike.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Node from "@sandnet/node"
import * as Http from "../src/index.ts"
import { Admin } from "../src/engine-admin.ts"
import type { ReadRoutes } from "../src/read-routes.ts"
import type { WriteRoute } from "../src/write-routes.ts"
import { actAs, allocateParty, createOffer, engineFacts, userWith, type LedgerTestNode } from "./ledger-support.ts"
import { adminToken, call, devToken, transferFactoryRequest } from "./support.ts"
import { START } from "./wallet-support.ts"

let scope: Scope.CloseableScope
let fast = ""
let slow = ""
/** Commands the write routes ran. */
let handled = 0
let alice = ""
let bob = ""
let bobParty = ""
let aliceParty = ""
let ledgerNode: LedgerTestNode

const counted = (route: WriteRoute): WriteRoute => ({ ...route, handle: (input) => Effect.suspend(() => (handled++, route.handle(input))) })

/** The node's read and write routes, the write routes counted. */
const countedRoutes: ReadRoutes = [
  {
    root: "/api/validator/",
    load: () => import("../src/wallet/index.ts").then((m) => [...m.WalletReadRoutes, ...m.WalletWriteRoutes.map(counted)])
  },
  { root: "/registry/", load: () => import("../src/registry/routes.ts").then((m) => m.RegistryWriteRoutes.map(counted)) },
  {
    root: "/v2/",
    load: (deps) =>
      Promise.all([import("../src/ledger/commands.ts"), import("../src/ledger/context.ts")]).then(([commands, ledger]) =>
        commands.commandWriteRoutes(ledger.ledgerNodeOf(deps.runtime, Context.get(deps.runtimeOfServer.context, ledger.LedgerApiConfig))).map(counted)
      )
  }
]

const listen = async (base: Context.Context<Node.NodeRuntime | Admin.UserManagement>, options: Http.ServeOptions) => {
  const layer = Layer.fresh(Http.serve(Http.NodeRoutes, { http: { port: 0, logRequests: false, maxRequestBytes: 4096 }, ...options })).pipe(
    Layer.provide(Layer.succeedContext(base))
  )
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return Effect.runSync(Effect.provide(Http.baseUrl, context))
}

const wallet = (base: string, path: string) => `${base}/api/validator/v0${path}`

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const shared = Layer.merge(
    Node.nodeRuntimeLayer({ clock: { _tag: "manual", start: START }, tickIntervalMillis: 20, wallets: true, automation: true }),
    Admin.UserManagement.layerMemory()
  )
  const base = await Effect.runPromise(Layer.buildWithScope(shared, scope))
  slow = await listen(base, {})
  fast = await listen(base, { reads: countedRoutes })
  const admin = await adminToken()
  ledgerNode = { url: slow, runtime: Context.get(base, Node.NodeRuntime), admin, close: async () => {} }
  alice = await devToken("alice")
  bob = await devToken("bob")
  aliceParty = ((await call(wallet(slow, "/admin/users"), { token: admin, body: { name: "alice" } })).json as { party_id: string }).party_id
  bobParty = ((await call(wallet(slow, "/admin/users"), { token: admin, body: { name: "bob" } })).json as { party_id: string }).party_id
  expect((await call(wallet(slow, "/wallet/tap"), { token: alice, body: { amount: "1000" } })).status).toBe(200)
  // the fast listener knows both tokens (a token is verified once, on the Effect path)
  for (const token of [alice, bob]) expect((await call(wallet(fast, "/wallet/balance"), { token })).status).toBe(200)
}, 120_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

interface Answer {
  readonly status: number
  readonly contentType: string
  readonly contentLength: string
  readonly text: string
}

const post = async (url: string, token: string | undefined, body?: string, headers: Record<string, string> = { "content-type": "application/json" }): Promise<Answer> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : headers) },
    ...(body === undefined ? {} : { body })
  })
  const text = await response.text()
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", contentLength: response.headers.get("content-length") ?? "", text }
}

/** The same request on both listeners; how many commands the write routes ran for the fast one. */
const bothWays = async (path: string, token: string | undefined, body?: string, headers?: Record<string, string>, at = wallet) => {
  const viaEffect = await post(at(slow, path), token, body, headers)
  const before = handled
  const viaWrites = await post(at(fast, path), token, body, headers)
  return { viaEffect, viaWrites, fromWriteRoutes: handled - before }
}

const ledger = (base: string, path: string) => `${base}/v2${path}`

const same = (ways: { readonly viaEffect: Answer; readonly viaWrites: Answer }) => expect(ways.viaWrites).toEqual(ways.viaEffect)

/** The router's status, how many commands the write routes ran, and the same answer both ways. */
const answeredAlike = (ways: Awaited<ReturnType<typeof bothWays>>, status: number, fromWriteRoutes: number) => {
  expect(ways.viaEffect.status).toBe(status)
  expect(ways.fromWriteRoutes).toBe(fromWriteRoutes)
  same(ways)
}

const offer = (trackingId: string, receiver = bobParty) =>
  JSON.stringify({ receiver_party_id: receiver, amount: "1", description: "write routes", expires_at: START + 3_600_000_000, tracking_id: trackingId })

const offerIdOf = (answer: Answer): string => (JSON.parse(answer.text) as { offer_contract_id: string }).offer_contract_id

describe("write routes answer as the Effect path", () => {
  it("an offer (W1): created by the write route, 200 and its contract id; the same tracking id again is the same 409 both ways", async () => {
    const created = await bothWays("/wallet/transfer-offers", alice, offer("w-1"))
    expect(created.viaEffect.status).toBe(200)
    expect(created.fromWriteRoutes).toBe(1)
    // another tracking id on the fast listener: a new offer, answered in the same shape
    const second = await post(wallet(fast, "/wallet/transfer-offers"), alice, offer("w-2"))
    expect({ ...second, text: "" }).toEqual({ ...created.viaEffect, text: "" })
    expect(offerIdOf(second)).toMatch(/^00[0-9a-f]+$/)
    expect(offerIdOf(second)).not.toBe(offerIdOf(created.viaEffect))
    const again = await bothWays("/wallet/transfer-offers", alice, offer("w-1"))
    answeredAlike(again, 409, 1)
  })

  it("a command the engine refuses: an offer to oneself (400), a user without a wallet (404), an unknown contract (404)", async () => {
    const toSelf = await bothWays("/wallet/transfer-offers", alice, offer("w-self", aliceParty))
    expect(toSelf.viaEffect.status).toBe(400)
    same(toSelf)
    const carol = await devToken("carol")
    await post(wallet(fast, "/wallet/transfer-offers"), carol, offer("w-carol"))
    const stranger = await bothWays("/wallet/transfer-offers", carol, offer("w-carol"))
    answeredAlike(stranger, 404, 1)
    const unknown = await bothWays(`/wallet/transfer-offers/00${"ab".repeat(33)}/accept`, bob)
    expect(unknown.viaEffect.status).toBeGreaterThanOrEqual(400)
    expect(unknown.viaEffect.status).toBeLessThan(500)
    expect(unknown.fromWriteRoutes).toBe(1)
    same(unknown)
  })

  it("commands without a body and without an answer: an accept by path (200, JSON) and a reject by body (200, empty)", async () => {
    const viaEffect = await post(wallet(slow, "/wallet/transfer-offers"), alice, offer("w-accept-1"))
    const viaWrites = await post(wallet(fast, "/wallet/transfer-offers"), alice, offer("w-accept-2"))
    const before = handled
    const accepted = [
      await post(wallet(slow, `/wallet/transfer-offers/${offerIdOf(viaEffect)}/accept`), bob),
      await post(wallet(fast, `/wallet/transfer-offers/${offerIdOf(viaWrites)}/accept`), bob)
    ]
    expect(handled - before).toBe(1)
    expect(accepted.map((a) => a.status)).toEqual([200, 200])
    expect(accepted[1]!.contentType).toBe(accepted[0]!.contentType)
    expect(Object.keys(JSON.parse(accepted[1]!.text) as object)).toEqual(Object.keys(JSON.parse(accepted[0]!.text) as object))
    const toReject = [await post(wallet(slow, "/wallet/transfer-offers"), alice, offer("w-reject-1")), await post(wallet(slow, "/wallet/transfer-offers"), alice, offer("w-reject-2"))]
    const rejectedBefore = handled
    const rejected = [
      await post(wallet(slow, "/wallet/transfer-offers/reject"), bob, JSON.stringify({ contract_id: offerIdOf(toReject[0]!) })),
      await post(wallet(fast, "/wallet/transfer-offers/reject"), bob, JSON.stringify({ contract_id: offerIdOf(toReject[1]!) }))
    ]
    expect(handled - rejectedBefore).toBe(1)
    expect(rejected[0]!.status).toBe(200)
    expect(rejected[1]).toEqual(rejected[0])
  })

  it("requests it leaves to the Effect path: not JSON, not the endpoint's body, no content type, a query string, an unknown token, too large", async () => {
    const cases: ReadonlyArray<readonly [string, string | undefined, string | undefined, Record<string, string>?]> = [
      ["/wallet/transfer-offers", alice, "{not json"],
      ["/wallet/transfer-offers", alice, JSON.stringify({ receiver_party_id: bobParty, amount: "one" })],
      ["/wallet/transfer-offers", alice, "   "],
      ["/wallet/transfer-offers", alice, offer("w-plain"), { "content-type": "text/plain" }],
      ["/wallet/transfer-offers?x=1", alice, offer("w-1")],
      ["/wallet/transfer-offers", await devToken("dave"), offer("w-dave")],
      ["/wallet/transfer-offers", undefined, offer("w-none")],
      ["/wallet/transfer-offers", alice, JSON.stringify({ description: "x".repeat(5000) })],
      ["/wallet/transfer-offers/reject", bob, JSON.stringify({ contract_id: 7 })]
    ]
    for (const [path, token, body, headers] of cases) {
      const ways = await bothWays(path, token, body, headers)
      expect(ways.fromWriteRoutes, `${path} ${body?.slice(0, 40)}`).toBe(0)
      expect(ways.viaEffect.status, `${path} ${body?.slice(0, 40)}`).toBeGreaterThanOrEqual(400)
      same(ways)
    }
  })
})

describe("the registry's factories and choice contexts as write routes (an open surface: no token needed, any ignored)", () => {
  const registry = (base: string, path: string) => `${base}/registry${path}`
  const factoryRequest = (admin: string, receiver: string) => JSON.stringify(transferFactoryRequest({ sender: aliceParty, receiver, admin, instrument: "Coin" }))

  it("the transfer factory: the same factory and choice context both ways, with and without a token, and through the validator's scan proxy; an unknown instrument's 404 too", async () => {
    const { dso } = await engineFacts(ledgerNode)
    // a surface's table routes load at its first request, which the router answers
    expect((await call(registry(fast, "/metadata/v1/info"))).status).toBe(200)
    const anonymous = await bothWays("/transfer-instruction/v1/transfer-factory", undefined, factoryRequest(dso, bobParty), undefined, registry)
    expect(anonymous.viaEffect.status).toBe(200)
    expect(anonymous.fromWriteRoutes).toBe(1)
    expect(Object.keys(JSON.parse(anonymous.viaWrites.text) as object)).toEqual(["factoryId", "transferKind", "choiceContext"])
    same(anonymous)
    const withToken = await bothWays("/transfer-instruction/v1/transfer-factory", alice, factoryRequest(dso, bobParty), undefined, registry)
    expect(withToken.fromWriteRoutes).toBe(1)
    same(withToken)
    expect(withToken.viaWrites).toEqual(anonymous.viaWrites)
    // the validator's scan proxy forwards the registry's calls (the Wallet SDK's registry URL in LocalNet's layout)
    const scanProxy = (base: string, path: string) => `${base}/api/validator/v0/scan-proxy/registry${path}`
    const proxied = await bothWays("/transfer-instruction/v1/transfer-factory", alice, factoryRequest(dso, bobParty), undefined, scanProxy)
    expect(proxied.fromWriteRoutes).toBe(1)
    same(proxied)
    expect(proxied.viaWrites).toEqual(anonymous.viaWrites)
    const unknown = await bothWays("/transfer-instruction/v1/transfer-factory", undefined, factoryRequest(bobParty, bobParty), undefined, registry)
    answeredAlike(unknown, 404, 1)
  })

  it("a choice context: a malformed id (400) and an unknown instruction (404) as the Effect path answers them; a body it does not take is left to it", async () => {
    const malformed = await bothWays("/transfer-instruction/v1/not-a-contract-id/choice-contexts/accept", undefined, JSON.stringify({}), undefined, registry)
    answeredAlike(malformed, 400, 1)
    const missing = `00${"ab".repeat(32)}`
    const unknown = await bothWays(`/transfer-instruction/v1/${missing}/choice-contexts/accept`, undefined, JSON.stringify({ excludeDebugFields: true }), undefined, registry)
    answeredAlike(unknown, 404, 1)
    const notTaken = await bothWays(`/transfer-instruction/v1/${missing}/choice-contexts/accept`, undefined, JSON.stringify({ excludeDebugFields: "yes" }), undefined, registry)
    answeredAlike(notTaken, 400, 0)
  })
})

/**
 * A ledger user acting as a party of its own name, a counterpart party, and the user's token, which
 * one request on the fast server has verified (the table answers only tokens verified before).
 */
const actingParty = async (name: string, counterpartName: string) => {
  const facts = await engineFacts(ledgerNode)
  const party = await allocateParty(ledgerNode, name)
  const counterpart = await allocateParty(ledgerNode, counterpartName)
  const token = await userWith(ledgerNode, name, [actAs(party)])
  expect((await call(`${fast}/v2/state/ledger-end`, { token })).status).toBe(200)
  return { facts, party, counterpart, token }
}

describe("the ledger's commands as write routes", () => {
  it("submit-and-wait: a success from the write route; a duplicate command, a party without the right and a malformed body as the Effect path answers them", async () => {
    const { facts, party: carl, counterpart: dana, token: carlToken } = await actingParty("carl", "dana")
    const command = (commandId: string, party = carl) => JSON.stringify({ commands: [createOffer(party, dana, facts.dso, commandId)], commandId, actAs: [party] })
    const headers = { "content-type": "application/json" }
    const first = await post(ledger(slow, "/commands/submit-and-wait"), carlToken, command("l-1"), headers)
    const before = handled
    const second = await post(ledger(fast, "/commands/submit-and-wait"), carlToken, command("l-2"), headers)
    expect(handled - before).toBe(1)
    expect([first.status, second.status]).toEqual([200, 200])
    expect(second.contentType).toBe(first.contentType)
    expect(Object.keys(JSON.parse(second.text) as object)).toEqual(["updateId", "completionOffset"])
    const duplicate = await bothWays("/commands/submit-and-wait", carlToken, command("l-1"), headers, ledger)
    answeredAlike(duplicate, 409, 1)
    const notHis = await bothWays("/commands/submit-and-wait", carlToken, command("l-3", dana), headers, ledger)
    answeredAlike(notHis, 403, 1)
    const malformed = await bothWays("/commands/submit-and-wait", carlToken, JSON.stringify({ commands: "nope", commandId: "l-4", actAs: [carl] }), headers, ledger)
    answeredAlike(malformed, 400, 0)
  })

  it("prepare (the Wallet SDK's first step of a transfer): the same prepared transaction both ways; no commands and a party without the right as the Effect path answers them", async () => {
    const { facts, party: erin, counterpart: fred, token: erinToken } = await actingParty("erin", "fred")
    const prepare = (commandId: string, party = erin, commands = [createOffer(party, fred, facts.dso, commandId)]) =>
      JSON.stringify({ commands, commandId, actAs: [party], synchronizerId: "", packageIdSelectionPreference: [] })
    const prepared = await bothWays("/interactive-submission/prepare", erinToken, prepare("p-1"), undefined, ledger)
    expect(prepared.viaEffect.status).toBe(200)
    expect(prepared.fromWriteRoutes).toBe(1)
    expect(Object.keys(JSON.parse(prepared.viaWrites.text) as object)).toEqual(["preparedTransaction", "preparedTransactionHash", "hashingSchemeVersion"])
    same(prepared)
    const none = await bothWays("/interactive-submission/prepare", erinToken, prepare("p-2", erin, []), undefined, ledger)
    answeredAlike(none, 400, 1)
    const notHers = await bothWays("/interactive-submission/prepare", erinToken, prepare("p-3", fred), undefined, ledger)
    answeredAlike(notHers, 403, 1)
  })
})
