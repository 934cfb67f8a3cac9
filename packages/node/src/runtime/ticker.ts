/**
 * The ticker: delivers what falls due (mediator deadlines, automations, rounds) every
 * `tickIntervalMillis` (50 by default). In a cluster a tick first takes in what the other
 * processes journaled and sent, and a waker ticks as soon as messages for this node are committed.
 * Beside it, the archiver keeps the older history compressed, a few entries at a time.
 */
import { Effect, type Fiber, Queue, Ref, Schedule, type Scope, Stream } from "effect"
import { archiveHistoryStep } from "@sandnet/engine"
import type { ClusterMembership } from "../cluster/membership.ts"
import type { RuntimeContext } from "./context.ts"
import type { Locked } from "./lock.ts"
import type { EngineInstance } from "./service.ts"

/**
 * Entries an archiving step writes as JSON (engine history/archived-log.ts): a fraction of a
 * millisecond, so that the scheduler's slices (scheduler.ts) and the requests waiting on the event
 * loop are not held up by a whole segment's JSON. The ticks archived a segment each, in 3 to 10 ms
 * under load (`node --cpu-prof` of `sandnet bench --only load`: 59 runs of 5 ms or more in one
 * run), and a tick holds the engine too; the compression itself runs in zlib's thread pool
 * (segment-compressor.ts). The archiver does not take the engine's lock: it reads entries already
 * pushed, which never change, and a segment leaves the hot entries only when its compression ends.
 */
const ENTRIES_PER_ARCHIVE_STEP = 16

/** Archives history step by step while some is due, then waits a tick's interval. */
const startArchiver = (ctx: RuntimeContext, current: Ref.Ref<EngineInstance>): Effect.Effect<Fiber.RuntimeFiber<never>, never, Scope.Scope> => {
  const idle = Effect.sleep(`${ctx.options.tickIntervalMillis ?? 50} millis`)
  const step = Effect.flatMap(Ref.get(current), (engine) => {
    const worked = archiveHistoryStep(engine.network, ENTRIES_PER_ARCHIVE_STEP)
    const failure = ctx.spill?.takeFailure()
    const told = failure === undefined ? Effect.void : Effect.logWarning(`archived history is kept in memory from now on: its file in ${ctx.spill?.dir} could not be written`, failure)
    return Effect.zipRight(told, worked ? Effect.yieldNow() : idle)
  })
  // A defect in archiving (a broken invariant) is said loudly; the logs' own bound keeps them archiving as they grow.
  return Effect.forkScoped(Effect.forever(step).pipe(Effect.tapDefect((defect) => Effect.logError("history archiving stopped", defect))))
}

export interface TickerFibers {
  readonly ticker: Fiber.RuntimeFiber<unknown>
  readonly waker: Fiber.RuntimeFiber<never> | undefined
  readonly archiver: Fiber.RuntimeFiber<never>
}

export const startTicker = (ctx: RuntimeContext, locked: Locked, current: Ref.Ref<EngineInstance>): Effect.Effect<TickerFibers, never, Scope.Scope> =>
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
    const ticker = locked(tick).pipe(
      Effect.tap(() => Effect.sync(() => void (tickFailing = false))),
      Effect.catchAllCause((cause) =>
        tickFailing ? Effect.void : Effect.zipRight(Effect.sync(() => void (tickFailing = true)), Effect.logWarning("the engine's tick failed; retrying", cause))
      )
    )
    const fiber = yield* Effect.forkScoped(Effect.repeat(ticker, Schedule.spaced(`${ctx.options.tickIntervalMillis ?? 50} millis`)))
    const membership = ctx.options.cluster
    const waker = membership === undefined ? undefined : yield* startWaker(membership, ticker)
    const archiver = yield* startArchiver(ctx, current)
    return { ticker: fiber, waker, archiver }
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
