/**
 * Store benchmarks, for `sandnet bench` (which writes docs/benchmarks.md): on a given database,
 * (a) a bare single-row INSERT-and-commit loop and (b) appends through the EventStore with N
 * concurrent writers (group commit), both as operations per second; plus PGlite start-up times.
 *
 * Each run works in a throw-away schema (`sandnet_bench_<pid>_<random>`), dropped afterwards.
 */
import * as Pg from "@effect/sql-pg/PgClient"
import { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type PgliteStartupError, StorageError, type StoreConfigError } from "./errors.ts"
import { EventStore } from "./EventStore.ts"
import { EmbeddedPglite, type PgliteOrigin, pgliteLayer } from "./pglite.ts"
import { dropSchema, makeSqlStore } from "./sql.ts"
import type { EventStoreService } from "./service.ts"

export interface StoreBenchOptions {
  /** Rows in the bare INSERT-and-commit loop (default 2000). */
  readonly bareInserts?: number
  /** Appends through the EventStore, one entry each (default 5000). */
  readonly appends?: number
  /** Concurrent writers, each on its own stream (default 64). */
  readonly writers?: number
  /** Body of every row (default: an object of about 200 bytes of JSON). */
  readonly body?: unknown
}

export interface Rate {
  readonly ops: number
  readonly seconds: number
  readonly opsPerSecond: number
}

export interface AppendRate extends Rate {
  readonly writers: number
  /** Transactions the appends took, and the mean number of appends per transaction. */
  readonly commits: number
  readonly meanBatch: number
}

export interface StoreBenchResult {
  readonly bareInsert: Rate & {
    /** CPU time (user + system) of this process per bare insert, in ms (the client's side; PGlite's too, as it runs in this process). */
    readonly cpuMsPerOp: number
  }
  readonly eventStore: AppendRate
  /** eventStore.opsPerSecond / bareInsert.opsPerSecond */
  readonly ratio: number
}

const defaultBody = {
  kind: "TransferCompleted",
  sender: "alice::1220a6f1c0ffee",
  receiver: "bob::1220b7e2deadbeef",
  amount: "125.0000000000",
  round: 42,
  holdings: ["00a1b2c3d4e5f6", "00f6e5d4c3b2a1"],
  meta: { reason: "benchmark", at: "2026-11-21T00:00:00Z" }
}

const rate = (ops: number, ms: number): Rate => {
  const seconds = ms / 1000
  return { ops, seconds: Math.round(seconds * 1000) / 1000, opsPerSecond: Math.round(ops / Math.max(seconds, 1e-9)) }
}

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const started = performance.now()
    const value = yield* effect
    return [value, performance.now() - started] as const
  })

const sqlFailure = (operation: string) => (error: SqlError) =>
  new StorageError({ operation, message: error.message, cause: error.cause })

/** Appends through a store with `writers` concurrent writers; each writer appends to its own stream, one entry per append. */
export const benchAppends = (
  store: EventStoreService,
  options: StoreBenchOptions = {}
): Effect.Effect<AppendRate, StorageError | StoreConfigError> =>
  Effect.gen(function*() {
    const appends = options.appends ?? 5000
    const writers = Math.max(1, Math.min(options.writers ?? 64, appends))
    const body = options.body ?? defaultBody
    const run = `bench-${randomBytes(3).toString("hex")}`
    const before = yield* store.stats()
    const [, ms] = yield* timed(
      Effect.forEach(
        Array.from({ length: writers }, (_, w) => w),
        (w) =>
          Effect.gen(function*() {
            const stream = `${run}-${w}`
            const mine = Math.floor(appends / writers) + (w < appends % writers ? 1 : 0)
            for (let seq = 1; seq <= mine; seq++) {
              yield* store.append([{ stream, seq, kind: "bench", body }])
            }
          }),
        { concurrency: "unbounded", discard: true }
      ).pipe(
        Effect.mapError((error) =>
          error._tag === "StorageError"
            ? error
            : new StorageError({ operation: "bench", message: `unexpected ${error._tag}: ${error.message}` })
        )
      )
    )
    const after = yield* store.stats()
    const commits = after.commits - before.commits
    return {
      ...rate(appends, ms),
      writers,
      commits,
      meanBatch: Math.round(((after.writes - before.writes) / Math.max(commits, 1)) * 10) / 10
    }
  })

/** (a) and (b) on the database in context, in a throw-away schema. */
export const benchStore = (
  options: StoreBenchOptions = {}
): Effect.Effect<StoreBenchResult, StorageError | StoreConfigError, SqlClient | Pg.PgClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient
    const schema = `sandnet_bench_${process.pid}_${randomBytes(3).toString("hex")}`
    const bareInserts = options.bareInserts ?? 2000
    const json = JSON.stringify(options.body ?? defaultBody)
    return yield* Effect.gen(function*() {
      const store = yield* makeSqlStore({ schema })
      const bare = sql(`${schema}.bare`)
      yield* sql`CREATE TABLE ${bare} (n integer PRIMARY KEY, body json NOT NULL)`.pipe(
        Effect.mapError(sqlFailure("bench setup"))
      )
      const cpuBefore = process.cpuUsage()
      const [, bareMs] = yield* timed(
        Effect.gen(function*() {
          for (let n = 0; n < bareInserts; n++) {
            yield* sql`INSERT INTO ${bare} (n, body) VALUES (${n}, ${json})`
          }
        }).pipe(Effect.mapError(sqlFailure("bench bare insert")))
      )
      const cpu = process.cpuUsage(cpuBefore)
      const bareInsert = { ...rate(bareInserts, bareMs), cpuMsPerOp: (cpu.user + cpu.system) / 1000 / bareInserts }
      const eventStore = yield* benchAppends(store, options)
      return { bareInsert, eventStore, ratio: Math.round((eventStore.opsPerSecond / bareInsert.opsPerSecond) * 100) / 100 }
    }).pipe(Effect.scoped, Effect.ensuring(Effect.ignore(dropSchema(schema))))
  })

/** Appends through the in-memory store (the simulation's store). */
export const benchMemory = (options: StoreBenchOptions = {}): Effect.Effect<AppendRate, StorageError | StoreConfigError> =>
  Effect.flatMap(EventStore, (store) => benchAppends(store, options)).pipe(Effect.provide(EventStore.memory))

const withTempDir = <A, E, R>(prefix: string, f: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), prefix))),
    f,
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** `benchStore` on an embedded PGlite in `dataDir` (default: a temporary directory, removed afterwards). */
export const benchPglite = (
  options: StoreBenchOptions & { readonly dataDir?: string } = {}
): Effect.Effect<StoreBenchResult, StorageError | StoreConfigError | PgliteStartupError> =>
  options.dataDir !== undefined
    ? benchStore(options).pipe(Effect.provide(pgliteLayer({ dataDir: options.dataDir })))
    : withTempDir("sandnet-bench-", (dataDir) => benchStore(options).pipe(Effect.provide(pgliteLayer({ dataDir }))))

/** `benchStore` on a PostgreSQL server. */
export const benchPostgres = (
  options: StoreBenchOptions & { readonly url: string }
): Effect.Effect<StoreBenchResult, StorageError | StoreConfigError> =>
  benchStore(options).pipe(
    Effect.provide(
      Pg.layer({ url: Redacted.make(options.url), maxConnections: 4 }).pipe(Layer.mapError(sqlFailure("connect")))
    )
  )

export interface PgliteStartupSample {
  readonly origin: PgliteOrigin
  /** From the layer's start to a migrated, ready EventStore, ms. */
  readonly readyMs: number
  readonly prepareMs: number
  readonly openMs: number
  readonly connectMs: number
}

export interface PgliteStartupResult {
  /** A new data directory without a template: initdb in place (only when `includeInitdb`). */
  readonly withoutTemplate?: PgliteStartupSample
  /** A new data directory, copied from the template. */
  readonly fromTemplate: ReadonlyArray<PgliteStartupSample>
  /** Reopening an existing data directory. */
  readonly reopen: ReadonlyArray<PgliteStartupSample>
}

/**
 * PGlite start-up to a ready EventStore: new data directories from the template and reopens, `runs`
 * times each (default 3), and optionally (slow, ~5-10 s) one start without a template. Creates the
 * template first if it is missing.
 */
export const measurePgliteStartup = (
  options: { readonly runs?: number; readonly includeInitdb?: boolean } = {}
): Effect.Effect<PgliteStartupResult, StorageError | StoreConfigError | PgliteStartupError> =>
  withTempDir("sandnet-startup-", (root) =>
    Effect.gen(function*() {
      const runs = options.runs ?? 3
      const start = (dataDir: string, template?: false) =>
        Effect.gen(function*() {
          const started = performance.now()
          const info = yield* Effect.flatMap(EventStore, () => EmbeddedPglite).pipe(
            Effect.provide(EventStore.pglite(template === false ? { dataDir, template } : { dataDir }))
          )
          const sample: PgliteStartupSample = {
            origin: info.origin,
            readyMs: Math.round(performance.now() - started),
            prepareMs: info.timings.prepareMs,
            openMs: info.timings.openMs,
            connectMs: info.timings.connectMs
          }
          return sample
        })
      // make sure the template exists so that it is not counted below
      yield* start(path.join(root, "warm"))
      const fromTemplate: Array<PgliteStartupSample> = []
      const reopen: Array<PgliteStartupSample> = []
      for (let i = 0; i < runs; i++) fromTemplate.push(yield* start(path.join(root, `new${i}`)))
      for (let i = 0; i < runs; i++) reopen.push(yield* start(path.join(root, "new0")))
      const withoutTemplate = options.includeInitdb === true ? yield* start(path.join(root, "initdb"), false) : undefined
      return withoutTemplate === undefined ? { fromTemplate, reopen } : { withoutTemplate, fromTemplate, reopen }
    }))
