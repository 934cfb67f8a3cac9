/**
 * A binary min-heap keyed by a number, ties broken by insertion order (so that what pops first
 * never depends on anything but the order of a deterministic run). Automations keep their
 * "due at" work in one (dust by round, offers by expiry) instead of scanning every contract.
 */
export class MinHeap<T> {
  private items: Array<{ readonly key: number; readonly seq: number; readonly value: T }> = []
  private seq = 0

  get size(): number {
    return this.items.length
  }

  push(key: number, value: T): void {
    const items = this.items
    items.push({ key, seq: this.seq++, value })
    let i = items.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(i, parent)) break
      ;[items[i], items[parent]] = [items[parent]!, items[i]!]
      i = parent
    }
  }

  peekKey(): number | undefined {
    return this.items[0]?.key
  }

  /** Pops the smallest entry whose key is at most `limit`. */
  popDue(limit: number): T | undefined {
    const top = this.items[0]
    if (top === undefined || top.key > limit) return undefined
    const last = this.items.pop()!
    if (this.items.length > 0) {
      this.items[0] = last
      this.sink(0)
    }
    return top.value
  }

  /**
   * Drops the entries `keep` refuses. The rest pop in the order they would have (ties are still
   * broken by insertion order): an owner that would skip an entry when it pops may drop it sooner.
   */
  retain(keep: (value: T) => boolean): void {
    this.items = this.items.filter((item) => keep(item.value))
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.sink(i)
  }

  private less(a: number, b: number): boolean {
    const x = this.items[a]!
    const y = this.items[b]!
    return x.key < y.key || (x.key === y.key && x.seq < y.seq)
  }

  private sink(start: number): void {
    const items = this.items
    let i = start
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let smallest = i
      if (left < items.length && this.less(left, smallest)) smallest = left
      if (right < items.length && this.less(right, smallest)) smallest = right
      if (smallest === i) return
      ;[items[i], items[smallest]] = [items[smallest]!, items[i]!]
      i = smallest
    }
  }
}
