/**
 * The ticker: delivers what falls due (mediator deadlines, automations, rounds) every
 * `tickIntervalMillis` (50 by default). In a cluster a tick first takes in what the other
 * processes journaled and sent, and a waker ticks as soon as messages for this node are committed.
 */
import { Effect, type Fiber, Queue, Schedule, type Scope, Stream } from "effect"
import { archiveDueHistory } from "@sandnet/engine"
import type { ClusterMembership } from "../cluster/membership.ts"
import type { RuntimeContext } from "./context.ts"
import type { Locked } from "./lock.ts"
import type { EngineInstance } from "./service.ts"

/**
 * History segments a tick archives at most (engine history/archived-log.ts). A segment takes a few
 * milliseconds (its entries written as JSON, then compressed), and a tick holds the engine and the
 * event loop while it runs: with up to 4 ms of segments per tick, the reads waiting behind ticks raised
 * the load bench's reads p99 (three runs alternated: 10.2, 11.7 and 10.0 ms with 4 ms, 10.3, 8.4 and
 * 8.5 ms with one segment). Twenty ticks a second archive twenty segments, 2,560 entries: past that
 * a log's own bound archives as it grows (`deferUpTo`).
 */
const SEGMENTS_PER_TICK = 1

/** Archives the history segments due, at most `SEGMENTS_PER_TICK`. */
const archiveHistory = (engine: EngineInstance): void => {
  archiveDueHistory(engine.network, (archived) => archived < SEGMENTS_PER_TICK)
}

export interface TickerFibers {
  readonly ticker: Fiber.RuntimeFiber<unknown>
  readonly waker: Fiber.RuntimeFiber<never> | undefined
}

export const startTicker = (ctx: RuntimeContext, locked: Locked): Effect.Effect<TickerFibers, never, Scope.Scope> =>
  Effect.gen(function* () {
    // A tick never stops the ticker: while the store is down (a commit failed and the engine
    // cannot be rebuilt from the store yet) it says so once and tries again on the next tick.
    let tickFailing = false
    // In a cluster a tick first takes in what the other processes journaled and sent.
    const tick = (engine: EngineInstance): Effect.Effect<void> =>
      engine.cluster === undefined
        ? ctx.catchUp(engine)
        : Effect.zipRight(
            engine.cluster.pull(engine.queue).pipe(Effect.catchAll((error) => Effect.logWarning("the cluster transport could not be read; retrying", error instanceof Error ? error.message : String(error)))),
            ctx.catchUp(engine)
          )
    const archive = (engine: EngineInstance) =>
      Effect.suspend(() => {
        archiveHistory(engine)
        const failure = ctx.spill?.takeFailure()
        return failure === undefined ? Effect.void : Effect.logWarning(`archived history is kept in memory from now on: its file in ${ctx.spill?.dir} could not be written`, failure)
      })
    const ticker = locked((engine) => Effect.zipLeft(tick(engine), archive(engine))).pipe(
      Effect.tap(() => Effect.sync(() => void (tickFailing = false))),
      Effect.catchAllCause((cause) =>
        tickFailing ? Effect.void : Effect.zipRight(Effect.sync(() => void (tickFailing = true)), Effect.logWarning("the engine's tick failed; retrying", cause))
      )
    )
    const fiber = yield* Effect.forkScoped(Effect.repeat(ticker, Schedule.spaced(`${ctx.options.tickIntervalMillis ?? 50} millis`)))
    const membership = ctx.options.cluster
    const waker = membership === undefined ? undefined : yield* startWaker(membership, ticker)
    return { ticker: fiber, waker }
  })

/**
 * Messages for this node are taken in as soon as they are committed, not at the next tick;
 * wake-ups that come while a tick runs fold into one more tick.
 */
const startWaker = (membership: ClusterMembership, ticker: Effect.Effect<void>): Effect.Effect<Fiber.RuntimeFiber<never>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const wake = yield* Queue.sliding<void>(1)
    yield* Effect.forkScoped(
      Stream.runForEach(membership.transport.wakeups(membership.node), () => Queue.offer(wake, undefined)).pipe(
        Effect.tapError((error) => Effect.logWarning("the cluster's notifications stopped; listening again (ticks go on meanwhile)", error.message)),
        Effect.retry(Schedule.spaced("1 second")),
        Effect.ignore
      )
    )
    return yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Queue.take(wake), ticker)))
  })
