/**
 * An idle node writes nothing: ticks that deliver nothing produce no write batch (the clock is
 * stored with batches that carry changes, or when the developer's offset moves).
 */
import { SIMULATION_EPOCH, micros } from "@sandnet/core"
import { EventStore } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"

describe("idle node", () => {
  it("ticks write nothing; advancing time stores the offset", async () => {
    const scope = Effect.runSync(Scope.make())
    const { runtime, store } = await Effect.runPromise(
      Effect.gen(function* () {
        const store = Context.get(yield* Layer.buildWithScope(EventStore.memory, scope), EventStore)
        const storage = yield* Node.makeNodeStorage(store)
        const runtime = yield* Node.makeNodeRuntime({ storage, tickIntervalMillis: 5, clock: { _tag: "manual", start: SIMULATION_EPOCH } })
        return { runtime, store }
      }).pipe(Scope.extend(scope))
    )
    const before = await Effect.runPromise(store.stats())
    await new Promise((r) => setTimeout(r, 200))
    expect(await Effect.runPromise(store.stats())).toEqual(before)
    await Effect.runPromise(runtime.advanceTime(micros.minutes(5)))
    const clock = await Effect.runPromise(store.getSnapshot(Node.Streams.runtime, "clock"))
    expect(clock).toMatchObject({ _tag: "Some", value: { offset: micros.minutes(5) } })
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })
})
