/**
 * When a node writes its engine checkpoint: with the batch of an operation once
 * `checkpointEvery` journal entries were written since the last one, and at a clean shutdown.
 * Only a node whose store others can read after it (`keepsIndexes`: not a memory store) and whose
 * network runs in this one process writes one (a process of a cluster journals only its own
 * nodes' streams; its checkpoint would hold the others' empty state).
 *
 * Why a number of entries: the checkpoint costs its live state's serialization on the event loop
 * (docs/storage.md, "Engine checkpoints", measured), and a restart replays at most this many
 * entries after it.
 */
import type { NodeStorageService } from "../storage/node-storage.ts"
import { Streams } from "../journal/streams.ts"
import type { EngineInstance } from "../runtime/service.ts"
import { engineCheckpointOf } from "./engine-checkpoint.ts"
import { CHECKPOINT_KEY, encodeCheckpoint } from "./stored.ts"

/** Journal entries between two checkpoints, unless the node's options say otherwise. */
export const CHECKPOINT_EVERY = 20_000

export const writesCheckpoints = (storage: NodeStorageService, engine: EngineInstance): boolean => storage.keepsIndexes && engine.cluster === undefined

/** Puts the engine's checkpoint with the recorder's next batch, covering what it recorded so far. */
export const recordEngineCheckpoint = (storage: NodeStorageService, engine: EngineInstance): void => {
  const checkpoint = engineCheckpointOf(engine.network, engine.wallets, storage.engine.headsNow(), storage.engine.lastOrdinal)
  storage.engine.put(Streams.checkpoint, CHECKPOINT_KEY, encodeCheckpoint(checkpoint))
}

/** Follows the entries recorded since the last checkpoint; says when the next is due. */
export class CheckpointSchedule {
  constructor(
    private lastOrdinal: number,
    private readonly every: number
  ) {}

  /** Whether a checkpoint is due at the recorder's `ordinal`; if so, it counts as written. */
  due(ordinal: number): boolean {
    if (ordinal - this.lastOrdinal < this.every) return false
    this.lastOrdinal = ordinal
    return true
  }

  /** After the engine was rebuilt from the store (a reset, a restore, a heal). */
  restart(ordinal: number): void {
    this.lastOrdinal = ordinal
  }
}
