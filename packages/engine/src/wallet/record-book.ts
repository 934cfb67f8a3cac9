/**
 * A wallet's journaled records of one kind (tracking ids, offers, transfer instructions,
 * buy-traffic requests) by key. A record still under way is an object in a map; a finished one
 * (its lifecycle in a final state) moves to an archived log (history/archived-log.ts) and the map
 * keeps only where it is, under a 128-bit digest of its key.
 *
 * Why: a finished record is read rarely (a status asked again, a tracking id reused: 409) and must
 * stay readable for good, but as objects the finished offers and tracking ids were about 450
 * bytes of heap per transaction of a 5-minute soak (`sandnet bench --only memory`), a fifth of
 * what the node kept; filed by digest in the log they are about 70. A finished record reads back
 * as an equal copy, never the object set (records are JSON: what the journal stores of them).
 * Canton deduplicates by a hash of the change id the same way; a digest that long does not
 * collide by chance. With limits that never archive (a simulation's), finished records stay
 * objects under their keys, as records under way do: no digest, no log.
 */
import { invariant, sha256Key128 } from "@sandnet/core"
import { entriesOfIndexBlocks, indexBlocks, type IndexBlock } from "../history/id-blocks.ts"
import { ArchivedLog, NEVER_ARCHIVE, neverArchives, type ArchivedLogImage, type ArchivedLogLimits } from "../history/archived-log.ts"

/** A record book as data (an engine checkpoint's part). */
export interface RecordBookImage<R> {
  readonly underWay: ReadonlyArray<readonly [string, R]>
  /** Digest and place, as blocks (history/id-blocks.ts: a block that did not change is the same bytes). */
  readonly finishedAt: ReadonlyArray<IndexBlock>
  readonly finished: ArchivedLogImage<R>
}

export class RecordBook<R> {
  /** Records under way (and finished ones, when they are not archived), in the order their keys were first set. */
  private readonly underWay = new Map<string, R>()
  /** Digest of a finished record's key -> the record's place in `finished`. */
  private readonly finishedAt = new Map<string, number>()
  /** Finished records, in the order they finished (a record set again after it finished is pushed again). */
  readonly finished: ArchivedLog<R>
  /** Whether finished records move to `finished` (else they stay in `underWay`). */
  private readonly archives: boolean

  constructor(
    private readonly isFinished: (record: R) => boolean,
    limits: ArchivedLogLimits = NEVER_ARCHIVE
  ) {
    this.finished = new ArchivedLog(limits)
    this.archives = !neverArchives(limits)
  }

  /** Records held, under way or finished. */
  get size(): number {
    return this.underWay.size + this.finishedAt.size
  }

  get(key: string): R | undefined {
    const open = this.underWay.get(key)
    if (open !== undefined || !this.archives) return open
    const at = this.finishedAt.get(sha256Key128(key))
    return at === undefined ? undefined : this.finished.at(at)
  }

  /** Files `record` under `key`; whether its lifecycle is finished. */
  set(key: string, record: R): boolean {
    const finished = this.isFinished(record)
    if (!this.archives) {
      this.underWay.set(key, record)
      return finished
    }
    const digest = sha256Key128(key)
    if (finished) {
      this.underWay.delete(key)
      this.finished.push(record)
      this.finishedAt.set(digest, this.finished.length - 1)
    } else {
      this.finishedAt.delete(digest)
      this.underWay.set(key, record)
    }
    invariant(!(this.underWay.has(key) && this.finishedAt.has(digest)), "a record is either under way or finished")
    return finished
  }

  image(): RecordBookImage<R> {
    return { underWay: [...this.underWay], finishedAt: indexBlocks(this.finishedAt), finished: this.finished.image() }
  }

  /** Takes an image into this empty book. */
  restore(image: RecordBookImage<R>): void {
    invariant(this.size === 0 && this.finished.length === 0, "a record book takes an image only when empty")
    for (const [key, record] of image.underWay) this.underWay.set(key, record)
    for (const [digest, at] of entriesOfIndexBlocks(image.finishedAt)) this.finishedAt.set(digest, at)
    this.finished.restore(image.finished)
    invariant([...this.finishedAt.values()].every((at) => at < this.finished.length), "a record book's finished records are in its log")
  }

  /** The records under way, in the order their keys were first set. */
  *underWayRecords(): IterableIterator<R> {
    for (const record of this.underWay.values()) if (this.archives || !this.isFinished(record)) yield record
  }

  /** Every record held: those under way first, then the finished ones in the order they finished (all in the order their keys were first set, when none is archived). */
  *records(): IterableIterator<R> {
    yield* this.underWay.values()
    const current = [...this.finishedAt.values()].sort((a, b) => a - b)
    for (const at of current) yield this.finished.at(at)!
  }
}
