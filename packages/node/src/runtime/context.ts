/**
 * What the parts of one runtime share: its options and storage, the network configuration, the
 * developer's time offset, the lock, and the engine's time.
 */
import type { Micros } from "@sandnet/core"
import { defaultCoinNetworkConfig, type CoinNetworkConfig } from "@sandnet/engine"
import { Effect, Ref } from "effect"
import type { CaptureState } from "../journal/capture.ts"
import type { NodeStorageService } from "../storage/node-storage.ts"
import { makeCatchUp, makeEngineTime } from "./clock.ts"
import type { EngineInstance, NodeRuntimeOptions } from "./service.ts"

export interface RuntimeContext {
  readonly options: NodeRuntimeOptions
  readonly storage: NodeStorageService | undefined
  /** The network's configuration: the stored one when the store holds journals, else the options'. */
  readonly config: CoinNetworkConfig
  /** The developer's time offset (moved by `advanceTime`, stored with the clock). */
  readonly offset: Ref.Ref<number>
  /** Held by every engine operation, tick and commit point: one at a time. */
  readonly lock: Effect.Semaphore
  /** What each engine instance's capture follows between batches (with storage). */
  readonly captures: WeakMap<EngineInstance, CaptureState>
  readonly engineTime: (engine: EngineInstance | undefined) => Effect.Effect<Micros>
  /** Brings the engine up to now: delivers every due message and timer. */
  readonly catchUp: (engine: EngineInstance) => Effect.Effect<void>
}

export const makeRuntimeContext = (options: NodeRuntimeOptions): Effect.Effect<RuntimeContext> =>
  Effect.gen(function* () {
    const storage = options.storage
    const initial = storage?.initial
    const stored = initial !== undefined && initial.entries.length > 0
    const config: CoinNetworkConfig = (stored ? initial.config : undefined) ?? { ...defaultCoinNetworkConfig, ...options.network }
    const offset = yield* Ref.make(initial?.clock?.offset ?? 0)
    const lock = yield* Effect.makeSemaphore(1)
    const engineTime = makeEngineTime(options.clock ?? { _tag: "live" as const }, offset, initial?.clock)
    return { options, storage, config, offset, lock, captures: new WeakMap(), engineTime, catchUp: makeCatchUp(engineTime) }
  })
