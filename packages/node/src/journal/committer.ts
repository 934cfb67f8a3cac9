/**
 * The committer: one write in flight, batches merged in order (group commit at the node level),
 * and how a caller awaits its batch's commit.
 */
import type { EventStoreService, JournalEntry, SnapshotEntry, SnapshotRef, WriteBatch } from "@sandnet/store"
import { Cause, Chunk, Deferred, Effect, Exit, Fiber, FiberId, Queue, type Scope } from "effect"
import { JournalCommitFailed } from "./errors.ts"
import { ENGINE_OPERATION_PRIORITY } from "../runtime/scheduler.ts"

type CommitItem = { readonly batch: WriteBatch | undefined; readonly done: Deferred.Deferred<void, JournalCommitFailed> }

export interface JournalCommitter {
  /**
   * Puts a batch behind everything enqueued before (synchronously: call it while holding the lock
   * that orders the batches) and returns what to await for its commit.
   */
  readonly enqueue: (batch: WriteBatch | undefined) => Deferred.Deferred<void, JournalCommitFailed>
  /** Completes when everything enqueued so far is committed (or failed). */
  readonly barrier: Effect.Effect<void>
  /** Whether a commit failed since the last `healed` (the engine is then ahead of the store). */
  readonly failed: Effect.Effect<boolean>
  readonly healed: Effect.Effect<void>
  /** `failed`, as a plain call (read-now.ts). */
  readonly failedNow: () => boolean
  /**
   * Calls `settled` once the batch of `done` is committed (true) or failed (false), at once when it
   * is settled already: how a read without a fiber waits for a commit (read-now.ts).
   */
  readonly whenSettled: (done: Deferred.Deferred<void, JournalCommitFailed>, settled: (committed: boolean) => void) => void
}

/**
 * One write of several batches, in order. A write applies its puts before its deletes, so a key
 * that a later batch puts again after an earlier one deleted it must not be deleted: the last
 * operation on each key wins.
 */
export const mergeBatches = (batches: ReadonlyArray<WriteBatch>): WriteBatch => {
  if (batches.length === 1) return batches[0]!
  const entries: Array<JournalEntry> = []
  const last = new Map<string, { readonly put: SnapshotEntry } | { readonly delete: SnapshotRef }>()
  for (const b of batches) {
    for (const e of b.entries ?? []) entries.push(e)
    // within one batch a key is either put or deleted (the recorder keeps the last)
    for (const d of b.deleteSnapshots ?? []) last.set(`${d.stream}\u0000${d.key}`, { delete: d })
    for (const p of b.putSnapshots ?? []) last.set(`${p.stream}\u0000${p.key}`, { put: p })
  }
  const putSnapshots: Array<SnapshotEntry> = []
  const deleteSnapshots: Array<SnapshotRef> = []
  for (const op of last.values()) {
    if ("put" in op) putSnapshots.push(op.put)
    else deleteSnapshots.push(op.delete)
  }
  return { entries, putSnapshots, deleteSnapshots }
}

type Done = Deferred.Deferred<void, JournalCommitFailed>

/** What plain callers wait for (`whenSettled`): each batch's outcome, and who waits for it. */
const makeSettlements = () => {
  const outcomes = new WeakMap<Done, boolean>()
  const waiters = new WeakMap<Done, Array<(committed: boolean) => void>>()
  const settle = (items: ReadonlyArray<CommitItem>, committed: boolean) =>
    Effect.sync(() => {
      for (const item of items) {
        outcomes.set(item.done, committed)
        const waiting = waiters.get(item.done)
        if (waiting === undefined) continue
        waiters.delete(item.done)
        for (const settled of waiting) {
          try {
            settled(committed)
          } catch {
            // a waiter's failure is its own: the committer goes on
          }
        }
      }
    })
  const whenSettled = (done: Done, settled: (committed: boolean) => void): void => {
    const outcome = outcomes.get(done)
    if (outcome !== undefined) return settled(outcome)
    const waiting = waiters.get(done)
    if (waiting === undefined) waiters.set(done, [settled])
    else waiting.push(settled)
  }
  return { settle, whenSettled }
}

/**
 * Starts the committer fiber: takes every batch queued while the previous commit was in flight
 * and commits them as one atomic write, then answers each caller. A failed write fails all its
 * callers and everything queued behind them until `healed` (their changes depend on it).
 */
export const makeJournalCommitter = (store: EventStoreService): Effect.Effect<JournalCommitter, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<CommitItem>()
    let failedSince = false
    let failure = ""
    const { settle, whenSettled } = makeSettlements()
    // Interruptible only while waiting for work: a batch, once taken, is always finished.
    const step = Effect.uninterruptibleMask((restore) => Effect.gen(function* () {
      const first = yield* restore(Queue.take(queue))
      const items = [first, ...Chunk.toReadonlyArray(yield* Queue.takeAll(queue))]
      const batches = items.flatMap((item) => (item.batch === undefined ? [] : [item.batch]))
      if (failedSince) {
        const error = new JournalCommitFailed({ message: `an earlier commit failed: ${failure}` })
        for (const item of items) yield* Deferred.fail(item.done, error)
        return yield* settle(items, false)
      }
      const exit = batches.length === 0 ? Exit.void : yield* Effect.exit(store.write(mergeBatches(batches)))
      if (Exit.isSuccess(exit)) {
        for (const item of items) yield* Deferred.succeed(item.done, undefined)
        yield* settle(items, true)
      } else {
        failedSince = true
        const error = Cause.squash(exit.cause)
        failure = error instanceof Error ? error.message : String(error)
        const failed = new JournalCommitFailed({ message: `the journal write failed: ${failure}` })
        for (const item of items) yield* Deferred.fail(item.done, failed)
        yield* settle(items, false)
      }
    }))
    const fiber = yield* Effect.forkDaemon(Effect.withSchedulingPriority(Effect.forever(step), ENGINE_OPERATION_PRIORITY))
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        // Let what is queued be written, then stop.
        const done = yield* Deferred.make<void, JournalCommitFailed>()
        yield* Queue.offer(queue, { batch: undefined, done })
        yield* Effect.ignore(Deferred.await(done).pipe(Effect.timeout("10 seconds")))
        yield* Fiber.interrupt(fiber)
      })
    )
    const enqueue = (batch: WriteBatch | undefined) => {
      const done = Deferred.unsafeMake<void, JournalCommitFailed>(FiberId.none)
      Queue.unsafeOffer(queue, { batch, done })
      return done
    }
    return {
      enqueue,
      barrier: Effect.suspend(() => Effect.ignore(Deferred.await(enqueue(undefined)))),
      failed: Effect.sync(() => failedSince),
      healed: Effect.sync(() => {
        failedSince = false
        failure = ""
      }),
      failedNow: () => failedSince,
      whenSettled
    }
  })

/** Waits for a commit; a failed one fails the caller as a defect (the request answers 500). */
export const awaitCommit = (done: Deferred.Deferred<void, JournalCommitFailed> | undefined): Effect.Effect<void> =>
  done === undefined ? Effect.void : Effect.orDie(Deferred.await(done))
