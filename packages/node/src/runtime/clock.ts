/**
 * The engine's time: the live time (or, in tests, a pinned start) plus the developer's time
 * offset, never behind the engine's own clock nor the last engine time stored.
 */
import { micros, type Micros } from "@sandnet/core"
import { Clock, Effect, Ref } from "effect"
import type { ClockState } from "../journal/runtime-state.ts"
import type { EngineInstance, NodeRuntimeOptions } from "./service.ts"

export type ClockMode = NonNullable<NodeRuntimeOptions["clock"]>

const liveMicros: Effect.Effect<Micros> = Effect.map(Clock.currentTimeNanos, micros.fromNanos)

/** The engine time of `engine` (of none: at start), with the clock stored at the last run. */
export const makeEngineTime =
  (clockMode: ClockMode, offset: Ref.Ref<number>, stored: ClockState | undefined) =>
  (engine: EngineInstance | undefined): Effect.Effect<Micros> =>
    Effect.map(
      clockMode._tag === "manual" ? Effect.map(Ref.get(offset), (o) => clockMode.start + o) : Effect.map(Effect.zip(liveMicros, Ref.get(offset)), ([live, o]) => live + o),
      (t) => Math.max(t, engine?.clock.now ?? 0, stored?.now ?? 0)
    )

/** Brings the engine up to now: delivers every due message and timer. */
export const makeCatchUp =
  (engineTime: (engine: EngineInstance) => Effect.Effect<Micros>) =>
  (engine: EngineInstance): Effect.Effect<void> =>
    Effect.flatMap(engineTime(engine), (t) => Effect.asVoid(engine.driver.runUntil(t)))
