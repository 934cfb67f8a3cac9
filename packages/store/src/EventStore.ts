/**
 * The `EventStore` service tag and its layers:
 *
 * - `EventStore.memory`            fresh in-memory store (simulations, property tests)
 * - `EventStore.memoryWith(b)`     in-memory store on a backing that survives layer restarts
 * - `EventStore.sql(options)`      over a provided `PgClient` (any PostgreSQL), one schema per node
 * - `EventStore.pglite(options)`   embedded PGlite in `dataDir` (the node's default, needs no server)
 * - `EventStore.postgres(options)` a PostgreSQL server by URL, one schema per node
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlClient } from "@effect/sql/SqlClient"
import { Context, type Duration, Effect, Layer, Redacted, Schedule } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { PgliteStartupError, StorageError, type StoreConfigError } from "./errors.ts"
import { type JournalMirror, makeJournalMirror, mirrorFile } from "./journal-mirror.ts"
import { makeMemoryBacking, makeMemoryStore, type MemoryBacking } from "./memory.ts"
import { DEFAULT_DATA_DIR, defaultTemplateDir, EmbeddedPglite, pgliteLayer, preparePgliteTemplate, type PgliteOptions } from "./pglite.ts"
import type { EventStoreService } from "./service.ts"
import { DEFAULT_SCHEMA, latestMigrationId, makeSqlStore, type SqlStoreOptions } from "./sql.ts"

export interface PostgresOptions extends SqlStoreOptions {
  /** e.g. `postgres://user@127.0.0.1:5432/db` */
  readonly url: string
  /** Pool size (default 4): the writer uses one connection per commit, reads use the others. */
  readonly maxConnections?: number
}

export interface EmbeddedOptions extends PgliteOptions, SqlStoreOptions {
  /**
   * How often the store asks PGlite for a CHECKPOINT when it committed since the last one (default
   * 1 s). PGlite runs PostgreSQL single-user, without a checkpointer: left alone it checkpoints only
   * when the WAL reaches max_wal_size (1 GB) or at a clean close, so a start after kill -9 would redo
   * every commit since the node started. Every second: a restart right after a burst of writes redoes
   * at most a second of them, and W1's rate did not move (docs/storage.md, "Checkpoints").
   */
  readonly checkpointInterval?: Duration.DurationInput
}

/** The embedded store's periodic CHECKPOINT (see `EmbeddedOptions.checkpointInterval`), stopped with the scope. */
export const pgliteCheckpoints = (interval: Duration.DurationInput) =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const store = yield* EventStore
      const sql = yield* SqlClient
      let checkpointed = (yield* store.stats()).commits
      const checkpoint = Effect.gen(function*() {
        const { commits } = yield* store.stats()
        if (commits === checkpointed) return
        checkpointed = commits
        // a CHECKPOINT under way finishes before the store closes the connection
        yield* sql`CHECKPOINT`.pipe(Effect.uninterruptible, Effect.ignore)
      })
      yield* Effect.forkScoped(Effect.repeat(checkpoint, Schedule.spaced(interval)))
    })
  )

/** The embedded store's journal mirror, made while its database opens. */
class MirrorOfJournals extends Context.Tag("@sandnet/store/MirrorOfJournals")<MirrorOfJournals, JournalMirror>() {}

export class EventStore extends Context.Tag("@sandnet/store/EventStore")<EventStore, EventStoreService>() {
  /** A fresh, empty in-memory store per build. */
  static readonly memory: Layer.Layer<EventStore> = Layer.scoped(
    EventStore,
    Effect.suspend(() => makeMemoryStore(makeMemoryBacking()))
  )

  /** An in-memory store on `backing`: rebuilding the layer on the same backing keeps everything. */
  static readonly memoryWith = (backing: MemoryBacking): Layer.Layer<EventStore> =>
    Layer.scoped(EventStore, makeMemoryStore(backing))

  /** The SQL store over the `PgClient` in context; creates the schema and runs migrations on start. */
  static readonly sql = (
    options: SqlStoreOptions = {}
  ): Layer.Layer<EventStore, StorageError | StoreConfigError, PgClient.PgClient | SqlClient> =>
    Layer.scoped(EventStore, makeSqlStore(options))

  /** The embedded default: PGlite under `dataDir` (default `./.sandnet`), served over loopback to the SQL store. */
  static readonly pglite = (
    options: EmbeddedOptions = {}
  ): Layer.Layer<EventStore | EmbeddedPglite, StorageError | StoreConfigError | PgliteStartupError> => {
    // A new data directory of the default schema starts from the migrated template when there is one.
    const migrated = options.template === undefined && (options.schema ?? DEFAULT_SCHEMA) === DEFAULT_SCHEMA ? existingMigratedTemplate() : undefined
    return embeddedStore(options, pgliteLayer(migrated === undefined ? options : { ...options, template: migrated }))
  }

  /**
   * The embedded store on a PGlite database that is open already (in context): its journal mirror
   * (in `dataDir`, by schema), the SQL store on `schema`, the periodic checkpoint. Several schemas
   * can share one database this way (the behavioural tests: one PGlite for the file, not one per test).
   */
  static readonly onPglite = (
    options: EmbeddedOptions = {}
  ): Layer.Layer<EventStore | EmbeddedPglite, StorageError | StoreConfigError, EmbeddedPglite | PgClient.PgClient | SqlClient> =>
    embeddedStore(options, Layer.context<EmbeddedPglite | PgClient.PgClient | SqlClient>())

  /** A PostgreSQL server; give every node process its own `schema`. */
  static readonly postgres = (
    options: PostgresOptions
  ): Layer.Layer<EventStore, StorageError | StoreConfigError> =>
    EventStore.sql(options).pipe(
      Layer.provide(
        PgClient.layer({
          url: Redacted.make(options.url),
          maxConnections: options.maxConnections ?? 4,
          applicationName: "sandnet"
        }).pipe(
          Layer.mapError((error) =>
            new StorageError({
              operation: "connect",
              message: `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}`,
              cause: error.cause
            })
          )
        )
      )
    )
}

/**
 * Where the migrated template lives: the initdb template with the store's schema (`sandnet`) and
 * every migration applied, keyed by the newest migration id so that a new migration never reuses
 * an old one. A new data directory copied from it needs no migration at its first start.
 */
export const migratedTemplateDir = (base: string = defaultTemplateDir()): string =>
  `${base}-${DEFAULT_SCHEMA}-m${latestMigrationId()}-${MIGRATED_TEMPLATE_VARIANT}`

/**
 * The migrated template keeps only the `postgres` database (the one the store uses): initdb's
 * `template0` and `template1` are 600 of its 993 files and 14 of its 30 MB, which every new data
 * directory copied (a new directory's copy: 630-770 ms wall, 510-690 ms CPU, against 200-500 and
 * 200-270 ms without them, load 7-10). Nothing in a node creates a database. Named in the directory,
 * so that a machine with the older template makes this one.
 */
const MIGRATED_TEMPLATE_VARIANT = "postgres-only"
const UNUSED_DATABASES = ["template0", "template1"] as const

/** The SQL store with its journal mirror and the periodic checkpoint, on `database` (built once: layers are memoized). */
const embeddedStore = <E, R>(
  options: EmbeddedOptions,
  database: Layer.Layer<EmbeddedPglite | PgClient.PgClient | SqlClient, E, R>
): Layer.Layer<EventStore | EmbeddedPglite, E | StorageError | StoreConfigError, R> => {
  // The mirror is made (and its file read) beside the database's opening, not after it.
  const file = mirrorFile(path.resolve(options.dataDir ?? DEFAULT_DATA_DIR), options.schema ?? DEFAULT_SCHEMA)
  const mirror = Layer.sync(MirrorOfJournals, () => makeJournalMirror(file))
  const store = Layer.scoped(EventStore, Effect.flatMap(MirrorOfJournals, (m) => makeSqlStore(options, m))).pipe(
    Layer.provide(Layer.merge(database, mirror))
  )
  return Layer.mergeAll(
    store,
    Layer.effect(EmbeddedPglite, EmbeddedPglite).pipe(Layer.provide(database)),
    pgliteCheckpoints(options.checkpointInterval ?? "1 second").pipe(Layer.provide(Layer.merge(store, database)))
  )
}

/** The template a new data directory of the default schema starts from: the migrated one when there is one. */
export const newDataDirTemplate = (): string => existingMigratedTemplate() ?? defaultTemplateDir()

const existingMigratedTemplate = (): string | undefined => {
  try {
    const dir = migratedTemplateDir()
    return fs.existsSync(`${dir}/PG_VERSION`) ? dir : undefined
  } catch {
    return undefined
  }
}

/**
 * Creates the migrated template once (at install time, from `npm ci`'s build step): a data
 * directory is started from the initdb template, migrated, closed cleanly, and its PGDATA moved
 * into place atomically. Saves a new node's first start the migration (a few hundred ms).
 */
export const prepareMigratedTemplate = (options: {
  /** Where the initdb template lives (default: next to the installed PGlite). */
  readonly templateDir?: string
  /** Told each slow step before it starts (the install prints them: initdb takes seconds). */
  readonly onStep?: (step: string) => void
} = {}): Effect.Effect<
  { readonly template: string; readonly created: boolean; readonly ms: number },
  PgliteStartupError | StorageError | StoreConfigError
> =>
  Effect.gen(function*() {
    const started = performance.now()
    const onStep = options.onStep ?? (() => {})
    const base = (yield* preparePgliteTemplate(options.templateDir, onStep)).template
    const target = migratedTemplateDir(base)
    if (fs.existsSync(`${target}/PG_VERSION`)) return { template: target, created: false, ms: 0 }
    yield* Effect.sync(() => onStep("applying the store's migrations to a copy of the template"))
    const work = `${target}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`
    const fail = (message: string) => (cause: unknown) => new PgliteStartupError({ dataDir: work, message: `${message}: ${String(cause)}`, cause })
    yield* Effect.scoped(Effect.gen(function*() {
      const built = yield* Layer.build(Layer.provideMerge(EventStore.sql(), pgliteLayer({ dataDir: work, template: base })))
      const sql = Context.get(built, SqlClient)
      for (const database of UNUSED_DATABASES) {
        yield* sql.unsafe(`ALTER DATABASE ${database} IS_TEMPLATE false`)
        yield* sql.unsafe(`DROP DATABASE ${database}`)
      }
    })).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(fail("cannot drop the unused databases")(error))))
    const moved = yield* Effect.tryPromise({
      try: async () => {
        try {
          await fsp.rename(`${work}/pgdata`, target)
          return true
        } catch (error) {
          // Another process won the race: its template is as good.
          if (fs.existsSync(`${target}/PG_VERSION`)) return false
          throw error
        }
      },
      catch: fail("cannot move the migrated template into place")
    }).pipe(Effect.ensuring(Effect.promise(() => fsp.rm(work, { recursive: true, force: true }))))
    return { template: target, created: moved, ms: Math.round(performance.now() - started) }
  })
