/**
 * HTTP benchmark: requests per second of a started node for a scan lookup, a wallet balance read,
 * a wallet offer creation (W1) and the Wallet SDK's transfer factory and prepare, each as a ratio to a bare `node:http` server answering a small
 * JSON, measured in the same run with the same client (Node's http client, keep-alive, in this
 * process) and the same concurrency.
 *
 * The node is `sandnet start --in-memory` in-process: one super validator, one validator, one
 * synchronizer, wallets and automations on, the live clock, journals committed to an in-memory
 * store. Offer creations are answered once the offer is committed on the ledger.
 */
import { EventStore, pgliteLayer } from "@sandnet/store"
import { baseUrl, makeDevToken, NodeReadRoutes, NodeRoutes, serve } from "@sandnet/http"
import { historySpillDirOf, nodeScheduler, nodeStorageLayerWith, persistentNodeRuntimeLayer, servingWalletConfig, storedUserManagementLayer } from "@sandnet/node"
import { Effect, Exit, Layer, Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { bestOf, fmt } from "./machine.ts"

export interface HttpBenchRow {
  readonly label: string
  readonly request: string
  readonly requestsPerSecond: number
  /** requestsPerSecond / the bare server's requests per second in the same round. */
  readonly ratio: number
  /** The bare server's CPU time per request / this request's (the process's CPU: server and clients). */
  readonly cpuRatio: number
}

export interface HttpBench {
  readonly concurrency: number
  readonly seconds: number
  readonly bare: number
  /** CPU time of the process per request to the bare server, in ms. */
  readonly bareCpuMillis: number
  readonly rows: ReadonlyArray<HttpBenchRow>
}

const CONCURRENCY = 16
const SECONDS = 3
const WARMUP_SECONDS = 0.5

interface Target {
  readonly method: "GET" | "POST"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The body of the i-th request (POST). */
  readonly body?: (i: number) => string
}

interface Measured {
  readonly perSecond: number
  /** CPU time of this process (server and clients) per request, in ms. */
  readonly cpuMillis: number
}

/** Runs `concurrency` clients in a loop for `seconds`; every answer must be 200. */
const measure = async (target: Target, seconds: number, agent: http.Agent): Promise<Measured> => {
  const url = new URL(target.url)
  let counter = 0
  let completed = 0
  let failure: string | undefined
  const deadline = performance.now() + seconds * 1000
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const body = target.body?.(i)
      const request = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: target.method,
          headers: { ...target.headers, ...(body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }) }
        },
        (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => {
            if (response.statusCode !== 200 && failure === undefined) failure = `${target.method} ${url.pathname}: ${response.statusCode} ${Buffer.concat(chunks).toString("utf8").slice(0, 300)}`
            resolve()
          })
          response.on("error", reject)
        }
      )
      request.on("error", reject)
      request.end(body)
    })
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline && failure === undefined) {
        await one(counter++)
        completed++
      }
    })
  )
  if (failure !== undefined) throw new Error(failure)
  const used = process.cpuUsage(cpu)
  return { perSecond: completed / ((performance.now() - started) / 1000), cpuMillis: (used.user + used.system) / 1000 / completed }
}

export const startBareServer = async (): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const payload = JSON.stringify({ ok: true, round: 1 })
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) })
    response.end(payload)
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/**
 * A node as `sandnet start --in-memory` composes it (no index rows on a memory store), or, given a
 * data directory, as `sandnet start --data-dir` does (embedded PGlite, index rows kept).
 */
export const startNode = async (pgliteDataDir?: string): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const scope = Effect.runSync(Scope.make())
  const storage =
    pgliteDataDir === undefined
      ? nodeStorageLayerWith({ keepsIndexes: false }).pipe(Layer.provideMerge(EventStore.memory))
      : nodeStorageLayerWith({ keepsIndexes: true }).pipe(Layer.provideMerge(EventStore.sql({ schema: "sandnet" }).pipe(Layer.provide(pgliteLayer({ dataDir: pgliteDataDir })))))
  const runtime = persistentNodeRuntimeLayer({
    wallets: true,
    automation: true,
    walletConfig: servingWalletConfig("operator"),
    historySpillDir: pgliteDataDir === undefined ? undefined : historySpillDirOf({ _tag: "pglite", dataDir: pgliteDataDir })
  }).pipe(Layer.provideMerge(storage))
  const users = storedUserManagementLayer().pipe(Layer.provide(storage))
  const layer = serve(NodeRoutes, { http: { port: 0, logRequests: false }, reads: NodeReadRoutes }).pipe(Layer.provideMerge(users), Layer.provideMerge(runtime))
  // As `sandnet start` runs it: its fibers in time slices between which requests are served.
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope).pipe(Effect.withScheduler(nodeScheduler)))
  const url = Effect.runSync(Effect.provide(baseUrl, context))
  return { url, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

export const json = async (url: string, init: { readonly method?: string; readonly token?: string; readonly body?: unknown } = {}): Promise<unknown> => {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }), ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${text.slice(0, 300)}`)
  return JSON.parse(text) as unknown
}

/**
 * The Wallet SDK's first two calls of a token-standard transfer: the registry's transfer factory
 * (open, no token) and the interactive submission's prepare (here of a transfer offer's creation,
 * which the SDK's calls resemble: a command interpreted and encoded, nothing committed).
 */
const sdkTargets = (
  url: string,
  p: { readonly sender: string; readonly receiver: string; readonly dso: string; readonly auth: Readonly<Record<string, string>>; readonly run: string }
): ReadonlyArray<{ readonly label: string; readonly request: string; readonly target: Target }> => {
  const transfer = { sender: p.sender, receiver: p.receiver, amount: "10.0000000000", instrumentId: { admin: p.dso, id: "Coin" }, lock: null, requestedAt: "2026-01-01T00:00:00Z", executeBefore: "2027-01-01T00:00:00Z", inputHoldingCids: [], meta: { values: {} } }
  const factory = JSON.stringify({ choiceArguments: { expectedAdmin: p.dso, transfer, extraArgs: { context: { values: {} }, meta: { values: {} } } }, excludeDebugFields: true })
  const offer = (i: number) => ({ sender: p.sender, receiver: p.receiver, dso: p.dso, amount: { amount: "1.0000000000", unit: "CoinUnit" }, description: "bench", expiresAt: "2027-01-01T00:00:00.000000Z", trackingId: `sdk-${p.run}-${i}` })
  const prepare = (i: number) =>
    JSON.stringify({ commands: [{ CreateCommand: { templateId: "#splice-wallet:Splice.Wallet.TransferOffer:TransferOffer", createArguments: offer(i) } }], commandId: `sdk-${p.run}-${i}`, actAs: [p.sender], synchronizerId: "", packageIdSelectionPreference: [] })
  return [
    {
      label: "transfer factory (the Wallet SDK's first call of a transfer)",
      request: "`POST /registry/transfer-instruction/v1/transfer-factory`",
      target: { method: "POST", url: `${url}/registry/transfer-instruction/v1/transfer-factory`, headers: {}, body: () => factory }
    },
    {
      label: "prepare (the Wallet SDK's interactive submission)",
      request: "`POST /v2/interactive-submission/prepare`",
      target: { method: "POST", url: `${url}/v2/interactive-submission/prepare`, headers: p.auth, body: prepare }
    }
  ]
}

export const benchHttp = async (): Promise<HttpBench> => {
  const bare = await startBareServer()
  const node = await startNode()
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  try {
    const token = (user: string) => Effect.runPromise(makeDevToken({ user }))
    const admin = await token("participant_admin")
    const wallet = `${node.url}/api/validator`
    const aliceParty = ((await json(`${wallet}/v0/admin/users`, { token: admin, body: { name: "alice" } })) as { party_id: string }).party_id
    const bob = (await json(`${wallet}/v0/admin/users`, { token: admin, body: { name: "bob" } })) as { party_id: string }
    const alice = await token("alice")
    await json(`${wallet}/v0/wallet/tap`, { token: alice, body: { amount: "1000" } })
    // The tap's update (the DSO sees it, so scan has it): the newest item of alice's history.
    const history = (await json(`${wallet}/v0/wallet/transactions`, { token: alice, body: { page_size: 1 } })) as { items: Array<{ event_id: string }> }
    const updateId = history.items[0]!.event_id.split(":")[0]!
    const auth = { authorization: `Bearer ${alice}` }
    const run = Date.now().toString(36)
    const expiresAt = Date.now() * 1000 + 24 * 3600 * 1_000_000
    const dso = ((await json(`${node.url}/api/scan/v0/dso-party-id`, {})) as { dso_party_id: string }).dso_party_id
    const sdk = sdkTargets(node.url, { sender: aliceParty, receiver: bob.party_id, dso, auth, run })
    const targets: ReadonlyArray<{ readonly label: string; readonly request: string; readonly target: Target }> = [
      { label: "scan lookup", request: "`GET /api/scan/v0/events/{update_id}`", target: { method: "GET", url: `${node.url}/api/scan/v0/events/${updateId}`, headers: {} } },
      { label: "balance read", request: "`GET /api/validator/v0/wallet/balance`", target: { method: "GET", url: `${wallet}/v0/wallet/balance`, headers: auth } },
      {
        label: "offer creation (W1)",
        request: "`POST /api/validator/v0/wallet/transfer-offers`",
        target: {
          method: "POST",
          url: `${wallet}/v0/wallet/transfer-offers`,
          headers: auth,
          body: (i) => JSON.stringify({ receiver_party_id: bob.party_id, amount: "1", description: "bench", expires_at: expiresAt, tracking_id: `bench-${run}-${i}-${Math.random()}` })
        }
      },
      ...sdk
    ]
    const bareTarget: Target = { method: "GET", url: `${bare.url}/`, headers: {} }
    await measure(bareTarget, WARMUP_SECONDS, agent)
    for (const t of targets) await measure(t.target, WARMUP_SECONDS, agent)
    // Each round measures the bare server and every target; the best round of three is reported.
    const round = async () => {
      const baseline = await measure(bareTarget, SECONDS, agent)
      const rates: Array<Measured> = []
      for (const t of targets) rates.push(await measure(t.target, SECONDS, agent))
      return { baseline, rates }
    }
    const score = (r: { baseline: Measured; rates: ReadonlyArray<Measured> }) => r.rates.reduce((x, y) => x + y.perSecond / r.baseline.perSecond, 0)
    const best = await bestOf(3, round, (a, b) => score(a) > score(b))
    const ratio = (n: number) => Math.round(n * 1000) / 1000
    return {
      concurrency: CONCURRENCY,
      seconds: SECONDS,
      bare: Math.round(best.baseline.perSecond),
      bareCpuMillis: Math.round(best.baseline.cpuMillis * 1000) / 1000,
      rows: targets.map((t, i) => ({
        label: t.label,
        request: t.request,
        requestsPerSecond: Math.round(best.rates[i]!.perSecond),
        ratio: ratio(best.rates[i]!.perSecond / best.baseline.perSecond),
        cpuRatio: ratio(best.baseline.cpuMillis / best.rates[i]!.cpuMillis)
      }))
    }
  } finally {
    agent.destroy()
    await node.close()
    await bare.close()
  }
}

export const renderHttp = (b: HttpBench): ReadonlyArray<string> => [
  "## HTTP node",
  "",
  `Requests per second of a node started in this process as \`sandnet start --in-memory\` does (one super validator, one validator, one synchronizer, wallets and automations on, live clock, journals committed to an in-memory store), ${b.concurrency} concurrent clients (Node's http client, keep-alive, in the same process), ${b.seconds} s per figure, the best of three rounds. Baseline: a bare \`node:http\` server answering a small JSON, measured in the same round with the same client and concurrency. Offer creations are answered once the offer is committed.`,
  "",
  "The last column compares CPU time instead of rates (this process's CPU, server and clients, per request: the bare server's over the request's), which moves less than the rates when other work shares the machine.",
  "",
  "| request | requests/s | ratio to bare node:http | CPU ratio to bare node:http |",
  "|---|---|---|---|",
  `| baseline: bare node:http, \`GET /\` → \`{"ok":true,"round":1}\` | ${fmt(b.bare)} | 1.000 | 1.000 (${fmt(b.bareCpuMillis, 3)} ms CPU per request) |`,
  ...b.rows.map((r) => `| ${r.label}: ${r.request} | ${fmt(r.requestsPerSecond)} | ${fmt(r.ratio, 3)} | ${fmt(r.cpuRatio, 3)} |`),
  ""
]
