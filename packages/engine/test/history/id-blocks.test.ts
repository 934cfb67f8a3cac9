/**
 * Update ids as blocks of bytes in a checkpoint image (history/id-blocks.ts): any ids read back in
 * order, update ids take 32 bytes each, and the blocks of a prefix are the same bytes whatever
 * follows it (what lets a node store each block once); the same for an index of numbers by 128-bit
 * key (a participant's log positions by update id, its decided commands by digest).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { entriesOfIndexBlocks, idBlocks, idsOfBlocks, indexBlocks } from "../../src/history/id-blocks.ts"
import { updateIdKey } from "../../src/history/update-id-index.ts"

const updateIds = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `1220${Buffer.from(bytes).toString("hex")}`)
/** Mostly update ids, now and then another string (a client's malformed id never reaches an index, but a block must hold it). */
const ids = fc.array(fc.oneof({ weight: 9, arbitrary: updateIds }, { weight: 1, arbitrary: fc.string() }), { maxLength: 60 })
const blockSizes = fc.integer({ min: 1, max: 9 })

describe("update ids as blocks", () => {
  it("read back in order, whatever the ids and the block size", () => {
    fc.assert(
      fc.property(ids, blockSizes, (list, size) => {
        const blocks = idBlocks(list, size)
        expect(blocks).toHaveLength(Math.ceil(list.length / size))
        expect([...idsOfBlocks(blocks)]).toEqual(list)
        // after a structured clone (as a checkpoint's serialization gives them back) too
        expect([...idsOfBlocks(structuredClone(blocks))]).toEqual(list)
      })
    )
  })

  it("keeps a block of update ids as 32 bytes an id, and one holding another string as strings", () => {
    const two = ["1220" + "ab".repeat(32), "1220" + "0f".repeat(32)]
    const [block] = idBlocks(two, 4)
    expect(block).toBeInstanceOf(Uint8Array)
    expect((block as Uint8Array).byteLength).toBe(64)
    // uppercase hex would not read back as written: kept as strings
    expect(idBlocks(["1220" + "AB".repeat(32)], 4)).toEqual([["1220" + "AB".repeat(32)]])
    expect(idBlocks([...two, "not an update id"], 4)).toEqual([[...two, "not an update id"]])
  })

  it("gives a prefix's full blocks the same bytes whatever follows", () => {
    fc.assert(
      fc.property(ids, ids, blockSizes, (prefix, rest, size) => {
        const full = Math.floor(prefix.length / size)
        expect(idBlocks([...prefix, ...rest], size).slice(0, full)).toEqual(idBlocks(prefix, size).slice(0, full))
      })
    )
  })
})

describe("an index of small numbers by 128-bit key as blocks", () => {
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
        const blocks = indexBlocks(image, size)
        expect([...entriesOfIndexBlocks(blocks)]).toEqual(image)
        expect([...entriesOfIndexBlocks(structuredClone(blocks))]).toEqual(image)
        const full = Math.floor(image.length / size)
        expect(indexBlocks([...image, ...rest], size).slice(0, full)).toEqual(blocks.slice(0, full))
      })
    )
  })

  it("keeps 128-bit keys and their numbers as 20 bytes an entry, and a block with another key or value as entries", () => {
    const key = updateIdKey(`1220${"ab".repeat(32)}`)
    const [block] = indexBlocks([[key, 7], [key, 2 ** 32 - 1]], 4)
    expect(block).toBeInstanceOf(Uint8Array)
    expect((block as Uint8Array).byteLength).toBe(40)
    expect(indexBlocks([[key, 7], [updateIdKey("short"), 8]], 4)).toEqual([[[key, 7], [updateIdKey("short"), 8]]])
    expect(indexBlocks([[key, 2 ** 32]], 4)).toEqual([[[key, 2 ** 32]]])
  })
})
