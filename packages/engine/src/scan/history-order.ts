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


/**
 * Entries kept in a chunk before it is split in two. Inserting shifts the rest of one chunk, not
 * the rest of the history: `node --cpu-prof` of the large scenario (20 scans of about 50,000 events
 * each) had one array per column, and its `splice` 16% of the run, because verdicts reach a scan
 * far from their order (the median insert landed about 2,000 entries before the end; with 64-entry
 * chunks, 9 in 10 land 16 chunks or more before it). 64, not 256: the shifts were 3.5% of the
 * shortened large scenario's profile with 256, 1.5% with 64.
 */
export const HISTORY_ORDER_CHUNK = 64

/** A run of consecutive entries: the keys as two columns of numbers beside the values. */
interface Chunk<V> {
  readonly migrations: Array<number>
  readonly times: Array<number>
  readonly values: Array<V>
}

/** An order's entries in order, as columns. */
export interface OrderImage<V> {
  readonly migrations: Array<number>
  readonly times: Array<number>
  readonly values: Array<V>
}

/** Where an entry stands: its chunk and its index in it. */
interface Position {
  readonly chunk: number
  readonly index: number
}

/** `array.splice(at, 0, value)` without the array of removed entries splice returns (one per call, millions in the large scenario). */
const insertAt = <T>(array: Array<T>, at: number, value: T): void => {
  array.push(value)
  for (let i = array.length - 1; i > at; i--) array[i] = array[i - 1]!
  array[at] = value
}

/** `array.splice(at, 1)`, likewise without an array for the removed entry. */
const removeAt = <T>(array: Array<T>, at: number): void => {
  for (let i = at; i < array.length - 1; i++) array[i] = array[i + 1]!
  array.pop()
}

/** The index `entryIsBefore` reads as a chunk's last entry. */
const LAST = -1

/**
 * `isBefore` from an entry's key, the entry's chunk and index (or LAST) read only for its id, on a
 * tie: the search over chunks gives the key from the columns of last keys, so it does not touch the
 * chunk's own arrays unless two keys are equal.
 */
const entryIsBefore = <V>(migration: number, time: number, chunk: Chunk<V>, i: number, key: HistoryKey, id: string | undefined): boolean => {
  const byKey = migration - key.migrationId || time - key.recordTime
  if (id === undefined) return byKey <= 0
  if (byKey !== 0) return byKey < 0
  const values = chunk.values
  return compareIds(values[i === LAST ? values.length - 1 : i] as unknown as string, id) < 0
}

/** The first position of every order. */
const START: Position = { chunk: 0, index: 0 }

const emptyChunk = <V>(): Chunk<V> => ({ migrations: [], times: [], values: [] })

/**
 * Values sorted by history key, in chunks of at most `chunkSize` entries (never empty, but for
 * the first while nothing is held); an entry is found by a binary search over the chunks' last
 * entries and then within its chunk.
 */
class KeyedColumns<V> {
  private readonly chunks: Array<Chunk<V>> = [emptyChunk()]
  /**
   * Each chunk's last key, as two columns beside `chunks`: the search over the chunks reads these
   * instead of each chunk's own arrays, scattered over the heap (a cache miss or three per step:
   * the search was 2.8% of the shortened large scenario's profile). Stale for an empty chunk, which
   * is only ever the one chunk of an empty order, and never read then.
   */
  private readonly lastMigrations: Array<number> = [0]
  private readonly lastTimes: Array<number> = [0]
  private size = 0

  constructor(private readonly chunkSize: number) {
    invariant(Number.isSafeInteger(chunkSize) && chunkSize >= 2, "a history order's chunks hold at least two entries")
  }

  get length(): number {
    return this.size
  }

  /**
   * Whether the entry at (`chunk`, `i`) comes before the position looked for: with an `id`, before
   * (`key`, `id`) (ties by id: the event order); without, at or before `key` (the first position
   * after `key`).
   */
  private isBefore(chunk: Chunk<V>, i: number, key: HistoryKey, id: string | undefined): boolean {
    return entryIsBefore(chunk.migrations[i]!, chunk.times[i]!, chunk, i, key, id)
  }

  /** `isBefore` for the last entry of chunk `c`, its key read from the columns of last keys. */
  private lastIsBefore(c: number, key: HistoryKey, id: string | undefined): boolean {
    return entryIsBefore(this.lastMigrations[c]!, this.lastTimes[c]!, this.chunks[c]!, LAST, key, id)
  }

  /** Sets chunk `c`'s last key from its entries (a chunk that holds any). */
  private noteLast(c: number): void {
    const chunk = this.chunks[c]!
    const last = chunk.values.length - 1
    if (last < 0) return
    this.lastMigrations[c] = chunk.migrations[last]!
    this.lastTimes[c] = chunk.times[last]!
  }

  /**
   * The first position whose entry is not before (`key`, `id`), or not at or before `key` without
   * an id; the end when every entry is. Two binary searches (over the chunks' last entries, then
   * in one chunk), written out: with a predicate closure per search, the closures were a third of
   * the order's time in the large scenario.
   */
  locate(key: HistoryKey, id: string | undefined): Position {
    if (this.size === 0) return START
    const chunks = this.chunks
    let low = 0
    let high = chunks.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.lastIsBefore(mid, key, id)) low = mid + 1
      else high = mid
    }
    if (low === chunks.length) return { chunk: low - 1, index: chunks[low - 1]!.values.length }
    const chunk = chunks[low]!
    let from = 0
    let to = chunk.values.length
    while (from < to) {
      const mid = (from + to) >>> 1
      if (this.isBefore(chunk, mid, key, id)) from = mid + 1
      else to = mid
    }
    return { chunk: low, index: from }
  }

  /** The first position whose key is greater than `key`. */
  firstAfter(key: HistoryKey): Position {
    return this.locate(key, undefined)
  }

  valueAt(at: Position): V | undefined {
    return this.chunks[at.chunk]!.values[at.index]
  }

  insert(at: Position, key: HistoryKey, value: V): void {
    const chunk = this.chunks[at.chunk]!
    insertAt(chunk.migrations, at.index, key.migrationId)
    insertAt(chunk.times, at.index, key.recordTime)
    insertAt(chunk.values, at.index, value)
    this.size++
    if (at.index === chunk.values.length - 1) this.noteLast(at.chunk)
    if (chunk.values.length > this.chunkSize) this.split(at.chunk)
  }

  remove(at: Position): void {
    const chunk = this.chunks[at.chunk]!
    invariant(at.index < chunk.values.length, "a history order removes an entry it holds")
    removeAt(chunk.migrations, at.index)
    removeAt(chunk.times, at.index)
    removeAt(chunk.values, at.index)
    this.size--
    if (chunk.values.length === 0 && this.chunks.length > 1) {
      this.chunks.splice(at.chunk, 1)
      this.lastMigrations.splice(at.chunk, 1)
      this.lastTimes.splice(at.chunk, 1)
    } else if (at.index === chunk.values.length) this.noteLast(at.chunk)
  }

  /** Up to `limit` values from `from` on, in order. */
  page(from: Position, limit: number): Array<V> {
    const out: Array<V> = []
    for (let c = from.chunk, i = from.index; c < this.chunks.length && out.length < limit; c++, i = 0) {
      const values = this.chunks[c]!.values
      for (; i < values.length && out.length < limit; i++) out.push(values[i]!)
    }
    return out
  }

  /** Every entry in order, as three columns (an engine checkpoint's part). */
  image(): OrderImage<V> {
    const image: OrderImage<V> = { migrations: [], times: [], values: [] }
    for (const chunk of this.chunks) {
      image.migrations.push(...chunk.migrations)
      image.times.push(...chunk.times)
      image.values.push(...chunk.values)
    }
    return image
  }

  /** Takes an image into this empty order (appended: chunks filled in turn, the same order). */
  restore(image: OrderImage<V>): void {
    invariant(this.size === 0, "a history order takes an image only when empty")
    invariant(image.times.length === image.values.length && image.migrations.length === image.values.length, "an order's image has three columns of one length")
    for (let i = 0; i < image.values.length; i++) this.append({ migrationId: image.migrations[i]!, recordTime: image.times[i]! as Micros }, image.values[i]!)
  }

  /** Adds an entry after every entry held (an order built from sorted entries). */
  append(key: HistoryKey, value: V): void {
    const last = this.chunks.length - 1
    invariant(this.size === 0 || (this.lastMigrations[last]! - key.migrationId || this.lastTimes[last]! - key.recordTime) <= 0, "a history order appends entries in order")
    this.insert({ chunk: last, index: this.chunks[last]!.values.length }, key, value)
  }

  /** Splits a chunk grown past the limit into two halves (the order is unchanged). */
  private split(n: number): void {
    const chunk = this.chunks[n]!
    const half = chunk.values.length >> 1
    const upper: Chunk<V> = {
      migrations: chunk.migrations.splice(half),
      times: chunk.times.splice(half),
      values: chunk.values.splice(half)
    }
    this.chunks.splice(n + 1, 0, upper)
    this.lastMigrations.splice(n + 1, 0, 0)
    this.lastTimes.splice(n + 1, 0, 0)
    this.noteLast(n)
    this.noteLast(n + 1)
  }
}

/** An update or a verdict of the scan's logs, as the history order sees it. */
export interface Ingested {
  readonly id: string
  readonly key: HistoryKey
}

/** The scan's two history orders. */
export interface HistoryOrders {
  readonly updates: UpdateOrder
  readonly events: EventOrder
}

/**
 * The orders of a history ingested while none was kept: its updates in log order and its verdicts
 * (the first per update id), as if each had been placed on arrival. An event stands at its last
 * update's key, else at its verdict's, whatever order they came in. One sort of each, where
 * placing them one by one searched and shifted a chunk per entry.
 */
export const buildHistoryOrders = (updates: Iterable<Ingested>, verdicts: Iterable<Ingested>, chunkSize: number = HISTORY_ORDER_CHUNK): HistoryOrders => {
  const updateKeys: Array<HistoryKey> = []
  const eventKeys = new Map<string, HistoryKey>()
  for (const { id, key } of updates) {
    updateKeys.push(key)
    eventKeys.set(id, key)
  }
  for (const { id, key } of verdicts) if (!eventKeys.has(id)) eventKeys.set(id, key)
  const positions = Array.from(updateKeys, (_, position) => position)
  positions.sort((a, b) => compareKeys(updateKeys[a]!, updateKeys[b]!) || a - b)
  const updateOrder = new UpdateOrder(chunkSize)
  for (const position of positions) updateOrder.append(updateKeys[position]!, position)
  const events = [...eventKeys].sort(([a, keyA], [b, keyB]) => compareKeys(keyA, keyB) || compareIds(a, b))
  const eventOrder = new EventOrder(chunkSize)
  for (const [id, key] of events) eventOrder.append(id, key)
  return { updates: updateOrder, events: eventOrder }
}

/** The updates' positions in the scan's log, by key, ties in ingestion order. */
export class UpdateOrder {
  private readonly columns: KeyedColumns<number>

  constructor(chunkSize: number = HISTORY_ORDER_CHUNK) {
    this.columns = new KeyedColumns(chunkSize)
  }

  get length(): number {
    return this.columns.length
  }

  /** Adds the update at `position` (each position once, in increasing order). */
  add(key: HistoryKey, position: number): void {
    invariant(this.columns.length === position, () => `update ${position} indexed out of turn (${this.columns.length} indexed)`)
    this.columns.insert(this.columns.firstAfter(key), key, position)
  }

  image(): OrderImage<number> {
    return this.columns.image()
  }

  restore(image: OrderImage<number>): void {
    this.columns.restore(image)
  }

  /** Adds the update at `position` after every one held (buildHistoryOrders: in key order). */
  append(key: HistoryKey, position: number): void {
    this.columns.append(key, position)
  }

  /** The positions of the updates after `after` (exclusive) in history order, at most `limit`. */
  positionsAfter(after: HistoryKey | undefined, limit: number): Array<number> {
    return this.columns.page(after === undefined ? START : this.columns.firstAfter(after), limit)
  }
}

/** Update ids of the scan's events (an update, a verdict or both) by key, ties by id; one entry per id. */
export class EventOrder {
  private readonly columns: KeyedColumns<string>

  constructor(chunkSize: number = HISTORY_ORDER_CHUNK) {
    this.columns = new KeyedColumns(chunkSize)
  }

  get length(): number {
    return this.columns.length
  }

  /** Puts `id` at `key`; `previous` is where it stood, if it was already in the order. */
  place(id: string, key: HistoryKey, previous: HistoryKey | undefined): void {
    if (previous !== undefined) {
      if (compareKeys(previous, key) === 0) return
      const at = this.firstNotBefore(previous, id)
      invariant(this.columns.valueAt(at) === id, () => `event ${id} is not where the scan's history order put it`)
      this.columns.remove(at)
    }
    this.columns.insert(this.firstNotBefore(key, id), key, id)
  }

  image(): OrderImage<string> {
    return this.columns.image()
  }

  restore(image: OrderImage<string>): void {
    this.columns.restore(image)
  }

  /** Puts `id` after every id held (buildHistoryOrders: in key and id order, each id once). */
  append(id: string, key: HistoryKey): void {
    this.columns.append(key, id)
  }

  /** The ids after `after` (exclusive: every id at that key too) in history order, at most `limit`. */
  idsAfter(after: HistoryKey | undefined, limit: number): Array<string> {
    return this.columns.page(after === undefined ? START : this.columns.firstAfter(after), limit)
  }

  /** The first position whose (key, id) is not before (`key`, `id`). */
  private firstNotBefore(key: HistoryKey, id: string): Position {
    return this.columns.locate(key, id)
  }
}
