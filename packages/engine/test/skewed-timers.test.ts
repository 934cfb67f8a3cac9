import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { micros } from "@sandnet/core"
import { EventQueueNetwork, ManualClock, Outgoing, SkewedClock, makeDriver, type Actor, type Message } from "../src/index.ts"

/**
 * An actor whose clock runs behind the driver's (a SkewedClock) sets its timers in its own time.
 * The participant does this when it waits for a time proof (`now + 5s`); with a clock more than 5s
 * behind, the timer used to be queued in the past, so it fired at once, re-armed itself in the past
 * again, and virtual time never moved (found by the simulator's clock-skew fault).
 */
describe("timers of skewed actors", () => {
  it.effect("fire when the actor's own clock reaches them", () =>
    Effect.gen(function* () {
      const start = micros.seconds(1_000)
      const clock = new ManualClock(start)
      const network = new EventQueueNetwork(() => clock.now)
      const skew = -micros.seconds(10)
      const skewed = new SkewedClock(clock, skew)
      network.setTimeOffsets((address) => (address === "behind" ? skew : 0))
      const fired: Array<number> = []
      const actor: Actor = {
        address: "behind",
        receive: (_message: Message) =>
          Effect.flatMap(Clock.currentTimeNanos, (nanos) => {
            const local = micros.fromNanos(nanos)
            fired.push(clock.now - start)
            // Like a participant waiting for a time proof: look again 5 seconds later (in its own time).
            return fired.length < 3 ? network.sendAll([Outgoing.timer("behind", { _tag: "Again" }, local + micros.seconds(5))]) : Effect.void
          })
      }
      yield* network.register(actor)
      yield* network.sendAll([Outgoing.timer("behind", { _tag: "Again" }, start + skew)])
      const driver = makeDriver(network, clock, (address) => (address === "behind" ? skewed : clock))
      yield* driver.runUntil(start + micros.seconds(60))
      expect(fired).toEqual([0, micros.seconds(5), micros.seconds(10)])
    })
  )
})
