/**
 * The cluster transport: what node processes that form one network share on one PostgreSQL
 * server, besides their own schemas (docs/storage.md, "A network spread over processes").
 *
 * One schema per cluster (e.g. `sandnet_cluster`) holds
 *
 *   agreed(key, body)                       values every process must share (the network
 *                                           configuration): the first process to propose one wins
 *   messages(recipient, sender, seq, body)  the mailbox: protocol messages between processes
 *
 * A message's `seq` is assigned by its sender, per recipient, 1, 2, 3, ...: each process is the
 * only writer of its rows and writes them one batch at a time, so a reader that keeps a cursor per
 * sender never skips a row that committed late (a shared serial id would: ids are taken at insert
 * and become visible in commit order). The store treats bodies as opaque text (the engine's wire
 * form). `readJournal` reads another process's journal, in its schema, read-only; `readJournals`
 * reads several streams of several schemas in one statement (a process follows them every tick).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Redacted, Stream, type Scope } from "effect"
import { StorageError, type StoreConfigError } from "./errors.ts"
import type { JournalEntry } from "./model.ts"
import { validateSchema } from "./sql.ts"

export interface ClusterMessage {
  readonly sender: string
  readonly seq: number
  readonly body: string
}

/** A stream of another node's journal to read from `fromSeq` on (`readJournals`). */
export interface JournalRead {
  readonly schema: string
  readonly stream: string
  readonly fromSeq: number
}

export interface OutgoingClusterMessage {
  readonly recipient: string
  readonly body: string
}

export interface ClusterTransportService {
  /** The cluster's schema. */
  readonly schema: string
  /** The value stored under `key`: `proposal` if none was stored yet (first proposal wins). */
  readonly agree: (key: string, proposal: unknown) => Effect.Effect<unknown, StorageError>
  /** The value stored under `key`, if one was agreed (read only: waiting processes poll it). */
  readonly agreed: (key: string) => Effect.Effect<unknown, StorageError>
  /**
   * Appends messages from `sender`, in order, in one commit. Not safe to call concurrently for
   * one sender: the caller sends one batch at a time (the per-recipient seq is assigned here).
   */
  readonly send: (sender: string, messages: ReadonlyArray<OutgoingClusterMessage>) => Effect.Effect<void, StorageError>
  /**
   * Messages to `recipient` after the cursor (last seq seen per sender), in (sender, seq) order,
   * at most `limit`.
   */
  readonly receive: (recipient: string, after: ReadonlyMap<string, number>, limit: number) => Effect.Effect<ReadonlyArray<ClusterMessage>, StorageError>
  /**
   * A wake-up each time messages for `recipient` were committed (PostgreSQL NOTIFY on the
   * cluster's channel), so that the recipient reads them at once instead of at its next tick.
   */
  readonly wakeups: (recipient: string) => Stream.Stream<void, StorageError>
  /** Entries of `stream` in another node's schema from `fromSeq` on (none when the schema has no journal yet). */
  readonly readJournal: (schema: string, stream: string, fromSeq: number, limit: number) => Effect.Effect<ReadonlyArray<JournalEntry>, StorageError | StoreConfigError>
  /** `readJournal` of each read, in one statement: their entries in the reads' order, at most `limit` each. */
  readonly readJournals: (reads: ReadonlyArray<JournalRead>, limit: number) => Effect.Effect<ReadonlyArray<ReadonlyArray<JournalEntry>>, StorageError | StoreConfigError>
}

export class ClusterTransport extends Context.Tag("@sandnet/store/ClusterTransport")<ClusterTransport, ClusterTransportService>() {
  /** The transport on the PostgreSQL server at `url`, in `schema` (created on first use). */
  static readonly postgres = (options: { readonly url: string; readonly schema: string }): Layer.Layer<ClusterTransport, StorageError | StoreConfigError> =>
    Layer.scoped(ClusterTransport, makeClusterTransport(options))
}

const failWith = (operation: string) => (error: SqlError): StorageError =>
  new StorageError({ operation, message: `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}`, cause: error.cause })

/** SQLSTATEs of a relation or schema that does not exist (yet). */
const MISSING = new Set(["42P01", "3F000"])

const sqlStateOf = (error: SqlError): string | undefined => {
  const cause = error.cause as { code?: unknown } | undefined
  return typeof cause?.code === "string" ? cause.code : undefined
}

/** The cluster's connection and names. */
interface ClusterDb {
  readonly client: PgClient.PgClient
  readonly schema: string
  /** A table of the cluster's schema, quoted. */
  readonly q: (name: string) => string
  /** The NOTIFY channel of the cluster (one LISTEN connection per process). */
  readonly channel: string
}

export const makeClusterTransport = (options: { readonly url: string; readonly schema: string }): Effect.Effect<ClusterTransportService, StorageError | StoreConfigError, Scope.Scope> =>
  Effect.gen(function* () {
    const schema = yield* validateSchema(options.schema)
    const client = yield* PgClient.make({ url: Redacted.make(options.url), maxConnections: 3, applicationName: `sandnet-cluster-${schema}` }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError((e) => new StorageError({ operation: "connect", message: `${e.message}${e.cause instanceof Error ? `: ${e.cause.message}` : ""}` }))
    )
    const db: ClusterDb = { client, schema, q: (name) => `"${schema}"."${name}"`, channel: `${schema}_mail` }
    yield* createClusterTables(db)
    const service: ClusterTransportService = {
      schema,
      agree: (key, proposal) => agree(db, key, proposal),
      agreed: (key) => agreedValue(db, key),
      send: makeSend(db),
      receive: (recipient, after, limit) => receive(db, recipient, after, limit),
      wakeups: (recipient) => wakeups(db, recipient),
      readJournal: (other, stream, fromSeq, limit) => readJournal(db, other, stream, fromSeq, limit),
      readJournals: (reads, limit) => readJournals(db, reads, limit)
    }
    return service
  })

/** Creates the cluster's schema and tables if missing. */
const createClusterTables = ({ client, schema, q }: ClusterDb): Effect.Effect<void, StorageError> =>
  // Processes starting together: the advisory lock makes the CREATEs run one at a time.
  client
    .withTransaction(
      Effect.gen(function* () {
        yield* client.unsafe(`SELECT pg_advisory_xact_lock(hashtext($1)::bigint)`, [`sandnet-cluster:${schema}`])
        yield* client.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`)
        yield* client.unsafe(`CREATE TABLE IF NOT EXISTS ${q("agreed")} (key text COLLATE "C" PRIMARY KEY, body json NOT NULL)`)
        yield* client.unsafe(
          `CREATE TABLE IF NOT EXISTS ${q("messages")} (
             recipient text COLLATE "C" NOT NULL,
             sender    text COLLATE "C" NOT NULL,
             seq       bigint NOT NULL CHECK (seq >= 1),
             body      text NOT NULL,
             sent_at   timestamptz NOT NULL DEFAULT now(),
             PRIMARY KEY (recipient, sender, seq))`
        )
      })
    )
    .pipe(Effect.mapError(failWith("cluster schema")))

const agree = ({ client, q }: ClusterDb, key: string, proposal: unknown): Effect.Effect<unknown, StorageError> =>
  Effect.gen(function* () {
    yield* client.unsafe(`INSERT INTO ${q("agreed")} (key, body) VALUES ($1, $2::json) ON CONFLICT (key) DO NOTHING`, [key, JSON.stringify(proposal)])
    const rows = yield* client.unsafe<{ body: unknown }>(`SELECT body FROM ${q("agreed")} WHERE key = $1`, [key])
    return rows[0]?.body
  }).pipe(Effect.mapError(failWith("agree")))

const agreedValue = ({ client, q }: ClusterDb, key: string): Effect.Effect<unknown, StorageError> =>
  client.unsafe<{ body: unknown }>(`SELECT body FROM ${q("agreed")} WHERE key = $1`, [key]).pipe(
    Effect.map((rows) => rows[0]?.body),
    Effect.mapError(failWith("agreed"))
  )

/** `send`, with the last seq this process gave each recipient (read once per sender; this process is their only writer). */
const makeSend = ({ client, q, channel }: ClusterDb): ClusterTransportService["send"] => {
  const lastSent = new Map<string, number>()
  const senderHeads = new Map<string, boolean>()
  const loadHeads = (sender: string) =>
    senderHeads.has(sender)
      ? Effect.void
      : Effect.map(
          client.unsafe<{ recipient: string; seq: string | number }>(`SELECT recipient, max(seq) AS seq FROM ${q("messages")} WHERE sender = $1 GROUP BY recipient`, [sender]),
          (rows) => {
            for (const row of rows) lastSent.set(`${sender}\u0000${row.recipient}`, Number(row.seq))
            senderHeads.set(sender, true)
          }
        )
  return (sender, messages) =>
    messages.length === 0
      ? Effect.void
      : Effect.gen(function* () {
          yield* loadHeads(sender)
          const recipients: Array<string> = []
          const seqs: Array<number> = []
          const bodies: Array<string> = []
          const next = new Map<string, number>()
          for (const m of messages) {
            const key = `${sender}\u0000${m.recipient}`
            const seq = (next.get(key) ?? lastSent.get(key) ?? 0) + 1
            next.set(key, seq)
            recipients.push(m.recipient)
            seqs.push(seq)
            bodies.push(m.body)
          }
          // one statement: the rows, and a notification per recipient (delivered at commit)
          yield* client.unsafe(
            `WITH sent AS (
               INSERT INTO ${q("messages")} (recipient, sender, seq, body)
               SELECT r, $1, s, b FROM unnest($2::text[], $3::bigint[], $4::text[]) AS t(r, s, b)
               ON CONFLICT (recipient, sender, seq) DO NOTHING
               RETURNING recipient)
             SELECT pg_notify($5, r) FROM (SELECT DISTINCT recipient AS r FROM sent) AS d`,
            [sender, recipients, seqs, bodies, channel]
          )
          // Only a committed batch moves the heads: a failed one is sent again with the same seqs
          // (rows that did commit, when only the answer was lost, are skipped by ON CONFLICT).
          for (const [key, seq] of next) lastSent.set(key, seq)
        }).pipe(Effect.mapError(failWith("send")))
}

const receive = ({ client, q }: ClusterDb, recipient: string, after: ReadonlyMap<string, number>, limit: number): Effect.Effect<ReadonlyArray<ClusterMessage>, StorageError> =>
  Effect.map(
    client.unsafe<{ sender: string; seq: string | number; body: string }>(
      `SELECT m.sender, m.seq, m.body FROM ${q("messages")} m
       LEFT JOIN unnest($2::text[], $3::bigint[]) AS c(sender, seq) ON c.sender = m.sender
       WHERE m.recipient = $1 AND m.seq > coalesce(c.seq, 0)
       ORDER BY m.sender, m.seq LIMIT $4`,
      [recipient, [...after.keys()], [...after.values()], limit]
    ),
    (rows) => rows.map((row): ClusterMessage => ({ sender: row.sender, seq: Number(row.seq), body: row.body }))
  ).pipe(Effect.mapError(failWith("receive")))

const wakeups = ({ client, channel }: ClusterDb, recipient: string): Stream.Stream<void, StorageError> =>
  client.listen(channel).pipe(
    Stream.filter((payload) => payload === recipient),
    Stream.as(undefined),
    Stream.mapError(failWith("listen"))
  )

const readJournal = (
  { client }: ClusterDb,
  other: string,
  stream: string,
  fromSeq: number,
  limit: number
): Effect.Effect<ReadonlyArray<JournalEntry>, StorageError | StoreConfigError> =>
  Effect.flatMap(validateSchema(other), (valid) =>
    client
      .unsafe<{ seq: string | number; kind: string; body: unknown }>(
        `SELECT seq, kind, body FROM "${valid}"."events" WHERE stream = $1 AND seq >= $2 ORDER BY seq LIMIT $3`,
        [stream, fromSeq, limit]
      )
      .pipe(
        Effect.map((rows) => rows.map((row): JournalEntry => ({ stream, seq: Number(row.seq), kind: row.kind, body: row.body }))),
        Effect.catchIf((e) => MISSING.has(sqlStateOf(e) ?? ""), () => Effect.succeed([] as ReadonlyArray<JournalEntry>)),
        Effect.mapError(failWith("readJournal"))
      )
  )

/**
 * Several `readJournal`s as one statement (a UNION ALL of one bounded select per read), grouped
 * back by read. A schema without a journal yet fails the whole statement: then each read is made
 * alone, as `readJournal` answers it (none).
 */
const readJournals = (
  db: ClusterDb,
  reads: ReadonlyArray<JournalRead>,
  limit: number
): Effect.Effect<ReadonlyArray<ReadonlyArray<JournalEntry>>, StorageError | StoreConfigError> =>
  reads.length <= 1
    ? Effect.forEach(reads, (r) => readJournal(db, r.schema, r.stream, r.fromSeq, limit))
    : Effect.flatMap(
        Effect.forEach(reads, (r) => validateSchema(r.schema)),
        (schemas) => {
          const selects = schemas.map(
            (schema, i) => `(SELECT ${i} AS read, seq, kind, body FROM "${schema}"."events" WHERE stream = $${2 * i + 2} AND seq >= $${2 * i + 3} ORDER BY seq LIMIT $1)`
          )
          return db.client.unsafe<{ read: number; seq: string | number; kind: string; body: unknown }>(selects.join(" UNION ALL "), [limit, ...reads.flatMap((r) => [r.stream, r.fromSeq])]).pipe(
            Effect.map((rows) => {
              const out: Array<Array<JournalEntry>> = reads.map(() => [])
              for (const row of rows) out[Number(row.read)]!.push({ stream: reads[Number(row.read)]!.stream, seq: Number(row.seq), kind: row.kind, body: row.body })
              // a UNION ALL's order is not promised: each read's entries in seq order
              for (const entries of out) entries.sort((a, b) => a.seq - b.seq)
              return out
            }),
            Effect.catchAll((e) =>
              MISSING.has(sqlStateOf(e) ?? "") ? Effect.forEach(reads, (r) => readJournal(db, r.schema, r.stream, r.fromSeq, limit)) : Effect.fail(failWith("readJournal")(e))
            )
          )
        }
      )

/** Drops a cluster's schema (tests). */
export const dropClusterSchema = (url: string, schema: string): Effect.Effect<void, StorageError | StoreConfigError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const valid = yield* validateSchema(schema)
      const client = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(
        Effect.provide(Reactivity.layer),
        Effect.mapError((e) => new StorageError({ operation: "connect", message: e.message }))
      )
      yield* client.unsafe(`DROP SCHEMA IF EXISTS "${valid}" CASCADE`).pipe(Effect.mapError(failWith("drop")))
    })
  )
