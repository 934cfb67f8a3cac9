/**
 * Healing: after a failed commit the engine is ahead of the store; the next operation first
 * rebuilds it from what the store holds (in a cluster, waiting for genesis again if need be).
 */
import { Effect, Ref } from "effect"
import type { CommitPipeline } from "./commit.ts"
import { awaitGenesis } from "./cluster-genesis.ts"
import type { RuntimeContext } from "./context.ts"
import { createEngine, sourceOf } from "./engine.ts"
import type { EngineInstance } from "./service.ts"

/** After a failed commit the engine is ahead of the store: rebuild it from the store. */
export const makeHeal = (ctx: RuntimeContext, commits: CommitPipeline, current: Ref.Ref<EngineInstance>): Effect.Effect<void> => {
  const { storage, engineTime } = ctx
  if (storage === undefined) return Effect.void
  const rebuild = Effect.gen(function* () {
    const journals = yield* Effect.orDie(storage.reload)
    yield* commits.forgetLastCommit
    const engine = yield* Ref.get(current)
    const rebuilt = yield* Effect.orDie(createEngine(ctx, yield* engineTime(engine), sourceOf(journals)))
    if (rebuilt.engine.cluster !== undefined) {
      yield* awaitGenesis(rebuilt.engine.cluster, rebuilt.engine.network, rebuilt.engine.clock, engineTime(rebuilt.engine))
      yield* rebuilt.finish
    }
    yield* Ref.set(current, rebuilt.engine)
    yield* Effect.logWarning(`the journal write failed; the engine was rebuilt from the store (${journals.entries.length} entries)`)
  })
  // Asked before every operation: a plain check, the rebuild only after a failed commit.
  return Effect.suspend(() => (storage.committer.failedNow() ? rebuild : Effect.void))
}
