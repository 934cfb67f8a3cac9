/**
 * The group-commit writer against a scripted backend whose commits can be held open, so that what
 * ends up in which transaction is deterministic (no timing involved).
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Fiber, Scope } from "effect"
import { StorageError } from "../src/index.ts"
import { type JournalEntry, prepareWrite } from "../src/model.ts"
import { type CommitPlan, makeWriter, type Writer, type WriterBackend } from "../src/writer.ts"

const prepared = (entries: ReadonlyArray<JournalEntry>) => Either.getOrThrow(prepareWrite({ entries }))
const one = (stream: string, seq: number) => prepared([{ stream, seq, kind: "k", body: seq }])

interface Script {
  readonly commits: Array<CommitPlan>
  loads: number
  /** Commits started (held ones included). */
  entered: number
  /** Commits wait for this gate while it is set. */
  gate: Deferred.Deferred<void> | undefined
  /** Fails any commit containing this stream. */
  poison: string | undefined
}

const scripted = (script: Script): WriterBackend => ({
  loadHeads: Effect.sync(() => {
    script.loads += 1
    const heads = new Map<string, number>()
    for (const plan of script.commits) for (const h of plan.heads) heads.set(h.stream, h.last)
    return heads
  }),
  commit: (plan) =>
    Effect.gen(function*() {
      script.entered += 1
      if (script.gate !== undefined) yield* Deferred.await(script.gate)
      if (script.poison !== undefined && plan.entries.some((e) => e.stream === script.poison)) {
        return yield* new StorageError({ operation: "commit", message: "scripted failure" })
      }
      script.commits.push(plan)
    }),
  reset: () => Effect.void
})

const newScript = (): Script => ({ commits: [], loads: 0, entered: 0, gate: undefined, poison: undefined })

/** Waits (by yielding, not sleeping) until `n` requests are queued behind the batch in flight. */
const untilQueued = (writer: Writer, n: number) =>
  Effect.gen(function*() {
    while ((yield* writer.queued) < n) yield* Effect.yieldNow()
  })

/** Waits until `n` commits have started. */
const untilEntered = (script: Script, n: number) =>
  Effect.gen(function*() {
    while (script.entered < n) yield* Effect.yieldNow()
  })

/** Holds commits until the returned effect is run. */
const hold = (script: Script) =>
  Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    script.gate = gate
    return Effect.gen(function*() {
      script.gate = undefined
      yield* Deferred.succeed(gate, undefined)
    })
  })

describe("group-commit writer", () => {
  it.scoped("puts everything that queued during a commit into the next single commit, in queue order", () =>
    Effect.gen(function*() {
      const script = newScript()
      const writer = yield* makeWriter(scripted(script))
      const release = yield* hold(script)
      const first = yield* Effect.fork(writer.write(one("w0", 1)))
      yield* untilEntered(script, 1)
      const rest = yield* Effect.fork(
        Effect.forEach(
          Array.from({ length: 499 }, (_, i) => i + 1),
          (w) => writer.write(prepared([{ stream: `w${w}`, seq: 1, kind: "k", body: 1 }, { stream: `w${w}`, seq: 2, kind: "k", body: 2 }])),
          { concurrency: "unbounded", discard: true }
        )
      )
      yield* untilQueued(writer, 499)
      yield* release
      yield* Fiber.join(first)
      yield* Fiber.join(rest)

      expect(script.commits.length).toBe(2)
      expect(script.commits[0]!.entries.map((e) => e.stream)).toEqual(["w0"])
      const second = script.commits[1]!
      expect(second.entries.length).toBe(998)
      expect(second.entries.map((e) => `${e.stream}:${e.seq}`)).toEqual(
        Array.from({ length: 499 }, (_, i) => [`w${i + 1}:1`, `w${i + 1}:2`]).flat()
      )
      expect(second.heads.length).toBe(499)
      expect(yield* writer.stats).toEqual({ commits: 2, writes: 500, entries: 999, snapshotOps: 0 })
    }))

  it.scoped("respects maxBatch", () =>
    Effect.gen(function*() {
      const script = newScript()
      const writer = yield* makeWriter(scripted(script), { maxBatch: 100 })
      const release = yield* hold(script)
      const first = yield* Effect.fork(writer.write(one("first", 1)))
      yield* untilEntered(script, 1)
      const rest = yield* Effect.fork(
        Effect.forEach(Array.from({ length: 250 }, (_, i) => i), (w) => writer.write(one(`w${w}`, 1)), {
          concurrency: "unbounded",
          discard: true
        })
      )
      yield* untilQueued(writer, 250)
      yield* release
      yield* Fiber.join(first)
      yield* Fiber.join(rest)
      expect(script.commits.map((c) => c.entries.length)).toEqual([1, 100, 100, 50])
    }))

  it.scoped("fails every caller of a failed commit, only them, and re-reads the heads", () =>
    Effect.gen(function*() {
      const script = newScript()
      const writer = yield* makeWriter(scripted(script))
      yield* writer.write(one("ok", 1))
      expect(script.loads).toBe(1)

      const release = yield* hold(script)
      const blocker = yield* Effect.fork(writer.write(one("ok", 2)))
      yield* untilEntered(script, 2)
      script.poison = "bad"
      const batch = yield* Effect.fork(
        Effect.all([writer.write(one("x", 1)), writer.write(one("bad", 1)), writer.write(one("y", 1))].map(Effect.either), {
          concurrency: "unbounded"
        })
      )
      yield* untilQueued(writer, 3)
      yield* release
      yield* Fiber.join(blocker)
      const results = yield* Fiber.join(batch)
      for (const result of results) {
        expect(Either.isLeft(result) && result.left._tag).toBe("StorageError")
      }
      script.poison = undefined
      // nothing of the failed batch was committed; x can still take seq 1
      yield* writer.write(one("x", 1))
      expect(script.loads).toBe(2)
      expect(script.commits.flatMap((c) => c.entries.map((e) => `${e.stream}:${e.seq}`))).toEqual(["ok:1", "ok:2", "x:1"])
    }))

  it.scoped("rejects a request that conflicts with an earlier one in the same batch, commits the rest", () =>
    Effect.gen(function*() {
      const script = newScript()
      const writer = yield* makeWriter(scripted(script))
      const release = yield* hold(script)
      const blocker = yield* Effect.fork(writer.write(one("blocker", 1)))
      yield* untilEntered(script, 1)
      const batch = yield* Effect.fork(
        Effect.all(
          [writer.write(one("s", 1)), writer.write(one("s", 1)), writer.write(one("s", 2)), writer.write(one("s", 4))].map(
            Effect.either
          ),
          { concurrency: "unbounded" }
        )
      )
      yield* untilQueued(writer, 4)
      yield* release
      yield* Fiber.join(blocker)
      const [a, b, c, d] = yield* Fiber.join(batch)
      expect(Either.isRight(a!)).toBe(true)
      expect(Either.isLeft(b!) && b.left).toMatchObject({ _tag: "DuplicateSequence", seq: 1, lastSeq: 1 })
      expect(Either.isRight(c!)).toBe(true)
      expect(Either.isLeft(d!) && d.left).toMatchObject({ _tag: "SequenceGap", expected: 3, actual: 4 })
      expect(script.commits.length).toBe(2)
      expect(script.commits[1]!.heads).toEqual([{ stream: "s", expected: 0, last: 2 }])
    }))

  it.effect("on close, finishes the commit in flight and fails what is still queued with StoreClosed", () =>
    Effect.gen(function*() {
      const script = newScript()
      const scope = yield* Scope.make()
      const writer = yield* makeWriter(scripted(script)).pipe(Scope.extend(scope))
      const release = yield* hold(script)
      const inFlight = yield* Effect.fork(writer.write(one("a", 1)))
      yield* untilEntered(script, 1)
      const queued = yield* Effect.fork(Effect.either(writer.write(one("b", 1))))
      yield* untilQueued(writer, 1)
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* release
      yield* Fiber.join(closing)
      yield* Fiber.join(inFlight)
      const late = yield* Fiber.join(queued)
      expect(Either.isLeft(late) && late.left._tag).toBe("StoreClosed")
      expect((yield* Effect.flip(writer.write(one("c", 1))))._tag).toBe("StoreClosed")
      expect(script.commits.flatMap((c) => c.entries.map((e) => e.stream))).toEqual(["a"])
    }))
})
