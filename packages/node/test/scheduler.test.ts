/**
 * The serving node's scheduler (runtime/scheduler.ts): fibers compute what they compute under any
 * scheduler; this one gives the event loop turns (pending I/O, immediates) while fibers are busy,
 * and stops giving them beyond its bound of queued tasks.
 */
import { Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { ENGINE_OPERATION_PRIORITY, NODE_SCHEDULER_MAX_QUEUED_TASKS, TimeSlicedScheduler } from "../src/index.ts"

/** A fiber yielding `rounds` times, and the round it had reached when an immediate queued at its start ran. */
const busyFiberAndImmediate = (scheduler: TimeSlicedScheduler, rounds: number) =>
  new Promise<{ readonly result: number; readonly roundAtImmediate: number }>((resolve) => {
    let round = 0
    let roundAtImmediate = -1
    setImmediate(() => (roundAtImmediate = round))
    const work = Effect.gen(function* () {
      for (; round < rounds; round++) yield* Effect.yieldNow()
      return round
    })
    // answered after the immediate queued at the start (immediates run in their order)
    void Effect.runPromise(work.pipe(Effect.withScheduler(scheduler))).then((result) => setImmediate(() => resolve({ result, roundAtImmediate })))
  })

describe("the node's time-sliced scheduler", () => {
  it("lets an immediate run while a fiber keeps yielding, and the fiber still finishes its work", async () => {
    const { result, roundAtImmediate } = await busyFiberAndImmediate(new TimeSlicedScheduler(0), 5_000)
    expect(result).toBe(5_000)
    expect(roundAtImmediate).toBeGreaterThanOrEqual(0)
    expect(roundAtImmediate).toBeLessThan(5_000)
  })

  it("beyond its bound of queued tasks drains without giving the event loop a turn", async () => {
    // A bound of 0: the queue is always at it, so no slice ends before the work does.
    const { result, roundAtImmediate } = await busyFiberAndImmediate(new TimeSlicedScheduler(0, 0), 5_000)
    expect(result).toBe(5_000)
    expect(roundAtImmediate).toBe(5_000)
    expect(NODE_SCHEDULER_MAX_QUEUED_TASKS).toBeGreaterThan(0)
  })

  it("runs many fibers to the same results as Effect's default scheduler, lower priorities first", async () => {
    const scheduler = new TimeSlicedScheduler(0)
    const program = Effect.forEach(
      Array.from({ length: 200 }, (_, i) => i),
      (i) => Effect.gen(function* () {
        let sum = 0
        for (let k = 0; k <= i; k++) {
          yield* Effect.yieldNow()
          sum += k
        }
        return sum
      }),
      { concurrency: "unbounded" }
    )
    const sliced = await Effect.runPromise(program.pipe(Effect.withScheduler(scheduler)))
    expect(sliced).toEqual(await Effect.runPromise(program))
    expect(scheduler.size).toBe(0)

    const order: Array<string> = []
    await new Promise<void>((resolve) => {
      scheduler.scheduleTask(() => order.push("late"), 1)
      scheduler.scheduleTask(() => order.push("first"), 0)
      scheduler.scheduleTask(() => order.push("second"), 0)
      scheduler.scheduleTask(() => resolve(), 2)
    })
    expect(order).toEqual(["first", "second", "late"])
  })

  it("runs the engine's work (ENGINE_OPERATION_PRIORITY) ahead of other busy fibers started before it", async () => {
    const scheduler = new TimeSlicedScheduler(0)
    const finished: Array<string> = []
    const busy = (name: string) =>
      Effect.gen(function* () {
        for (let round = 0; round < 2_000; round++) yield* Effect.yieldNow()
        finished.push(name)
      })
    await Effect.runPromise(
      Effect.gen(function* () {
        const request = yield* Effect.fork(busy("request"))
        yield* Effect.yieldNow()
        const operation = yield* Effect.fork(Effect.withSchedulingPriority(busy("operation"), ENGINE_OPERATION_PRIORITY))
        yield* Fiber.join(operation)
        yield* Fiber.join(request)
      }).pipe(Effect.withScheduler(scheduler))
    )
    expect(finished).toEqual(["operation", "request"])
    expect(ENGINE_OPERATION_PRIORITY).toBeLessThan(0)
  })

  it("interrupts a fiber waiting in its queue", async () => {
    const scheduler = new TimeSlicedScheduler(0)
    const exit = await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(Effect.forever(Effect.yieldNow()))
        yield* Effect.yieldNow()
        return yield* Fiber.interrupt(fiber)
      }).pipe(Effect.withScheduler(scheduler))
    )
    expect(exit._tag).toBe("Failure")
  })
})
