/**
 * Time advance (`POST /v2/sandnet/time/advance`): ledger time moves forward in steps of at most
 * `ADVANCE_STEP_MICROS` of ledger time. Each step is one operation under the lock (the offset moves
 * by the step, everything due is delivered, the batch is committed), and the advance lets the
 * event loop run between steps, so other requests and the ticker are served while a long jump
 * runs. The answer comes once the target time is reached.
 *
 * All or nothing: with storage, the advance first takes a restore point (the store's engine
 * streams, as a snapshot holds them, and the clock row). When a step fails (an invariant, a
 * failed commit), the network is rebuilt from that point and the offset set back: ledger time is
 * where it was before the request. Only when other clients' writes were committed between the
 * steps (rolling back would take them back) are the committed steps kept; the failure then says
 * so, and a retry with the same `advanceId` goes on to the original target instead of moving time
 * again. A node without storage cannot roll back (it keeps the steps, as a cluster node does).
 *
 * `advanceId` (optional): the advance's record is kept (in memory, and with storage in the
 * `runtime` stream, committed with the steps' batches), so a retry after a success answers the same
 * time without moving it, and one after kept steps resumes. One advance runs at a time.
 *
 * Shutdown: once the node is shutting down, the advance stops after its current step and fails
 * with NodeShuttingDown; its committed steps are kept, with an `advanceId` its record too.
 */
import { MICROS_PER_DAY, MICROS_PER_HOUR, type Micros } from "@sandnet/core"
import { type Cause, Effect, Exit, Option, Ref } from "effect"
import { awaitCommit } from "../journal/committer.ts"
import type { JournalReplayFailed } from "../journal/errors.ts"
import type { ClockState } from "../journal/runtime-state.ts"
import { Streams } from "../journal/streams.ts"
import { exportNetwork, snapshotRows } from "../snapshots/export.ts"
import type { NetworkSnapshot } from "../snapshots/archive.ts"
import type { CommitPipeline } from "./commit.ts"
import type { RuntimeContext } from "./context.ts"
import type { Locked } from "./lock.ts"
import { AdvanceFailed, AdvanceIdReused, NodeShuttingDown, type AdvanceError, type AdvanceOptions, type AdvanceResult } from "./advance-errors.ts"
import type { EngineInstance } from "./service.ts"

/** The most ledger time one step of an advance covers: one operation under the lock. */
export const ADVANCE_STEP_MICROS: Micros = MICROS_PER_HOUR

/**
 * The last day before the target runs at the normal pace; the steps that end earlier catch up
 * (deliverStep): an advance of up to a day runs exactly as a running network would.
 */
export const ADVANCE_NORMAL_PACE_MICROS: Micros = MICROS_PER_DAY

/** What a retry finds under `advance:<id>` of the runtime stream. */
interface AdvanceRecord {
  readonly by: Micros
  readonly targetOffset: number
  /** Set once the target is reached. */
  readonly now?: Micros
}

interface RestorePoint {
  /** The ordinal of the last engine journal entry before the advance: the entries after it go. */
  readonly upTo: number
  /** The key-value rows of the snapshot areas (sequencer states, the runtime's rows) before the advance. */
  readonly rows: NetworkSnapshot["snapshots"]
  readonly offset: number
  readonly now: Micros
  readonly clock: Option.Option<unknown>
}

export interface AdvanceDeps {
  readonly ctx: RuntimeContext
  readonly locked: Locked
  readonly current: Ref.Ref<EngineInstance>
  readonly commits: CommitPipeline
  /** Rebuilds the network from a snapshot's entries and rows, its engine starting at `start`. */
  readonly replace: (entries: NetworkSnapshot["entries"], snapshots: NetworkSnapshot["snapshots"], start: Micros) => Effect.Effect<void, JournalReplayFailed>
  readonly stopping: Effect.Effect<boolean>
  /** How many client operations (`run`) have run so far: the steps are kept when others wrote in between. */
  readonly clientOperations: () => number
}

const recordKey = (advanceId: string) => `advance:${advanceId}`

/** Lets the event loop run (I/O included) before the next step. */
const yieldToEventLoop: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * How many advance records are kept in memory; the oldest goes first. With storage the stream keeps
 * them all (a retry of an older advanceId reads it there); without, a retry of one that old moves time again.
 */
export const MAX_ADVANCE_RECORDS_IN_MEMORY = 1024

/** The advances' records by advanceId: in memory (bounded), and with storage in the `runtime` stream. */
const makeRecords = (storage: RuntimeContext["storage"]) => {
  const records = new Map<string, AdvanceRecord>()
  return {
    recordOf: (advanceId: string): Effect.Effect<AdvanceRecord | undefined> =>
      Effect.gen(function* () {
        const known = records.get(advanceId)
        if (known !== undefined || storage === undefined) return known
        const stored = yield* Effect.orDie(storage.store.getSnapshot(Streams.runtime, recordKey(advanceId)))
        return Option.getOrUndefined(stored) as AdvanceRecord | undefined
      }),
    /** Under the lock: the record goes with the step's batch. */
    keep: (advanceId: string, record: AdvanceRecord): void => {
      records.delete(advanceId)
      records.set(advanceId, record)
      if (records.size > MAX_ADVANCE_RECORDS_IN_MEMORY) records.delete(records.keys().next().value!)
      storage?.engine.put(Streams.runtime, recordKey(advanceId), record)
    },
    forget: (advanceId: string): Effect.Effect<void> =>
      Effect.gen(function* () {
        records.delete(advanceId)
        if (storage !== undefined) yield* Effect.orDie(storage.store.deleteSnapshot(Streams.runtime, recordKey(advanceId)))
      })
  }
}

/** The restore point taken before an advance, and the rollback to it. */
const makeRollback = (deps: AdvanceDeps) => {
  const { ctx, current, commits } = deps
  const { storage } = ctx
  /** The store's engine streams and the clock, with nothing pending: what a rollback rebuilds. */
  const restorePoint: Effect.Effect<RestorePoint | undefined> =
    storage === undefined
      ? Effect.succeed(undefined)
      : ctx.exclusive(
          Effect.gen(function* () {
            const engine = yield* Ref.get(current)
            if (engine.cluster !== undefined) return undefined
            yield* awaitCommit(yield* commits.commitPoint(engine))
            yield* storage.committer.barrier
            if (storage.committer.failedNow()) return undefined
            // Journals are only appended to: the entries are read back at a rollback; the rows
            // (a few: sequencer states, the clock) are kept now. Index rows are rebuilt by the replay.
            const rows = yield* Effect.orDie(snapshotRows(storage.store))
            const clock = yield* Effect.orDie(storage.store.getSnapshot(Streams.runtime, "clock"))
            return { upTo: storage.engine.lastOrdinal, rows, offset: yield* Ref.get(ctx.offset), now: engine.clock.now, clock }
          })
        )
  /** The network rebuilt from the point, the offset and the stored clock set back. */
  const rollBack = (point: RestorePoint): Effect.Effect<void> =>
    Effect.gen(function* () {
      if (storage === undefined) return
      yield* Ref.set(ctx.offset, point.offset)
      const clock = point.clock
      yield* Option.isSome(clock) ? Effect.orDie(storage.store.putSnapshot(Streams.runtime, "clock", clock.value as ClockState)) : Effect.void
      const journals = yield* Effect.orDie(exportNetwork(storage.store, "", point.upTo))
      yield* Effect.orDie(deps.replace(journals.entries, point.rows, point.now))
    })
  return { restorePoint, rollBack }
}

type Outcome =
  | { readonly _tag: "Done"; readonly steps: number; readonly now: Micros }
  | { readonly _tag: "Stopped"; readonly steps: number }
  | { readonly _tag: "Failed"; readonly steps: number; readonly cause: Cause.Cause<never> }

/**
 * Delivers what falls due up to `until`. A step that ends more than a day before the target
 * catches up (the engine's NetworkPace): the DSO turns the rounds on the first tick of the step
 * only, in one transaction, and the wallets poll once per step, so such a step costs a few
 * transactions instead of a running hour's (about 36). The last day runs at the normal pace, so
 * the rounds, rewards and fees of the day before the new time are those of a running network.
 * A network spread over processes keeps the normal pace (its other processes would not know).
 */
const deliverStep = (engine: EngineInstance, until: Micros, catchingUp: boolean): Effect.Effect<void> => {
  const pace = engine.network.pace
  if (!catchingUp || engine.cluster !== undefined) return Effect.asVoid(engine.driver.runUntil(until))
  return Effect.ensuring(
    Effect.suspend(() => {
      pace.catchUpUntil = until
      return Effect.asVoid(engine.driver.runUntil(until))
    }),
    Effect.sync(() => void (pace.catchUpUntil = undefined))
  )
}

/** Steps until the target; stops early on a failed step or a shutdown. */
const makeStepper = (deps: AdvanceDeps, keep: (advanceId: string, record: AdvanceRecord) => void) => {
  const { ctx, locked } = deps
  const stepMicros = ctx.options.advanceStepMicros ?? ADVANCE_STEP_MICROS
  /** One step: the offset moves by at most a step towards the target; what falls due is delivered. */
  const step = (record: AdvanceRecord, advanceId: string | undefined, first: boolean) =>
    locked((engine) =>
      Effect.gen(function* () {
        const offset = yield* Ref.get(ctx.offset)
        const next = Math.max(offset, Math.min(record.targetOffset, offset + stepMicros))
        yield* Ref.set(ctx.offset, next)
        const done = next >= record.targetOffset
        yield* deliverStep(engine, yield* ctx.engineTime(engine), next <= record.targetOffset - ADVANCE_NORMAL_PACE_MICROS)
        if (advanceId !== undefined && (done || first)) keep(advanceId, done ? { ...record, now: engine.clock.now } : record)
        return { done, now: engine.clock.now }
      })
    )
  return (record: AdvanceRecord, advanceId: string | undefined): Effect.Effect<Outcome> =>
    Effect.gen(function* () {
      let steps = 0
      for (;;) {
        if (yield* deps.stopping) return { _tag: "Stopped" as const, steps }
        const exit = yield* Effect.exit(step(record, advanceId, steps === 0))
        steps++
        if (Exit.isFailure(exit)) return { _tag: "Failed" as const, steps, cause: exit.cause }
        if (exit.value.done) return { _tag: "Done" as const, steps, now: exit.value.now }
        yield* yieldToEventLoop
      }
    })
}

export const makeAdvance = (deps: AdvanceDeps) => {
  const { ctx, current } = deps
  const { recordOf, keep, forget } = makeRecords(ctx.storage)
  const { restorePoint, rollBack } = makeRollback(deps)
  const stepUntil = makeStepper(deps, keep)
  const one = Effect.unsafeMakeSemaphore(1)

  const advance = (by: Micros, advanceId: string | undefined): Effect.Effect<AdvanceResult, AdvanceError> =>
    Effect.gen(function* () {
      if (yield* deps.stopping) return yield* new NodeShuttingDown({ message: "the node is shutting down" })
      const known = advanceId === undefined ? undefined : yield* recordOf(advanceId)
      if (known !== undefined && known.by !== by) {
        return yield* new AdvanceIdReused({ advanceId: advanceId!, message: `advanceId ${advanceId} was used for an advance of ${known.by} microseconds, not ${by}` })
      }
      if (known?.now !== undefined) return { now: known.now, steps: 0 }
      const point = yield* restorePoint
      const writesBefore = deps.clientOperations()
      const record: AdvanceRecord = { by, targetOffset: known?.targetOffset ?? (yield* Ref.get(ctx.offset)) + by }
      const outcome = yield* stepUntil(record, advanceId)
      if (outcome._tag === "Done") return { now: outcome.now, steps: outcome.steps }
      if (outcome._tag === "Stopped") return yield* new NodeShuttingDown({ message: `the node is shutting down: the advance stopped after ${outcome.steps} steps (they are kept)` })
      const rolledBack = point !== undefined && deps.clientOperations() === writesBefore
      if (rolledBack) {
        if (advanceId !== undefined) yield* forget(advanceId)
        yield* rollBack(point)
      }
      yield* Effect.logWarning(`a step of the time advance failed (step ${outcome.steps})`, outcome.cause)
      return yield* new AdvanceFailed({
        message: rolledBack
          ? `step ${outcome.steps} of the advance failed; the advance was rolled back: ledger time is where it was before the request`
          : `step ${outcome.steps} of the advance failed; the ${outcome.steps - 1} steps before it are kept${advanceId === undefined ? "" : ` (a retry with advanceId ${advanceId} goes on to the same target)`}`,
        rolledBack,
        now: yield* ctx.engineTime(yield* Ref.get(current))
      })
    })

  return (by: Micros, options: AdvanceOptions = {}): Effect.Effect<AdvanceResult, AdvanceError> =>
    // A client that goes away does not stop the advance half-way: only a shutdown does.
    one.withPermits(1)(Effect.uninterruptible(advance(by, options.advanceId)))
}
