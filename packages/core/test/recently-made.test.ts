/** RecentlyMade answers as a list of the last `limit` distinct keys set (with their latest values) does. */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { RecentlyMade } from "../src/index.ts"

describe("RecentlyMade", () => {
  it("holds the values of the last `limit` distinct keys set, and forgets the oldest first", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(fc.nat({ max: 12 }), fc.nat()), { maxLength: 80 }), (limit, sets) => {
        const keys = Array.from({ length: 13 }, (_, i) => ({ key: i }))
        const memo = new RecentlyMade<{ key: number }, number>(limit)
        // the model: distinct keys in the order they were first set (since last forgotten)
        let model: Array<[number, number]> = []
        for (const [k, value] of sets) {
          memo.set(keys[k]!, value)
          const at = model.findIndex(([key]) => key === k)
          if (at >= 0) model[at] = [k, value]
          else {
            model.push([k, value])
            if (model.length > limit) model = model.slice(1)
          }
          expect(memo.size).toBe(model.length)
          for (let i = 0; i < keys.length; i++) expect(memo.get(keys[i]!)).toBe(model.find(([key]) => key === i)?.[1])
        }
      }),
      { numRuns: 300 }
    )
  })

  it("refuses a limit that is not a positive integer", () => {
    expect(() => new RecentlyMade(0)).toThrow(/positive number/)
    expect(() => new RecentlyMade(1.5)).toThrow(/positive number/)
  })
})
