/**
 * `NodeStorage`: a node's durable storage as the runtime and user management use it: the
 * EventStore, what it held when the node started, the recorders that turn journal sinks into
 * entries (one for the engine, one for user management) and the committer that writes them in
 * order with group commit. `sandnet start` builds it over the EventStore layer it picked (PGlite,
 * PostgreSQL or memory); the runtime then replays the stored entries (`takeInitialEntries`) instead
 * of running genesis.
 */
import { invariant } from "@sandnet/core"
import { EventStore, type EventStoreService, type JournalEntry, type StorageError } from "@sandnet/store"
import { Context, Effect, Layer } from "effect"
import { type JournalCommitter, makeJournalCommitter } from "../journal/committer.ts"
import type { JournalReplayFailed } from "../journal/errors.ts"
import type { EngineCheckpoint } from "../checkpoint/engine-checkpoint.ts"
import { readJournals, type StoredJournals } from "../journal/read.ts"
import { JournalRecorder } from "../journal/recorder.ts"
import { Streams } from "../journal/streams.ts"

/** What the store held when the node started, but the engine's entries and checkpoint (`takeInitialEntries`, `takeInitialCheckpoint`). */
export interface InitialJournals extends Omit<StoredJournals, "entries" | "checkpoint"> {
  /** How many entries of the engine's streams the store held (0: a new network), those the checkpoint covers included. */
  readonly entryCount: number
  /** The journal ordinal the engine checkpoint the node starts from covers, when it starts from one. */
  readonly checkpointOrdinal: number | undefined
  /** The entries the node replays (after the checkpoint, with one). */
  readonly replayCount: number
}

export interface NodeStorageService {
  readonly store: EventStoreService
  /** The journals as they were when the node started: heads, configuration, clock, user management. */
  readonly initial: InitialJournals
  /**
   * The engine's stored entries, for the first engine's replay: taken once and not kept, so that
   * they live only as long as the replay needs them. Kept here, they were a restarted node's
   * largest object for its whole life: after 20,000 W1 offers on PostgreSQL its heap held 232 MiB
   * against 112 MiB without them (86 MiB on the node before the kill).
   */
  readonly takeInitialEntries: () => ReadonlyArray<JournalEntry>
  /** The engine checkpoint the first engine starts from (checkpoint/), taken once like the entries. */
  readonly takeInitialCheckpoint: () => EngineCheckpoint | undefined
  /** How the first engine started: from the checkpoint and the entries after it, or from the journals whole (the ready line says which). */
  readonly startedFrom: () => StartedFrom
  /** The first engine gave its checkpoint up (it did not fit) and replayed `replayCount` entries, the journals whole. */
  readonly checkpointGivenUp: (replayCount: number) => void
  /** Entries of the engine's streams (collected during an engine operation, drained after it). */
  readonly engine: JournalRecorder
  /** Entries of user management (`admin`). */
  readonly admin: JournalRecorder
  readonly committer: JournalCommitter
  /**
   * Whether the node writes the stored index rows (ACS, scan) and the derived indexes. They are for
   * readers of the store other than the node (a SQL query, `sandnet rebuild`, a node restored from
   * it); nothing outside the process can read a memory store, so a `--in-memory` node writes none.
   */
  readonly keepsIndexes: boolean
  /**
   * After a failed commit or a reset: waits for the commits in flight, reads the journals again
   * and points both recorders at the store's heads. Returns what the store holds.
   */
  readonly reload: Effect.Effect<StoredJournals, StorageError | JournalReplayFailed>
}

export interface StartedFrom {
  readonly checkpointOrdinal: number | undefined
  readonly replayCount: number
  /** A cluster process's checkpoint: the entries of the other nodes' journals its copies held (followed on from there). */
  readonly checkpointFollowed?: number
}

/** The entries of the other nodes' journals a cluster process's checkpoint covers (its positions are the next entries to follow). */
const followedBy = (checkpoint: EngineCheckpoint | undefined): number | undefined =>
  checkpoint?.followed?.reduce((sum, [, next]) => sum + next - 1, 0)

export class NodeStorage extends Context.Tag("@sandnet/node/NodeStorage")<NodeStorage, NodeStorageService>() {}

const withoutAdmin = (heads: ReadonlyMap<string, number>) => new Map([...heads].filter(([s]) => s !== Streams.admin))
const onlyAdmin = (heads: ReadonlyMap<string, number>) => new Map([...heads].filter(([s]) => s === Streams.admin))

export interface NodeStorageOptions {
  /** See `NodeStorageService.keepsIndexes` (default true). */
  readonly keepsIndexes?: boolean
  /** Start from the stored engine checkpoint when there is one (default true; false replays the journals whole). */
  readonly fromCheckpoint?: boolean
}

export const makeNodeStorage = (store: EventStoreService, options: NodeStorageOptions = {}) =>
  Effect.gen(function* () {
    const { entries, checkpoint, ...stored } = yield* readJournals(store, { fromCheckpoint: options.fromCheckpoint ?? true })
    const initial: InitialJournals = {
      ...stored,
      entryCount: (checkpoint?.ordinal ?? 0) + entries.length,
      checkpointOrdinal: checkpoint?.ordinal,
      replayCount: entries.length
    }
    let untaken: ReadonlyArray<JournalEntry> | undefined = entries
    const takeInitialEntries = (): ReadonlyArray<JournalEntry> => {
      const taken = untaken
      invariant(taken !== undefined, "a node's stored entries are replayed once, by its first engine")
      untaken = undefined
      return taken
    }
    const followed = followedBy(checkpoint)
    let startedFrom: StartedFrom = { checkpointOrdinal: initial.checkpointOrdinal, replayCount: initial.replayCount, ...(followed === undefined ? {} : { checkpointFollowed: followed }) }
    let untakenCheckpoint = checkpoint
    const takeInitialCheckpoint = (): EngineCheckpoint | undefined => {
      const taken = untakenCheckpoint
      untakenCheckpoint = undefined
      return taken
    }
    const engine = new JournalRecorder(withoutAdmin(initial.heads), initial.lastOrdinal)
    const admin = new JournalRecorder(onlyAdmin(initial.heads), 0)
    const committer = yield* makeJournalCommitter(store)
    const reload = Effect.gen(function* () {
      yield* committer.barrier
      const stored = yield* readJournals(store)
      engine.reload(withoutAdmin(stored.heads), stored.lastOrdinal)
      admin.reload(onlyAdmin(stored.heads), 0)
      yield* committer.healed
      return stored
    })
    const service: NodeStorageService = {
      store,
      initial,
      takeInitialEntries,
      takeInitialCheckpoint,
      startedFrom: () => startedFrom,
      checkpointGivenUp: (replayCount) => void (startedFrom = { checkpointOrdinal: undefined, replayCount }),
      engine, admin, committer, keepsIndexes: options.keepsIndexes ?? true, reload }
    return service
  })

/** NodeStorage over the EventStore in context. */
export const nodeStorageLayerWith = (options: NodeStorageOptions): Layer.Layer<NodeStorage, StorageError | JournalReplayFailed, EventStore> =>
  Layer.scoped(
    NodeStorage,
    Effect.flatMap(EventStore, (store) => makeNodeStorage(store, options))
  )

/** NodeStorage over the EventStore in context, indexes kept. */
export const nodeStorageLayer: Layer.Layer<NodeStorage, StorageError | JournalReplayFailed, EventStore> = nodeStorageLayerWith({})
