/**
 * The load and storage benchmarks' clients (load.ts, storage.ts), in a process of their own, as
 * users' clients are: the bench forks this module (packages/cli/dist/load-clients.mjs in the
 * bundle), sends it what to load (the node's wallet users, the bare `node:http` server, or a fixed
 * number of POSTs), and gets back the latencies. The node's process then only serves, and its CPU
 * time per request is the server's alone.
 *
 * Imports node:http only, so that the child starts in a few tens of milliseconds.
 */
import * as http from "node:http"

/** The wallet users prepared by the bench on the node (load.ts's prepareUsers). */
export interface LoadUsers {
  readonly wallet: string
  readonly parties: ReadonlyArray<string>
  readonly auths: ReadonlyArray<Readonly<Record<string, string>>>
  readonly scanEvent: string
}

export interface LoadClientsRun {
  readonly type: "run"
  readonly clients: number
  readonly warmupSeconds: number
  readonly seconds: number
  /** Each client's pace, in requests per second (default: as fast as answered). */
  readonly stepsPerSecond?: number
  /** The mixed wallet load on the node, or GETs of the bare server's URL. */
  readonly target: { readonly kind: "mixed"; readonly users: LoadUsers } | { readonly kind: "bare"; readonly url: string }
}

/**
 * A fixed number of POSTs from `clients` concurrent clients, each body the template with `$INDEX`
 * replaced by the request's number (from `first`): `warmup` requests, then `count` measured (the
 * storage and memory benches' W1 offers, each with its own tracking id).
 */
export interface PostsRun {
  readonly type: "posts"
  readonly clients: number
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly bodyTemplate: string
  /** The number of the first request (warm-up included). */
  readonly first: number
  readonly warmup: number
  readonly count: number
}

export type FromLoadClients =
  /** The warm-up is over: the measured window starts. */
  | { readonly type: "measuring" }
  | {
      readonly type: "done"
      readonly reads: ReadonlyArray<number>
      readonly writes: ReadonlyArray<number>
      readonly seconds: number
      /** CPU time of the clients' process over the measured window. */
      readonly clientCpuMillis: number
      /** Answers that were not 2xx, by status, and the first of them. */
      readonly failures: Readonly<Record<string, number>>
      readonly firstFailure: string | undefined
      /** The first answer of each failing status (its first 200 characters). */
      readonly firstByStatus: Readonly<Record<string, string>>
    }

interface Sample {
  readonly kind: "read" | "write"
  readonly millis: number
}

interface Answer {
  readonly status: number
  readonly body: string
}

const request = (agent: http.Agent, url: URL, method: string, headers: Readonly<Record<string, string>>, body?: string): Promise<Answer> =>
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

const makeFailures = () => {
  const counts: Record<string, number> = {}
  const firstByStatus: Record<string, string> = {}
  const state = { counts, firstByStatus, first: undefined as string | undefined }
  return {
    state,
    failed: (text: string) => {
      const status = text.slice(0, 3)
      counts[status] = (counts[status] ?? 0) + 1
      firstByStatus[status] ??= text
      state.first ??= text
    },
    reset: () => {
      for (const key of Object.keys(counts)) delete counts[key]
      for (const key of Object.keys(firstByStatus)) delete firstByStatus[key]
      state.first = undefined
    }
  }
}

const timed = async (kind: Sample["kind"], answer: () => Promise<Answer>, failed: (text: string) => void): Promise<Sample & Answer> => {
  const started = performance.now()
  // A connection the node closed (a keep-alive socket it timed out as the request went) is a
  // failed request like any other, not the end of the run.
  const a = await answer().catch((error: unknown): Answer => ({ status: 0, body: error instanceof Error ? error.message : String(error) }))
  if (a.status >= 300 || a.status === 0) failed(`${a.status === 0 ? "ERR" : a.status} ${a.body.slice(0, 200)}`)
  return { kind, millis: performance.now() - started, ...a }
}

/** The cycle of each wallet user: 3 writes (offer, accept, token-standard transfer), 7 reads. */
const makeStep = (agent: http.Agent, users: LoadUsers, failed: (text: string) => void) => {
  const { wallet, parties, auths } = users
  const clients = parties.length
  const url = (path: string) => new URL(`${wallet}${path}`)
  const scanEvent = new URL(users.scanEvent)
  const balance = url("/v0/wallet/balance")
  const offers = url("/v0/wallet/transfer-offers")
  const transfers = url("/v0/wallet/token-standard/transfers")
  // Offers made to each user, waiting for it to accept them.
  const inbox: Array<Array<string>> = parties.map(() => [])
  const run = Date.now().toString(36)
  const expiresAt = Date.now() * 1000 + 24 * 3600 * 1_000_000
  let tracking = 0
  const offerBody = (client: number) =>
    JSON.stringify({ receiver_party_id: parties[(client + 1) % clients]!, amount: "1", description: "load", expires_at: expiresAt, tracking_id: `load-${run}-${tracking++}` })
  const read = (client: number, target: URL) => timed("read", () => request(agent, target, "GET", auths[client]!), failed)
  const write = (client: number, target: URL, body?: string) => timed("write", () => request(agent, target, "POST", auths[client]!, body), failed)
  return async (client: number, i: number): Promise<Sample> => {
    switch (i % 10) {
      case 0: {
        const s = await write(client, offers, offerBody(client))
        if (s.status === 200) inbox[(client + 1) % clients]!.push((JSON.parse(s.body) as { offer_contract_id: string }).offer_contract_id)
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

const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

interface Measured {
  readonly samples: ReadonlyArray<Sample>
  readonly seconds: number
  readonly cpuMillis: number
}

/** Runs `work`, which adds its samples; with its wall time and this process's CPU time. */
const measure = async (work: (samples: Array<Sample>) => Promise<unknown>): Promise<Measured> => {
  const samples: Array<Sample> = []
  const cpu = process.cpuUsage()
  const started = performance.now()
  await work(samples)
  const used = process.cpuUsage(cpu)
  return { samples, seconds: (performance.now() - started) / 1000, cpuMillis: (used.user + used.system) / 1000 }
}

/** Runs `clients` loops of `step(client, i)` for `seconds`, each at most `stepsPerSecond` steps a second. */
const drive = (clients: number, seconds: number, step: (client: number, i: number) => Promise<Sample>, stepsPerSecond?: number): Promise<Measured> =>
  measure((samples) => {
    const started = performance.now()
    const deadline = started + seconds * 1000
    return Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let i = 0; performance.now() < deadline; i++) {
          const due = stepsPerSecond === undefined ? 0 : started + (i * 1000) / stepsPerSecond - performance.now()
          if (due > 0) await sleep(due)
          samples.push(await step(client, i))
        }
      })
    )
  })

/** Sends requests `from` .. `from + count - 1`, `clients` at a time. */
const postAll = (clients: number, from: number, count: number, post: (i: number) => Promise<Sample>): Promise<Measured> =>
  measure((samples) => {
    let next = from
    return Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < from + count) samples.push(await post(next++))
      })
    )
  })

/** The report of a measured window. */
const doneOf = (measured: Measured, failures: ReturnType<typeof makeFailures>["state"]): FromLoadClients => {
  const of = (kind: Sample["kind"]) => measured.samples.filter((s) => s.kind === kind).map((s) => s.millis)
  return {
    type: "done",
    reads: of("read"),
    writes: of("write"),
    seconds: measured.seconds,
    clientCpuMillis: measured.cpuMillis,
    failures: { ...failures.counts },
    firstFailure: failures.first,
    firstByStatus: { ...failures.firstByStatus }
  }
}

const runClients = async (run: LoadClientsRun): Promise<FromLoadClients> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: run.clients })
  const failures = makeFailures()
  const target = run.target
  const step =
    target.kind === "mixed"
      ? makeStep(agent, target.users, failures.failed)
      : ((url: URL) => () => timed("read", () => request(agent, url, "GET", {}), failures.failed))(new URL(target.url))
  try {
    if (run.warmupSeconds > 0) await drive(run.clients, run.warmupSeconds, step, run.stepsPerSecond)
    failures.reset()
    process.send?.({ type: "measuring" } satisfies FromLoadClients)
    return doneOf(await drive(run.clients, run.seconds, step, run.stepsPerSecond), failures.state)
  } finally {
    agent.destroy()
  }
}

const runPosts = async (run: PostsRun): Promise<FromLoadClients> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: run.clients })
  // failures of the warm-up count too: the bench refuses a run with any
  const failures = makeFailures()
  const url = new URL(run.url)
  const post = (i: number) => timed("write", () => request(agent, url, "POST", run.headers, run.bodyTemplate.replaceAll("$INDEX", String(i))), failures.failed)
  try {
    await postAll(run.clients, run.first, run.warmup, post)
    process.send?.({ type: "measuring" } satisfies FromLoadClients)
    return doneOf(await postAll(run.clients, run.first + run.warmup, run.count, post), failures.state)
  } finally {
    agent.destroy()
  }
}

// The bench gone (or done with us): nothing to report to.
process.once("disconnect", () => process.exit(0))
process.once("message", (message: LoadClientsRun | PostsRun) => {
  void (message.type === "posts" ? runPosts(message) : runClients(message)).then(
    (done) => process.send?.(done, () => process.disconnect()),
    (error: unknown) => {
      process.stderr.write(`load clients: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
      process.exit(1)
    }
  )
})
