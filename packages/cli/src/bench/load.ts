/**
 * Load benchmark: 40 concurrent clients on a node started in this process as `sandnet start
 * --in-memory` does, each a wallet user running a mixed cycle of wallet writes (a transfer offer
 * to the next user, accepting an offer the previous user made to it, a token-standard transfer)
 * and reads (balance, scan lookup, the offers list). Throughput and p50/p99 latency are reported
 * for reads and writes separately, next to a bare `node:http` server loaded by the same clients in
 * the same run.
 */
import { makeDevToken } from "@sandnet/http"
import { Effect } from "effect"
import * as http from "node:http"
import { json, startBareServer, startNode } from "./http.ts"

export interface LoadLatencies {
  readonly requests: number
  readonly perSecond: number
  /** CPU time of this process (server and clients) per request: steadier than rates on a shared machine. */
  readonly cpuMillisPerRequest: number
  readonly p50Millis: number
  readonly p99Millis: number
}

export interface LoadBench {
  readonly clients: number
  readonly seconds: number
  readonly reads: LoadLatencies
  readonly writes: LoadLatencies
  /** Both together. */
  readonly all: LoadLatencies
  /** Answers that were not 2xx, by status (a write can be refused under contention, e.g. 409). */
  readonly failures: Readonly<Record<string, number>>
  readonly bare: LoadLatencies
}

const CLIENTS = 40
const SECONDS = 10
const WARMUP_SECONDS = 2

interface Sample {
  readonly kind: "read" | "write"
  readonly millis: number
  readonly status: number
}

interface Answer {
  readonly status: number
  readonly body: string
}

const request = (agent: http.Agent, url: URL, method: string, headers: Record<string, string>, body?: string): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }) }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }))
        response.on("error", reject)
      }
    )
    req.on("error", reject)
    req.end(body)
  })

const percentile = (sorted: ReadonlyArray<number>, p: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!)

const summarize = (millis: ReadonlyArray<number>, run: Driven): LoadLatencies => {
  const sorted = [...millis].sort((a, b) => a - b)
  const round = (n: number) => Math.round(n * 10) / 10
  return {
    requests: sorted.length,
    perSecond: Math.round(sorted.length / run.seconds),
    cpuMillisPerRequest: Math.round((run.cpuMillis / run.samples.length) * 100) / 100,
    p50Millis: round(percentile(sorted, 50)), p99Millis: round(percentile(sorted, 99))
  }
}

interface Driven {
  readonly samples: ReadonlyArray<Sample>
  readonly seconds: number
  readonly cpuMillis: number
}

/** Runs `CLIENTS` loops of `step(client, i)` for `seconds`, recording every answer after `from`. */
const drive = async (seconds: number, step: (client: number, i: number) => Promise<Sample>): Promise<Driven> => {
  const samples: Array<Sample> = []
  const cpu = process.cpuUsage()
  const started = performance.now()
  const deadline = started + seconds * 1000
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; performance.now() < deadline; i++) samples.push(await step(client, i))
    })
  )
  const used = process.cpuUsage(cpu)
  return { samples, seconds: (performance.now() - started) / 1000, cpuMillis: (used.user + used.system) / 1000 }
}

const timed = async (kind: Sample["kind"], answer: () => Promise<Answer>, failed: (text: string) => void): Promise<Sample & Answer> => {
  const started = performance.now()
  const a = await answer()
  if (a.status >= 300) failed(`${a.status} ${a.body.slice(0, 200)}`)
  return { kind, millis: performance.now() - started, ...a }
}

/** Onboards and taps one wallet user per client; their parties and tokens, and a scan event to look up. */
const prepareUsers = async (nodeUrl: string) => {
  const token = (user: string) => Effect.runPromise(makeDevToken({ user }))
  const admin = await token("participant_admin")
  const wallet = `${nodeUrl}/api/validator`
  const users = Array.from({ length: CLIENTS }, (_, i) => `load${i}`)
  const parties: Array<string> = []
  for (const name of users) parties.push(((await json(`${wallet}/v0/admin/users`, { token: admin, body: { name } })) as { party_id: string }).party_id)
  const auths = await Promise.all(users.map(async (name) => ({ authorization: `Bearer ${await token(name)}` })))
  for (const name of users) await json(`${wallet}/v0/wallet/tap`, { token: await token(name), body: { amount: "1000000" } })
  const history = (await json(`${wallet}/v0/wallet/transactions`, { token: await token(users[0]!), body: { page_size: 1 } })) as { items: Array<{ event_id: string }> }
  const scanEvent = new URL(`${nodeUrl}/api/scan/v0/events/${history.items[0]!.event_id.split(":")[0]!}`)
  return { wallet, parties, auths, scanEvent }
}

/** Answers that were not 2xx, by status, and the first of them. */
const makeFailures = () => {
  const counts: Record<string, number> = {}
  const state = { counts, first: undefined as string | undefined }
  return {
    state,
    failed: (text: string) => {
      const status = text.slice(0, 3)
      counts[status] = (counts[status] ?? 0) + 1
      state.first ??= text
    },
    reset: () => {
      for (const key of Object.keys(counts)) delete counts[key]
      state.first = undefined
    }
  }
}

/** The cycle of each client: 3 writes (offer, accept, token-standard transfer), 7 reads. */
const makeStep = (agent: http.Agent, setup: Awaited<ReturnType<typeof prepareUsers>>, failed: (text: string) => void) => {
  const { wallet, parties, auths, scanEvent } = setup
  const url = (path: string) => new URL(`${wallet}${path}`)
  const balance = url("/v0/wallet/balance")
  const offers = url("/v0/wallet/transfer-offers")
  const transfers = url("/v0/wallet/token-standard/transfers")
  // Offers made to each user, waiting for it to accept them.
  const inbox: Array<Array<string>> = parties.map(() => [])
  const run = Date.now().toString(36)
  const expiresAt = Date.now() * 1000 + 24 * 3600 * 1_000_000
  let tracking = 0
  const offerBody = (client: number) =>
    JSON.stringify({ receiver_party_id: parties[(client + 1) % CLIENTS]!, amount: "1", description: "load", expires_at: expiresAt, tracking_id: `load-${run}-${tracking++}` })
  const read = (client: number, target: URL) => timed("read", () => request(agent, target, "GET", auths[client]!), failed)
  const write = (client: number, target: URL, body?: string) => timed("write", () => request(agent, target, "POST", auths[client]!, body), failed)
  return async (client: number, i: number): Promise<Sample> => {
    switch (i % 10) {
      case 0: {
        const s = await write(client, offers, offerBody(client))
        if (s.status === 200) inbox[(client + 1) % CLIENTS]!.push((JSON.parse(s.body) as { offer_contract_id: string }).offer_contract_id)
        return s
      }
      case 3: {
        const offer = inbox[client]!.shift()
        return offer === undefined ? read(client, balance) : write(client, url(`/v0/wallet/transfer-offers/${encodeURIComponent(offer)}/accept`))
      }
      case 5:
        return write(client, transfers, offerBody(client))
      case 2:
      case 8:
        return read(client, scanEvent)
      case 6:
        return read(client, offers)
      default:
        return read(client, balance)
    }
  }
}

export const benchLoad = async (): Promise<LoadBench> => {
  const bare = await startBareServer()
  const node = await startNode()
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS })
  try {
    const failures = makeFailures()
    const step = makeStep(agent, await prepareUsers(node.url), failures.failed)
    await drive(WARMUP_SECONDS, step)
    failures.reset()
    const loaded = await drive(SECONDS, step)
    if (failures.state.first !== undefined) process.stderr.write(`load: the first refused request answered ${failures.state.first}\n`)
    const bareUrl = new URL(`${bare.url}/`)
    const bareRun = await drive(SECONDS, () => timed("read", () => request(agent, bareUrl, "GET", {}), failures.failed))
    const of = (kind?: Sample["kind"]) => summarize(loaded.samples.filter((s) => kind === undefined || s.kind === kind).map((s) => s.millis), loaded)
    return {
      clients: CLIENTS,
      seconds: SECONDS,
      reads: of("read"),
      writes: of("write"),
      all: of(),
      failures: { ...failures.state.counts },
      bare: summarize(bareRun.samples.map((s) => s.millis), bareRun)
    }
  } finally {
    agent.destroy()
    await node.close()
    await bare.close()
  }
}

const fmt = (n: number, digits = 0): string => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

const row = (label: string, l: LoadLatencies, cpu: boolean) =>
  `| ${label} | ${fmt(l.requests)} | ${fmt(l.perSecond)} | ${fmt(l.p50Millis, 1)} | ${fmt(l.p99Millis, 1)} | ${cpu ? fmt(l.cpuMillisPerRequest, 2) : ""} |`

export const renderLoad = (b: LoadBench): ReadonlyArray<string> => {
  const failures = Object.entries(b.failures)
  return [
    "## Load: concurrent wallet users",
    "",
    `${b.clients} concurrent clients for ${b.seconds} s on a node started in this process as \`sandnet start --in-memory\` does (wallets and automations on, live clock, journals committed to an in-memory store). Each client is a wallet user (tapped once) running a cycle of 3 writes (a transfer offer to the next user, accepting an offer the previous user made to it, a token-standard transfer to the next user; each answered once committed) and 7 reads (balance 4 times, a scan event lookup twice, the list of its offers). Baseline: a bare \`node:http\` server answering a small JSON, loaded by the same ${b.clients} clients (Node's http client, keep-alive, in the same process) for ${b.seconds} s in the same run.`,
    "",
    "| requests | answered | per second | p50 ms | p99 ms | CPU ms per request |",
    "|---|---|---|---|---|---|",
    row("**all (mixed)**", b.all, true),
    row("reads", b.reads, false),
    row("writes", b.writes, false),
    row("baseline: bare node:http", b.bare, true),
    "",
    `Ratio of the mixed load to the bare server: ${fmt(b.all.perSecond / b.bare.perSecond, 3)} in requests per second, ${fmt(b.bare.cpuMillisPerRequest / b.all.cpuMillisPerRequest, 3)} in CPU per request (the CPU time of this process, server and clients, over the requests answered: steadier than rates when other work shares the machine).`,
    "",
    failures.length === 0 ? "Every request answered 2xx." : `Refused: ${failures.map(([status, n]) => `${fmt(n)} answered ${status}`).join(", ")}.`,
    ""
  ]
}
