/**
 * The lock: every engine operation (an HTTP command, a tick) runs alone and runs to completion,
 * on the current engine (healed first when a commit failed), and reaches its commit point before
 * the lock is released; its caller then awaits the commit (batches of concurrent requests go into
 * one commit). Reads (read.ts) do not take the lock; they only wait while an operation runs.
 */
import { Effect, Ref } from "effect"
import type { Network, Topology } from "@sandnet/engine"
import { awaitCommit } from "../journal/committer.ts"
import type { CommitPipeline } from "./commit.ts"
import type { RuntimeContext } from "./context.ts"
import type { EngineInstance } from "./service.ts"

export type Locked = <A, E>(body: (engine: EngineInstance) => Effect.Effect<A, E>) => Effect.Effect<A, E>

export const makeLocked =
  (exclusive: RuntimeContext["exclusive"], heal: Effect.Effect<void>, current: Ref.Ref<EngineInstance>, commits: CommitPipeline): Locked =>
  <A, E>(body: (engine: EngineInstance) => Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.flatMap(
      exclusive(
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            yield* heal
            const engine = yield* Ref.get(current)
            const exit = yield* Effect.exit(restore(body(engine)))
            const done = yield* commits.commitPoint(yield* Ref.get(current))
            return [exit, done] as const
          })
        )
      ),
      ([exit, done]) => Effect.zipRight(awaitCommit(done), exit)
    )

/**
 * Runs an engine operation alone, on the engine's clock and services, with everything that is
 * due delivered before it and everything it set in motion delivered after it (whether it
 * succeeded or not).
 */
export const makeRun =
  (locked: Locked, catchUp: (engine: EngineInstance) => Effect.Effect<void>) =>
  <A, E>(operation: (engine: EngineInstance) => Effect.Effect<A, E, Network | Topology>): Effect.Effect<A, E> =>
    locked((engine) =>
      // The catch-ups run outside the engine's provide: the engine's time reads the fiber's clock,
      // which must be the process's, not the engine's own (test runtime-live-time).
      Effect.gen(function* () {
        yield* catchUp(engine)
        const exit = yield* Effect.exit(engine.provide(operation(engine)))
        // Deliver what the operation set in motion, whether it succeeded or not.
        yield* catchUp(engine)
        return yield* exit
      })
    )
