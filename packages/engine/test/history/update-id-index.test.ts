/**
 * The index by update id answers as a map keyed by the id itself, for well-formed update ids and
 * for anything else a client may ask for (a 16-character latin1 string, a string with the prefix
 * the index puts before malformed ids).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { UpdateIdIndex, updateIdKey } from "../../src/history/update-id-index.ts"

const updateId = fc.hexaString({ minLength: 64, maxLength: 64 }).map((h) => `1220${h.toLowerCase()}`)
const latin1 = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 16, maxLength: 16 }).map((codes) => String.fromCharCode(...codes))
const anyId = fc.oneof(updateId, fc.string(), latin1, latin1.map((s) => `\u0100${s}`), updateId.map((id) => id.toUpperCase()))

describe("UpdateIdIndex", () => {
  it("answers every lookup as a map keyed by the id does", () => {
    fc.assert(
      fc.property(fc.array(anyId, { maxLength: 40 }), fc.array(anyId, { maxLength: 10 }), (ids, probes) => {
        const index = new UpdateIdIndex<number>()
        const model = new Map<string, number>()
        ids.forEach((id, i) => {
          index.set(id, i)
          model.set(id, i)
        })
        for (const id of [...ids, ...probes]) {
          expect(index.get(id)).toBe(model.get(id))
          expect(index.has(id)).toBe(model.has(id))
        }
      })
    )
  })

  it("keys a well-formed update id by 16 characters, anything else by itself behind a prefix", () => {
    const id = `1220${"ab".repeat(32)}`
    expect(updateIdKey(id)).toHaveLength(16)
    expect(updateIdKey(id)).toBe(updateIdKey(`${id}`))
    expect(updateIdKey("")).toBe("\u0100")
    expect(updateIdKey(`1220${"AB".repeat(32)}`)).toBe(`\u0100${"1220"}${"AB".repeat(32)}`)
    expect(updateIdKey(`1220${"ab".repeat(16)}${"zz".repeat(16)}`)).toHaveLength(69)
  })
})
