/** The compact key is the first 16 bytes of SHA-256, whichever way the Node computes it. */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { sha256Hex, sha256Key128 } from "../src/index.ts"

describe("sha256Key128", () => {
  it("is the first 16 bytes of the text's SHA-256, one character each", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const key = sha256Key128(text)
        expect(key.length).toBe(16)
        expect(Buffer.from(key, "latin1").toString("hex")).toBe(sha256Hex(text).slice(0, 32))
      })
    )
  })
})
