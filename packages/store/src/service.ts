/**
 * The EventStore service interface, and the part every layer shares: validation of writes and
 * the convenience operations built on `write`.
 */
import { Effect, Either, type Option } from "effect"
import type { AppendError, InvalidEntry, StorageError, StoreClosed } from "./errors.ts"
import {
  type JournalEntry,
  prepareWrite,
  type PreparedWrite,
  type SnapshotEntry,
  type StoreStats,
  type WriteBatch
} from "./model.ts"
import { readPages } from "./pages.ts"
import type { WriteError } from "./writer.ts"

/**
 * A node's durable store: append-only journal streams of JSON events plus a key-value area for
 * snapshots and derived state. Every write completes only once durably committed.
 */
export interface EventStoreService {
  /**
   * Appends entries (any number of streams, each stream's entries consecutive and starting right
   * after its last committed seq; the first seq of a stream is 1). All or nothing.
   */
  readonly append: (entries: ReadonlyArray<JournalEntry>) => Effect.Effect<void, AppendError>
  /** Appends entries and applies snapshot upserts/deletions in one atomic commit. */
  readonly write: (batch: WriteBatch) => Effect.Effect<void, AppendError>
  /** Entries of `stream` with seq >= `fromSeq` (default 1), in seq order, at most `limit` of them. */
  readonly readStream: (
    stream: string,
    fromSeq?: number,
    limit?: number
  ) => Effect.Effect<ReadonlyArray<JournalEntry>, StorageError>
  /** Names of the streams that have at least one entry, in code point order. */
  readonly streams: () => Effect.Effect<ReadonlyArray<string>, StorageError>
  /**
   * Every stream's entries, streams in code point order: what a node reads at its start; with
   * `after`, only the entries after its seq for each stream it names (a start from an engine
   * checkpoint). The embedded store reads most of them from its journal mirror (journal-mirror.ts).
   */
  readonly readAll: (after?: ReadonlyMap<string, number>) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<JournalEntry>>, StorageError>
  /** The last committed seq of `stream`, 0 when it has none. */
  readonly lastSeq: (stream: string) => Effect.Effect<number, StorageError>
  readonly putSnapshot: (
    stream: string,
    key: string,
    body: unknown
  ) => Effect.Effect<void, InvalidEntry | StorageError | StoreClosed>
  readonly getSnapshot: (stream: string, key: string) => Effect.Effect<Option.Option<unknown>, StorageError>
  readonly deleteSnapshot: (stream: string, key: string) => Effect.Effect<void, InvalidEntry | StorageError | StoreClosed>
  /** Snapshots of `stream` whose key starts with `prefix` (default: all), in key code point order. */
  readonly listSnapshots: (stream: string, prefix?: string) => Effect.Effect<ReadonlyArray<SnapshotEntry>, StorageError>
  /** Deletes one stream: its entries (its last seq goes back to 0) and its snapshots. */
  readonly resetStream: (stream: string) => Effect.Effect<void, StorageError | StoreClosed>
  /** Deletes everything in this store (the developer "reset" control). */
  readonly reset: () => Effect.Effect<void, StorageError | StoreClosed>
  /** Commit counters since the layer started. */
  readonly stats: () => Effect.Effect<StoreStats>
}

/** @internal what a layer implements; `makeService` adds validation and the convenience operations. */
export interface StoreCore {
  readonly write: (write: PreparedWrite) => Effect.Effect<void, WriteError>
  readonly reset: (stream: string | undefined) => Effect.Effect<void, StorageError | StoreClosed>
  readonly readStream: (
    stream: string,
    fromSeq: number,
    limit: number | undefined
  ) => Effect.Effect<ReadonlyArray<JournalEntry>, StorageError>
  readonly streams: Effect.Effect<ReadonlyArray<string>, StorageError>
  /** Optional: a faster way to read everything than `streams` and `readStream` page by page. */
  readonly readAll?: (after: ReadonlyMap<string, number> | undefined) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<JournalEntry>>, StorageError>
  readonly lastSeq: (stream: string) => Effect.Effect<number, StorageError>
  readonly getSnapshot: (stream: string, key: string) => Effect.Effect<Option.Option<unknown>, StorageError>
  readonly listSnapshots: (stream: string, prefix: string) => Effect.Effect<ReadonlyArray<SnapshotEntry>, StorageError>
  readonly stats: Effect.Effect<StoreStats>
}

/**
 * Every stream read page by page, up to READ_CONCURRENCY streams at once (in the order of
 * `streams`): on a PostgreSQL server one stream's page is parsed while another's is on its way.
 */
const readEveryStream = (core: StoreCore, after: ReadonlyMap<string, number> | undefined): Effect.Effect<ReadonlyMap<string, ReadonlyArray<JournalEntry>>, StorageError> =>
  Effect.gen(function*() {
    const streams = yield* core.streams
    const read: Array<ReadonlyArray<JournalEntry>> = []
    // Each stream's fiber returns nothing: node-postgres keeps the callback of the first request for
    // each new connection (a listener on it), and through it that fiber and its result, for the
    // connection's life; a stream as a fiber's result stayed on the heap for the node's life.
    yield* Effect.forEach(
      streams,
      (stream, i) => Effect.map(readPages((from, limit) => core.readStream(stream, from, limit), (after?.get(stream) ?? 0) + 1), (entries) => void (read[i] = entries)),
      { concurrency: READ_CONCURRENCY, discard: true }
    )
    return new Map(streams.map((stream, i) => [stream, read[i]!] as const))
  })

/** Streams read at once by `readAll` (a PostgreSQL store's pool holds 4 connections). */
const READ_CONCURRENCY = 3

/** @internal */
export const makeService = (core: StoreCore): EventStoreService => {
  const write = (batch: WriteBatch): Effect.Effect<void, AppendError> =>
    Effect.suspend((): Effect.Effect<void, AppendError> => {
      const prepared = prepareWrite(batch)
      return Either.isLeft(prepared) ? Effect.fail(prepared.left) : core.write(prepared.right)
    })
  // A write with no journal entries cannot hit a sequence error.
  const snapshotOnly = (batch: WriteBatch) =>
    write(batch).pipe(
      Effect.catchTags({
        SequenceGap: (error) => Effect.die(error),
        DuplicateSequence: (error) => Effect.die(error)
      })
    )
  return {
    append: (entries) => write({ entries }),
    write,
    readStream: (stream, fromSeq, limit) =>
      core.readStream(
        stream,
        Math.max(1, Math.floor(fromSeq ?? 1)),
        limit === undefined ? undefined : Math.max(0, Math.floor(limit))
      ),
    streams: () => core.streams,
    readAll: (after) => core.readAll?.(after) ?? readEveryStream(core, after),
    lastSeq: core.lastSeq,
    putSnapshot: (stream, key, body) => snapshotOnly({ putSnapshots: [{ stream, key, body }] }),
    getSnapshot: core.getSnapshot,
    deleteSnapshot: (stream, key) => snapshotOnly({ deleteSnapshots: [{ stream, key }] }),
    listSnapshots: (stream, prefix) => core.listSnapshots(stream, prefix ?? ""),
    resetStream: (stream) => core.reset(stream),
    reset: () => core.reset(undefined),
    stats: () => core.stats
  }
}
