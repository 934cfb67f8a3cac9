/**
 * The embedded store's journal mirror: whatever happened to the file (a crash in the middle of an
 * append, lines lost, a database replaced under it, a reset), a start reads exactly what the
 * database holds (or, from an engine checkpoint, what follows its heads), and leaves the file
 * holding exactly what the database holds again.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeJournalMirror, mirrorFile, readMirror } from "../src/journal-mirror.ts"
import { type MirrorReadBackend, readAllMirrored } from "../src/journal-mirror-read.ts"
import type { EncodedEntry, JournalEntry } from "../src/model.ts"
import { EventStore, pgliteLayer } from "../src/index.ts"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-mirror-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** A database in memory, bodies as text, as the read sees one. */
type Database = Map<string, Array<EncodedEntry>>

const backendOf = (db: Database): MirrorReadBackend => ({
  heads: Effect.sync(() => new Map([...db].map(([stream, entries]) => [stream, entries.length] as const))),
  bodyTexts: (at) => Effect.sync(() => new Map(at.flatMap(({ stream, seq }) => {
    const e = db.get(stream)?.[seq - 1]
    return e === undefined ? [] : [[stream, e.json] as const]
  }))),
  readTexts: (stream, fromSeq, limit) => Effect.sync(() => (db.get(stream) ?? []).slice(fromSeq - 1, fromSeq - 1 + limit))
})

const decoded = (db: Database) =>
  new Map([...db].sort(([a], [b]) => (a < b ? -1 : 1)).map(([stream, entries]) =>
    [stream, entries.map((e): JournalEntry => ({ stream, seq: e.seq, kind: e.kind, body: JSON.parse(e.json) }))] as const
  ))

/** What the file holds, as the database's shape (and the file is a usable mirror at all). */
const fileHolds = (file: string) => {
  const contents = readMirror(file)
  if (contents._tag !== "Loaded") return contents._tag
  return new Map([...contents.streams].sort(([a], [b]) => (a < b ? -1 : 1)).map(([stream, lines]) => [stream, lines.entriesFrom(1)] as const))
}

/** Each stream's seq a start from a checkpoint reads after: `fraction` of its length. */
const headsAt = (db: Database, fraction: number) => new Map([...db].map(([stream, entries]) => [stream, Math.floor(entries.length * fraction)] as const))

const after = (read: ReadonlyMap<string, ReadonlyArray<JournalEntry>>, heads: ReadonlyMap<string, number>) =>
  new Map([...read].map(([stream, entries]) => [stream, entries.filter((e) => e.seq > (heads.get(stream) ?? 0))] as const))

type Op =
  | { readonly _tag: "Commit"; readonly streams: ReadonlyArray<number>; readonly body: string }
  | { readonly _tag: "CommitFails"; readonly stream: number }
  | { readonly _tag: "CutFile"; readonly at: number }
  | { readonly _tag: "ReplaceDatabase"; readonly stream: number; readonly body: string }
  | { readonly _tag: "Restart"; readonly fromCheckpoint: number | undefined }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ _tag: fc.constant("Commit" as const), streams: fc.array(fc.nat(3), { minLength: 1, maxLength: 4 }), body: fc.string({ maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("CommitFails" as const), stream: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("CutFile" as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("ReplaceDatabase" as const), stream: fc.nat(3), body: fc.string({ maxLength: 8 }) }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Restart" as const), fromCheckpoint: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }) }) }
)

const streamName = (i: number) => ["participant/a", "scan/sv1", "wallet/v1", "admin"][i]!

describe("journal mirror", () => {
  it("a start reads what the database holds, whatever happened to the file, and leaves the file holding it", () => {
    let run = 0
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const file = path.join(root, `property-${run++}.jsonl`)
        const db: Database = new Map()
        let mirror = makeJournalMirror(file)
        // a start reads everything, or (from a checkpoint) what follows each stream's head; the file holds everything after it
        const start = (fromCheckpoint?: number) => {
          mirror.close()
          mirror = makeJournalMirror(file)
          const heads = fromCheckpoint === undefined ? undefined : headsAt(db, fromCheckpoint)
          const read = Effect.runSync(readAllMirrored(mirror, backendOf(db), heads))
          expect(read).toEqual(heads === undefined ? decoded(db) : after(decoded(db), heads))
          expect(fileHolds(file)).toEqual(decoded(db))
        }
        start()
        for (const op of ops) {
          if (op._tag === "Commit") {
            const entries = op.streams.map((i) => {
              const stream = streamName(i)
              const list = db.get(stream) ?? []
              db.set(stream, list)
              const entry = { stream, seq: list.length + 1, kind: "k", json: JSON.stringify({ n: list.length, body: op.body }) }
              list.push(entry)
              return entry
            })
            mirror.committed(entries)
          } else if (op._tag === "CommitFails") {
            // the commit reached the database, its answer did not
            const stream = streamName(op.stream)
            const list = db.get(stream) ?? []
            db.set(stream, list)
            list.push({ stream, seq: list.length + 1, kind: "k", json: "{\"lost\":true}" })
            mirror.unsync()
          } else if (op._tag === "CutFile") {
            // a crash: the file loses its tail, the node starts again
            if (fs.existsSync(file)) fs.truncateSync(file, Math.floor(fs.statSync(file).size * op.at))
            start()
          } else if (op._tag === "ReplaceDatabase") {
            // a restore under the file while the node is stopped: the stream is another history of the same length
            const stream = streamName(op.stream)
            const list = db.get(stream) ?? []
            db.set(stream, list.map((e) => ({ ...e, json: JSON.stringify({ restored: op.body, seq: e.seq }) })))
            if (list.length === 0) db.delete(stream)
            start()
          } else {
            start(op.fromCheckpoint)
          }
        }
        start()
        mirror.close()
      }),
      { numRuns: 200 }
    )
  })

  it("a file that cannot be read or parsed is reported as unusable, never thrown", () => {
    const dir = path.join(root, "not-a-file.jsonl")
    fs.mkdirSync(dir)
    expect(readMirror(dir)).toMatchObject({ _tag: "Unusable" })
    const garbage = path.join(root, "garbage.jsonl")
    fs.writeFileSync(garbage, Buffer.from([0xff, 0xfe, 0x00, 0x0a, 0x7b, 0x0a]))
    expect(readMirror(garbage)).toMatchObject({ _tag: "Unusable" })
    expect(readMirror(path.join(root, "missing.jsonl"))).toEqual({ _tag: "Absent" })
  })

  it.live("an embedded store's start uses the file for what it holds and the database for the rest", () =>
    Effect.gen(function*() {
      const dataDir = path.join(root, "embedded")
      const file = mirrorFile(dataDir, "sandnet")
      const layer = EventStore.pglite({ dataDir })
      const entry = (stream: string, seq: number): JournalEntry => ({ stream, seq, kind: "k", body: { stream, seq } })
      yield* Effect.gen(function*() {
        const store = yield* EventStore
        expect(yield* store.readAll()).toEqual(new Map())
        yield* store.append([entry("a", 1), entry("b", 1), entry("a", 2)])
        yield* store.append([entry("a", 3)])
      }).pipe(Effect.provide(layer))
      expect(fs.readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(5)
      // A line of the prefix edited in the file is what the start reads: the file is used.
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("{\"stream\":\"a\",\"seq\":1}", "{\"stream\":\"a\",\"seq\":1,\"from\":\"mirror\"}"))
      // A crash in the middle of an append: the last line is cut and a commit is missing.
      const text = fs.readFileSync(file, "utf8")
      fs.writeFileSync(file, text.slice(0, text.length - 10))
      yield* Effect.gen(function*() {
        const store = yield* EventStore
        const all = yield* store.readAll()
        expect(all.get("a")!.map((e) => e.body)).toEqual([{ stream: "a", seq: 1, from: "mirror" }, { stream: "a", seq: 2 }, { stream: "a", seq: 3 }])
        expect(all.get("b")!.map((e) => e.body)).toEqual([{ stream: "b", seq: 1 }])
      }).pipe(Effect.provide(layer))
      // The database replaced under the file (a restore): its last entry of `a` differs.
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient
        yield* sql`UPDATE sandnet.events SET body = '{"restored":true}' WHERE stream = 'a' AND seq = 3`
      }).pipe(Effect.provide(pgliteLayer({ dataDir })))
      yield* Effect.gen(function*() {
        const store = yield* EventStore
        const all = yield* store.readAll()
        expect(all.get("a")!.map((e) => e.body)).toEqual([{ stream: "a", seq: 1 }, { stream: "a", seq: 2 }, { restored: true }])
        // a reset drops the file; the next full read writes it again
        yield* store.reset()
        expect(fs.existsSync(file)).toBe(false)
        yield* store.append([entry("c", 1)])
      }).pipe(Effect.provide(layer))
      yield* Effect.gen(function*() {
        const store = yield* EventStore
        expect([...(yield* store.readAll()).keys()]).toEqual(["c"])
      }).pipe(Effect.provide(layer))
      expect(fileHolds(file)).toEqual(new Map([["c", [entry("c", 1)]]]))
    }), 60_000)
})
