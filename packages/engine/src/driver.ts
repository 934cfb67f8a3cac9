/**
 * Drivers run the engine: they own time and pull deliveries off the event queue. The engine itself
 * never runs effects; the simulation runner and the HTTP node call these. ManualClock is Effect's
 * Clock with microsecond resolution, set by the driver (virtual time, or the live clock plus the
 * developer's time offset in the node).
 */
import { Clock, Duration, Effect } from "effect"
import { invariant, MICROS_PER_MILLI, type Micros } from "@sandnet/core"
import type { Address, EventQueueNetwork, MicrosClock } from "./network/network.ts"

export class ManualClock implements MicrosClock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId

  constructor(private time: Micros) {}

  get now(): Micros {
    return this.time
  }

  /** Moves time forward (never back: record times and offsets must not go backwards). */
  advanceTo(time: Micros): void {
    invariant(time >= this.time, () => `clock cannot go back from ${this.time} to ${time}`)
    this.time = time
  }

  unsafeCurrentTimeMillis(): number {
    return Math.floor(this.time / MICROS_PER_MILLI)
  }

  get currentTimeMillis(): Effect.Effect<number> {
    return Effect.sync(() => this.unsafeCurrentTimeMillis())
  }

  unsafeCurrentTimeNanos(): bigint {
    return BigInt(this.time) * 1000n
  }

  readonly unsafeCurrentTimeMicros = (): Micros => this.time

  get currentTimeNanos(): Effect.Effect<bigint> {
    return Effect.sync(() => this.unsafeCurrentTimeNanos())
  }

  sleep(_duration: Duration.Duration): Effect.Effect<void> {
    return Effect.dieMessage("the deterministic engine never sleeps: schedule a timer message instead")
  }
}

/** A node's view of time: the shared clock plus its own skew (a simulation fault). */
export class SkewedClock implements MicrosClock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId

  constructor(
    private readonly base: ManualClock,
    public skew: Micros
  ) {}

  unsafeCurrentTimeMillis(): number {
    return Math.floor((this.base.now + this.skew) / MICROS_PER_MILLI)
  }

  get currentTimeMillis(): Effect.Effect<number> {
    return Effect.sync(() => this.unsafeCurrentTimeMillis())
  }

  unsafeCurrentTimeNanos(): bigint {
    return BigInt(this.base.now + this.skew) * 1000n
  }

  readonly unsafeCurrentTimeMicros = (): Micros => this.base.now + this.skew

  get currentTimeNanos(): Effect.Effect<bigint> {
    return Effect.sync(() => this.unsafeCurrentTimeNanos())
  }

  sleep(_duration: Duration.Duration): Effect.Effect<void> {
    return Effect.dieMessage("the deterministic engine never sleeps: schedule a timer message instead")
  }
}

export interface Driver {
  readonly clock: ManualClock
  readonly network: EventQueueNetwork
  /** Delivers everything due up to `until` (advancing the clock to each delivery), then sets the clock to `until`. */
  readonly runUntil: (until: Micros) => Effect.Effect<number>
  /** Delivers until the queue is empty or the clock would pass `limit`. Returns the deliveries made. */
  readonly runUntilIdle: (limit?: Micros) => Effect.Effect<number>
}

/**
 * Deliveries taken at once between two yields of the driver's fiber: a few hundred microseconds of
 * protocol work (a node's scheduler slices are 1 ms, node runtime/scheduler.ts).
 */
const DELIVERIES_BETWEEN_YIELDS = 16

export const makeDriver = (
  network: EventQueueNetwork,
  clock: ManualClock,
  clockOf: (address: Address) => Clock.Clock = () => clock
): Driver => {
  const deliverDue = (until: Micros): Effect.Effect<number> =>
    Effect.suspend(() => {
      let count = 0
      // Deliveries that actors take at once (ReceiveNow, as the simulation runner delivers them) run
      // in this loop without an effect each; a delivery with work left as an effect continues the
      // loop after it. Every DELIVERIES_BETWEEN_YIELDS the fiber yields, so that a node's scheduler
      // can give the event loop its turns during a long catch-up as it did between effects.
      const step: Effect.Effect<number> = Effect.suspend(() => {
        for (let taken = 0; taken < DELIVERIES_BETWEEN_YIELDS; taken++) {
          const next = network.next(until)
          if (next === undefined) return Effect.succeed(count)
          if (next.at > clock.now) clock.advanceTo(next.at)
          count++
          const actorClock = clockOf(next.to)
          const rest = network.deliverNow(next, actorClock)
          if (rest !== undefined) return Effect.flatMap(actorClock === clock ? rest : Effect.withClock(rest, actorClock), () => step)
        }
        return Effect.zipRight(Effect.yieldNow(), step)
      })
      // The whole loop runs on the driver's clock; only skewed actors get their own.
      return Effect.withClock(step, clock)
    })
  return {
    clock,
    network,
    runUntil: (until) =>
      Effect.tap(deliverDue(until), () => {
        if (until > clock.now) clock.advanceTo(until)
      }),
    runUntilIdle: (limit = Number.MAX_SAFE_INTEGER) => deliverDue(limit)
  }
}
