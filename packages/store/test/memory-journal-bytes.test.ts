/**
 * The memory store keeps journal bytes compressed a megabyte at a time (memory-journal-bytes.ts):
 * whatever the sizes of the writes, every entry reads back exactly as written, in any order, after
 * its bytes were compressed, across a rebuilt layer on the same backing and after a stream's reset.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as fc from "fast-check"
import { EventStore, makeMemoryBacking, type JournalEntry } from "../src/index.ts"
import { JournalBytes, SEGMENT_BYTES } from "../src/memory-journal-bytes.ts"

describe("memory store, compressed journal bytes", () => {
  it("every write's text reads back exactly, in any order, whatever was compressed", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: "grapheme", maxLength: 40 }), fc.integer({ min: 0, max: 200_000 })), { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        (writes, order) => {
          const journal = new JournalBytes()
          const texts = writes.map(([text, padding]) => `${text}${"x".repeat(padding)}`)
          const handles = texts.map((text) => {
            const buffer = Buffer.from(`{"n":1}${text}`, "utf8")
            return { handle: journal.add(buffer), length: buffer.length }
          })
          for (const i of [...order.map((n) => n % texts.length), ...texts.keys()]) {
            const { handle, length } = handles[i]!
            expect(journal.text(handle + 7, handle + length)).toBe(texts[i])
          }
        }
      ),
      { numRuns: 60 }
    )
  })

  it("a segment reads back the same while it is compressed in the thread pool and after", async () => {
    const journal = new JournalBytes()
    const texts = Array.from({ length: 3 * 64 }, (_, i) => `{"n":${i},"pad":"${"é".repeat(10_000 + (i % 13) * 97)}"}`)
    const handles = texts.map((text) => ({ start: journal.add(Buffer.from(text, "utf8")), length: Buffer.byteLength(text, "utf8") }))
    const readAll = () => handles.map(({ start, length }) => journal.text(start, start + length))
    expect(journal.compressing).toBeGreaterThanOrEqual(2)
    expect(readAll()).toEqual(texts)
    while (journal.compressing > 0) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(readAll()).toEqual(texts)
    expect([...handles].reverse().map(({ start, length }) => journal.text(start, start + length))).toEqual([...texts].reverse())
  })

  it.effect("a store's entries read back after several megabytes were compressed, also on a rebuilt layer and after a reset", () =>
    Effect.gen(function*() {
      const backing = makeMemoryBacking()
      const entry = (stream: string, seq: number): JournalEntry => ({ stream, seq, kind: "k", body: { stream, seq, pad: "é".repeat(2_000 + (seq % 7) * 500), n: seq * 31 } })
      const streams = ["a", "b", "c"]
      const count = Math.ceil((4 * SEGMENT_BYTES) / (3 * 5_000))
      yield* Effect.gen(function*() {
        const store = yield* EventStore
        for (let seq = 1; seq <= count; seq++) yield* store.append(streams.map((s) => entry(s, seq)))
        expect((yield* store.readStream("b", count - 2)).map((e) => e.body)).toEqual([count - 2, count - 1, count].map((seq) => entry("b", seq).body))
      }).pipe(Effect.provide(EventStore.memoryWith(backing)))
      const store = Context.get(yield* Layer.build(EventStore.memoryWith(backing)), EventStore)
      for (const s of streams) expect(yield* store.readStream(s)).toEqual(Array.from({ length: count }, (_, i) => entry(s, i + 1)))
      yield* store.resetStream("b")
      expect(yield* store.readStream("b")).toEqual([])
      expect((yield* store.readStream("c", 1, 2)).map((e) => e.seq)).toEqual([1, 2])
    }).pipe(Effect.scoped), 60_000)
})
