/**
 * What the parts of one runtime share: its options and storage, the network configuration, the
 * developer's time offset, the lock (writers) and the readers' gate, and the engine's time.
 */
import type { Micros } from "@sandnet/core"
import { defaultCoinNetworkConfig, SERVING_ARCHIVE_LIMITS, type ArchivedLogLimits, type CoinNetworkConfig } from "@sandnet/engine"
import { Effect, Ref } from "effect"
import type { CaptureState } from "../journal/capture.ts"
import { makeReadGate, type ReadGate } from "./read-now.ts"
import type { NodeStorageService } from "../storage/node-storage.ts"
import { makeCatchUp, makeEngineTime } from "./clock.ts"
import { SpilledSegments } from "./history-spill.ts"
import { compressInThreadPool } from "./segment-compressor.ts"
import { ENGINE_OPERATION_PRIORITY } from "./scheduler.ts"
import type { EngineInstance, NodeRuntimeOptions } from "./service.ts"

/** At most this many reads at once (far more than a node ever serves at once). */
const READERS = 1 << 30

export interface RuntimeContext {
  readonly options: NodeRuntimeOptions
  readonly storage: NodeStorageService | undefined
  /** The network's configuration: the stored one when the store holds journals, else the options'. */
  readonly config: CoinNetworkConfig
  /** The developer's time offset (moved by `advanceTime`, stored with the clock). */
  readonly offset: Ref.Ref<number>
  /** Held by every engine operation, tick and commit point: one at a time. */
  readonly lock: Effect.Semaphore
  /**
   * Runs `self` under the lock and with the engine to itself: it waits for the reads in progress
   * to end, and reads wait for it (read.ts). Every change of the engine's state runs in one.
   */
  readonly exclusive: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Held (one permit each) by the reads in progress; an exclusive section takes them all. */
  readonly readers: Effect.Semaphore
  /** The reads without a fiber (read-now.ts): told when an exclusive section takes and gives back the engine. */
  readonly gate: ReadGate
  /** The engine an exclusive section leaves, for the gate (set once the runtime has one). */
  readonly followEngine: (current: Ref.Ref<EngineInstance>) => void
  /** What each engine instance's capture follows between batches (with storage). */
  readonly captures: WeakMap<EngineInstance, CaptureState>
  readonly engineTime: (engine: EngineInstance | undefined) => Effect.Effect<Micros>
  /** Brings the engine up to now: delivers every due message and timer. */
  readonly catchUp: (engine: EngineInstance) => Effect.Effect<void>
  /** How the engines of this runtime keep their history: a serving node archives the older part (engine history/archived-log.ts). */
  readonly historyLimits: ArchivedLogLimits
  /** Where archived history goes when the node spills it (`historySpillDir`). */
  readonly spill: SpilledSegments | undefined
}

export const makeRuntimeContext = (options: NodeRuntimeOptions): Effect.Effect<RuntimeContext> =>
  Effect.gen(function* () {
    const storage = options.storage
    const initial = storage?.initial
    const stored = initial !== undefined && initial.entryCount > 0
    const config: CoinNetworkConfig = (stored ? initial.config : undefined) ?? { ...defaultCoinNetworkConfig, ...options.network }
    const offset = yield* Ref.make(initial?.clock?.offset ?? 0)
    const lock = yield* Effect.makeSemaphore(1)
    const readers = yield* Effect.makeSemaphore(READERS)
    const gate = makeReadGate()
    let current: Ref.Ref<EngineInstance> | undefined
    const leave = Effect.suspend(() => (current === undefined ? Effect.sync(() => gate.leave(undefined)) : Effect.map(Ref.get(current), gate.leave)))
    const exclusive = <A, E, R>(self: Effect.Effect<A, E, R>) =>
      lock.withPermits(1)(
        readers.withPermits(READERS)(
          Effect.withSchedulingPriority(Effect.zipRight(Effect.sync(gate.enter), Effect.ensuring(self, leave)), ENGINE_OPERATION_PRIORITY)
        )
      )
    const followEngine = (ref: Ref.Ref<EngineInstance>) => {
      current = ref
    }
    const engineTime = makeEngineTime(options.clock ?? { _tag: "live" as const }, offset, initial?.clock)
    const spill = options.historySpillDir === undefined ? undefined : new SpilledSegments(options.historySpillDir)
    // A serving node lives long and reads its history rarely: older history is kept compressed.
    const limits = { compressor: compressInThreadPool, ...(options.historyLimits ?? SERVING_ARCHIVE_LIMITS) }
    const historyLimits = spill === undefined ? limits : { ...limits, keeper: spill }
    return {
      options,
      storage,
      config,
      offset,
      lock,
      exclusive,
      readers,
      gate,
      followEngine,
      captures: new WeakMap(),
      engineTime,
      catchUp: makeCatchUp(engineTime),
      historyLimits,
      spill
    }
  })
