/**
 * Reads as plain functions (the HTTP node's read routes): no fiber, no Effect per read. The same
 * rules as `read` (read.ts), kept with plain state instead of semaphores:
 *
 * - a read runs on the engine as the last operation left it, never while an operation holds the
 *   engine: one that comes while an operation runs (it may have yielded to the event loop half way)
 *   waits for it to end, then runs before the next operation takes the engine;
 * - its answer goes out once what it saw is committed (the last batch enqueued, if any);
 * - when the node cannot answer this way (it is shutting down, a commit failed and the engine must
 *   be healed first, the read threw, what it saw failed to commit) nothing is answered and
 *   `otherwise` is called: the caller takes the Effect path (`read`), which answers those cases.
 */
import type { Deferred } from "effect"
import type { JournalCommitter } from "../journal/committer.ts"
import type { JournalCommitFailed } from "../journal/errors.ts"
import type { EngineInstance, ReadNow } from "./service.ts"

/** What to await for a batch's commit (commit.ts `Commit`). */
type Commit = Deferred.Deferred<void, JournalCommitFailed> | undefined

export interface ReadGate {
  /** An operation takes the engine to itself (context.ts `exclusive`). */
  readonly enter: () => void
  /** It gave the engine back, as it left it: the reads that waited run now. */
  readonly leave: (engine: EngineInstance | undefined) => void
  /** The node is shutting down: reads take the Effect path (which answers 503). */
  readonly stop: () => void
  /** What commits tell: set once the runtime has its commit pipeline (with storage). */
  readonly follow: (commits: { readonly lastCommit: () => Commit; readonly committer: JournalCommitter | undefined }) => void
  readonly readNow: ReadNow
}

type Waiting = () => void

/** Reads waiting for an operation to end; more take the Effect path (which queues them itself). */
export const MAX_WAITING_READS = 4096

export const makeReadGate = (): ReadGate => {
  let engine: EngineInstance | undefined
  let held = false
  let stopped = false
  let lastCommit: () => Commit = () => undefined
  let committer: JournalCommitter | undefined
  let waiting: Array<Waiting> = []

  const attempt = <A>(read: (engine: EngineInstance) => A, answer: (value: A) => void, otherwise: () => void): void => {
    if (stopped || engine === undefined || committer?.failedNow() === true) return otherwise()
    let value: A
    try {
      value = read(engine)
    } catch {
      return otherwise()
    }
    const seen = lastCommit()
    if (seen === undefined || committer === undefined) return answer(value)
    committer.whenSettled(seen, (committed) => (committed ? answer(value) : otherwise()))
  }

  return {
    enter: () => {
      held = true
    },
    leave: (left) => {
      held = false
      engine = left
      if (waiting.length === 0) return
      const ready = waiting
      waiting = []
      for (const run of ready) {
        try {
          run()
        } catch {
          // an answer that failed to go out is the caller's; the other reads still run
        }
      }
    },
    stop: () => {
      stopped = true
    },
    follow: (commits) => {
      lastCommit = commits.lastCommit
      committer = commits.committer
    },
    readNow: (read, answer, otherwise) => {
      if (!held) return attempt(read, answer, otherwise)
      if (waiting.length >= MAX_WAITING_READS) return otherwise()
      waiting.push(() => attempt(read, answer, otherwise))
    }
  }
}
