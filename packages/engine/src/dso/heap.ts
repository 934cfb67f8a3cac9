/**
 * A binary min-heap keyed by a number, ties broken by insertion order (so that what pops first
 * never depends on anything but the order of a deterministic run). Automations keep their
 * "due at" work in one (dust by round, offers by expiry) instead of scanning every contract.
 *
 * Entries are three parallel arrays (keys, insertion numbers, values), not an object each: keys
 * are record times, past what a small integer holds, so an entry object also boxed its key; the
 * wallet's expiry heap holds an entry per live offer and instruction, and the two were about 60
 * bytes of heap per entry of a 5-minute soak (`sandnet bench --only memory`).
 */
export class MinHeap<T> {
  private keys: Array<number> = []
  private seqs: Array<number> = []
  private values: Array<T> = []
  private seq = 0

  get size(): number {
    return this.keys.length
  }

  push(key: number, value: T): void {
    this.keys.push(key)
    this.seqs.push(this.seq++)
    this.values.push(value)
    let i = this.keys.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(i, parent)) break
      this.swap(i, parent)
      i = parent
    }
  }

  peekKey(): number | undefined {
    return this.keys[0]
  }

  /** Pops the smallest entry whose key is at most `limit`. */
  popDue(limit: number): T | undefined {
    const top = this.keys[0]
    if (top === undefined || top > limit) return undefined
    const value = this.values[0]!
    const key = this.keys.pop()!
    const seq = this.seqs.pop()!
    const last = this.values.pop()!
    if (this.keys.length > 0) {
      this.keys[0] = key
      this.seqs[0] = seq
      this.values[0] = last
      this.sink(0)
    }
    return value
  }

  /**
   * Drops the entries `keep` refuses. The rest pop in the order they would have (ties are still
   * broken by insertion order): an owner that would skip an entry when it pops may drop it sooner.
   */
  retain(keep: (value: T) => boolean): void {
    const keys: Array<number> = []
    const seqs: Array<number> = []
    const values: Array<T> = []
    for (let i = 0; i < this.values.length; i++) {
      if (!keep(this.values[i]!)) continue
      keys.push(this.keys[i]!)
      seqs.push(this.seqs[i]!)
      values.push(this.values[i]!)
    }
    this.keys = keys
    this.seqs = seqs
    this.values = values
    for (let i = (keys.length >> 1) - 1; i >= 0; i--) this.sink(i)
  }

  private less(a: number, b: number): boolean {
    const x = this.keys[a]!
    const y = this.keys[b]!
    return x < y || (x === y && this.seqs[a]! < this.seqs[b]!)
  }

  private swap(a: number, b: number): void {
    const key = this.keys[a]!
    this.keys[a] = this.keys[b]!
    this.keys[b] = key
    const seq = this.seqs[a]!
    this.seqs[a] = this.seqs[b]!
    this.seqs[b] = seq
    const value = this.values[a]!
    this.values[a] = this.values[b]!
    this.values[b] = value
  }

  private sink(start: number): void {
    const size = this.keys.length
    let i = start
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let smallest = i
      if (left < size && this.less(left, smallest)) smallest = left
      if (right < size && this.less(right, smallest)) smallest = right
      if (smallest === i) return
      this.swap(i, smallest)
      i = smallest
    }
  }
}
