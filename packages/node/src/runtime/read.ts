/**
 * Reads: an operation that changes nothing answers from the engine as the last operation left it,
 * without taking the lock. Readers never wait for the operations queued for the lock, only for
 * the one that is running (its state changes are not all applied until it reached its commit
 * point): a read and an operation never run at once, since an operation takes the engine to
 * itself (`exclusive`, one permit of `readers` per read in progress, all of them for an
 * operation). Readers are preferred: a read that comes while an operation waits for the reads in
 * progress to end goes first.
 *
 * What a read saw may not be committed yet (the last batch may still be on its way to the store):
 * the answer waits for that commit, and only for it. When it fails, the engine is ahead of the
 * store and what the read saw may be taken back, so the read runs again as an operation, which
 * first rebuilds the engine from what the store holds (healing.ts): no answer shows an
 * unacknowledged change.
 */
import type { Network, Topology } from "@sandnet/engine"
import { Deferred, Effect, Exit, type Ref } from "effect"
import type { CommitPipeline } from "./commit.ts"
import type { RuntimeContext } from "./context.ts"
import type { EngineInstance, NodeRuntimeService } from "./service.ts"

export const makeRead =
  (ctx: RuntimeContext, current: Ref.Ref<EngineInstance>, commits: CommitPipeline, run: NodeRuntimeService["run"]): NodeRuntimeService["read"] =>
  <A, E>(operation: (engine: EngineInstance) => Effect.Effect<A, E, Network | Topology>): Effect.Effect<A, E> =>
    Effect.gen(function* () {
      // The engine is ahead of the store until the next operation heals it.
      if (ctx.storage?.committer.failedNow() === true) return yield* run(operation)
      const [exit, seen] = yield* ctx.readers.withPermits(1)(
        Effect.gen(function* () {
          const engine = yield* current
          const exit = yield* Effect.exit(engine.provide(operation(engine)))
          return [exit, yield* commits.lastCommit] as const
        })
      )
      if (seen !== undefined && Exit.isFailure(yield* Effect.exit(Deferred.await(seen)))) return yield* run(operation)
      return yield* exit
    })
