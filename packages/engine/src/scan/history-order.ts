/**
 * The scan's history order: (migration id, record time) as Splice's update and event histories
 * page through it. Updates reach a scan in its SV participant's offset order, which is nearly but
 * not always that order (synchronizers interleave), so the order is kept as an index beside the
 * logs: a page is a binary search and a walk, not a sort of the whole history per request (which
 * it was, and which would have inflated every archived segment of the logs on every page).
 *
 * Each index holds numbers and references to update id strings the logs' maps hold anyway: about
 * 30 bytes an entry.
 */
import type { Micros } from "@sandnet/core"
import { invariant, partitionPoint } from "@sandnet/core"

/** Where an update or verdict stands in the scan's history order. */
export interface HistoryKey {
  readonly migrationId: number
  readonly recordTime: Micros
}

export const compareKeys = (a: HistoryKey, b: HistoryKey): number => a.migrationId - b.migrationId || a.recordTime - b.recordTime

const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Values sorted by history key, the keys kept as two columns of numbers beside them. */
class KeyedColumns<V> {
  private readonly migrations: Array<number> = []
  private readonly times: Array<number> = []
  readonly values: Array<V> = []

  get length(): number {
    return this.values.length
  }

  /** How the key at `i` compares with `key`. */
  compareAt(i: number, key: HistoryKey): number {
    return this.migrations[i]! - key.migrationId || this.times[i]! - key.recordTime
  }

  /** The first index whose key is greater than `key`. */
  firstAfter(key: HistoryKey): number {
    return partitionPoint(this.length, (i) => this.compareAt(i, key) <= 0)
  }

  insert(at: number, key: HistoryKey, value: V): void {
    this.migrations.splice(at, 0, key.migrationId)
    this.times.splice(at, 0, key.recordTime)
    this.values.splice(at, 0, value)
  }

  remove(at: number): void {
    this.migrations.splice(at, 1)
    this.times.splice(at, 1)
    this.values.splice(at, 1)
  }

  /** Up to `limit` values from index `from`. */
  page(from: number, limit: number): Array<V> {
    return this.values.slice(from, from + Math.max(0, limit))
  }
}

/** The updates' positions in the scan's log, by key, ties in ingestion order. */
export class UpdateOrder {
  private readonly columns = new KeyedColumns<number>()

  get length(): number {
    return this.columns.length
  }

  /** Adds the update at `position` (each position once, in increasing order). */
  add(key: HistoryKey, position: number): void {
    invariant(this.columns.length === position, () => `update ${position} indexed out of turn (${this.columns.length} indexed)`)
    this.columns.insert(this.columns.firstAfter(key), key, position)
  }

  /** The positions of the updates after `after` (exclusive) in history order, at most `limit`. */
  positionsAfter(after: HistoryKey | undefined, limit: number): Array<number> {
    return this.columns.page(after === undefined ? 0 : this.columns.firstAfter(after), limit)
  }
}

/** Update ids of the scan's events (an update, a verdict or both) by key, ties by id; one entry per id. */
export class EventOrder {
  private readonly columns = new KeyedColumns<string>()

  get length(): number {
    return this.columns.length
  }

  /** Puts `id` at `key`; `previous` is where it stood, if it was already in the order. */
  place(id: string, key: HistoryKey, previous: HistoryKey | undefined): void {
    if (previous !== undefined) {
      if (compareKeys(previous, key) === 0) return
      const at = this.firstNotBefore(previous, id)
      invariant(this.columns.values[at] === id, () => `event ${id} is not where the scan's history order put it`)
      this.columns.remove(at)
    }
    this.columns.insert(this.firstNotBefore(key, id), key, id)
  }

  /** The ids after `after` (exclusive: every id at that key too) in history order, at most `limit`. */
  idsAfter(after: HistoryKey | undefined, limit: number): Array<string> {
    return this.columns.page(after === undefined ? 0 : this.columns.firstAfter(after), limit)
  }

  /** The first index whose (key, id) is not before (`key`, `id`). */
  private firstNotBefore(key: HistoryKey, id: string): number {
    return partitionPoint(this.columns.length, (i) => (this.columns.compareAt(i, key) || compareIds(this.columns.values[i]!, id)) < 0)
  }
}
