/**
 * Creating an engine instance: its base (engine-base.ts), this process's side of the cluster, and
 * its start (genesis, or replay of the stored journals: start.ts); its wallets and automations
 * follow (finish.ts).
 */
import type { Micros } from "@sandnet/core"
import { dsoReference, holdHistoryArchiving, type DsoAutomation, type WalletApi } from "@sandnet/engine"
import { Effect, Option } from "effect"
import { ClusterLink, INBOX_KEY, type InboxCursor } from "../cluster/link.ts"
import type { CaptureState } from "../journal/capture.ts"
import type { JournalReplayFailed } from "../journal/errors.ts"
import type { StoredJournals } from "../journal/read.ts"
import { Streams } from "../journal/streams.ts"
import type { RuntimeContext } from "./context.ts"
import { buildEngineBase, type EngineBase } from "./engine-base.ts"
import { finishEngine } from "./finish.ts"
import type { EngineInstance } from "./service.ts"
import { startFromGenesis, startFromJournals } from "./start.ts"

export type EngineSource = { readonly _tag: "Genesis" } | { readonly _tag: "Replay"; readonly journals: StoredJournals }

/** Replay of `journals` when they hold anything, else genesis. */
export const sourceOf = (journals: StoredJournals | undefined): EngineSource =>
  journals !== undefined && (journals.entries.length > 0 || journals.checkpoint !== undefined) ? { _tag: "Replay", journals } : { _tag: "Genesis" }

export interface Built {
  readonly engine: EngineInstance
  readonly capture: CaptureState | undefined
  /** Starts wallets and automations (done already in one process, and in a cluster's from a checkpoint with wallets). */
  readonly finish: Effect.Effect<void>
}

export const createEngine = (ctx: RuntimeContext, start: Micros, source: EngineSource): Effect.Effect<Built, JournalReplayFailed> =>
  Effect.gen(function* () {
    const base = yield* buildEngineBase(ctx.config, start, ctx.historyLimits)
    const cluster = yield* linkCluster(ctx, base)
    // The replay and the wallets' first walk over what it rebuilt keep the history as objects; the
    // archiver takes the backlog once the node serves (ArchivedLog.hold).
    const release = holdHistoryArchiving(base.network)
    const starting = source._tag === "Genesis" ? startFromGenesis(ctx, base, cluster) : startFromJournals(ctx, base, cluster, source.journals)
    const started = yield* Effect.onError(starting, () => Effect.sync(release))
    const wallets: Array<WalletApi> = []
    const dsoAutomations: Array<DsoAutomation> = []
    const instance: EngineInstance = { ...base, wallets, dsoAutomations, cluster }
    if (started.capture !== undefined) ctx.captures.set(instance, started.capture)
    const finish = finishEngine(ctx, instance, { wallets, dsoAutomations }, started.walletJournals, started.walletCheckpoints)
    // One process, one network: genesis is done by now. In a cluster the runtime finishes the
    // engine once genesis arrived (it may need the other processes: see cluster-genesis.ts), unless
    // it started from a checkpoint holding wallets (taken after genesis): those finish here, where a
    // wallet checkpoint that does not fit is given up as the ledger's is (runtime.ts).
    const finishesNow = cluster === undefined || (started.walletCheckpoints.size > 0 && dsoReference(base.network, base.clock.now) !== undefined)
    if (finishesNow) yield* Effect.ensuring(finish, Effect.sync(release))
    else release()
    return { engine: instance, capture: started.capture, finish: finishesNow ? Effect.void : Effect.orDie(finish) }
  })

/** In a network spread over processes: this process's side of it, from the stored inbox cursor, routing the queue's messages for other processes. */
const linkCluster = (ctx: RuntimeContext, base: EngineBase): Effect.Effect<ClusterLink | undefined> =>
  Effect.gen(function* () {
    const { storage } = ctx
    const membership = ctx.options.cluster
    const inboxCursor = storage === undefined || membership === undefined ? Option.none() : yield* Effect.orDie(storage.store.getSnapshot(Streams.runtime, INBOX_KEY))
    const cluster = membership === undefined ? undefined : new ClusterLink(membership, base.network, Option.getOrUndefined(inboxCursor) as InboxCursor | undefined)
    cluster?.attach(base.queue)
    return cluster
  })
