/**
 * A key-value row replaced again and again with a large body (the engine checkpoint) does not grow
 * the database by each version it held: the store vacuums the table after such a put, on PGlite
 * (which runs no autovacuum) and on a server.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlClient } from "@effect/sql/SqlClient"
import { Context, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EventStore, LARGE_BODY_CHARS, pgliteLayer, type EventStoreService } from "../src/index.ts"
import { dropTestSchemas, postgresUrl, testSchema } from "./postgres.ts"

afterAll(() => Effect.runPromise(dropTestSchemas))

/** A body of `chars` characters that no compression shrinks (as a compressed checkpoint in base64). */
const incompressible = (chars: number, n: number) => ({ n, bytes: randomBytes(Math.ceil((chars * 3) / 4)).toString("base64").slice(0, chars) })

const PUTS = 8
const BODY_CHARS = 2 * LARGE_BODY_CHARS

/** Puts the row `PUTS` times; the table's size on disk (heap, TOAST and indexes) after each. */
const sizesAfterPuts = (store: EventStoreService, sql: SqlClient, schema: string) =>
  Effect.gen(function* () {
    const sizes: Array<number> = []
    for (let n = 0; n < PUTS; n++) {
      yield* store.write({ putSnapshots: [{ stream: "checkpoint", key: "engine", body: incompressible(BODY_CHARS, n) }] })
      const [row] = yield* sql<{ size: string }>`SELECT pg_total_relation_size(${`${schema}.snapshots`}::regclass)::text AS size`
      sizes.push(Number(row!.size))
    }
    // the last version reads back whole
    expect(((yield* store.getSnapshot("checkpoint", "engine")).pipe((o) => (o._tag === "Some" ? o.value : undefined)) as { n: number }).n).toBe(PUTS - 1)
    return sizes
  })

/** At most about three versions' worth, whatever the number of puts (without the vacuum: all eight). */
const expectBounded = (sizes: ReadonlyArray<number>) => {
  expect(sizes).toHaveLength(PUTS)
  expect(Math.max(...sizes)).toBeLessThan(3.5 * BODY_CHARS)
}

describe("a large key-value row replaced again and again", () => {
  it.live("keeps the embedded PGlite's table bounded", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-large-rows-"))
      const scope = yield* Scope.make()
      try {
        const database = yield* Layer.buildWithScope(pgliteLayer({ dataDir: dir }), scope)
        const store = Context.get(yield* Layer.buildWithScope(EventStore.onPglite({ dataDir: dir, schema: "large" }).pipe(Layer.provide(Layer.succeedContext(database))), scope), EventStore)
        expectBounded(yield* sizesAfterPuts(store, Context.get(database, SqlClient), "large"))
      } finally {
        yield* Scope.close(scope, Exit.void)
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }), 120_000)

  // In a database of its own: a VACUUM removes only the versions that no open transaction of the
  // same database may still see, and the other test files' transactions on the shared database kept
  // one or two more (4.4 versions' worth, seen once in a suite run).
  it.live("keeps a PostgreSQL server's table bounded", () =>
    Effect.gen(function* () {
      const url = new URL(postgresUrl)
      const database = `sandnet_large_rows_${process.pid}_${randomBytes(3).toString("hex")}`
      const admin = PgClient.layer({ url: Redacted.make(postgresUrl), maxConnections: 1 })
      yield* Effect.flatMap(SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${database}`)).pipe(Effect.provide(admin))
      url.pathname = `/${database}`
      const schema = testSchema()
      const sizes = yield* Effect.gen(function* () {
        const store = yield* EventStore
        return yield* sizesAfterPuts(store, yield* SqlClient, schema)
      }).pipe(
        Effect.provide(Layer.merge(EventStore.postgres({ url: url.href, schema }), PgClient.layer({ url: Redacted.make(url.href), maxConnections: 1 }))),
        Effect.ensuring(Effect.flatMap(SqlClient, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).pipe(Effect.provide(admin), Effect.orDie))
      )
      expectBounded(sizes)
    }), 120_000)
})
