/**
 * The values last made from keys (objects, or strings such as update ids), to share one immutable
 * value among the nodes that make it from the same input one after the other: twenty super validators each commit every transfer's
 * contracts and ingest every verdict, and held twenty equal copies. The nodes' deliveries of one
 * message interleave with others' (network latency), so a memo of the latest input alone missed
 * often; this one keeps the last `limit`. A miss only makes one more copy: what it holds never
 * changes a result, only how many objects hold it.
 *
 * Bounded: a ring of the keys in the order they were set; the oldest is forgotten first (a plain
 * call per set, no walk of a Map from its oldest entry, see pair-queue.ts).
 */
import { invariant } from "./assert.ts"

export class RecentlyMade<K, V> {
  private readonly made = new Map<K, V>()
  private readonly ring: Array<K | undefined>
  private next = 0

  constructor(readonly limit: number) {
    invariant(Number.isInteger(limit) && limit > 0, () => `a RecentlyMade memo holds a positive number of values, not ${limit}`)
    this.ring = new Array<K | undefined>(limit).fill(undefined)
  }

  get(key: K): V | undefined {
    return this.made.get(key)
  }

  set(key: K, value: V): void {
    if (this.made.has(key)) {
      this.made.set(key, value)
      return
    }
    const oldest = this.ring[this.next]
    if (oldest !== undefined) this.made.delete(oldest)
    this.ring[this.next] = key
    this.next = (this.next + 1) % this.limit
    this.made.set(key, value)
  }

  get size(): number {
    return this.made.size
  }
}
