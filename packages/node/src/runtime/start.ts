/**
 * How an engine instance starts: a new network runs genesis; a stored one is replayed from its
 * journals. Either way, with storage, the engine's journal sinks are attached to the recorder.
 */
import {
  authorizeGenesisParties,
  Network,
  submitGenesis,
  type WalletCheckpoint,
  type WalletEvent
} from "@sandnet/engine"
import { walletCheckpoints, type EngineCheckpoint } from "../checkpoint/engine-checkpoint.ts"
import { Effect, Either } from "effect"
import type { ClusterLink } from "../cluster/link.ts"
import { alignIndexRows, markIndexRowsFollow } from "../indexes/rows-marker.ts"
import { attachSinks, type CaptureState } from "../journal/capture.ts"
import { JournalReplayFailed } from "../journal/errors.ts"
import { readSequencerSnapshots, type StoredJournals } from "../journal/read.ts"
import { replayJournals } from "../journal/replay.ts"
import type { SequencerSnapshot } from "../journal/runtime-state.ts"
import type { RuntimeContext } from "./context.ts"
import type { EngineBase } from "./engine-base.ts"

export interface Started {
  readonly capture: CaptureState | undefined
  /** The wallets' journals by validator (none at genesis), for the wallets built after the ledger state (after their checkpoints, with one). */
  readonly walletJournals: ReadonlyMap<string, ReadonlyArray<WalletEvent>>
  /** The wallets' checkpoints by validator, when the engine started from one. */
  readonly walletCheckpoints: ReadonlyMap<string, WalletCheckpoint>
}

/** Whether a node's actors run in this process (all of them unless the network is spread over processes). */
const hostedHere =
  (cluster: ClusterLink | undefined) =>
  (node: { readonly name: string }): boolean =>
    cluster === undefined || cluster.isLocalNode(node.name)

/** A new network: genesis is journaled like everything after it, index rows included (when the store keeps them). */
export const startFromGenesis = (ctx: RuntimeContext, base: EngineBase, cluster: ClusterLink | undefined): Effect.Effect<Started> =>
  Effect.gen(function* () {
    const { storage } = ctx
    const { network, clock, provide } = base
    let capture: CaptureState | undefined
    if (storage !== undefined) {
      capture = attachSinks(network, storage.engine, hostedHere(cluster), storage.keepsIndexes)
      if (storage.keepsIndexes) markIndexRowsFollow(storage.engine)
    }
    // In a cluster only the synchronizers' process submits genesis; the others learn it.
    if (cluster === undefined) {
      yield* Effect.orDie(provide(submitGenesis(network)))
    } else if (cluster.hostsSynchronizers) {
      yield* Effect.orDie(provide(submitGenesis(network, (node) => cluster.isLocalNode(node.name))))
    } else {
      authorizeGenesisParties(network, clock.now, (node) => cluster.isLocalNode(node.name))
    }
    yield* base.driver.runUntil(clock.now)
    return { capture, walletJournals: new Map(), walletCheckpoints: new Map() }
  })

/** A stored network: its checkpoint restored and its journals after it replayed (or the journals whole), the deadlines of commands in flight armed again. */
export const startFromJournals = (
  ctx: RuntimeContext,
  base: EngineBase,
  cluster: ClusterLink | undefined,
  journals: StoredJournals
): Effect.Effect<Started, JournalReplayFailed> =>
  Effect.gen(function* () {
    const { storage } = ctx
    const { network, clock, provide } = base
    const sequencers = storage === undefined ? new Map<string, SequencerSnapshot>() : yield* Effect.orDie(readSequencerSnapshots(storage.store, network))
    const unfit = checkpointMisfit(cluster !== undefined, journals.checkpoint)
    if (unfit !== undefined) return yield* unfit
    const replayed = replayJournals(network, journals.entries, sequencers, clock.now, journals.checkpoint, hostedHere(cluster))
    if (Either.isLeft(replayed)) return yield* replayed.left
    if (cluster !== undefined && journals.checkpoint?.followed !== undefined) yield* cluster.resumeFollowing(journals.checkpoint.followed)
    let capture: CaptureState | undefined
    // what replay restored is stored already: follow the state from here
    if (storage !== undefined) {
      capture = attachSinks(network, storage.engine, hostedHere(cluster), storage.keepsIndexes)
      capture.clock = journals.clock
      if (storage.keepsIndexes) yield* alignIndexRows(storage.store, storage.engine, network, hostedHere(cluster))
    }
    yield* provide(Effect.flatMap(Network, (net) => net.sendAll(replayed.right.timers)))
    return { capture, walletJournals: replayed.right.wallets, walletCheckpoints: walletCheckpoints(journals.checkpoint) }
  })

/**
 * A checkpoint written by the other kind of process does not fit (the runtime replays the journals
 * whole then): a cluster process's holds how far it followed the other nodes' journals, and one
 * process's does not. Nor does one whose positions are not entries.
 */
export const checkpointMisfit = (inCluster: boolean, checkpoint: EngineCheckpoint | undefined): JournalReplayFailed | undefined => {
  if (checkpoint === undefined) return undefined
  if (inCluster !== (checkpoint.followed !== undefined)) {
    return new JournalReplayFailed({
      message: inCluster ? "the engine checkpoint does not say how far the other nodes' journals were followed" : "the engine checkpoint is a cluster process's"
    })
  }
  const bad = checkpoint.followed?.find(([, next]) => !Number.isSafeInteger(next) || next < 1)
  return bad === undefined ? undefined : new JournalReplayFailed({ message: `the engine checkpoint follows ${bad[0]} from ${bad[1]}, which is not an entry` })
}
