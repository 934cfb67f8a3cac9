/**
 * The recorder: turns journal sink calls (the engine's, user management's) into journal entries
 * and key-value rows, in order, ready to be written as one batch.
 */
import type { JournalEntry, SnapshotEntry, SnapshotRef, WriteBatch } from "@sandnet/store"
import type { JournalBody } from "./streams.ts"

/**
 * Collects what an engine (and user management) journal, assigning each entry the next seq of
 * its stream and the next node-wide ordinal. The runtime drains it into one write batch per
 * engine operation, under its lock, so the order of the batches is the order of the changes.
 */
export class JournalRecorder {
  private readonly heads = new Map<string, number>()
  private ordinal = 0
  private entries: Array<JournalEntry> = []
  private puts = new Map<string, SnapshotEntry>()
  private deletes = new Map<string, SnapshotRef>()

  constructor(heads: ReadonlyMap<string, number>, ordinal: number) {
    for (const [stream, seq] of heads) this.heads.set(stream, seq)
    this.ordinal = ordinal
  }

  record(stream: string, kind: string, event: unknown): void {
    const seq = (this.heads.get(stream) ?? 0) + 1
    this.heads.set(stream, seq)
    this.entries.push({ stream, seq, kind, body: { n: ++this.ordinal, event } satisfies JournalBody })
  }

  put(stream: string, key: string, body: unknown): void {
    const id = `${stream}\u0000${key}`
    this.deletes.delete(id)
    this.puts.set(id, { stream, key, body })
  }

  /** Deletes a key-value row with the batch (the last of put and delete on one key wins). */
  delete(stream: string, key: string): void {
    const id = `${stream}\u0000${key}`
    this.puts.delete(id)
    this.deletes.set(id, { stream, key })
  }

  /** Starts again from the store's heads (after a failed commit or a reset): what was collected is dropped. */
  reload(heads: ReadonlyMap<string, number>, ordinal: number): void {
    this.heads.clear()
    for (const [stream, seq] of heads) this.heads.set(stream, seq)
    this.ordinal = ordinal
    this.entries = []
    this.puts = new Map()
    this.deletes = new Map()
  }

  /** Whether anything was collected since the last drain. */
  get pending(): boolean {
    return this.entries.length > 0 || this.puts.size > 0 || this.deletes.size > 0
  }

  get lastOrdinal(): number {
    return this.ordinal
  }

  /** Each stream's last seq, the entries collected and not drained yet included. */
  headsNow(): ReadonlyMap<string, number> {
    return new Map(this.heads)
  }

  /** The batch collected so far (undefined when there is nothing to write). */
  drain(): WriteBatch | undefined {
    if (!this.pending) return undefined
    const batch: WriteBatch = { entries: this.entries, putSnapshots: [...this.puts.values()], deleteSnapshots: [...this.deletes.values()] }
    this.entries = []
    this.puts = new Map()
    this.deletes = new Map()
    return batch
  }
}
