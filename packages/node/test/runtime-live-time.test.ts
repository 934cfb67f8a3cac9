/**
 * An operation brings the engine up to the live time first (lock.ts, `makeRun`): the engine's
 * time reads the process's clock, not the engine's own, so an operation sees the time the world
 * is at even when no tick has run since. (A catch-up moved inside the engine's provide read the
 * engine's own clock instead, and time stood still between ticks: the web UI's hour-snapshot test
 * caught it.)
 */
import { EventStore } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"

let scope: Scope.CloseableScope | undefined
afterEach(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  scope = undefined
})

describe("an operation's time", () => {
  it("is the live time when the operation runs, with no tick in between", async () => {
    scope = Effect.runSync(Scope.make())
    const runtime = await Effect.runPromise(
      Effect.gen(function* () {
        const store = Context.get(yield* Layer.buildWithScope(EventStore.memory, scope!), EventStore)
        const storage = yield* Node.makeNodeStorage(store)
        // ticks far apart: only the operations themselves can move the engine's time
        return yield* Node.makeNodeRuntime({ storage, tickIntervalMillis: 3_600_000 })
      }).pipe(Scope.extend(scope))
    )
    const engineNow = () => Effect.runPromise(runtime.run((engine) => Effect.sync(() => engine.clock.now)))
    const first = await engineNow()
    const waitedMillis = 60
    await new Promise((resolve) => setTimeout(resolve, waitedMillis))
    const second = await engineNow()
    // microseconds; a little less than waited is timer granularity
    expect(second - first).toBeGreaterThanOrEqual((waitedMillis - 10) * 1000)
  })
})
