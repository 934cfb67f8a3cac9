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
 * How long a tick may spend archiving history (engine history/archived-log.ts): a segment takes
 * a few milliseconds, and a tick holds the engine from reads and writes while it runs.
 */
const ARCHIVE_BUDGET_MILLIS = 4

/** Archives the history segments due, within the tick's budget (at least one when any is due). */
const archiveHistory = (engine: EngineInstance): void => {
  const until = performance.now() + ARCHIVE_BUDGET_MILLIS
  archiveDueHistory(engine.network, (archived) => archived === 0 || performance.now() < until)
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
