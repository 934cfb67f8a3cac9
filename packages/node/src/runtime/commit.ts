/**
 * The commit pipeline: at the end of each engine operation, under the lock, what the operation
 * changed is journaled and enqueued as one batch (the committer merges the batches queued while a
 * write is in flight), now and then with the engine checkpoint (checkpoint/record.ts); the
 * messages for other processes of a cluster go out once it is committed.
 */
import { Deferred, Effect, Ref } from "effect"
import type { ClusterOutbound } from "../cluster/outbound.ts"
import { INBOX_KEY } from "../cluster/link.ts"
import { CHECKPOINT_EVERY, CheckpointSchedule, CheckpointWriter, writesCheckpoints } from "../checkpoint/record.ts"
import { recordDerivedIndexes } from "../indexes/derived.ts"
import { collectChanges } from "../journal/capture.ts"
import type { JournalCommitFailed } from "../journal/errors.ts"
import { Streams } from "../journal/streams.ts"
import type { RuntimeContext } from "./context.ts"
import type { EngineInstance } from "./service.ts"

/** Write derived indexes every this many batches (and at shutdown). */
const DERIVED_EVERY = 256

/**
 * What a restart would replay without a newer checkpoint, in journal entries, as the checkpoint
 * schedule counts it: the node's journal ordinal and, in a process of a cluster, the other nodes'
 * entries it followed since its engine was made (a restart follows them again from its checkpoint's
 * positions; a validator's process follows far more than it journals). At an engine's start it is
 * the ordinal its checkpoint or replay left, where the schedule starts too.
 */
const progressOf = (ordinal: number, engine: EngineInstance): number => ordinal + (engine.cluster?.followedEntries ?? 0)

/** What to await for a batch's commit (nothing: no storage). */
export type Commit = Deferred.Deferred<void, JournalCommitFailed> | undefined

export interface CommitPipeline {
  /**
   * Under the lock: journals what the last operation changed and enqueues it; returns what to
   * await. An operation that changed nothing (a read) awaits the last batch instead, so that no
   * answer shows state that a crash could still take back.
   */
  readonly commitPoint: (engine: EngineInstance) => Effect.Effect<Commit>
  /** The last batch enqueued: an operation that changed nothing still waits for it (it may have read its effects). */
  readonly lastCommit: Effect.Effect<Commit>
  /** `lastCommit`, as a plain call (read-now.ts). */
  readonly lastCommitNow: () => Commit
  /** Forgets the last batch (the engine was rebuilt from what the store holds) and the checkpoints taken before. */
  readonly forgetLastCommit: Effect.Effect<void>
  /** A clean shutdown, under the lock: the engine's checkpoint now, with the recorder's next batch (when the node writes them), and no checkpoint taken before after it. */
  readonly putFinalCheckpoint: (engine: EngineInstance) => void
}

export const makeCommitPipeline = (ctx: RuntimeContext, outbound: ClusterOutbound): CommitPipeline => {
  const { storage, captures, offset } = ctx
  let lastCommit: Commit
  let batches = 0
  const checkpointEvery = ctx.options.checkpointEvery ?? CHECKPOINT_EVERY
  const schedule = new CheckpointSchedule(storage?.initial.checkpointOrdinal ?? 0, checkpointEvery, ctx.options.idleCheckpoints ?? true)
  const checkpoints = new CheckpointWriter(storage?.initial.checkpointSegments)

  const journalPoint = (engine: EngineInstance): Effect.Effect<Commit> =>
    Effect.gen(function* () {
      if (storage === undefined) return undefined
      const capture = captures.get(engine)
      if (capture === undefined) return undefined
      const inbox = engine.cluster?.takeInboxCursor()
      if (inbox !== undefined) storage.engine.put(Streams.runtime, INBOX_KEY, inbox)
      collectChanges(engine.network, storage.engine, capture, { offset: yield* Ref.get(offset), now: engine.clock.now })
      const changed = storage.engine.pending
      const progress = progressOf(storage.engine.lastOrdinal, engine)
      const busy = schedule.observe(changed, progress)
      checkpoints.putReady(storage.engine)
      if (changed && ++batches % DERIVED_EVERY === 0) recordDerivedIndexes(storage, engine.network)
      // a busy node's checkpoint covers this batch; an idle one's what earlier batches enqueued (its row goes with a later one)
      if (schedule.dueAt(progress, busy) && checkpoints.canTake && writesCheckpoints(storage, checkpointEvery)) {
        schedule.wrote(progress, checkpoints.take(storage, engine))
      }
      if (!changed) {
        // a checkpoint alone changes nothing a read could see: it is written, and reads do not wait for it
        if (storage.engine.pending) storage.committer.enqueue(storage.engine.drain())
        return lastCommit
      }
      lastCommit = storage.committer.enqueue(storage.engine.drain())
      return lastCommit
    })

  return {
    commitPoint: (engine) =>
      Effect.tap(journalPoint(engine), (done) => {
        // Messages for other processes leave once the state that sent them is stored.
        const messages = engine.cluster?.takeOutbox() ?? []
        return messages.length === 0 ? Effect.void : outbound.offer(done, messages)
      }),
    lastCommit: Effect.sync(() => lastCommit),
    lastCommitNow: () => lastCommit,
    forgetLastCommit: Effect.sync(() => {
      lastCommit = undefined
      schedule.restart(storage?.engine.lastOrdinal ?? 0)
      checkpoints.forget()
    }),
    putFinalCheckpoint: (engine) => {
      if (storage !== undefined && writesCheckpoints(storage, checkpointEvery)) checkpoints.putFinal(storage.engine, storage, engine)
      else checkpoints.stop()
    }
  }
}
