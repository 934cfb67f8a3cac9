/**
 * The cluster transport on the local PostgreSQL server: the first proposal of a value wins; a
 * recipient reads each sender's messages in order, once, with a cursor per sender (a sender's
 * later batch never hides an earlier one); a reader is woken when messages for it commit; another
 * node's journal is readable, and one that does not exist yet reads as empty.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Effect, Fiber, Layer, Stream } from "effect"
import { dropClusterSchema, EventStore, makeClusterTransport } from "../src/index.ts"
import { dropTestSchemas, postgresUrl, testSchema } from "./postgres.ts"

afterAll(() => Effect.runPromise(dropTestSchemas))

describe("cluster transport", () => {
  it.scopedLive("agrees on the first proposal, delivers per sender in order, once", () =>
    Effect.gen(function* () {
      const schema = testSchema()
      yield* Effect.addFinalizer(() => Effect.ignore(dropClusterSchema(postgresUrl, schema)))
      const a = yield* makeClusterTransport({ url: postgresUrl, schema })
      const b = yield* makeClusterTransport({ url: postgresUrl, schema })
      expect(yield* a.agree("network", { validators: 2 })).toEqual({ validators: 2 })
      expect(yield* b.agree("network", { validators: 5 })).toEqual({ validators: 2 })

      yield* a.send("sv1", [{ recipient: "v1", body: "a1" }, { recipient: "v2", body: "x" }, { recipient: "v1", body: "a2" }])
      yield* b.send("v2", [{ recipient: "v1", body: "b1" }])
      const first = yield* a.receive("v1", new Map(), 100)
      expect(first.map((m) => `${m.sender}:${m.seq}:${m.body}`)).toEqual(["sv1:1:a1", "sv1:2:a2", "v2:1:b1"])
      const cursor = new Map(first.map((m) => [m.sender, m.seq] as const))
      expect(yield* a.receive("v1", cursor, 100)).toEqual([])
      yield* a.send("sv1", [{ recipient: "v1", body: "a3" }])
      expect((yield* b.receive("v1", cursor, 100)).map((m) => `${m.sender}:${m.seq}:${m.body}`)).toEqual(["sv1:3:a3"])
      // a second transport of the same sender continues its numbering (it reads its heads once)
      const again = yield* makeClusterTransport({ url: postgresUrl, schema })
      yield* again.send("sv1", [{ recipient: "v1", body: "a4" }])
      expect((yield* b.receive("v1", new Map([["sv1", 3], ["v2", 1]]), 100)).map((m) => m.seq)).toEqual([4])
      expect((yield* b.receive("v2", new Map(), 100)).map((m) => m.body)).toEqual(["x"])
    })
  )

  it.scopedLive("wakes a recipient when messages for it commit", () =>
    Effect.gen(function* () {
      const schema = testSchema()
      yield* Effect.addFinalizer(() => Effect.ignore(dropClusterSchema(postgresUrl, schema)))
      const t = yield* makeClusterTransport({ url: postgresUrl, schema })
      const woken = yield* Effect.fork(Stream.runCollect(Stream.take(t.wakeups("v1"), 1)))
      // LISTEN is asynchronous: send until the wake-up arrives
      const sent = yield* Effect.fork(Effect.forever(Effect.zipRight(t.send("sv1", [{ recipient: "v1", body: "hello" }]), Effect.sleep("100 millis"))))
      const got = yield* Fiber.join(woken).pipe(Effect.timeout("10 seconds"))
      yield* Fiber.interrupt(sent)
      expect(Chunk.size(got)).toBe(1)
    })
  )

  it.scopedLive("reads another node's journal; a node without one yet reads as empty", () =>
    Effect.gen(function* () {
      const cluster = testSchema()
      const node = testSchema()
      yield* Effect.addFinalizer(() => Effect.ignore(dropClusterSchema(postgresUrl, cluster)))
      const t = yield* makeClusterTransport({ url: postgresUrl, schema: cluster })
      expect(yield* t.readJournal(node, "participant/v1", 1, 10)).toEqual([])
      const store = Context.get(yield* Layer.build(EventStore.postgres({ url: postgresUrl, schema: node })), EventStore)
      yield* store.append([
        { stream: "participant/v1", seq: 1, kind: "A", body: { n: 1 } },
        { stream: "participant/v1", seq: 2, kind: "B", body: { n: 2 } }
      ])
      expect((yield* t.readJournal(node, "participant/v1", 2, 10)).map((e) => [e.seq, e.kind, e.body])).toEqual([[2, "B", { n: 2 }]])
      expect(yield* Effect.flip(t.readJournal("Not A Schema", "x", 1, 1))).toMatchObject({ _tag: "StoreConfigError" })
    })
  )

  it.scopedLive("reads several streams of several nodes' journals in one statement, each as readJournal reads it alone", () =>
    Effect.gen(function* () {
      const cluster = testSchema()
      const [first, second, missing] = [testSchema(), testSchema(), testSchema()]
      yield* Effect.addFinalizer(() => Effect.ignore(dropClusterSchema(postgresUrl, cluster)))
      const t = yield* makeClusterTransport({ url: postgresUrl, schema: cluster })
      for (const [node, n] of [[first, 5], [second, 3]] as const) {
        const store = Context.get(yield* Layer.build(EventStore.postgres({ url: postgresUrl, schema: node })), EventStore)
        for (const stream of ["participant/a", "scan/a"]) {
          yield* store.append(Array.from({ length: n }, (_, i) => ({ stream, seq: i + 1, kind: "K", body: { node, stream, i } })))
        }
      }
      const reads = [
        { schema: first, stream: "participant/a", fromSeq: 2 },
        { schema: first, stream: "scan/a", fromSeq: 5 },
        { schema: second, stream: "participant/a", fromSeq: 1 },
        { schema: second, stream: "scan/a", fromSeq: 4 }
      ]
      const alone = yield* Effect.forEach(reads, (r) => t.readJournal(r.schema, r.stream, r.fromSeq, 3))
      expect(alone.map((entries) => entries.map((e) => e.seq))).toEqual([[2, 3, 4], [5], [1, 2, 3], []])
      expect(yield* t.readJournals(reads, 3)).toEqual(alone)
      // a node without a journal yet: the others are still read, it reads as empty
      expect(yield* t.readJournals([...reads, { schema: missing, stream: "participant/a", fromSeq: 1 }], 3)).toEqual([...alone, []])
      expect(yield* t.readJournals([], 3)).toEqual([])
      expect(yield* Effect.flip(t.readJournals([reads[0]!, { schema: "Not A Schema", stream: "x", fromSeq: 1 }], 1))).toMatchObject({ _tag: "StoreConfigError" })
    })
  )
})
