/**
 * The PostgreSQL store over `@effect/sql-pg`. Every table lives in one schema per node
 * (`options.schema`), every statement names it explicitly, so several node processes can share one
 * server (and one database) without seeing each other. Migrations run through `PgMigrator` with
 * their bookkeeping table in the same schema. Writes go through the group-commit writer.
 */
import { NodeContext } from "@effect/platform-node"
import * as PgMigrator from "@effect/sql-pg/PgMigrator"
import type { PgClient } from "@effect/sql-pg/PgClient"
import { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment, Identifier } from "@effect/sql/Statement"
import { Effect, Option, type Scope } from "effect"
import { StorageError, StoreConfigError } from "./errors.ts"
import type { JournalMirror } from "./journal-mirror.ts"
import { type MirrorReadBackend, readAllMirrored } from "./journal-mirror-read.ts"
import type { EncodedEntry, JournalEntry, SnapshotEntry } from "./model.ts"
import { type EventStoreService, makeService, type StoreCore } from "./service.ts"
import { type CommitPlan, makeWriter, type WriterBackend } from "./writer.ts"

export interface SqlStoreOptions {
  /** PostgreSQL schema holding this node's tables (default "sandnet"); created if missing. */
  readonly schema?: string
  /** Most append requests per group commit (default 1024). */
  readonly maxBatch?: number
}

export const DEFAULT_SCHEMA = "sandnet"
/** Name of PgMigrator's bookkeeping table (inside the node's schema). */
export const MIGRATIONS_TABLE = "sandnet_migrations"

const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/

/**
 * A schema name the store accepts: lowercase letters, digits and `_`, not starting with a digit, at
 * most 63 bytes, and not starting with `pg_` (PostgreSQL reserves those: it refuses to create one).
 */
export const validateSchema = (schema: string): Effect.Effect<string, StoreConfigError> =>
  schemaPattern.test(schema) && !schema.startsWith("pg_")
    ? Effect.succeed(schema)
    : Effect.fail(
      new StoreConfigError({
        option: "schema",
        message: `schema must match ${schemaPattern.source} and not start with pg_ (PostgreSQL reserves those names), got ${JSON.stringify(schema)}`
      })
    )

const storageError = (operation: string) => (error: SqlError | StorageError): StorageError => {
  if (error._tag === "StorageError") return error
  const detail = error.cause instanceof Error ? `: ${error.cause.message}` : ""
  return new StorageError({ operation, message: `${error.message}${detail}`, cause: error.cause })
}

/**
 * The migrations, in order. Keys are `<id>_<name>` (PgMigrator.fromRecord); never edit a released
 * migration, add a new one.
 *
 * - `COLLATE "C"` on names: listings come out in code point order on every server, like the memory layer.
 * - `body json` (not jsonb): the JSON text is kept as written, key order included.
 * - `streams` holds each stream's head; a commit moves it from the expected value or fails, which
 *   catches a second writer on the same schema. `events`' primary key rejects a doubled seq.
 * - `sandnet_assert(ok, message)` raises SQLSTATE SN001 unless `ok`: lets one autocommitted
 *   statement check its own effects and abort as a whole.
 */
export const migrations = (schema: string): Record<string, Effect.Effect<void, SqlError, SqlClient>> => ({
  "1_journal": Effect.gen(function*() {
    const sql = yield* SqlClient
    yield* sql`CREATE TABLE ${sql(`${schema}.streams`)} (
      stream text COLLATE "C" PRIMARY KEY,
      last_seq bigint NOT NULL CHECK (last_seq >= 1)
    )`
    yield* sql`CREATE TABLE ${sql(`${schema}.events`)} (
      stream text COLLATE "C" NOT NULL,
      seq bigint NOT NULL CHECK (seq >= 1),
      kind text NOT NULL,
      body json NOT NULL,
      PRIMARY KEY (stream, seq)
    )`
    yield* sql`CREATE TABLE ${sql(`${schema}.snapshots`)} (
      stream text COLLATE "C" NOT NULL,
      key text COLLATE "C" NOT NULL,
      body json NOT NULL,
      PRIMARY KEY (stream, key)
    )`
    yield* sql`CREATE FUNCTION ${sql(`${schema}.sandnet_assert`)}(ok boolean, message text) RETURNS boolean
      LANGUAGE plpgsql AS $fn$
      BEGIN
        IF ok IS NOT TRUE THEN RAISE EXCEPTION '%', message USING ERRCODE = 'SN001'; END IF;
        RETURN ok;
      END
      $fn$`
  })
})

/** The id of the newest migration (a data directory migrated to it needs none). */
export const latestMigrationId = (): number => Math.max(...Object.keys(migrations(DEFAULT_SCHEMA)).map((key) => Number.parseInt(key, 10)))

/**
 * Creates the schema if needed and runs the pending migrations; returns the ids applied now. An
 * up-to-date schema costs one query (the usual start), otherwise PgMigrator does the work (under
 * its table lock, so concurrent starts are safe).
 */
export const migrate = (
  schema: string
): Effect.Effect<ReadonlyArray<readonly [number, string]>, StorageError | StoreConfigError, SqlClient | PgClient> =>
  Effect.gen(function*() {
    yield* validateSchema(schema)
    const sql = yield* SqlClient
    const all = migrations(schema)
    const latest = Math.max(...Object.keys(all).map((key) => Number.parseInt(key, 10)))
    const applied = yield* sql<{ latest: number | null }>`
      SELECT max(migration_id) AS latest FROM ${sql(`${schema}.${MIGRATIONS_TABLE}`)}`.pipe(
      Effect.map((rows) => rows[0]?.latest ?? 0),
      Effect.orElseSucceed(() => 0)
    )
    if (applied >= latest) return []
    // Two processes racing on CREATE SCHEMA IF NOT EXISTS can collide on the catalog; once more settles it.
    yield* sql`CREATE SCHEMA IF NOT EXISTS ${sql(schema)}`.pipe(
      Effect.retry({ times: 1 }),
      Effect.mapError(storageError("create schema"))
    )
    return yield* PgMigrator.run({
      loader: PgMigrator.fromRecord(all),
      table: `${schema}.${MIGRATIONS_TABLE}`
    }).pipe(
      Effect.provide(NodeContext.layer),
      Effect.mapError((error) =>
        error._tag === "MigrationError"
          ? new StorageError({ operation: "migrate", message: error.message, cause: error })
          : storageError("migrate")(error)
      )
    )
  })

/** Drops a node's schema and everything in it (tests, decommissioning a node). */
export const dropSchema = (schema: string): Effect.Effect<void, StorageError | StoreConfigError, SqlClient> =>
  Effect.gen(function*() {
    yield* validateSchema(schema)
    const sql = yield* SqlClient
    yield* sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`.pipe(Effect.mapError(storageError("drop schema")))
  })

type Seq = string | number

/** The node's tables, named with their schema. */
interface Tables {
  readonly sql: SqlClient
  readonly schema: string
  readonly streams: Identifier
  readonly events: Identifier
  readonly snapshots: Identifier
  readonly assert: Identifier
}

const tablesOf = (sql: SqlClient, schema: string): Tables => ({
  sql,
  schema,
  streams: sql(`${schema}.streams`),
  events: sql(`${schema}.events`),
  snapshots: sql(`${schema}.snapshots`),
  assert: sql(`${schema}.sandnet_assert`)
})

/** @internal `mirror`: the embedded store's journal mirror (journal-mirror.ts), kept by the writer and used by `readAll`. */
export const makeSqlStore = (
  options: SqlStoreOptions = {},
  mirror?: JournalMirror
): Effect.Effect<EventStoreService, StorageError | StoreConfigError, SqlClient | PgClient | Scope.Scope> =>
  Effect.gen(function*() {
    const schema = yield* validateSchema(options.schema ?? DEFAULT_SCHEMA)
    yield* migrate(schema)
    const tables = tablesOf(yield* SqlClient, schema)
    if (mirror !== undefined) yield* Effect.addFinalizer(() => Effect.sync(mirror.close))
    const writer = yield* makeWriter(sqlWriterBackend(tables, mirror), options.maxBatch === undefined ? {} : { maxBatch: options.maxBatch })
    const readAll = mirror === undefined ? {} : { readAll: (after: ReadonlyMap<string, number> | undefined) => readAllMirrored(mirror, mirrorReads(tables), after) }
    return makeService({ write: writer.write, reset: writer.reset, ...sqlReads(tables), ...readAll, stats: writer.stats })
  })

/**
 * The JSON bodies of a commit as one text, one body per line, split again by the statement
 * (`string_to_array(..., E'\n')`). As a `json[]` parameter, node-postgres escaped every quote of
 * every body into an array literal: 0.12 ms of the node's CPU per W1 offer, 5% of it on PostgreSQL
 * (`node --cpu-prof` of `sandnet bench --only storage`). A body never holds a raw line feed:
 * `JSON.stringify` (model.ts's `encodeJson`, their only source) escapes it inside strings and
 * adds no whitespace. (One JSON document of records would not do: `json_to_recordset` unescapes
 * while it parses, and refuses a body's `\u0000`.)
 */
const bodyLines = (bodies: ReadonlyArray<string>): string => bodies.join("\n")

/** The body of a plan that `bodyLines` could not carry (one with a raw line feed), if any. */
const bodyWithLineFeed = (plan: CommitPlan): string | undefined =>
  plan.entries.find((e) => e.json.includes("\n"))?.json ?? plan.snapshotOps.find((op) => op.json?.includes("\n") === true)?.json ?? undefined

/**
 * One autocommitted statement (one round trip, one commit): the events, the head moves and the
 * snapshot ops, each a data-modifying CTE (PostgreSQL runs them all to completion whether or not
 * the main query reads them), only those the plan needs. The final assertion aborts the whole
 * statement if a head was not where this writer expected it (another writer on the schema); the
 * primary key does if a seq is taken.
 */
const commitPlan = (tables: Tables, plan: CommitPlan): Effect.Effect<void, StorageError> => {
  const { sql } = tables
  const headsMoved = `stream heads in schema ${tables.schema} moved under the store: is another process writing to it?`
  const puts = plan.snapshotOps.filter((op) => op.json !== null)
  const deletes = plan.snapshotOps.filter((op) => op.json === null)
  const badBody = bodyWithLineFeed(plan)
  if (badBody !== undefined) {
    return Effect.fail(new StorageError({ operation: "commit", message: `a journal body holds a raw line feed (not encodeJson's output): ${badBody.slice(0, 80)}` }))
  }
  const ctes: Array<Fragment> = []
  if (plan.entries.length > 0) {
    ctes.push(sql`new_events AS (
      INSERT INTO ${tables.events} (stream, seq, kind, body)
      SELECT s, q, k, b::json FROM unnest(
        ${plan.entries.map((e) => e.stream)}::text[], ${plan.entries.map((e) => e.seq)}::int8[],
        ${plan.entries.map((e) => e.kind)}::text[], string_to_array(${bodyLines(plan.entries.map((e) => e.json))}, E'\n')) AS t(s, q, k, b))`)
  }
  // Heads: existing streams move from `expected` to `last`; new streams (expected 0) are created.
  const moving = plan.heads.filter((h) => h.expected > 0)
  const creating = plan.heads.filter((h) => h.expected === 0)
  const counted: Array<Fragment> = []
  if (moving.length > 0) {
    ctes.push(sql`moved AS (
      UPDATE ${tables.streams} AS h SET last_seq = t.last_seq
      FROM unnest(${moving.map((h) => h.stream)}::text[], ${moving.map((h) => h.expected)}::int8[],
        ${moving.map((h) => h.last)}::int8[]) AS t(stream, expected, last_seq)
      WHERE h.stream = t.stream AND h.last_seq = t.expected
      RETURNING 1)`)
    counted.push(sql`(SELECT count(*) FROM moved)`)
  }
  if (creating.length > 0) {
    ctes.push(sql`created AS (
      INSERT INTO ${tables.streams} (stream, last_seq)
      SELECT * FROM unnest(${creating.map((h) => h.stream)}::text[], ${creating.map((h) => h.last)}::int8[])
      RETURNING 1)`)
    counted.push(sql`(SELECT count(*) FROM created)`)
  }
  if (deletes.length > 0) {
    ctes.push(sql`deleted AS (
      DELETE FROM ${tables.snapshots} AS s
      USING unnest(${deletes.map((op) => op.stream)}::text[], ${deletes.map((op) => op.key)}::text[]) AS d(stream, key)
      WHERE s.stream = d.stream AND s.key = d.key)`)
  }
  if (puts.length > 0) {
    ctes.push(sql`put AS (
      INSERT INTO ${tables.snapshots} (stream, key, body)
      SELECT s, k, b::json FROM unnest(${puts.map((op) => op.stream)}::text[], ${puts.map((op) => op.key)}::text[],
        string_to_array(${bodyLines(puts.map((op) => op.json!))}, E'\n')) AS t(s, k, b)
      ON CONFLICT (stream, key) DO UPDATE SET body = EXCLUDED.body)`)
  }
  if (ctes.length === 0) return Effect.void
  const result = counted.length > 0
    ? sql`SELECT ${tables.assert}(${sql.join(" + ", false)(counted)} = ${plan.heads.length}, ${headsMoved})`
    : sql`SELECT 1`
  return sql`WITH ${sql.join(",\n", false)(ctes)} ${result}`.pipe(Effect.asVoid, Effect.mapError(storageError("commit")))
}

const loadHeads = ({ sql, streams }: Tables) =>
  sql<{ stream: string; last_seq: Seq }>`SELECT stream, last_seq FROM ${streams}`.pipe(
    Effect.map((rows) => new Map(rows.map((row) => [row.stream, Number(row.last_seq)] as const))),
    Effect.mapError(storageError("loadHeads"))
  )

/**
 * Key-value bodies this long or longer are kept out of line (TOAST), and a put that replaces one
 * leaves the old one's chunks behind until a VACUUM reclaims them: PGlite runs none of its own
 * (single-user, no autovacuum), and a server may not either. The engine checkpoint is such a row,
 * replaced every 20,000 journal entries or more: on PGlite ten puts of 2 MB left the table at
 * 21 MB; vacuumed after each, it stayed at 4 MB (docs/storage.md, "Engine checkpoints").
 */
export const LARGE_BODY_CHARS = 256 * 1024

/** After a commit that put a large body: the table's dead versions made reusable (not part of the commit: a failure is only said). */
const vacuumAfterLargePuts = ({ sql, snapshots, schema }: Tables, plan: CommitPlan): Effect.Effect<void> =>
  plan.snapshotOps.some((op) => op.json !== null && op.json.length >= LARGE_BODY_CHARS)
    ? sql`VACUUM ${snapshots}`.pipe(Effect.asVoid, Effect.catchAll((error) => Effect.logWarning(`VACUUM of ${schema}.snapshots failed: ${error.message}`)))
    : Effect.void

/**
 * The writer's database side: heads, commits, resets. The mirror follows the commits; a failed
 * commit (it may have reached the database) or a reset stops it until the next full read.
 */
const sqlWriterBackend = (tables: Tables, mirror: JournalMirror | undefined): WriterBackend => {
  const { sql, events, streams, snapshots } = tables
  const reset = (stream: string | undefined) =>
    (stream === undefined
      ? sql`TRUNCATE ${events}, ${streams}, ${snapshots}`.pipe(Effect.asVoid)
      : Effect.all([
        sql`DELETE FROM ${events} WHERE stream = ${stream}`,
        sql`DELETE FROM ${streams} WHERE stream = ${stream}`,
        sql`DELETE FROM ${snapshots} WHERE stream = ${stream}`
      ], { discard: true }).pipe(sql.withTransaction)).pipe(Effect.mapError(storageError("reset")))
  const committed = (plan: CommitPlan) =>
    mirror === undefined
      ? commitPlan(tables, plan)
      : commitPlan(tables, plan).pipe(
        Effect.tap(() => Effect.sync(() => mirror.committed(plan.entries))),
        Effect.tapError(() => Effect.sync(mirror.unsync))
      )
  return {
    loadHeads: loadHeads(tables),
    commit: (plan) => Effect.zipLeft(committed(plan), vacuumAfterLargePuts(tables, plan)),
    reset: mirror === undefined ? reset : (stream) => Effect.ensuring(reset(stream), Effect.sync(mirror.unsync))
  }
}

/**
 * A page's seqs, `limit` of them from `fromSeq`. A stream's seqs are dense (model.ts), so the upper
 * bound selects what `LIMIT` alone would, and it keeps the page's plan bounded when the table's
 * statistics are stale (a server without autovacuum, or a restart right after a load): with only
 * `seq >= from`, PostgreSQL estimated a few thousand rows, chose a bitmap scan and sorted the whole
 * rest of the stream on disk for every page of 5,000, 117 ms a page after 20,000 offers against
 * 14 ms with the bound (EXPLAIN ANALYZE), quadratic in the stream's length.
 */
const seqRange = (sql: Tables["sql"], fromSeq: number, limit: number | undefined) =>
  limit === undefined ? sql`seq >= ${fromSeq}` : sql`seq >= ${fromSeq} AND seq < ${fromSeq + limit}`

/** The database side of reading with the mirror: bodies as the text the database holds. */
const mirrorReads = (tables: Tables): MirrorReadBackend => {
  const { sql, events } = tables
  return {
    heads: loadHeads(tables),
    bodyTexts: (at) =>
      at.length === 0
        ? Effect.succeed(new Map())
        : sql<{ stream: string; body: string }>`
          SELECT e.stream, e.body::text AS body FROM ${events} AS e
          JOIN unnest(${at.map((a) => a.stream)}::text[], ${at.map((a) => a.seq)}::int8[]) AS t(stream, seq)
            ON e.stream = t.stream AND e.seq = t.seq`.pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.stream, row.body] as const))),
          Effect.mapError(storageError("readAll"))
        ),
    readTexts: (stream, fromSeq, limit) =>
      sql<{ seq: Seq; kind: string; json: string }>`
        SELECT seq, kind, body::text AS json FROM ${events}
        WHERE stream = ${stream} AND ${seqRange(sql, fromSeq, limit)} ORDER BY seq LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row): EncodedEntry => ({ stream, seq: Number(row.seq), kind: row.kind, json: row.json }))),
        Effect.mapError(storageError("readAll"))
      )
  }
}

/** The store's reads, straight from the tables. */
const sqlReads = (tables: Tables): Pick<StoreCore, "readStream" | "streams" | "lastSeq" | "getSnapshot" | "listSnapshots"> => {
  const { sql, events, streams, snapshots } = tables
  return {
    readStream: (stream, fromSeq, limit) =>
      sql<{ seq: Seq; kind: string; body: unknown }>`
        SELECT seq, kind, body FROM ${events}
        WHERE stream = ${stream} AND ${seqRange(sql, fromSeq, limit)} ORDER BY seq LIMIT ${limit ?? null}`.pipe(
        Effect.map((rows) =>
          rows.map((row): JournalEntry => ({ stream, seq: Number(row.seq), kind: row.kind, body: row.body }))
        ),
        Effect.mapError(storageError("readStream"))
      ),
    streams: sql<{ stream: string }>`SELECT stream FROM ${streams} ORDER BY stream`.pipe(
      Effect.map((rows) => rows.map((row) => row.stream)),
      Effect.mapError(storageError("streams"))
    ),
    lastSeq: (stream) =>
      sql<{ last_seq: Seq }>`SELECT last_seq FROM ${streams} WHERE stream = ${stream}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? 0 : Number(rows[0].last_seq))),
        Effect.mapError(storageError("lastSeq"))
      ),
    getSnapshot: (stream, key) =>
      sql<{ body: unknown }>`SELECT body FROM ${snapshots} WHERE stream = ${stream} AND key = ${key}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? Option.none() : Option.some(rows[0].body))),
        Effect.mapError(storageError("getSnapshot"))
      ),
    listSnapshots: (stream, prefix) =>
      sql<{ key: string; body: unknown }>`
        SELECT key, body FROM ${snapshots}
        WHERE stream = ${stream} AND starts_with(key, ${prefix}) ORDER BY key`.pipe(
        Effect.map((rows) => rows.map((row): SnapshotEntry => ({ stream, key: row.key, body: row.body }))),
        Effect.mapError(storageError("listSnapshots"))
      )
  }
}
