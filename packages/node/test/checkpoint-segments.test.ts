/**
 * The checkpoint's serialization with its segments as rows of their own (checkpoint/segments.ts):
 * any document reads back equal, every byte array of `MIN_SEGMENT_BYTES` or more leaves the
 * serialization for a row named by its hash (each once, however often it is referenced), and only
 * those the store does not hold are handed over to be put.
 */
import { createHash } from "node:crypto"
import * as v8 from "node:v8"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { deserializeWithSegments, MIN_SEGMENT_BYTES, serializeWithSegments } from "../src/checkpoint/segments.ts"

const hashOf = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("base64url")

/** Byte arrays around the threshold, some of them equal (a segment referenced twice, two equal segments). */
const byteArrays = fc.array(
  fc.oneof(
    fc.uint8Array({ minLength: 0, maxLength: MIN_SEGMENT_BYTES - 1 }),
    fc.uint8Array({ minLength: MIN_SEGMENT_BYTES, maxLength: 3 * MIN_SEGMENT_BYTES }),
    fc.constant(new Uint8Array(MIN_SEGMENT_BYTES).fill(7))
  ),
  { maxLength: 12 }
)

/** A document shaped as the engine's images are: Maps, arrays, objects, typed arrays of other kinds beside the byte arrays. */
const documents = fc.record({
  logs: fc.array(fc.record({ segments: byteArrays, starts: fc.array(fc.nat(), { maxLength: 8 }).map((xs) => Uint32Array.from(xs)), objects: fc.array(fc.jsonValue(), { maxLength: 4 }) }), { maxLength: 4 }),
  index: fc.array(fc.tuple(fc.string(), fc.integer()), { maxLength: 20 }).map((entries) => new Map(entries)),
  ordinal: fc.nat()
})

const bigArraysOf = (doc: { readonly logs: ReadonlyArray<{ readonly segments: ReadonlyArray<Uint8Array> }> }) =>
  doc.logs.flatMap((log) => log.segments).filter((bytes) => bytes.byteLength >= MIN_SEGMENT_BYTES)

describe("a checkpoint serialized with its segments as rows", () => {
  it("reads back equal, names each large byte array once by its hash, and hands over only those not stored", () => {
    fc.assert(
      fc.property(documents, fc.array(fc.boolean(), { maxLength: 40 }), (doc, storedPicks) => {
        const big = bigArraysOf(doc)
        const distinct = [...new Set(big.map(hashOf))]
        const stored = new Set(distinct.filter((_, i) => storedPicks[i] === true))
        const written = serializeWithSegments(doc, stored)
        // each distinct large byte array named once, in the order the serialization met them
        expect(written.segments).toEqual(distinct)
        expect(new Set(written.fresh.keys())).toEqual(new Set(distinct.filter((hash) => !stored.has(hash))))
        for (const [hash, bytes] of written.fresh) expect(hashOf(bytes)).toBe(hash)
        // their bytes are not in the serialization: it is as long as the document's without them, but for a
        // few bytes of tag and index per typed array
        const typedArrays = doc.logs.reduce((n, log) => n + 1 + log.segments.length, 0)
        const withoutThem = { ...doc, logs: doc.logs.map((log) => ({ ...log, segments: log.segments.map((s) => (s.byteLength >= MIN_SEGMENT_BYTES ? new Uint8Array(0) : s)) })) }
        expect(written.serialized.length).toBeLessThanOrEqual(v8.serialize(withoutThem).length + 8 * typedArrays)
        // read back with the rows' bytes: equal to the document
        const rows = new Map(big.map((bytes) => [hashOf(bytes), Buffer.from(bytes)] as const))
        const read = deserializeWithSegments(written.serialized, written.segments.map((hash) => rows.get(hash)!))
        expect(normalized(read)).toEqual(normalized(doc))
      }),
      { numRuns: 200 }
    )
  })

  it("refuses a serialization whose segment list is shorter than what it names", () => {
    const bytes = new Uint8Array(MIN_SEGMENT_BYTES).fill(1)
    const written = serializeWithSegments({ segments: [bytes] }, new Set())
    expect(() => deserializeWithSegments(written.serialized, [])).toThrow(/names segment 0 of 0/)
  })
})

/** Byte arrays as plain arrays of numbers: a Buffer read back and the Uint8Array written compare equal. */
const normalized = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return { bytes: [...value] }
  if (value instanceof Uint32Array) return { words: [...value] }
  if (value instanceof Map) return { map: [...value].map(([k, v]) => [normalized(k), normalized(v)]) }
  if (Array.isArray(value)) return value.map(normalized)
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalized(v)]))
  return value
}
