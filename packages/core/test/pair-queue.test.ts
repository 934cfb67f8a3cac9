/** PairQueue answers as an array of pairs taken from its front does, across its compactions. */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { PairQueue } from "../src/index.ts"

describe("PairQueue", () => {
  it("gives back its pairs in the order they came, whatever pushes and shifts interleave", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.nat({ max: 3000 }).map((n) => ({ push: n })), fc.nat({ max: 3000 }).map((n) => ({ shift: n }))), { maxLength: 30 }), (steps) => {
        const queue = new PairQueue<string, number>()
        const model: Array<[string, number]> = []
        let next = 0
        for (const step of steps) {
          const times = "push" in step ? step.push : step.shift
          for (let i = 0; i < times; i++) {
            if ("push" in step) {
              queue.push(`k${next}`, next)
              model.push([`k${next}`, next])
              next++
            } else {
              queue.shift()
              model.shift()
            }
          }
          expect(queue.length).toBe(model.length)
          expect(queue.firstKey()).toBe(model[0]?.[0])
          expect(queue.firstValue()).toBe(model[0]?.[1])
        }
      }),
      { numRuns: 200 }
    )
  })
})
