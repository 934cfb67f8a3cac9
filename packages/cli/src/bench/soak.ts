/**
 * The memory section's soak, as issue 13 words its row: the memory of a running node over a
 * 5-minute run. A node composed as `sandnet start --in-memory` does (its journals in its memory
 * store) serves the load section's mixed wallet load (40 clients: an offer to the next user,
 * accepting the previous user's, a token-standard transfer, reads) for `SANDNET_BENCH_SOAK_SECONDS`
 * (default 300) after 10 s of warm-up. The heap after a full garbage collection, the RSS and the
 * external memory are sampled every minute with the transactions the validator's participant has
 * committed (its ledger end); kept per transaction = growth / transactions committed meanwhile.
 */
import * as path from "node:path"
import * as v8 from "node:v8"
import { makeDevToken } from "@sandnet/http"
import { Effect } from "effect"
import { startNode, json } from "./http.ts"
import { prepareUsers, runClients } from "./load.ts"
import { fmt, kbPerTx, mib, withTempDir } from "./machine.ts"
import { sample } from "./heap-sample.ts"

export interface SoakSample {
  /** Seconds since the soak started (after the warm-up). */
  readonly seconds: number
  /** The validator's ledger end: transactions its participant committed since genesis. */
  readonly ledgerEnd: number
  readonly heap: number
  readonly rss: number
  readonly external: number
  /** The resident WebAssembly memory (PGlite's PostgreSQL), where Linux tells it. */
  readonly wasm: number | undefined
}

export interface SoakBench {
  /** `--in-memory`, or `--data-dir` (embedded PGlite): SANDNET_BENCH_SOAK_STORE. */
  readonly store: SoakStore
  readonly clients: number
  readonly seconds: number
  readonly samples: ReadonlyArray<SoakSample>
  readonly requests: number
  /** Answers that were not 2xx, by status, and the first answer of each status. */
  readonly failures: Readonly<Record<string, number>>
  readonly firstByStatus: Readonly<Record<string, string>>
}

const WARMUP_SECONDS = 10
/**
 * The load section's cycle at about the issue's soak rate (14,600 transactions in 5 minutes): 6
 * clients of 16 requests a second, about 40 transactions a second, which the validator's traffic
 * sustains for the 5 minutes. Unpaced (about 220 transactions a second here) its 50 MB grant lasts
 * a minute, and LocalNet's top-up (1.2 MB a minute) a few seconds of each minute after it: the rest
 * answers 503 SEQUENCER_TRAFFIC_EXCEEDED.
 */
const CLIENTS = 6
const STEPS_PER_SECOND = 16
const SAMPLE_EVERY_MS = 60_000

/**
 * `SANDNET_BENCH_SOAK_HEAP_SNAPSHOTS=DIR`: a heap snapshot with every sample (`soak-<seconds>.heapsnapshot`),
 * to diff what the node kept between two of them (Chrome's DevTools compare them).
 */
const writeHeapSnapshot = (seconds: number): void => {
  const dir = process.env["SANDNET_BENCH_SOAK_HEAP_SNAPSHOTS"]
  if (dir !== undefined && dir !== "") v8.writeHeapSnapshot(path.join(dir, `soak-${seconds}.heapsnapshot`))
}

export type SoakStore = "memory" | "pglite"

/** The soak's node: `SANDNET_BENCH_SOAK_STORE`, `memory` (as `sandnet start --in-memory`, the default) or `pglite` (as `sandnet start --data-dir`). */
export const soakStore = (): SoakStore => {
  const raw = process.env["SANDNET_BENCH_SOAK_STORE"] ?? "memory"
  if (raw !== "memory" && raw !== "pglite") throw new Error(`SANDNET_BENCH_SOAK_STORE must be memory or pglite, got ${JSON.stringify(raw)}`)
  return raw
}

/** How long the soak runs: `SANDNET_BENCH_SOAK_SECONDS` (0 skips it), default 300. */
export const soakSeconds = (): number => {
  const raw = process.env["SANDNET_BENCH_SOAK_SECONDS"]
  const seconds = raw === undefined || raw === "" ? 300 : Number(raw)
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error(`SANDNET_BENCH_SOAK_SECONDS must be a number of seconds, got ${JSON.stringify(raw)}`)
  return Math.round(seconds)
}

export const benchSoak = async (seconds: number, store: SoakStore = "memory"): Promise<SoakBench> =>
  store === "memory"
    ? soakOn(await startNode(), seconds, store)
    : withTempDir("sandnet-bench-soak-", async (dataDir) => soakOn(await startNode(dataDir), seconds, store))

const soakOn = async (node: Awaited<ReturnType<typeof startNode>>, seconds: number, store: SoakStore): Promise<SoakBench> => {
  try {
    const users = await prepareUsers(node.url, CLIENTS)
    const admin = await Effect.runPromise(makeDevToken({ user: "participant_admin" }))
    const ledgerEnd = async () => ((await json(`${node.url}/v2/state/ledger-end`, { token: admin })) as { offset: number }).offset
    const paced = { type: "run", clients: CLIENTS, warmupSeconds: 0, stepsPerSecond: STEPS_PER_SECOND, target: { kind: "mixed", users } } as const
    await runClients({ ...paced, seconds: WARMUP_SECONDS })
    const started = performance.now()
    const sampleNow = async (): Promise<SoakSample> => {
      const end = await ledgerEnd()
      const taken = { seconds: Math.round((performance.now() - started) / 1000), ledgerEnd: end, ...sample() }
      writeHeapSnapshot(taken.seconds)
      return taken
    }
    const samples: Array<SoakSample> = [await sampleNow()]
    const pending: Array<Promise<void>> = []
    const timer = setInterval(() => pending.push(sampleNow().then((s) => void samples.push(s))), SAMPLE_EVERY_MS)
    const run = await runClients({ ...paced, seconds })
    clearInterval(timer)
    await Promise.all(pending)
    samples.push(await sampleNow())
    return { store, clients: CLIENTS, seconds, samples, requests: run.done.reads.length + run.done.writes.length, failures: run.done.failures, firstByStatus: run.done.firstByStatus }
  } finally {
    await node.close()
  }
}

const perTx = (bytes: number, transactions: number): string => (transactions <= 0 ? "n/a" : `${kbPerTx(bytes, transactions)} KB`)

/** The RSS growth outside PGlite's WebAssembly memory (its buffer pool fills up to a bound: shared_buffers and its caches). */
const outsideWasm = (first: SoakSample, last: SoakSample, transactions: number): string =>
  // an --in-memory node has no PGlite: a few small WebAssembly modules at most
  first.wasm === undefined || last.wasm === undefined || last.wasm < 1024 ** 2
    ? ""
    : ` (outside PGlite's WebAssembly memory ${perTx(last.rss - last.wasm - (first.rss - first.wasm), transactions)}; that memory grew ${mib(first.wasm)} → ${mib(last.wasm)} MiB)`

export const renderSoak = (s: SoakBench): Array<string> => {
  const first = s.samples[0]!
  const last = s.samples[s.samples.length - 1]!
  const minute = s.samples.find((x) => x.seconds >= 60) ?? first
  const transactions = last.ledgerEnd - first.ledgerEnd
  const failures = Object.entries(s.failures)
  return [
    `**Over a ${fmt(s.seconds)}-second run of the mixed load** (the load section's cycle on ${s.clients} clients of ${STEPS_PER_SECOND} requests a second: an offer to the next user, accepting the previous user's, a token-standard transfer, and reads; a node composed as \`${s.store === "memory" ? "sandnet start --in-memory" : "sandnet start --data-dir"}\` does, after ${WARMUP_SECONDS} s of warm-up; memory after a full garbage collection, every minute): ${fmt(s.requests)} requests answered, ${fmt(transactions)} transactions committed by the validator's participant. Heap kept per transaction ${perTx(last.heap - first.heap, transactions)} over the whole run and ${perTx(last.heap - minute.heap, last.ledgerEnd - minute.ledgerEnd)} from the first minute on; RSS ${perTx(last.rss - first.rss, transactions)} per transaction${outsideWasm(first, last, transactions)}.`,
    "",
    "| seconds | ledger end | heap (MiB) | RSS (MiB) | external (MiB) | of the RSS, WebAssembly (PGlite, MiB) |",
    "|---|---|---|---|---|---|",
    ...s.samples.map((x) => `| ${fmt(x.seconds)} | ${fmt(x.ledgerEnd)} | ${mib(x.heap)} | ${mib(x.rss)} | ${mib(x.external)} | ${x.wasm === undefined ? "n/a" : mib(x.wasm)} |`),
    "",
    failures.length === 0
      ? "Every request answered 2xx."
      : `Refused: ${failures.map(([status, n]) => `${fmt(n)} answered ${status} (the first: \`${(s.firstByStatus[status] ?? "").replaceAll("`", "'")}\`)`).join(", ")}.`,
    ""
  ]
}
