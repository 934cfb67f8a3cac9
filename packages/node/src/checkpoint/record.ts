/**
 * When a node writes its engine checkpoint: with the batch of an operation once enough journal was
 * written since the last one (`CheckpointSchedule`), and at a clean shutdown. Only a node whose
 * store others can read after it (`keepsIndexes`: not a memory store) and whose network runs in
 * this one process writes one (a process of a cluster journals only its own nodes' streams; its
 * checkpoint would hold the others' empty state).
 */
import type { NodeStorageService } from "../storage/node-storage.ts"
import { Streams } from "../journal/streams.ts"
import type { EngineInstance } from "../runtime/service.ts"
import { engineCheckpointOf } from "./engine-checkpoint.ts"
import { CHECKPOINT_KEY, encodeCheckpoint } from "./stored.ts"

/** Journal entries between two checkpoints at least, unless the node's options say otherwise. */
export const CHECKPOINT_EVERY = 20_000

/**
 * The journal's bytes per entry, on average (a W1 offer's 8 entries are 6.8 KB: docs/benchmarks.md,
 * 2026-11-29 night): what `CheckpointSchedule` counts the journal written since a checkpoint in.
 */
export const JOURNAL_ENTRY_BYTES = 870

/** Whether the node writes checkpoints at all: a store that outlives it, one process, and `checkpointEvery` not 0. */
export const writesCheckpoints = (storage: NodeStorageService, engine: EngineInstance, every: number): boolean => every > 0 && storage.keepsIndexes && engine.cluster === undefined

/** Puts the engine's checkpoint with the recorder's next batch, covering what it recorded so far; its serialized size. */
export const recordEngineCheckpoint = (storage: NodeStorageService, engine: EngineInstance): number => {
  const { stored, serializedBytes } = encodeCheckpoint(engineCheckpointOf(engine.network, engine.wallets, storage.engine.headsNow(), storage.engine.lastOrdinal))
  storage.engine.put(Streams.checkpoint, CHECKPOINT_KEY, stored)
  return serializedBytes
}

/**
 * When the next checkpoint is due: once `every` entries were written since the last one, and at
 * least as many bytes of journal as the last checkpoint's serialization took. A checkpoint costs
 * the event loop its live state's serialization and compression (46 to 50 ms for the 6.9 MB of a
 * node with 2,000 open offers, 0.9 s for 62 MB at 20,000: docs/benchmarks.md, 2026-11-30
 * afternoon); tied to the journal written since, that cost stays a bounded share of
 * what writing the journal costs, however large the live state grows, and a restart replays at
 * most that much journal after the checkpoint.
 */
export class CheckpointSchedule {
  private lastBytes = 0

  constructor(
    private lastOrdinal: number,
    private readonly every: number
  ) {}

  /** Whether a checkpoint is due at the recorder's `ordinal`. */
  due(ordinal: number): boolean {
    return ordinal - this.lastOrdinal >= Math.max(this.every, Math.ceil(this.lastBytes / JOURNAL_ENTRY_BYTES))
  }

  /** A checkpoint was written at `ordinal`. */
  wrote(ordinal: number, serializedBytes: number): void {
    this.lastOrdinal = ordinal
    this.lastBytes = serializedBytes
  }

  /** After the engine was rebuilt from the store (a reset, a restore, a heal). */
  restart(ordinal: number): void {
    this.lastOrdinal = ordinal
    this.lastBytes = 0
  }
}
