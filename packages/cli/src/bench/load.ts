/**
 * Load benchmark: 40 concurrent clients, in a child process of their own (load-clients.ts), on a
 * node started in this process as `sandnet start --in-memory` does, each a wallet user running a mixed cycle of wallet writes (a transfer offer
 * to the next user, accepting an offer the previous user made to it, a token-standard transfer)
 * and reads (balance, scan lookup, the offers list). Throughput and p50/p99 latency are reported
 * for reads and writes separately, next to a bare `node:http` server (in this process too) loaded by the same
 * clients, in the same arrangement, in the same run. CPU per request is this process's: the server's.
 */
import { makeDevToken } from "@sandnet/http"
import { Effect } from "effect"
import { fork } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { json, startBareServer, startNode } from "./http.ts"
import type { FromLoadClients, LoadClientsRun, LoadUsers, PostsRun } from "./load-clients.ts"
import { fmt, heapFlags } from "./machine.ts"

export interface LoadLatencies {
  readonly requests: number
  readonly perSecond: number
  /** CPU time of the server's process (the node, or the bare server) per request: steadier than rates on a shared machine. */
  readonly cpuMillisPerRequest: number
  /** CPU time of the clients' process per request (for scale; not the node's cost). */
  readonly clientCpuMillisPerRequest: number
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

export const CLIENTS = 40
const SECONDS = 10
const WARMUP_SECONDS = 2

const percentile = (sorted: ReadonlyArray<number>, p: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!)

export interface Measured {
  readonly done: Extract<FromLoadClients, { type: "done" }>
  /** CPU time of this process (the node's, or the bare server's) over the measured window. */
  readonly serverCpuMillis: number
}

const summarize = (millis: ReadonlyArray<number>, run: Measured): LoadLatencies => {
  const sorted = [...millis].sort((a, b) => a - b)
  const round = (n: number) => Math.round(n * 10) / 10
  const total = run.done.reads.length + run.done.writes.length
  return {
    requests: sorted.length,
    perSecond: Math.round(sorted.length / run.done.seconds),
    cpuMillisPerRequest: Math.round((run.serverCpuMillis / total) * 100) / 100,
    clientCpuMillisPerRequest: Math.round((run.done.clientCpuMillis / total) * 100) / 100,
    p50Millis: round(percentile(sorted, 50)),
    p99Millis: round(percentile(sorted, 99))
  }
}

/**
 * The clients' module: in the bundle (packages/cli/dist) `load-clients.mjs` beside this code's
 * chunk; from the sources (tsx) the TypeScript module, loaded through tsx's loader.
 */
const clientsModule = (): { readonly path: string; readonly execArgv: ReadonlyArray<string> } => {
  if (!import.meta.url.endsWith(".ts")) return { path: fileURLToPath(new URL("./load-clients.mjs", import.meta.url)), execArgv: [] }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href
  return { path: fileURLToPath(new URL("./load-clients.ts", import.meta.url)), execArgv: ["--import", tsx] }
}

/**
 * Runs the clients in a child process; this process's CPU time is counted over their measured
 * window, at whose start `onMeasuring` is called.
 */
export const runClients = (run: LoadClientsRun | PostsRun, onMeasuring?: () => void): Promise<Measured> =>
  new Promise((resolve, reject) => {
    const module = clientsModule()
    const child = fork(module.path, [], { execArgv: [...module.execArgv], stdio: ["ignore", "inherit", "inherit", "ipc"] })
    let cpu = process.cpuUsage()
    let result: Measured | undefined
    child.on("message", (message: FromLoadClients) => {
      if (message.type === "measuring") {
        onMeasuring?.()
        cpu = process.cpuUsage()
      }
      else {
        const used = process.cpuUsage(cpu)
        result = { done: message, serverCpuMillis: (used.user + used.system) / 1000 }
      }
    })
    child.once("error", reject)
    child.once("exit", (code) => (result === undefined ? reject(new Error(`the load clients' process exited with ${code} before its results`)) : resolve(result)))
    child.send(run)
  })

/** Onboards and taps one wallet user per client; their parties and tokens, and a scan event to look up. */
export const prepareUsers = async (nodeUrl: string, clients: number = CLIENTS): Promise<LoadUsers> => {
  const token = (user: string) => Effect.runPromise(makeDevToken({ user }))
  const admin = await token("participant_admin")
  const wallet = `${nodeUrl}/api/validator`
  const users = Array.from({ length: clients }, (_, i) => `load${i}`)
  const parties: Array<string> = []
  for (const name of users) parties.push(((await json(`${wallet}/v0/admin/users`, { token: admin, body: { name } })) as { party_id: string }).party_id)
  const auths = await Promise.all(users.map(async (name) => ({ authorization: `Bearer ${await token(name)}` })))
  for (const name of users) await json(`${wallet}/v0/wallet/tap`, { token: await token(name), body: { amount: "1000000" } })
  const history = (await json(`${wallet}/v0/wallet/transactions`, { token: await token(users[0]!), body: { page_size: 1 } })) as { items: Array<{ event_id: string }> }
  const scanEvent = `${nodeUrl}/api/scan/v0/events/${history.items[0]!.event_id.split(":")[0]!}`
  return { wallet, parties, auths, scanEvent }
}

export const benchLoad = async (): Promise<LoadBench> => {
  const bare = await startBareServer()
  const node = await startNode()
  try {
    const users = await prepareUsers(node.url)
    const loaded = await runClients({ type: "run", clients: CLIENTS, warmupSeconds: WARMUP_SECONDS, seconds: SECONDS, target: { kind: "mixed", users } })
    if (loaded.done.firstFailure !== undefined) process.stderr.write(`load: the first refused request answered ${loaded.done.firstFailure}\n`)
    const bareRun = await runClients({ type: "run", clients: CLIENTS, warmupSeconds: 0, seconds: SECONDS, target: { kind: "bare", url: `${bare.url}/` } })
    const failures: Record<string, number> = { ...loaded.done.failures }
    for (const [status, n] of Object.entries(bareRun.done.failures)) failures[`${status} (bare)`] = n
    return {
      clients: CLIENTS,
      seconds: SECONDS,
      reads: summarize(loaded.done.reads, loaded),
      writes: summarize(loaded.done.writes, loaded),
      all: summarize([...loaded.done.reads, ...loaded.done.writes], loaded),
      failures,
      bare: summarize(bareRun.done.reads, bareRun)
    }
  } finally {
    await node.close()
    await bare.close()
  }
}

const row = (label: string, l: LoadLatencies, cpu: boolean) =>
  `| ${label} | ${fmt(l.requests)} | ${fmt(l.perSecond)} | ${fmt(l.p50Millis, 1)} | ${fmt(l.p99Millis, 1)} | ${cpu ? fmt(l.cpuMillisPerRequest, 2) : ""} |`

export const renderLoad = (b: LoadBench): ReadonlyArray<string> => {
  const failures = Object.entries(b.failures)
  return [
    "## Load: concurrent wallet users",
    "",
    `${b.clients} concurrent clients for ${b.seconds} s on a node started in the bench's process as \`sandnet start --in-memory\` does (wallets and automations on, live clock, journals committed to an in-memory store), under the bench's heap flags (${heapFlags().join(" ") || "none: V8's defaults, as \`npm start\` runs a node"}). The clients run in a child process of their own (Node's http client, keep-alive), as users' clients do: the node's process only serves. Each client is a wallet user (tapped once) running a cycle of 3 writes (a transfer offer to the next user, accepting an offer the previous user made to it, a token-standard transfer to the next user; each answered once committed) and 7 reads (balance 4 times, a scan event lookup twice, the list of its offers). Baseline: a bare \`node:http\` server answering a small JSON, in the bench's process, loaded by the same ${b.clients} clients in the same arrangement (a child process running the same client code) for ${b.seconds} s in the same run.`,
    "",
    "CPU ms per request is the CPU time of the server's process (the node's, or the bare server's) over the measured window, divided by the requests answered; the clients' own process is not counted.",
    "",
    "| requests | answered | per second | p50 ms | p99 ms | CPU ms per request |",
    "|---|---|---|---|---|---|",
    row("**all (mixed)**", b.all, true),
    row("reads", b.reads, false),
    row("writes", b.writes, false),
    row("baseline: bare node:http", b.bare, true),
    "",
    `Ratio of the mixed load to the bare server: ${fmt(b.all.perSecond / b.bare.perSecond, 3)} in requests per second, ${fmt(b.bare.cpuMillisPerRequest / b.all.cpuMillisPerRequest, 3)} in CPU per request (the server process's CPU time over the requests answered: steadier than rates when other work shares the machine). The clients' process used ${fmt(b.all.clientCpuMillisPerRequest, 2)} ms of CPU per request on the node and ${fmt(b.bare.clientCpuMillisPerRequest, 2)} ms on the bare server.`,
    "",
    failures.length === 0 ? "Every request answered 2xx." : `Refused: ${failures.map(([status, n]) => `${fmt(n)} answered ${status}`).join(", ")}.`,
    ""
  ]
}
