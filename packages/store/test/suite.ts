/**
 * The behavioural suite every EventStore layer must pass. A `Target` is a storage location: its
 * `layer` can be built, released and built again on the same data (a restart).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import { EventStore, type JournalEntry } from "../src/index.ts"

export interface Target {
  /** Builds a store on this target's data; building it again after release reopens the same data. */
  readonly layer: Layer.Layer<EventStore, unknown>
  /** True when commits are grouped (SQL); the memory layer commits each write on its own. */
  readonly groupCommit: boolean
}

const entry = (stream: string, seq: number, body: unknown = { stream, seq }, kind = "test"): JournalEntry => ({
  stream,
  seq,
  kind,
  body
})

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

/**
 * `newRestartTarget` gives the restart test's target when it differs (PGlite: the other tests share
 * one database, a schema each; the restart closes and reopens PGlite itself).
 */
export const behaviouralSuite = (
  name: string,
  newTarget: () => Effect.Effect<Target, unknown>,
  newRestartTarget: () => Effect.Effect<Target, unknown> = newTarget
) => {
  const withStore = <A, E>(f: (store: EventStore["Type"]) => Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      const target = yield* newTarget()
      return yield* Effect.flatMap(EventStore, f).pipe(Effect.provide(target.layer))
    })

  describe(`EventStore behaviour: ${name}`, () => {
    it.live("reads a long stream back whole and in slices, whatever its kinds and bodies", () =>
      withStore((store) =>
        Effect.gen(function*() {
          // More entries than one read group of the SQL layers (512), odd kinds, bodies of every JSON shape.
          const bodies: ReadonlyArray<unknown> = [{ z: 1, a: [1, "x"] }, "text \"quoted\" \u00e9\u2028", 12.5, null, [], true, { "": {} }]
          const entries = range(1, 1300).map((seq) => entry("long", seq, bodies[seq % bodies.length], seq % 3 === 0 ? `kind "${seq}" \\ é` : "k"))
          yield* store.append(entries)
          expect(yield* store.readStream("long")).toEqual(entries)
          expect(yield* store.readStream("long", 500, 600)).toEqual(entries.slice(499, 1099))
          expect(yield* store.readStream("long", 1025)).toEqual(entries.slice(1024))
          expect(yield* store.readStream("long", 1300, 5)).toEqual(entries.slice(1299))
        })
      ))

    it.live("reads every stream back at once, in stream order, a stream longer than a page whole", () =>
      withStore((store) =>
        Effect.gen(function*() {
          // readAll reads several streams at once and pages of 5,000 (pages.ts): the map must still
          // hold each stream's own entries, in the order of `streams`.
          const lengths: ReadonlyArray<readonly [string, number]> = [["e", 3], ["a", 5003], ["c", 1], ["b", 40], ["d", 5000]]
          const all = lengths.flatMap(([name, length]) => range(1, length).map((seq) => entry(name, seq, { [name]: seq })))
          yield* store.append(all)
          const read = yield* store.readAll()
          expect([...read.keys()]).toEqual(["a", "b", "c", "d", "e"])
          for (const [name, length] of lengths) expect(read.get(name)).toEqual(all.filter((e) => e.stream === name).slice(0, length))
        })
      ))

    it.live("appends and reads back in seq order, per stream", () =>
      withStore((store) =>
        Effect.gen(function*() {
          expect(yield* store.lastSeq("a")).toBe(0)
          expect(yield* store.readStream("a")).toEqual([])
          expect(yield* store.streams()).toEqual([])

          yield* store.append([entry("a", 1), entry("b", 1), entry("a", 2)])
          yield* store.append([entry("a", 3, "three", "other-kind")])
          yield* store.append([])

          expect(yield* store.readStream("a")).toEqual([entry("a", 1), entry("a", 2), entry("a", 3, "three", "other-kind")])
          expect(yield* store.readStream("a", 2)).toEqual([entry("a", 2), entry("a", 3, "three", "other-kind")])
          expect(yield* store.readStream("a", 2, 1)).toEqual([entry("a", 2)])
          expect(yield* store.readStream("a", 4)).toEqual([])
          expect(yield* store.readStream("a", 1, 0)).toEqual([])
          expect(yield* store.readStream("b")).toEqual([entry("b", 1)])
          expect(yield* store.lastSeq("a")).toBe(3)
          expect(yield* store.lastSeq("b")).toBe(1)
          expect(yield* store.streams()).toEqual(["a", "b"])
        })
      ))

    it.live("keeps JSON bodies exactly, key order included", () =>
      withStore((store) =>
        Effect.gen(function*() {
          const bodies: Array<unknown> = [
            { z: 1, a: 2, m: { y: [3, 2, 1], b: null } },
            "a string with \"quotes\", \\ backslashes, {braces} and 'single quotes'",
            null,
            0,
            -1.5e-7,
            true,
            [],
            { unicode: "h\u00e9llo \u{1F600} \u4e2d\u6587", nul: "\u0000", lone: "\ud800" },
            { big: 12345678901234567890, nested: [[[{ deep: ["x"] }]]] }
          ]
          yield* store.append(bodies.map((body, i) => entry("json", i + 1, body)))
          const read = yield* store.readStream("json")
          expect(read.map((e) => e.body)).toEqual(bodies)
          expect(read.map((e) => JSON.stringify(e.body))).toEqual(bodies.map((b) => JSON.stringify(b)))
          // Stored values are copies: mutating what was read changes nothing.
          const first = read[0]!.body as { z: number }
          first.z = 99
          expect((yield* store.readStream("json", 1, 1))[0]!.body).toEqual(bodies[0])
        })
      ))

    it.live("rejects gaps and duplicates with tagged errors, and stores nothing of a rejected append", () =>
      withStore((store) =>
        Effect.gen(function*() {
          const fail = (entries: ReadonlyArray<JournalEntry>) => Effect.flip(store.append(entries))

          expect(yield* fail([entry("a", 2)])).toMatchObject({ _tag: "SequenceGap", stream: "a", expected: 1, actual: 2 })
          yield* store.append([entry("a", 1), entry("a", 2)])
          expect(yield* fail([entry("a", 2)])).toMatchObject({ _tag: "DuplicateSequence", stream: "a", seq: 2, lastSeq: 2 })
          expect(yield* fail([entry("a", 1)])).toMatchObject({ _tag: "DuplicateSequence", seq: 1, lastSeq: 2 })
          expect(yield* fail([entry("a", 4)])).toMatchObject({ _tag: "SequenceGap", expected: 3, actual: 4 })
          // inside one append
          expect(yield* fail([entry("a", 3), entry("a", 5)])).toMatchObject({ _tag: "SequenceGap", expected: 4, actual: 5 })
          expect(yield* fail([entry("a", 3), entry("a", 3)])).toMatchObject({ _tag: "DuplicateSequence", seq: 3, lastSeq: 3 })
          // all or nothing across streams: "b" is fine, "a" is not
          expect(yield* fail([entry("b", 1), entry("b", 2), entry("a", 7)])).toMatchObject({ _tag: "SequenceGap", stream: "a" })
          expect(yield* store.readStream("b")).toEqual([])
          expect(yield* store.lastSeq("b")).toBe(0)
          // snapshots in a rejected write are not applied either
          expect(
            yield* Effect.flip(store.write({ entries: [entry("a", 9)], putSnapshots: [{ stream: "a", key: "k", body: 1 }] }))
          ).toMatchObject({ _tag: "SequenceGap" })
          expect(yield* store.getSnapshot("a", "k")).toEqual(Option.none())

          expect((yield* store.readStream("a")).map((e) => e.seq)).toEqual([1, 2])
          yield* store.append([entry("a", 3)])
          expect(yield* store.lastSeq("a")).toBe(3)
        })
      ))

    it.live("rejects entries that cannot be stored", () =>
      withStore((store) =>
        Effect.gen(function*() {
          const invalid: Array<JournalEntry> = [
            entry("", 1),
            entry("a", 0),
            entry("a", 1.5),
            entry("a", Number.NaN),
            { stream: "a", seq: 1, kind: "test", body: undefined },
            entry("a", 1, () => 1),
            entry("a", 1, { n: 1n }),
            entry("a\u0000b", 1),
            entry("a", 1, {}, ""),
            entry("\ud800", 1),
            entry("x".repeat(1025), 1)
          ]
          for (const bad of invalid) {
            const error = yield* Effect.flip(store.append([bad]))
            expect(error._tag).toBe("InvalidEntry")
          }
          expect((yield* Effect.flip(store.putSnapshot("", "k", 1)))._tag).toBe("InvalidEntry")
          expect((yield* Effect.flip(store.putSnapshot("a", "k", undefined)))._tag).toBe("InvalidEntry")
          expect(yield* store.streams()).toEqual([])
        })
      ))

    it.live("commits 500 concurrent appends exactly once each", () =>
      withStore((store) =>
        Effect.gen(function*() {
          // 500 concurrent writers, each with its own stream and two appends in a row.
          yield* Effect.forEach(
            range(0, 499),
            (w) =>
              Effect.gen(function*() {
                yield* store.append([entry(`w${w}`, 1)])
                yield* store.append([entry(`w${w}`, 2), entry(`w${w}`, 3)])
              }),
            { concurrency: "unbounded", discard: true }
          )
          const streams = yield* store.streams()
          expect(streams.length).toBe(500)
          for (const w of range(0, 499)) {
            const read = yield* store.readStream(`w${w}`)
            expect(read.map((e) => e.seq)).toEqual([1, 2, 3])
            expect(read.map((e) => e.body)).toEqual([1, 2, 3].map((seq) => ({ stream: `w${w}`, seq })))
          }
          const stats = yield* store.stats()
          expect(stats.writes).toBe(1000)
          expect(stats.entries).toBe(1500)
          expect(stats.commits).toBeLessThanOrEqual(1000)
        })
      ))

    it.live("lets exactly one of many racing appends take a seq", () =>
      withStore((store) =>
        Effect.gen(function*() {
          const results = yield* Effect.forEach(
            range(1, 50),
            (i) => Effect.either(store.append([entry("race", 1, { writer: i })])),
            { concurrency: "unbounded" }
          )
          const won = results.filter(Either.isRight)
          const lost = results.filter(Either.isLeft)
          expect(won.length).toBe(1)
          expect(lost.length).toBe(49)
          for (const loss of lost) expect(loss.left._tag).toBe("DuplicateSequence")
          const read = yield* store.readStream("race")
          expect(read.length).toBe(1)
          // The winner is the first in queue order, i.e. the first writer started.
          expect(read[0]!.body).toEqual({ writer: 1 })
        })
      ))

    it.live("stores snapshots by stream and key, lists them by prefix in code point order", () =>
      withStore((store) =>
        Effect.gen(function*() {
          expect(yield* store.getSnapshot("s", "missing")).toEqual(Option.none())
          yield* store.putSnapshot("s", "acs/2", { n: 2 })
          yield* store.putSnapshot("s", "acs/10", { n: 10 })
          yield* store.putSnapshot("s", "acs/\u{1F600}", "astral")
          yield* store.putSnapshot("s", "acs/\uffff", "bmp-last")
          yield* store.putSnapshot("s", "machine", { state: "idle" })
          yield* store.putSnapshot("s", "", "empty key")
          yield* store.putSnapshot("other", "acs/1", 1)

          expect(yield* store.getSnapshot("s", "acs/2")).toEqual(Option.some({ n: 2 }))
          yield* store.putSnapshot("s", "acs/2", { n: 22 })
          expect(yield* store.getSnapshot("s", "acs/2")).toEqual(Option.some({ n: 22 }))

          const listed = yield* store.listSnapshots("s", "acs/")
          expect(listed.map((s) => s.key)).toEqual(["acs/10", "acs/2", "acs/\uffff", "acs/\u{1F600}"])
          expect(listed.map((s) => s.body)).toEqual([{ n: 10 }, { n: 22 }, "bmp-last", "astral"])
          expect((yield* store.listSnapshots("s")).map((s) => s.key)).toEqual([
            "",
            "acs/10",
            "acs/2",
            "acs/\uffff",
            "acs/\u{1F600}",
            "machine"
          ])
          expect((yield* store.listSnapshots("s", "zzz")).length).toBe(0)
          expect((yield* store.listSnapshots("s", "%")).length).toBe(0)

          yield* store.deleteSnapshot("s", "acs/2")
          yield* store.deleteSnapshot("s", "never-there")
          expect(yield* store.getSnapshot("s", "acs/2")).toEqual(Option.none())
          expect(yield* store.getSnapshot("other", "acs/1")).toEqual(Option.some(1))

          // entries and snapshots in one atomic write; delete after put of the same key wins
          yield* store.write({
            entries: [entry("s", 1)],
            putSnapshots: [{ stream: "s", key: "head", body: 1 }, { stream: "s", key: "tmp", body: 0 }],
            deleteSnapshots: [{ stream: "s", key: "tmp" }, { stream: "s", key: "machine" }]
          })
          expect(yield* store.lastSeq("s")).toBe(1)
          expect(yield* store.getSnapshot("s", "head")).toEqual(Option.some(1))
          expect(yield* store.getSnapshot("s", "tmp")).toEqual(Option.none())
          expect(yield* store.getSnapshot("s", "machine")).toEqual(Option.none())
        })
      ))

    it.live("orders stream names by code point", () =>
      withStore((store) =>
        Effect.gen(function*() {
          const names = ["b", "a", "B", "\u{1F600}", "\uffff", "a-1", "a/1", "\u00e9"]
          yield* store.append(names.map((n) => entry(n, 1)))
          expect(yield* store.streams()).toEqual(["B", "a", "a-1", "a/1", "b", "\u00e9", "\uffff", "\u{1F600}"])
        })
      ))

    it.live("resets one stream or everything", () =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.append([entry("a", 1), entry("a", 2), entry("b", 1)])
          yield* store.putSnapshot("a", "k", 1)
          yield* store.putSnapshot("b", "k", 2)

          yield* store.resetStream("a")
          expect(yield* store.readStream("a")).toEqual([])
          expect(yield* store.lastSeq("a")).toBe(0)
          expect(yield* store.getSnapshot("a", "k")).toEqual(Option.none())
          expect(yield* store.readStream("b")).toEqual([entry("b", 1)])
          expect(yield* store.getSnapshot("b", "k")).toEqual(Option.some(2))
          expect(yield* store.streams()).toEqual(["b"])
          yield* store.append([entry("a", 1, "again")])
          expect(yield* store.readStream("a")).toEqual([entry("a", 1, "again")])

          yield* store.reset()
          expect(yield* store.streams()).toEqual([])
          expect(yield* store.lastSeq("b")).toBe(0)
          expect(yield* store.listSnapshots("b")).toEqual([])
          yield* store.append([entry("b", 1, "fresh")])
          expect(yield* store.readStream("b")).toEqual([entry("b", 1, "fresh")])
        })
      ))

    it.live("keeps everything across a restart of the layer", () =>
      Effect.gen(function*() {
        const target = yield* newRestartTarget()
        const session = <A, E>(f: (store: EventStore["Type"]) => Effect.Effect<A, E>) =>
          Effect.flatMap(EventStore, f).pipe(Effect.provide(target.layer))

        yield* session((store) =>
          Effect.gen(function*() {
            yield* Effect.forEach(range(1, 50), (i) => store.append([entry(`s${i % 5}`, Math.ceil(i / 5))]), {
              discard: true
            })
            yield* store.putSnapshot("s0", "state", { upTo: 10 })
          })
        )
        const closed = yield* session((store) => Effect.succeed(store))
        expect((yield* Effect.flip(closed.append([entry("late", 1)])))._tag).toBe("StoreClosed")

        yield* session((store) =>
          Effect.gen(function*() {
            expect(yield* store.streams()).toEqual(["s0", "s1", "s2", "s3", "s4"])
            for (const s of range(0, 4)) expect((yield* store.readStream(`s${s}`)).map((e) => e.seq)).toEqual(range(1, 10))
            expect(yield* store.getSnapshot("s0", "state")).toEqual(Option.some({ upTo: 10 }))
            expect(yield* store.readStream("late")).toEqual([])
            // the heads survived: a duplicate is still a duplicate, the next seq is accepted
            expect((yield* Effect.flip(store.append([entry("s0", 10)])))._tag).toBe("DuplicateSequence")
            yield* store.append([entry("s0", 11)])
          })
        )
        yield* session((store) =>
          Effect.gen(function*() {
            expect(yield* store.lastSeq("s0")).toBe(11)
          })
        )
      }))
  })
}
