/** runningParts is sha256OfParts given one part at a time: at every point its digest is sha256OfParts of the parts so far. */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { runningParts, sha256OfParts } from "../src/index.ts"

describe("runningParts", () => {
  it("digests as sha256OfParts of every part added so far, at every point", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme" }), { maxLength: 20 }), (parts) => {
        const hasher = runningParts()
        expect(hasher.digest()).toBe(sha256OfParts())
        parts.forEach((part, i) => {
          hasher.add(part)
          expect(hasher.digest()).toBe(sha256OfParts(...parts.slice(0, i + 1)))
        })
      })
    )
  })
})
