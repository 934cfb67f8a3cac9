/**
 * Group commit: one writer fiber owns the database's write path. Callers enqueue a prepared write
 * with a Deferred and wait on it; the writer takes everything queued (up to `maxBatch` requests),
 * checks each request in queue order against the stream heads, commits the accepted ones in ONE
 * transaction and then completes every caller's Deferred. While a commit is in flight the next
 * batch accumulates in the queue, so throughput grows with concurrency instead of collapsing to
 * one commit per request, and no timer is involved.
 *
 * Guarantees:
 * - a caller's effect succeeds only after the transaction containing its rows has committed;
 * - a failed commit fails every caller in it (and nobody else); the heads are then reloaded from
 *   the database before the next batch;
 * - a request rejected by the contiguity check fails on its own, the rest of the batch proceeds;
 * - within a batch, rows are committed in queue order and each caller's rows keep their order;
 * - resets are ordered with writes: the batch is split at a reset.
 */
import { Cause, Chunk, Deferred, Effect, Exit, Fiber, Queue, type Scope } from "effect"
import { type DuplicateSequence, type SequenceGap, StorageError, StoreClosed } from "./errors.ts"
import {
  checkHeads,
  collapseSnapshotOps,
  type EncodedEntry,
  type EncodedSnapshotOp,
  type PreparedWrite,
  type StoreStats
} from "./model.ts"

/** What one transaction must do: insert the rows, move the heads from `expected` to `last`, apply snapshot ops. */
export interface CommitPlan {
  readonly entries: ReadonlyArray<EncodedEntry>
  readonly heads: ReadonlyArray<{ readonly stream: string; readonly expected: number; readonly last: number }>
  readonly snapshotOps: ReadonlyArray<EncodedSnapshotOp>
}

/** The database side of the writer. */
export interface WriterBackend {
  /** Last committed seq of every stream that has one. */
  readonly loadHeads: Effect.Effect<ReadonlyMap<string, number>, StorageError>
  /** Commits a plan in one transaction, or fails without having committed any of it. */
  readonly commit: (plan: CommitPlan) => Effect.Effect<void, StorageError>
  /** Deletes one stream (its entries and snapshots), or everything when `stream` is undefined. */
  readonly reset: (stream: string | undefined) => Effect.Effect<void, StorageError>
}

export type WriteError = SequenceGap | DuplicateSequence | StorageError | StoreClosed

export interface Writer {
  readonly write: (write: PreparedWrite) => Effect.Effect<void, WriteError>
  readonly reset: (stream: string | undefined) => Effect.Effect<void, StorageError | StoreClosed>
  readonly stats: Effect.Effect<StoreStats>
  /** Requests waiting for the next batch (not counting the batch being committed). */
  readonly queued: Effect.Effect<number>
}

export interface WriterOptions {
  /** Most requests in one transaction (default 1024). */
  readonly maxBatch?: number
}

type WriteItem = {
  readonly _tag: "Write"
  readonly write: PreparedWrite
  readonly done: Deferred.Deferred<void, WriteError>
}
type ResetItem = {
  readonly _tag: "Reset"
  readonly stream: string | undefined
  readonly done: Deferred.Deferred<void, StorageError | StoreClosed>
}
type Item = WriteItem | ResetItem

const toStorageError = (operation: string, cause: Cause.Cause<StorageError>): StorageError => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return failure.value
  return new StorageError({ operation, message: Cause.pretty(cause), cause: Cause.squash(cause) })
}

/** What the writer fiber keeps between batches. */
interface WriterState {
  readonly backend: WriterBackend
  /** Last committed seq of every stream, as far as the writer knows. */
  readonly heads: Map<string, number>
  /** A commit or reset failed (it may or may not have reached the database): reload the heads first. */
  stale: boolean
  readonly counters: { commits: number; writes: number; entries: number; snapshotOps: number }
}

const failAll = (items: ReadonlyArray<Item>, error: StorageError | StoreClosed) =>
  Effect.forEach(
    items,
    (item) => item._tag === "Write" ? Deferred.fail(item.done, error) : Deferred.fail(item.done, error),
    { discard: true }
  )

/** Moves of the heads a batch makes: from `expected` (committed) to `last`. */
type Working = Map<string, { expected: number; last: number }>

/** Checks each request in queue order against the heads as moved by the ones before; fails the rejected ones. */
const acceptWrites = (state: WriterState, items: ReadonlyArray<WriteItem>) =>
  Effect.gen(function*() {
    const { heads } = state
    const working: Working = new Map()
    const headOf = (stream: string) => working.get(stream)?.last ?? heads.get(stream) ?? 0
    const accepted: Array<WriteItem> = []
    for (const item of items) {
      const rejected = checkHeads(item.write, headOf)
      if (rejected !== undefined) {
        yield* Deferred.fail(item.done, rejected)
        continue
      }
      for (const [stream, span] of item.write.spans) {
        const moved = working.get(stream)
        if (moved !== undefined) moved.last = span.last
        else working.set(stream, { expected: heads.get(stream) ?? 0, last: span.last })
      }
      accepted.push(item)
    }
    return { accepted, working }
  })

/** One transaction for the accepted requests: their rows in queue order, the heads' moves, the snapshot ops collapsed. */
const planOf = (accepted: ReadonlyArray<WriteItem>, working: Working): CommitPlan => {
  const entries: Array<EncodedEntry> = []
  const ops: Array<EncodedSnapshotOp> = []
  for (const item of accepted) {
    for (const entry of item.write.entries) entries.push(entry)
    for (const op of item.write.snapshotOps) ops.push(op)
  }
  return {
    entries,
    heads: [...working].map(([stream, moved]) => ({ stream, expected: moved.expected, last: moved.last })),
    snapshotOps: collapseSnapshotOps(ops)
  }
}

/** Commits a batch of writes (after reloading stale heads) and answers each caller. */
const flush = (state: WriterState, items: ReadonlyArray<WriteItem>) =>
  Effect.gen(function*() {
    if (items.length === 0) return
    const { backend, heads, counters } = state
    if (state.stale) {
      const reloaded = yield* Effect.exit(backend.loadHeads)
      if (Exit.isFailure(reloaded)) return yield* failAll(items, toStorageError("loadHeads", reloaded.cause))
      heads.clear()
      for (const [stream, seq] of reloaded.value) heads.set(stream, seq)
      state.stale = false
    }
    const { accepted, working } = yield* acceptWrites(state, items)
    if (accepted.length === 0) return
    const plan = planOf(accepted, working)
    const exit = yield* Effect.exit(backend.commit(plan))
    if (Exit.isSuccess(exit)) {
      for (const moved of plan.heads) heads.set(moved.stream, moved.last)
      counters.commits += 1
      counters.writes += accepted.length
      counters.entries += plan.entries.length
      counters.snapshotOps += plan.snapshotOps.length
      yield* Effect.forEach(accepted, (item) => Deferred.succeed(item.done, undefined), { discard: true })
    } else {
      // The transaction may or may not have reached the database (e.g. a lost COMMIT reply):
      // re-read the heads before trusting them again.
      state.stale = true
      yield* failAll(accepted, toStorageError("commit", exit.cause))
    }
  })

const runReset = (state: WriterState, item: ResetItem) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(state.backend.reset(item.stream))
    if (Exit.isSuccess(exit)) {
      if (item.stream === undefined) state.heads.clear()
      else state.heads.delete(item.stream)
      yield* Deferred.succeed(item.done, undefined)
    } else {
      state.stale = true
      yield* Deferred.fail(item.done, toStorageError("reset", exit.cause))
    }
  })

/** The requests taken from the queue, in order: writes between resets go in one transaction. */
const processGroup = (state: WriterState, items: ReadonlyArray<Item>) =>
  Effect.gen(function*() {
    let segment: Array<WriteItem> = []
    for (const item of items) {
      if (item._tag === "Write") {
        segment.push(item)
      } else {
        yield* flush(state, segment)
        segment = []
        yield* runReset(state, item)
      }
    }
    yield* flush(state, segment)
  })

/** Starts the writer fiber in the current scope; closing the scope lets the batch in flight finish, then fails the rest with StoreClosed. */
export const makeWriter = (
  backend: WriterBackend,
  options: WriterOptions = {}
): Effect.Effect<Writer, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const maxBatch = Math.max(1, options.maxBatch ?? 1024)
    const state: WriterState = {
      backend,
      heads: new Map(yield* backend.loadHeads),
      stale: false,
      counters: { commits: 0, writes: 0, entries: 0, snapshotOps: 0 }
    }
    let closed = false
    const queue = yield* Queue.unbounded<Item>()

    // Interruptible only while waiting for work: a batch, once taken, is always finished.
    const step = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const first = yield* restore(Queue.take(queue))
        const rest = maxBatch > 1 ? Chunk.toReadonlyArray(yield* Queue.takeUpTo(queue, maxBatch - 1)) : []
        yield* processGroup(state, [first, ...rest])
      })
    )

    const drain = Effect.flatMap(Queue.takeAll(queue), (items) => failAll(Chunk.toReadonlyArray(items), new StoreClosed()))

    const fiber = yield* Effect.forkDaemon(Effect.forever(step))
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        closed = true
        yield* Fiber.interrupt(fiber)
        yield* drain
      })
    )

    const enqueue = <E>(item: Item, done: Deferred.Deferred<void, E>): Effect.Effect<void, E | StoreClosed> =>
      Effect.gen(function*() {
        if (closed) return yield* new StoreClosed()
        yield* Queue.offer(queue, item)
        // Closed between the check and the offer: nobody will take it, fail it ourselves.
        if (closed) yield* drain
        return yield* Deferred.await(done)
      })

    const write = (prepared: PreparedWrite): Effect.Effect<void, WriteError> =>
      prepared.entries.length === 0 && prepared.snapshotOps.length === 0
        ? Effect.void
        : Effect.flatMap(
          Deferred.make<void, WriteError>(),
          (done) => enqueue({ _tag: "Write", write: prepared, done }, done)
        )

    const reset = (stream: string | undefined): Effect.Effect<void, StorageError | StoreClosed> =>
      Effect.flatMap(
        Deferred.make<void, StorageError | StoreClosed>(),
        (done) => enqueue({ _tag: "Reset", stream, done }, done)
      )

    const stats = Effect.sync((): StoreStats => ({ ...state.counters }))

    return { write, reset, stats, queued: Queue.size(queue) }
  })
