/**
 * `makeNodeRuntime`: the NodeRuntime service (service.ts) put together from its parts: the first
 * engine (engine.ts), the commit pipeline (commit.ts), the lock and healing (lock.ts, healing.ts),
 * reads without the lock (read.ts), the ticker (ticker.ts), a cluster's genesis
 * (cluster-genesis.ts), replacing the network (replace.ts) and the shutdown (shutdown.ts).
 */
import { Effect, Option, Ref, type Scope } from "effect"
import { makeClusterOutbound } from "../cluster/outbound.ts"
import { makeAdvance } from "./advance.ts"
import { awaitCommit } from "../journal/committer.ts"
import type { JournalReplayFailed } from "../journal/errors.ts"
import { Streams } from "../journal/streams.ts"
import { awaitClusterGenesis } from "./cluster-genesis.ts"
import { makeCommitPipeline } from "./commit.ts"
import { makeRuntimeContext, type RuntimeContext } from "./context.ts"
import { createEngine, sourceOf, type Built } from "./engine.ts"
import { makeHeal } from "./healing.ts"
import { makeLocked, makeRun } from "./lock.ts"
import { makeRead } from "./read.ts"
import { makeReplaceNetwork } from "./replace.ts"
import type { NodeRuntimeOptions, NodeRuntimeService } from "./service.ts"
import { shutdown } from "./shutdown.ts"
import { startTicker } from "./ticker.ts"

/**
 * The first engine: from what the store held at start (its checkpoint and the entries after it).
 * A checkpoint that does not fit the network (a defect in what a node wrote) is given up: the
 * journals, read again and replayed whole, are the record.
 */
const createFirstEngine = (ctx: RuntimeContext): Effect.Effect<Built & { readonly genesis: boolean }, JournalReplayFailed> =>
  Effect.gen(function* () {
    const { storage, engineTime } = ctx
    const checkpoint = storage?.takeInitialCheckpoint()
    const source = sourceOf(storage === undefined ? undefined : { ...storage.initial, entries: storage.takeInitialEntries(), ...(checkpoint === undefined ? {} : { checkpoint }) })
    const built = yield* createEngine(ctx, yield* engineTime(undefined), source).pipe(
      Effect.catchTag("JournalReplayFailed", (failed) =>
        checkpoint === undefined || storage === undefined
          ? Effect.fail(failed)
          : Effect.gen(function* () {
              yield* Effect.logWarning(`${failed.message}: the journals are replayed whole`)
              const journals = yield* Effect.orDie(storage.reload)
              storage.checkpointGivenUp(journals.entries.length)
              return yield* createEngine(ctx, yield* engineTime(undefined), sourceOf(journals))
            })
      )
    )
    return { ...built, genesis: source._tag === "Genesis" }
  })

export const makeNodeRuntime = (options: NodeRuntimeOptions = {}): Effect.Effect<NodeRuntimeService, JournalReplayFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const ctx = yield* makeRuntimeContext(options)
    const { storage, exclusive, engineTime } = ctx
    const commits = makeCommitPipeline(ctx, yield* makeClusterOutbound(options.cluster))
    const first = yield* createFirstEngine(ctx)
    const current = yield* Ref.make(first.engine)
    ctx.followEngine(current)
    ctx.gate.follow({ lastCommit: commits.lastCommitNow, committer: storage?.committer })
    if (storage !== undefined && first.genesis) storage.engine.put(Streams.runtime, "config", ctx.config)
    yield* awaitCommit(yield* exclusive(commits.commitPoint(first.engine)))

    const locked = makeLocked(exclusive, makeHeal(ctx, commits, current), current, commits)
    // Client operations (runs, resets, restores) are counted: a failed advance is rolled back only when none ran meanwhile.
    let clientOperations = 0
    const counted = <A, E>(operation: Effect.Effect<A, E>): Effect.Effect<A, E> => Effect.ensuring(operation, Effect.sync(() => void clientOperations++))
    const lockedRun = makeRun(locked, ctx.catchUp)
    const run: NodeRuntimeService["run"] = (operation) => counted(lockedRun(operation))
    const fibers = yield* startTicker(ctx, locked, current)
    if (first.engine.cluster !== undefined) yield* awaitClusterGenesis(first.engine.cluster, locked, run, first.finish)
    const stopping = yield* Ref.make(false)
    const beginShutdown = Effect.zipRight(Ref.set(stopping, true), Effect.sync(ctx.gate.stop))
    yield* Effect.addFinalizer(() => Effect.zipRight(beginShutdown, shutdown(ctx, commits, current, fibers)).pipe(Effect.ensuring(Effect.sync(() => ctx.spill?.close()))))
    const replaceNetwork = makeReplaceNetwork(ctx, commits, current)
    const advanceTime = makeAdvance({
      ctx,
      locked,
      current,
      commits,
      replace: replaceNetwork,
      stopping: Ref.get(stopping),
      clientOperations: () => clientOperations
    })

    return {
      engine: Ref.get(current),
      run,
      read: makeRead(ctx, current, commits, run),
      readNow: ctx.gate.readNow,
      now: Effect.flatMap(Ref.get(current), engineTime),
      advanceTime,
      beginShutdown,
      shuttingDown: Ref.get(stopping),
      reset: counted(Effect.orDie(replaceNetwork([], []))),
      storage: Option.fromNullable(storage),
      restore: (entries, snapshots) => counted(replaceNetwork(entries, snapshots)),
      committed: Effect.flatMap(exclusive(commits.lastCommit), awaitCommit),
      flush:
        storage === undefined
          ? Effect.succeed(0)
          : exclusive(
              Effect.gen(function* () {
                const engine = yield* Ref.get(current)
                yield* awaitCommit(yield* commits.commitPoint(engine))
                yield* storage.committer.barrier
                return storage.engine.lastOrdinal
              })
            )
    }
  })
