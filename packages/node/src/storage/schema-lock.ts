/**
 * The PostgreSQL schema lock: one node process per schema on a server.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { StorageError, StoreConfigError } from "@sandnet/store"
import { Effect, Redacted, type Scope } from "effect"

/** The advisory lock key of a node schema (one process per schema). */
const lockKey = (schema: string) => `sandnet-node:${schema}`

/**
 * Holds a PostgreSQL session-level advisory lock on the schema for as long as the scope lives, on
 * a connection of its own: a second node process on the same schema is refused at start.
 */
export const lockPostgresSchema = (url: string, schema: string): Effect.Effect<void, StoreConfigError | StorageError, Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1, applicationName: `sandnet-lock-${schema}` }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError((e) => new StorageError({ operation: "connect", message: `${e.message}${e.cause instanceof Error ? `: ${e.cause.message}` : ""}` }))
    )
    const connection = yield* client.reserve.pipe(Effect.mapError((e) => new StorageError({ operation: "lock", message: e.message })))
    const rows = yield* connection
      .executeValues(`SELECT pg_try_advisory_lock(hashtext($1)::bigint)`, [lockKey(schema)])
      .pipe(Effect.mapError((e) => new StorageError({ operation: "lock", message: e.message })))
    const locked = rows[0]?.[0] === true
    if (!locked) {
      return yield* new StoreConfigError({
        option: "schema",
        message: `schema "${schema}" is in use by another Sandnet node process on this PostgreSQL server (choose another --schema or --node-name)`
      })
    }
  })
