/**
 * The `restart` section of `sandnet bench`: a `sandnet start` process takes W1 offers, is killed
 * with SIGKILL, and is started again on the same database; measured from spawning the second
 * process to its first HTTP answer, with the split its ready message gives (storage: the
 * database's start and reading the journals; engine: replay). Baseline in the same run: the same
 * kill -9 and restart of a node that took no offers (its genesis only), so the difference is what
 * the history costs a restart. Three sizes of history by default: 2,000 open offers (issue 13's
 * row), 20,000 (live state that grows with the history: every offer stays open) and 20,000 offers
 * each withdrawn after it was made (history without live state: what an engine checkpoint bounds),
 * or the list in `SANDNET_BENCH_RESTART_OFFERS` (offers, comma-separated; `w` after a number:
 * withdrawn). Both databases: the embedded PGlite
 * (`--data-dir`, a new directory per run) and a PostgreSQL server (`--database-url`, a new schema
 * per run, dropped after it): `SANDNET_BENCH_POSTGRES_URL`, else `DATABASE_URL`, else the local test
 * server; its rows are skipped when it cannot be reached.
 */
import * as Pg from "@effect/sql-pg/PgClient"
import { SqlClient } from "@effect/sql/SqlClient"
import { devTokenAt } from "@sandnet/http"
import { dropClusterSchema } from "@sandnet/store"
import { Effect, Redacted } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { heapFlags, postgresUrl } from "./machine.ts"
import { cpuOf, freePort, kill9, stop } from "./startup.ts"

export interface RestartRun {
  readonly offers: number
  /** Whether each offer was withdrawn right after it was made (history without live state). */
  readonly withdrawn: boolean
  /** Whether the node sat idle for `IDLE_BEFORE_KILL_MS` before the kill (it writes a checkpoint then). */
  readonly idle: boolean
  readonly wallMs: number
  readonly cpuMs: number | undefined
  /** The same for the main thread alone (PGlite runs in a thread of its own). */
  readonly mainThreadCpuMs: number | undefined
  /** From the ready message: seconds until the store was open and read, and the engine's replay. */
  readonly storageSeconds: number | undefined
  readonly engineSeconds: number | undefined
  readonly replayedEntries: number
  /** The journal ordinal of the engine checkpoint the restart started from, if it started from one. */
  readonly checkpointEntry: number | undefined
  /** What the killed node's checkpoint rows held, as JSON text (PostgreSQL only: PGlite's directory is not opened again). */
  readonly checkpointRows: CheckpointRows | undefined
}

/** The `checkpoint` stream's rows: the checkpoint's own and its segments'. */
export interface CheckpointRows {
  readonly checkpointBytes: number
  readonly segmentRows: number
  readonly segmentBytes: number
}

export interface RestartPair {
  /** Which database, as the table names it. */
  readonly database: string
  readonly baseline: RestartRun
  /** One run per size of history, smallest first. */
  readonly loaded: ReadonlyArray<RestartRun>
}

export interface RestartBench {
  readonly pairs: ReadonlyArray<RestartPair>
  /** Databases not measured, and why (no PostgreSQL server reachable). */
  readonly skipped: ReadonlyArray<string>
}

/** Where the node keeps its journals: a PGlite data directory, or a schema on a PostgreSQL server. */
type Target = { readonly kind: "pglite"; readonly dir: string } | { readonly kind: "postgres"; readonly url: string; readonly schema: string }

const targetArgs = (target: Target): ReadonlyArray<string> =>
  target.kind === "pglite" ? ["--data-dir", target.dir] : ["--database-url", target.url, "--schema", target.schema]

/** A size of history: offers before the kill, each withdrawn right after it was made or left open, the kill at once or after the node sat idle. */
export interface RestartSize {
  readonly offers: number
  readonly withdrawn: boolean
  readonly idle: boolean
}

/**
 * How long a node sits idle before the kill in an idle size: past the 2 s after which an idle
 * node writes a checkpoint (node checkpoint/record.ts), with time for its compression and put.
 */
export const IDLE_BEFORE_KILL_MS = 4000

/**
 * The sizes of history measured: `SANDNET_BENCH_RESTART_OFFERS` (offers before the kill,
 * comma-separated; a `w` after a number withdraws each offer right after it is made, an `i` kills
 * the node after it sat idle), default 2,000 open offers killed at once and after the node sat
 * idle, 20,000 open offers and 20,000 withdrawn.
 */
export const restartSizes = (raw: string | undefined = process.env["SANDNET_BENCH_RESTART_OFFERS"]): ReadonlyArray<RestartSize> => {
  const specs = raw === undefined || raw === "" ? ["2000", "2000i", "20000", "20000w"] : raw.split(",").map((size) => size.trim())
  const sizes = specs.map((spec) => {
    const match = /^([0-9]+)([wi]*)$/.exec(spec)
    const flags = match?.[2] ?? ""
    return { offers: match === null ? Number.NaN : Number(match[1]), withdrawn: flags.includes("w"), idle: flags.includes("i") }
  })
  if (sizes.some(({ offers }) => !Number.isInteger(offers) || offers < 1)) {
    throw new Error(`SANDNET_BENCH_RESTART_OFFERS must list whole numbers of offers (a w after one: withdrawn; an i: idle before the kill), comma-separated, got ${JSON.stringify(raw)}`)
  }
  return [...sizes].sort((a, b) => a.offers - b.offers || Number(a.withdrawn) - Number(b.withdrawn) || Number(a.idle) - Number(b.idle))
}

/** The baseline and each size of history, one after the other. */
const measureSizes = async (sizes: ReadonlyArray<RestartSize>, restart: (size: RestartSize) => Promise<RestartRun>, database: string): Promise<RestartPair> => {
  const baseline = await restart({ offers: 0, withdrawn: false, idle: false })
  const loaded: Array<RestartRun> = []
  for (const size of sizes) loaded.push(await restart(size))
  return { database, baseline, loaded }
}
const CLIENTS = 16

interface Started {
  readonly child: ChildProcess
  readonly wallMs: number
  readonly cpuMs: number | undefined
  readonly mainThreadCpuMs: number | undefined
  readonly ready: Promise<string>
}

/** Spawns `sandnet start` on `target` and waits for its first answer; `ready` is its ready message. */
const startNode = (bin: string, target: Target, port: number): Promise<Started> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const env = { ...process.env, DATABASE_URL: "" }
    const child = spawn(process.execPath, [...heapFlags(), bin, "start", ...targetArgs(target), "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"], env })
    let stdout = ""
    let stderr = ""
    const ready = new Promise<string>((r) =>
      child.stdout!.on("data", (chunk) => {
        stdout += String(chunk)
        if (stdout.includes("operator party")) r(stdout)
      })
    )
    child.stderr!.on("data", (chunk) => (stderr += String(chunk)))
    let done = false
    child.once("exit", (code) => {
      if (!done) reject(new Error(`sandnet start exited (${code}) before answering: ${stderr.trim().split("\n")[0] ?? ""}`))
    })
    const poll = () => {
      if (done) return
      fetch(`http://127.0.0.1:${port}/sandnet/health`)
        .then(async (response) => {
          const cpuMs = cpuOf(child.pid)
          const mainThreadCpuMs = cpuOf(child.pid, true)
          const wallMs = performance.now() - started
          await response.arrayBuffer()
          done = true
          resolve({ child, wallMs, cpuMs, mainThreadCpuMs, ready })
        })
        .catch(() => setTimeout(poll, 5))
    }
    poll()
  })

/** W1 offers from the operator to a new wallet user, CLIENTS at a time, each withdrawn by the operator after it was made when `withdrawn`; throws if one failed. */
const offerLoad = async (port: number, { offers: count, withdrawn }: RestartSize): Promise<void> => {
  const url = `http://127.0.0.1:${port}`
  const token = devTokenAt({ user: "operator", secret: "unsafe" }, Date.now())
  const post = async (p: string, body: unknown) => {
    const response = await fetch(`${url}${p}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`${p}: ${response.status} ${text.slice(0, 200)}`)
    return text === "" ? undefined : (JSON.parse(text) as unknown)
  }
  const { party_id } = (await post("/api/validator/v0/admin/users", { name: "restart-bench" })) as { party_id: string }
  const expiresAt = Date.now() * 1000 + 24 * 3600 * 1_000_000
  let next = 0
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < count) {
        const i = next++
        const made = (await post("/api/validator/v0/wallet/transfer-offers", { receiver_party_id: party_id, amount: "1.0", description: "restart", expires_at: expiresAt, tracking_id: `restart-${i}` })) as { offer_contract_id: string }
        if (withdrawn) await post(`/api/validator/v0/wallet/transfer-offers/${made.offer_contract_id}/withdraw`, {})
      }
    })
  )
}

const secondsIn = (text: string, label: string): number | undefined => {
  const match = new RegExp(`${label} ([0-9.]+) s`).exec(text)
  return match === null ? undefined : Number(match[1])
}

/** A node on a new database takes `size` offers, is killed with SIGKILL and started again. */
const restartOn = async (bin: string, target: Target, size: RestartSize): Promise<RestartRun> => {
  const port = await freePort()
  const first = await startNode(bin, target, port)
  await first.ready
  if (size.offers > 0) await offerLoad(port, size)
  if (size.idle) await new Promise((resolve) => setTimeout(resolve, IDLE_BEFORE_KILL_MS))
  await kill9(first.child)
  const checkpointRows = target.kind === "postgres" ? await checkpointRowsOf(target.url, target.schema) : undefined
  const second = await startNode(bin, target, port)
  const ready = await second.ready
  await stop(second.child)
  const replayed = /resumed: (?:from the checkpoint of entry ([0-9]+), then )?([0-9]+) journal entries/.exec(ready)
  return {
    offers: size.offers,
    withdrawn: size.withdrawn,
    idle: size.idle,
    wallMs: second.wallMs,
    cpuMs: second.cpuMs,
    mainThreadCpuMs: second.mainThreadCpuMs,
    storageSeconds: secondsIn(ready, "storage"),
    engineSeconds: secondsIn(ready, "engine"),
    replayedEntries: replayed === null ? 0 : Number(replayed[2]),
    checkpointEntry: replayed?.[1] === undefined ? undefined : Number(replayed[1]),
    checkpointRows
  }
}

/** The same on PGlite, in a new data directory removed after it. */
const restartOnPglite = async (bin: string, size: RestartSize): Promise<RestartRun> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-restart-"))
  try {
    return await restartOn(bin, { kind: "pglite", dir }, size)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Runs `use` with a PostgreSQL client on `url` (throws when the server cannot be reached): the reachability check. */
const withPostgres = <A>(url: string, use: Effect.Effect<A, unknown, Pg.PgClient | SqlClient>): Promise<A> =>
  Effect.runPromise(Effect.scoped(use.pipe(Effect.provide(Pg.layer({ url: Redacted.make(url), maxConnections: 1 })))))

/** The sizes of the checkpoint's rows in `schema`. */
const checkpointRowsOf = (url: string, schema: string): Promise<CheckpointRows> =>
  withPostgres(
    url,
    Effect.gen(function* () {
      const sql = yield* SqlClient
      const rows = yield* sql<{ segment: boolean; n: number; bytes: string }>`SELECT key LIKE 'segment/%' AS segment, count(*)::int AS n, coalesce(sum(octet_length(body::text)), 0)::text AS bytes FROM ${sql(`${schema}.snapshots`)} WHERE stream = 'checkpoint' GROUP BY 1`
      const of = (segment: boolean) => rows.find((r) => r.segment === segment)
      return { checkpointBytes: Number(of(false)?.bytes ?? 0), segmentRows: of(true)?.n ?? 0, segmentBytes: Number(of(true)?.bytes ?? 0) }
    })
  )

/** The same on PostgreSQL, in a new schema dropped after it. */
const restartOnPostgres = async (bin: string, url: string, size: RestartSize): Promise<RestartRun> => {
  const schema = `sandnet_bench_restart_${process.pid}_${size.offers}${size.withdrawn ? "w" : ""}${size.idle ? "i" : ""}`
  try {
    return await restartOn(bin, { kind: "postgres", url, schema }, size)
  } finally {
    await Effect.runPromise(Effect.ignore(dropClusterSchema(url, schema)))
  }
}

export const benchRestart = async (): Promise<RestartBench> => {
  // SANDNET_BENCH_RESTART_BIN: another build's sandnet, measured by this bench (an A/B of two versions)
  const bin = process.env["SANDNET_BENCH_RESTART_BIN"] ?? process.argv[1] ?? "packages/cli/bin/sandnet.js"
  const pairs: Array<RestartPair> = []
  const skipped: Array<string> = []
  const sizes = restartSizes()
  pairs.push(await measureSizes(sizes, (size) => restartOnPglite(bin, size), "PGlite"))
  const url = postgresUrl()
  const reachable = await withPostgres(url, Effect.asVoid(Pg.PgClient)).then(() => undefined, (error: unknown) => String(error))
  if (reachable !== undefined) skipped.push(`PostgreSQL: ${reachable}`)
  else pairs.push(await measureSizes(sizes, (size) => restartOnPostgres(bin, url, size), "PostgreSQL"))
  return { pairs, skipped }
}

const ms = (n: number | undefined): string => (n === undefined ? "n/a" : `${Math.round(n).toLocaleString("en-US")} ms`)
const s = (n: number | undefined): string => (n === undefined ? "n/a" : `${n.toFixed(2)} s`)

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`

const rowsOf = (rows: CheckpointRows | undefined): string =>
  rows === undefined ? "n/a" : rows.checkpointBytes === 0 ? "none" : `${mb(rows.checkpointBytes)}; ${rows.segmentRows.toLocaleString("en-US")} segment rows, ${mb(rows.segmentBytes)}`

const row = (database: string, name: string, r: RestartRun): string =>
  `| ${database} | ${name} | ${r.replayedEntries.toLocaleString("en-US")}${r.checkpointEntry === undefined ? "" : ` after the checkpoint of entry ${r.checkpointEntry.toLocaleString("en-US")}`} | **${ms(r.wallMs)}** | ${ms(r.cpuMs)} | ${ms(r.mainThreadCpuMs)} | ${s(r.storageSeconds)} | ${s(r.engineSeconds)} | ${rowsOf(r.checkpointRows)} |`

export const renderRestart = (r: RestartBench): ReadonlyArray<string> => [
  "## Restart after kill -9",
  "",
  "`sandnet start --data-dir <new dir>` (embedded PGlite) or `sandnet start --database-url <local server> --schema <new schema>`",
  "(PostgreSQL) takes W1 offers (`POST /api/validator/v0/wallet/transfer-offers`,",
  `${CLIENTS} concurrent clients), is killed with SIGKILL, and is started again on the same database: from spawning the`,
  "second process to its first HTTP answer (`GET /sandnet/health`); CPU is its user + system time until then (main thread:",
  "the thread that loads the program, reads the journals and replays them; PGlite runs in a thread of its own); storage and",
  "engine are the split of its ready message (opening the database and reading the journals; replaying them). Baseline in the same",
  "run: the same kill -9 and restart of a node that took no offers. One run each (compare the CPU column: wall time waits for",
  "a core on a loaded machine). Issue 13's target: at most 1 s, taken after 2,000 offers. A restart restores the node's last",
  "engine checkpoint (written every 20,000 journal entries or more, and sooner by a node that sits idle: docs/storage.md) and replays the entries after it: it grows",
  "with the node's live state (open offers) and with what was written since that checkpoint, not with the whole history.",
  "The checkpoint rows are what the killed node's `checkpoint` stream held, as JSON text: the checkpoint's own row, and the",
  "history's segments it names, each a row of its own (PostgreSQL only).",
  "",
  "| database | node killed | journal entries replayed | spawn to first answer | CPU | main thread CPU | storage | engine (replay) | checkpoint rows |",
  "|---|---|---|---|---|---|---|---|---|",
  ...r.pairs.flatMap((p) => [
    row(p.database, "baseline: after genesis only", p.baseline),
    ...p.loaded.map((run) => row(p.database, `after ${run.offers.toLocaleString("en-US")} offers${run.withdrawn ? ", each withdrawn" : ""}${run.idle ? `, then idle ${IDLE_BEFORE_KILL_MS / 1000} s` : ""}`, run))
  ]),
  ...r.skipped.map((reason) => `\nNot measured: ${reason}`),
  ""
]
