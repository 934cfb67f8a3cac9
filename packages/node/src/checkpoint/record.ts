/**
 * When a node writes its engine checkpoint: with the batch of an operation once enough journal was
 * written since the last one (`CheckpointSchedule`), and at a clean shutdown. Only a node whose
 * store others can read after it (`keepsIndexes`: not a memory store) writes one. A process of a
 * cluster writes its own: its nodes' state, its copies of the others' and how far it had followed
 * their journals (engine-checkpoint.ts).
 */
import { invariant } from "@sandnet/core"
import type { NodeStorageService } from "../storage/node-storage.ts"
import { Streams } from "../journal/streams.ts"
import type { EngineInstance } from "../runtime/service.ts"
import { engineCheckpointOf } from "./engine-checkpoint.ts"
import type { JournalRecorder } from "../journal/recorder.ts"
import { segmentRowKey, storedSegment } from "./segments.ts"
import { CHECKPOINT_KEY, compressCheckpoint, compressCheckpointNow, serializeCheckpoint, type SerializedCheckpoint, type StoredCheckpoint } from "./stored.ts"

/** Journal entries between two checkpoints at least, unless the node's options say otherwise. */
export const CHECKPOINT_EVERY = 20_000

/**
 * The journal's bytes per entry, on average (a W1 offer's 8 entries are 6.8 KB: docs/benchmarks.md,
 * 2026-11-29 night): what `CheckpointSchedule` counts the journal written since a checkpoint in.
 */
export const JOURNAL_ENTRY_BYTES = 870

/** Whether the node writes checkpoints at all: a store that outlives it, and `checkpointEvery` not 0. */
export const writesCheckpoints = (storage: NodeStorageService, every: number): boolean => every > 0 && storage.keepsIndexes

const checkpointNow = (storage: NodeStorageService, engine: EngineInstance) =>
  engineCheckpointOf(engine.network, engine.wallets, storage.engine.headsNow(), storage.engine.lastOrdinal, engine.cluster?.followedPositions())

/**
 * Checkpoints compressing at once, at most: each holds its serialization (55 MB at 20,000 open
 * offers, the segments left out) until its compression ends. One due meanwhile waits for it (the
 * schedule asks again at the next batch).
 */
export const MAX_CHECKPOINTS_COMPRESSING = 1

/** A checkpoint compressed and not put yet, with the bytes of its segments that were not stored when it was taken. */
interface ReadyCheckpoint {
  readonly body: StoredCheckpoint
  readonly fresh: ReadonlyMap<string, Buffer>
}

/**
 * A running node's checkpoints: taken between two operations (the live state serialized, covering
 * what the recorder recorded so far), compressed in zlib's thread pool meanwhile, and put with the
 * first batch drained after that (the ticker's at the latest). The entries it covers were enqueued
 * before it, so it is committed after them (the committer writes batches in order and fails all
 * that follow a failed one). One taken before the engine was rebuilt from the store (a reset, a
 * restore, a heal) is dropped; one compresses at a time.
 *
 * A checkpoint's segments are rows of their own (segments.ts): the writer knows which the store
 * holds, puts those a checkpoint adds with it, and deletes, in the same batch, those that no
 * longer any checkpoint names.
 */
export class CheckpointWriter {
  /** Bumped whenever the engine is rebuilt from the store: a compression of an older one is dropped. */
  private generation = 0
  private ready: ReadyCheckpoint | undefined
  private putOrdinal = -1
  private stopped = false
  private compressing = 0
  /** The hashes of the segment rows the store holds, once the batches enqueued are committed. */
  private stored: ReadonlySet<string>

  constructor(storedSegments: ReadonlySet<string> = new Set(), private readonly compress: typeof compressCheckpoint = compressCheckpoint) {
    this.stored = storedSegments
  }

  /** Takes the checkpoint now and starts its compression; its serialized size. */
  take(storage: NodeStorageService, engine: EngineInstance): number {
    return this.start(serializeCheckpoint(checkpointNow(storage, engine), this.stored))
  }

  /** Whether another checkpoint may be taken now (`MAX_CHECKPOINTS_COMPRESSING`). */
  get canTake(): boolean {
    return this.compressing < MAX_CHECKPOINTS_COMPRESSING
  }

  /** Starts the compression of a checkpoint taken; its serialized size. */
  start(taken: SerializedCheckpoint): number {
    invariant(this.canTake, "a checkpoint taken while another one compresses")
    const generation = this.generation
    this.compressing += 1
    this.compress(taken, (stored) => {
      this.compressing -= 1
      if (stored === undefined || generation !== this.generation || this.stopped) return
      if (this.ready === undefined || this.ready.body.ordinal < stored.ordinal) this.ready = { body: stored, fresh: taken.fresh }
    })
    return taken.serialized.length
  }

  /** Under the lock, before a batch is drained: puts the checkpoint compressed since the last batch, if any. */
  putReady(recorder: CheckpointRecorder): void {
    const ready = this.ready
    if (ready === undefined) return
    this.ready = undefined
    if (ready.body.ordinal <= this.putOrdinal) return
    this.put(recorder, ready)
  }

  /**
   * A clean shutdown: puts the engine's checkpoint now, compressed in the call, with the recorder's
   * next batch (covering what it recorded so far), and nothing taken before after it.
   */
  putFinal(recorder: CheckpointRecorder, storage: NodeStorageService, engine: EngineInstance): void {
    this.stop()
    const taken = serializeCheckpoint(checkpointNow(storage, engine), this.stored)
    this.put(recorder, { body: compressCheckpointNow(taken), fresh: taken.fresh })
  }

  /** The engine was rebuilt from the store: what was taken before is dropped, and what the store holds is not known. */
  forget(): void {
    this.generation += 1
    this.ready = undefined
    this.putOrdinal = -1
    // a reset emptied the checkpoint stream; a heal may have lost a batch's segment rows (a segment
    // row left behind is deleted by the next start's first checkpoint)
    this.stored = new Set()
  }

  /** A clean shutdown: nothing taken before is put. */
  stop(): void {
    this.generation += 1
    this.ready = undefined
    this.stopped = true
  }

  private put(recorder: CheckpointRecorder, { body, fresh }: ReadyCheckpoint): void {
    const named = new Set(body.segments)
    for (const hash of named) {
      if (this.stored.has(hash)) continue
      const bytes = fresh.get(hash)
      invariant(bytes !== undefined, () => `the checkpoint of entry ${body.ordinal} names a segment neither stored nor taken with it (${hash})`)
      recorder.put(Streams.checkpoint, segmentRowKey(hash), storedSegment(bytes))
    }
    for (const hash of this.stored) if (!named.has(hash)) recorder.delete(Streams.checkpoint, segmentRowKey(hash))
    this.stored = named
    recorder.put(Streams.checkpoint, CHECKPOINT_KEY, body)
    this.putOrdinal = body.ordinal
  }
}

/** What the writer puts its rows with (the engine's journal recorder). */
export type CheckpointRecorder = Pick<JournalRecorder, "put" | "delete">

/**
 * Commit points in a row that changed nothing before an idle node writes a checkpoint: 2 s at the
 * default tick (50 ms), as no client operation and no tick changed anything meanwhile.
 */
export const IDLE_COMMIT_POINTS = 40

/**
 * The share of the busy rule's journal that an idle checkpoint needs written since the last one:
 * checkpoint bytes at most this many times the journal's bytes, paid once an idle period.
 */
export const IDLE_SHARE = 8

/**
 * When the next checkpoint is due: once `every` entries were written since the last one, and at
 * least as many bytes of journal as the last checkpoint's serialization took. A checkpoint costs
 * the event loop its live state's serialization (25 to 35 ms for the 6.9 MB of a node with 2,000
 * open offers on a slow VM; 0.18 to 0.21 s for 55 MB at 20,000 on a fast one, the history's
 * segments left out; the compression, about as long, runs in zlib's pool: docs/benchmarks.md,
 * 2026-11-30 late afternoon and evening), and the store the compressed row; tied
 * to the journal written since, that cost stays a bounded share of what writing the journal
 * costs, however large the live state grows, and a restart replays at most that much journal
 * after the checkpoint.
 *
 * A node that went idle (`IDLE_COMMIT_POINTS` commit points in a row without a change) writes one
 * sooner, once an `IDLE_SHARE`th of that journal was written: a node of integration tests sits idle
 * most of its life, and nobody waits on it then, so a kill -9 of an idle node replays almost
 * nothing. Under load its commit points change something and the busy rule alone applies. A
 * process of a cluster that follows the other nodes' journals is under load too while they grow,
 * though it journals nothing of them: a commit point where its progress moved (commit.ts) is busy.
 */
export class CheckpointSchedule {
  private lastBytes = 0
  /** Commit points in a row that changed nothing, at most `IDLE_COMMIT_POINTS`. */
  private quiet = 0
  /** The progress seen at the last commit point (none since a start or a rebuild). */
  private lastProgress: number | undefined = undefined

  constructor(
    private lastOrdinal: number,
    private readonly every: number,
    private readonly whenIdle = true
  ) {}

  /** Journal entries between two checkpoints while the node is busy. */
  private get busyEntries(): number {
    return Math.max(this.every, Math.ceil(this.lastBytes / JOURNAL_ENTRY_BYTES))
  }

  /** Whether a checkpoint is due at the recorder's `ordinal`. */
  due(ordinal: number): boolean {
    return ordinal - this.lastOrdinal >= this.busyEntries
  }

  /**
   * A commit point: whether it changed anything here, and the progress then (journal and followed
   * entries). It is busy when it changed something or the progress moved; whether it was (quiet
   * ones counted up to `IDLE_COMMIT_POINTS`, all that matters).
   */
  observe(changed: boolean, progress: number): boolean {
    const busy = changed || (this.lastProgress !== undefined && progress !== this.lastProgress)
    this.lastProgress = progress
    this.quiet = busy ? 0 : Math.min(this.quiet + 1, IDLE_COMMIT_POINTS)
    return busy
  }

  /** Whether the node is idle and enough was written since the last checkpoint for one now. */
  dueIdle(ordinal: number): boolean {
    return this.whenIdle && this.quiet >= IDLE_COMMIT_POINTS && ordinal - this.lastOrdinal >= Math.ceil(this.busyEntries / IDLE_SHARE)
  }

  /** Whether a checkpoint is due at a commit point: by the busy rule where it was `busy`, else by the idle one. */
  dueAt(ordinal: number, busy: boolean): boolean {
    return busy ? this.due(ordinal) : this.dueIdle(ordinal)
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
    this.lastProgress = undefined
  }
}
