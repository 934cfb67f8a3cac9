/**
 * A clean shutdown: the ticker stops, and what the engine changed since the last batch goes to
 * the store with the derived indexes, so that `sandnet rebuild` can check them, and the engine
 * checkpoint, so that the next start replays nothing.
 */
import { Deferred, Effect, Fiber, Ref } from "effect"
import { recordDerivedIndexes } from "../indexes/derived.ts"
import { collectChanges } from "../journal/capture.ts"
import type { CommitPipeline } from "./commit.ts"
import type { RuntimeContext } from "./context.ts"
import type { EngineInstance } from "./service.ts"
import type { TickerFibers } from "./ticker.ts"

export const shutdown = (ctx: RuntimeContext, commits: CommitPipeline, current: Ref.Ref<EngineInstance>, fibers: TickerFibers): Effect.Effect<void> =>
  Effect.gen(function* () {
    const { storage, captures, offset } = ctx
    yield* Fiber.interrupt(fibers.ticker)
    yield* Fiber.interrupt(fibers.archiver)
    if (fibers.waker !== undefined) yield* Fiber.interrupt(fibers.waker)
    if (storage === undefined) return
    // Derived indexes at a clean shutdown, so that `sandnet rebuild` can check them; the checkpoint, so that the next start replays nothing.
    yield* ctx.exclusive(
      Effect.gen(function* () {
        const engine = yield* Ref.get(current)
        const capture = captures.get(engine)
        if (capture !== undefined) collectChanges(engine.network, storage.engine, capture, { offset: yield* Ref.get(offset), now: engine.clock.now })
        recordDerivedIndexes(storage, engine.network)
        commits.putFinalCheckpoint(engine)
        yield* Effect.ignore(Deferred.await(storage.committer.enqueue(storage.engine.drain())))
      })
    )
  })
