/**
 * The index by update id answers as a map keyed by the id itself, for well-formed update ids and
 * for anything else a client may ask for (a 16-character latin1 string, a string with the prefix
 * the index puts before malformed ids); its image as blocks of bytes reads back.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { positionBlocks, positionsOfBlocks, UpdateIdIndex, updateIdKey } from "../../src/history/update-id-index.ts"

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

describe("an index of positions as blocks", () => {
  const updateIds = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `1220${Buffer.from(bytes).toString("hex")}`)
  /** Entries as an index's image holds them: keys of update ids (now and then another string's), positions (now and then a value that is none). */
  const images = fc.array(
    fc.tuple(
      fc.oneof({ weight: 9, arbitrary: updateIds.map(updateIdKey) }, { weight: 1, arbitrary: fc.string().map(updateIdKey) }),
      fc.oneof({ weight: 9, arbitrary: fc.nat() }, { weight: 1, arbitrary: fc.constantFrom(-1, 0.5, 2 ** 32) })
    ),
    { maxLength: 50 }
  )

  it("read back in order, whatever the entries and the block size, and a prefix's full blocks are the same bytes whatever follows", () => {
    fc.assert(
      fc.property(images, images, fc.integer({ min: 1, max: 9 }), (image, rest, size) => {
        const blocks = positionBlocks(image, size)
        expect([...positionsOfBlocks(blocks)]).toEqual(image)
        expect([...positionsOfBlocks(structuredClone(blocks))]).toEqual(image)
        const full = Math.floor(image.length / size)
        expect(positionBlocks([...image, ...rest], size).slice(0, full)).toEqual(blocks.slice(0, full))
      })
    )
  })

  it("keeps update ids' keys and positions as 20 bytes an entry, and a block with another key or value as entries", () => {
    const key = updateIdKey(`1220${"ab".repeat(32)}`)
    const [block] = positionBlocks([[key, 7], [key, 2 ** 32 - 1]], 4)
    expect(block).toBeInstanceOf(Uint8Array)
    expect((block as Uint8Array).byteLength).toBe(40)
    expect(positionBlocks([[key, 7], [updateIdKey("short"), 8]], 4)).toEqual([[[key, 7], [updateIdKey("short"), 8]]])
    expect(positionBlocks([[key, 2 ** 32]], 4)).toEqual([[[key, 2 ** 32]]])
  })
})
