/**
 * The automations' heap pops by key, ties in insertion order, and dropping entries (`retain`)
 * leaves the others popping in the order they would have.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { MinHeap } from "../../src/dso/heap.ts"

/** What a heap of these entries pops: by key, then by insertion order. */
const popOrder = (entries: ReadonlyArray<{ readonly key: number; readonly id: number }>) =>
  [...entries].sort((a, b) => a.key - b.key || a.id - b.id).map((e) => e.id)

const drain = (heap: MinHeap<number>): Array<number> => {
  const out: Array<number> = []
  for (let v = heap.popDue(Infinity); v !== undefined; v = heap.popDue(Infinity)) out.push(v)
  return out
}

describe("MinHeap", () => {
  it("pops by key, ties in insertion order; what retain keeps pops as it would have", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 80 }), fc.array(fc.boolean(), { minLength: 80, maxLength: 80 }), fc.nat({ max: 80 }), (keys, kept, popFirst) => {
        const heap = new MinHeap<number>()
        keys.forEach((key, id) => heap.push(key, id))
        const entries = keys.map((key, id) => ({ key, id }))
        // some pops before the retain, then the rest after it
        const first = popOrder(entries).slice(0, popFirst)
        for (const id of first) expect(heap.popDue(Infinity)).toBe(id)
        heap.retain((id) => kept[id]!)
        const rest = popOrder(entries.filter((e) => !first.includes(e.id) && kept[e.id]!))
        expect(heap.size).toBe(rest.length)
        expect(drain(heap)).toEqual(rest)
      })
    )
  })

  it("pops only what is due", () => {
    const heap = new MinHeap<string>()
    heap.push(5, "b")
    heap.push(3, "a")
    heap.push(5, "c")
    expect(heap.popDue(2)).toBeUndefined()
    expect(heap.popDue(5)).toBe("a")
    heap.retain((v) => v !== "b")
    expect(heap.popDue(5)).toBe("c")
    expect(heap.size).toBe(0)
  })
})
