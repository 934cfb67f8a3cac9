/**
 * The committer's synchronous commits: a store whose writes are synchronous (the memory store) is
 * written in `enqueue` itself when nothing is queued or being written, so a read that saw the batch
 * answers at once; anything else keeps the committer fiber's order, and a wrapper of the store
 * (tests inject failures that way) always goes through its own `write`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit } from "effect"
import { EventStore, type EventStoreService } from "@sandnet/store"
import * as Node from "../src/index.ts"

const entry = (stream: string, seq: number) => ({ stream, seq, kind: "k", body: { seq } })

/** Whether `whenSettled` answered during the call, and with what. */
const settledNow = (committer: Node.JournalCommitter, done: Parameters<Node.JournalCommitter["whenSettled"]>[0]): boolean | undefined => {
  let outcome: boolean | undefined
  committer.whenSettled(done, (committed) => (outcome = committed))
  return outcome
}

/** `body` with a fresh memory store and a committer on it. */
const onMemoryStore = <A, E>(body: (store: EventStoreService, committer: Node.JournalCommitter) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    return yield* body(store, yield* Node.makeJournalCommitter(store))
  }).pipe(Effect.provide(EventStore.memory))

describe("the committer on a synchronous store", () => {
  it.scoped("commits a batch in enqueue when nothing waits, and keeps the order behind queued items", () =>
    onMemoryStore((store, committer) =>
      Effect.gen(function* () {
        const first = committer.enqueue({ entries: [entry("s", 1)] })
        expect(settledNow(committer, first)).toBe(true)
        expect((yield* store.readStream("s")).map((e) => e.seq)).toEqual([1])
        // A barrier is queued for the fiber: the next batch waits behind it instead of overtaking.
        const barrier = committer.enqueue(undefined)
        const second = committer.enqueue({ entries: [entry("s", 2)] })
        expect(settledNow(committer, second)).toBeUndefined()
        yield* Deferred.await(barrier)
        yield* Deferred.await(second)
        expect(settledNow(committer, second)).toBe(true)
        // Idle again: synchronous once more.
        const third = committer.enqueue({ entries: [entry("s", 3)] })
        expect(settledNow(committer, third)).toBe(true)
        expect((yield* store.readStream("s")).map((e) => e.seq)).toEqual([1, 2, 3])
      })
    )
  )

  it.scoped("a rejected synchronous write fails its batch and everything queued after it until healed", () =>
    onMemoryStore((store, committer) =>
      Effect.gen(function* () {
        const gap = committer.enqueue({ entries: [entry("s", 2)] })
        expect(settledNow(committer, gap)).toBe(false)
        expect(committer.failedNow()).toBe(true)
        const after = committer.enqueue({ entries: [entry("s", 1)] })
        const exit = yield* Effect.exit(Deferred.await(after))
        expect(Exit.isFailure(exit) && String(exit.cause).includes("an earlier commit failed")).toBe(true)
        expect(yield* store.readStream("s")).toEqual([])
        yield* committer.healed
        const healed = committer.enqueue({ entries: [entry("s", 1)] })
        expect(settledNow(committer, healed)).toBe(true)
      })
    )
  )

  it.scoped("a wrapper of the store goes through its own write, in the committer's fiber", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      let writes = 0
      const wrapped: EventStoreService = { ...store, write: (batch) => Effect.suspend(() => ((writes += 1), store.write(batch))) }
      const committer = yield* Node.makeJournalCommitter(wrapped)
      const done = committer.enqueue({ entries: [entry("s", 1)] })
      expect(settledNow(committer, done)).toBeUndefined()
      yield* Deferred.await(done)
      expect(writes).toBe(1)
    }).pipe(Effect.provide(EventStore.memory))
  )
})
