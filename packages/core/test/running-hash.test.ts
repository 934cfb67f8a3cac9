/**
 * runningHash (the simulation's history hash) is the SHA-256 of every text given so far, each
 * followed by a newline, however it gathers them before hashing: at every point, across its
 * 64 KB buffer's flushes, for texts longer than the buffer, and for lone surrogates (as UTF-8
 * encodes them).
 */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { runningHash, sha256Hex } from "../src/index.ts"

const whole = (texts: ReadonlyArray<string>): string => sha256Hex(texts.map((t) => `${t}\n`).join(""))

describe("runningHash", () => {
  it("digests the texts so far, each with a newline, at every point", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })), { maxLength: 20 }), (texts) => {
        const hash = runningHash()
        expect(hash.digest()).toBe(whole([]))
        texts.forEach((text, i) => {
          hash.update(text)
          expect(hash.digest()).toBe(whole(texts.slice(0, i + 1)))
        })
      })
    )
  })

  it("gives the same digest across buffer flushes and for texts longer than the buffer", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 90_000 }), { minLength: 1, maxLength: 12 }), fc.nat({ max: 11 }), (lengths, readAt) => {
        const texts = lengths.map((n, i) => String.fromCharCode(97 + (i % 26)).repeat(n) + "é")
        const hash = runningHash()
        texts.forEach((text, i) => {
          hash.update(text)
          if (i === readAt) expect(hash.digest()).toBe(whole(texts.slice(0, i + 1)))
        })
        expect(hash.digest()).toBe(whole(texts))
      }),
      { numRuns: 40 }
    )
  })
})
