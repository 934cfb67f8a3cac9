/**
 * Model-based properties: random sequences of operations against the memory layer must give the
 * results of a naive model (a map of arrays); and the SQL layers must give the memory layer's
 * results and final state, operation by operation.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { compareCodePoints, EventStore, type JournalEntry } from "../src/index.ts"
import { dropTestSchemas, postgresUrl, testSchema } from "./postgres.ts"

type Op =
  | { readonly op: "append"; readonly parts: ReadonlyArray<{ stream: string; delta: number; count: number }> }
  | { readonly op: "put"; readonly stream: string; readonly key: string; readonly body: number }
  | { readonly op: "delete"; readonly stream: string; readonly key: string }
  | { readonly op: "resetStream"; readonly stream: string }
  | { readonly op: "reset" }

const streamArb = fc.constantFrom("a", "b", "c\u{1F600}")
const keyArb = fc.constantFrom("k", "k/1", "k/2", "x")
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constant("append" as const),
      parts: fc.array(
        fc.record({ stream: streamArb, delta: fc.constantFrom(-1, 0, 0, 0, 0, 1), count: fc.integer({ min: 1, max: 3 }) }),
        { minLength: 1, maxLength: 2 }
      )
    })
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("put" as const), stream: streamArb, key: keyArb, body: fc.integer() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), stream: streamArb, key: keyArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("resetStream" as const), stream: streamArb }) },
  { weight: 1, arbitrary: fc.constant({ op: "reset" as const }) }
)

interface Dump {
  readonly streams: Record<string, ReadonlyArray<JournalEntry>>
  readonly snapshots: Record<string, ReadonlyArray<readonly [string, unknown]>>
}

/** The entries an append op asks for, given the heads at that moment. */
const entriesOf = (op: Extract<Op, { op: "append" }>, headOf: (stream: string) => number, n: number) => {
  const entries: Array<JournalEntry> = []
  const next = new Map<string, number>()
  for (const part of op.parts) {
    const start = next.get(part.stream) ?? headOf(part.stream) + 1 + part.delta
    for (let i = 0; i < part.count; i++) {
      entries.push({ stream: part.stream, seq: start + i, kind: "k", body: { n, i } })
    }
    next.set(part.stream, start + part.count)
  }
  return entries
}

/** The naive model: results ("ok" or an error tag) and the final state. */
const model = (ops: ReadonlyArray<Op>) => {
  const streams = new Map<string, Array<JournalEntry>>()
  const snapshots = new Map<string, Map<string, unknown>>()
  const headOf = (stream: string) => streams.get(stream)?.length ?? 0
  const results: Array<string> = ops.map((op, n) => {
    switch (op.op) {
      case "append": {
        const entries = entriesOf(op, headOf, n)
        // shape first (seq >= 1), then each stream's first seq against its head, in order of appearance
        if (entries.some((e) => e.seq < 1)) return "InvalidEntry"
        const firsts = new Map<string, number>()
        for (const e of entries) if (!firsts.has(e.stream)) firsts.set(e.stream, e.seq)
        for (const [stream, first] of firsts) {
          if (first <= headOf(stream)) return "DuplicateSequence"
          if (first > headOf(stream) + 1) return "SequenceGap"
        }
        for (const e of entries) {
          const list = streams.get(e.stream) ?? []
          list.push(e)
          streams.set(e.stream, list)
        }
        return "ok"
      }
      case "put": {
        const area = snapshots.get(op.stream) ?? new Map<string, unknown>()
        area.set(op.key, op.body)
        snapshots.set(op.stream, area)
        return "ok"
      }
      case "delete":
        snapshots.get(op.stream)?.delete(op.key)
        return "ok"
      case "resetStream":
        streams.delete(op.stream)
        snapshots.delete(op.stream)
        return "ok"
      case "reset":
        streams.clear()
        snapshots.clear()
        return "ok"
    }
  })
  const dump: Dump = {
    streams: Object.fromEntries([...streams].filter(([, l]) => l.length > 0).sort(([a], [b]) => compareCodePoints(a, b))),
    snapshots: Object.fromEntries(
      [...snapshots]
        .filter(([, area]) => area.size > 0)
        .sort(([a], [b]) => compareCodePoints(a, b))
        .map(([s, area]) => [s, [...area].sort(([a], [b]) => compareCodePoints(a, b))] as const)
    )
  }
  return { results, dump }
}

/** Runs the ops against a store: results and the final state as seen through the API. */
const play = (ops: ReadonlyArray<Op>) =>
  Effect.gen(function*() {
    const store = yield* EventStore
    const results: Array<string> = []
    for (const [n, op] of ops.entries()) {
      const effect = (() => {
        switch (op.op) {
          case "append":
            return Effect.flatMap(
              Effect.forEach(op.parts, (p) => store.lastSeq(p.stream)),
              (heads) => {
                const known = new Map(op.parts.map((p, i) => [p.stream, heads[i]!] as const))
                return store.append(entriesOf(op, (s) => known.get(s) ?? 0, n))
              }
            )
          case "put":
            return store.putSnapshot(op.stream, op.key, op.body)
          case "delete":
            return store.deleteSnapshot(op.stream, op.key)
          case "resetStream":
            return store.resetStream(op.stream)
          case "reset":
            return store.reset()
        }
      })()
      results.push(yield* effect.pipe(Effect.as("ok"), Effect.catchAll((e) => Effect.succeed(e._tag))))
    }
    const names = yield* store.streams()
    const streams: Record<string, ReadonlyArray<JournalEntry>> = {}
    const snapshots: Record<string, ReadonlyArray<readonly [string, unknown]>> = {}
    for (const name of names) streams[name] = yield* store.readStream(name)
    for (const name of ["a", "b", "c\u{1F600}"].sort(compareCodePoints)) {
      const listed = yield* store.listSnapshots(name)
      if (listed.length > 0) snapshots[name] = listed.map((s) => [s.key, s.body] as const)
      for (const s of listed) expect(yield* store.getSnapshot(name, s.key)).toEqual(Option.some(s.body))
    }
    const dump: Dump = { streams, snapshots }
    return { results, dump }
  })

const opsArb = fc.array(opArb, { minLength: 1, maxLength: 60 })

describe("EventStore against a model", () => {
  it("memory layer: every random history gives the model's results and state", async () => {
    await fc.assert(
      fc.asyncProperty(opsArb, async (ops) => {
        const got = await Effect.runPromise(play(ops).pipe(Effect.provide(EventStore.memory)))
        expect(got).toEqual(model(ops))
      }),
      { numRuns: 300 }
    )
  })

  const sqlParity = (name: string, layer: () => Layer.Layer<EventStore, unknown>, numRuns: number) =>
    it(`${name}: same results and state as the memory layer`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 20, maxLength: 80 }), async (ops) => {
          const expected = await Effect.runPromise(play(ops).pipe(Effect.provide(EventStore.memory)))
          const got = await Effect.runPromise(play(ops).pipe(Effect.provide(layer())))
          expect(got).toEqual(expected)
        }),
        { numRuns }
      )
    })

  sqlParity("postgres", () => EventStore.postgres({ url: postgresUrl, schema: testSchema() }), 15)

  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-store-model-"))
  let n = 0
  sqlParity("pglite", () => EventStore.pglite({ dataDir: path.join(root, `m${n++}`) }), 2)

  afterAll(async () => {
    await Effect.runPromise(dropTestSchemas)
    fs.rmSync(root, { recursive: true, force: true })
  })
})
