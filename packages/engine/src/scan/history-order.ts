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
import { invariant } from "@sandnet/core"

/** Where an update or verdict stands in the scan's history order. */
export interface HistoryKey {
  readonly migrationId: number
  readonly recordTime: Micros
}

export const compareKeys = (a: HistoryKey, b: HistoryKey): number => a.migrationId - b.migrationId || a.recordTime - b.recordTime

const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** The updates' positions in the scan's log, by key, ties in ingestion order. */
export class UpdateOrder {
  private readonly migrations: Array<number> = []
  private readonly times: Array<number> = []
  private readonly positions: Array<number> = []

  get length(): number {
    return this.positions.length
  }

  /** Adds the update at `position` (each position once, in increasing order). */
  add(key: HistoryKey, position: number): void {
    invariant(this.positions.length === position, () => `update ${position} indexed out of turn (${this.positions.length} indexed)`)
    const at = this.firstAfter(key)
    this.migrations.splice(at, 0, key.migrationId)
    this.times.splice(at, 0, key.recordTime)
    this.positions.splice(at, 0, position)
  }

  /** The positions of the updates after `after` (exclusive) in history order, at most `limit`. */
  positionsAfter(after: HistoryKey | undefined, limit: number): Array<number> {
    const from = after === undefined ? 0 : this.firstAfter(after)
    return this.positions.slice(from, from + Math.max(0, limit))
  }

  /** The first index whose key is greater than `key`. */
  private firstAfter(key: HistoryKey): number {
    let low = 0
    let high = this.positions.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.compareAt(mid, key) <= 0) low = mid + 1
      else high = mid
    }
    return low
  }

  private compareAt(i: number, key: HistoryKey): number {
    return this.migrations[i]! - key.migrationId || this.times[i]! - key.recordTime
  }
}

/** Update ids of the scan's events (an update, a verdict or both) by key, ties by id; one entry per id. */
export class EventOrder {
  private readonly migrations: Array<number> = []
  private readonly times: Array<number> = []
  private readonly ids: Array<string> = []

  get length(): number {
    return this.ids.length
  }

  /** Puts `id` at `key`; `previous` is where it stood, if it was already in the order. */
  place(id: string, key: HistoryKey, previous: HistoryKey | undefined): void {
    if (previous !== undefined) {
      if (compareKeys(previous, key) === 0) return
      const at = this.firstNotBefore(previous, id)
      invariant(this.ids[at] === id, () => `event ${id} is not where the scan's history order put it`)
      this.migrations.splice(at, 1)
      this.times.splice(at, 1)
      this.ids.splice(at, 1)
    }
    const at = this.firstNotBefore(key, id)
    this.migrations.splice(at, 0, key.migrationId)
    this.times.splice(at, 0, key.recordTime)
    this.ids.splice(at, 0, id)
  }

  /** The ids after `after` (exclusive: every id at that key too) in history order, at most `limit`. */
  idsAfter(after: HistoryKey | undefined, limit: number): Array<string> {
    const from = after === undefined ? 0 : this.firstAfterKey(after)
    return this.ids.slice(from, from + Math.max(0, limit))
  }

  /** The first index whose key is greater than `key`. */
  private firstAfterKey(key: HistoryKey): number {
    let low = 0
    let high = this.ids.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if ((this.migrations[mid]! - key.migrationId || this.times[mid]! - key.recordTime) <= 0) low = mid + 1
      else high = mid
    }
    return low
  }

  /** The first index whose (key, id) is not before (`key`, `id`). */
  private firstNotBefore(key: HistoryKey, id: string): number {
    let low = 0
    let high = this.ids.length
    while (low < high) {
      const mid = (low + high) >>> 1
      const order = this.migrations[mid]! - key.migrationId || this.times[mid]! - key.recordTime || compareIds(this.ids[mid]!, id)
      if (order < 0) low = mid + 1
      else high = mid
    }
    return low
  }
}
