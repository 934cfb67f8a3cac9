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
import type { SqlClient } from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Redacted } from "effect"
import { type PgliteStartupError, StorageError, type StoreConfigError } from "./errors.ts"
import { makeMemoryBacking, makeMemoryStore, type MemoryBacking } from "./memory.ts"
import { EmbeddedPglite, pgliteLayer, type PgliteOptions } from "./pglite.ts"
import type { EventStoreService } from "./service.ts"
import { makeSqlStore, type SqlStoreOptions } from "./sql.ts"

export interface PostgresOptions extends SqlStoreOptions {
  /** e.g. `postgres://user@127.0.0.1:5432/db` */
  readonly url: string
  /** Pool size (default 4): the writer uses one connection per commit, reads use the others. */
  readonly maxConnections?: number
}

export interface EmbeddedOptions extends PgliteOptions, SqlStoreOptions {}

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
    const database = pgliteLayer(options)
    return Layer.merge(
      EventStore.sql(options).pipe(Layer.provide(database)),
      Layer.effect(EmbeddedPglite, EmbeddedPglite).pipe(Layer.provide(database))
    )
  }

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
