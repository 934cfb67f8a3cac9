/** partitionPoint finds where a predicate that holds for a prefix stops holding. */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { partitionPoint } from "../src/index.ts"

describe("partitionPoint", () => {
  it("is the first index of a sorted array past a value, as a linear scan finds it", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -20, max: 20 })), fc.integer({ min: -25, max: 25 }), (values, at) => {
        const sorted = [...values].sort((a, b) => a - b)
        const linear = sorted.findIndex((v) => v > at)
        expect(partitionPoint(sorted.length, (i) => sorted[i]! <= at)).toBe(linear === -1 ? sorted.length : linear)
      })
    )
  })
})
