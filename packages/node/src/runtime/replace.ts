/**
 * Replacing the network (reset, restore): the store's engine streams are replaced (by nothing: a
 * fresh network with genesis; or by a snapshot's entries and rows) and the engine is rebuilt from
 * them. User management (`admin`) and the runtime's own rows stay.
 */
import type { Micros } from "@sandnet/core"
import type { CoinNetwork, CoinNetworkConfig } from "@sandnet/engine"
import type { JournalEntry } from "@sandnet/store"
import { Effect, Ref } from "effect"
import { awaitCommit } from "../journal/committer.ts"
import { JournalReplayFailed } from "../journal/errors.ts"
import { isEngineStream, Streams } from "../journal/streams.ts"
import type { NodeStorageService } from "../storage/node-storage.ts"
import type { CommitPipeline } from "./commit.ts"
import type { RuntimeContext } from "./context.ts"
import { createEngine, sourceOf } from "./engine.ts"
import type { EngineInstance } from "./service.ts"

export type SnapshotRows = ReadonlyArray<{ readonly stream: string; readonly key: string; readonly body: unknown }>

/**
 * Replaces the engine streams of the store by `entries` + `snapshots` (nothing: a fresh network) and
 * rebuilds the engine, on the engine's time (or at `at`: a failed advance goes back to its start).
 */
export const makeReplaceNetwork =
  (ctx: RuntimeContext, commits: CommitPipeline, current: Ref.Ref<EngineInstance>) =>
  (entries: ReadonlyArray<JournalEntry>, snapshots: SnapshotRows, at?: Micros): Effect.Effect<void, JournalReplayFailed> =>
    ctx.exclusive(
      Effect.gen(function* () {
        const { storage } = ctx
        const old = yield* Ref.get(current)
        if (old.cluster !== undefined) {
          return yield* new JournalReplayFailed({ message: "a node of a network spread over processes cannot replace the network on its own (reset or restore every node's schema while they are stopped)" })
        }
        const start = at ?? (yield* ctx.engineTime(old))
        if (storage === undefined) {
          if (entries.length > 0) return yield* new JournalReplayFailed({ message: "restore needs a node with storage" })
          const fresh = yield* createEngine(ctx, start, { _tag: "Genesis" })
          yield* Ref.set(current, fresh.engine)
          return
        }
        yield* storage.committer.barrier
        yield* replaceEngineStreams(storage, ctx.config, old.network, entries, snapshots)
        const journals = yield* Effect.orDie(storage.reload)
        yield* commits.forgetLastCommit
        const rebuilt = yield* createEngine(ctx, start, sourceOf(journals))
        yield* Ref.set(current, rebuilt.engine)
        yield* awaitCommit(yield* commits.commitPoint(rebuilt.engine))
      })
    )

/** Empties every engine stream of the store but `runtime` (the stored indexes included), then writes `entries` and `snapshots`. */
const replaceEngineStreams = (
  storage: NodeStorageService,
  config: CoinNetworkConfig,
  network: CoinNetwork,
  entries: ReadonlyArray<JournalEntry>,
  snapshots: SnapshotRows
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const store = storage.store
    const streams = new Set(yield* Effect.orDie(store.streams()))
    for (const s of config.synchronizers) streams.add(Streams.sequencer(s.name))
    // the stored indexes live in streams of key-value rows only
    for (const node of [...network.superValidators, ...network.validators]) {
      streams.add(Streams.acsIndex(node.name))
      streams.add(Streams.scanIndex(node.name))
    }
    streams.add(Streams.derived)
    streams.add(Streams.checkpoint)
    for (const stream of streams) if (isEngineStream(stream) && stream !== Streams.runtime) yield* Effect.orDie(store.resetStream(stream))
    if (entries.length > 0 || snapshots.length > 0) {
      for (let i = 0; i < entries.length; i += 2000) yield* Effect.orDie(store.append(entries.slice(i, i + 2000)))
      yield* Effect.orDie(store.write({ putSnapshots: snapshots.filter((s) => s.stream !== Streams.runtime) }))
    }
  })
