/**
 * `sandnet bench --only advance`: a time advance of 1 day, then of 10 days, then of 40 days on a quiet node
 * started in this process as `sandnet start --in-memory` does (wallets and automations on, live
 * clock, journals committed to an in-memory store), through the runtime's `advanceTime` (what
 * `POST /v2/sandnet/time/advance` calls). Baseline, in the same run: the one-shot advance (the
 * whole jump as one operation under the lock, as before issue 15), on a fresh node of its own.
 * While each advance runs, a read is made every 10 ms; the longest a read waited says how long
 * the node stops serving.
 */
import { type Micros, MICROS_PER_DAY } from "@sandnet/core"
import { ADVANCE_NORMAL_PACE_MICROS, ADVANCE_STEP_MICROS, NodeRuntime, nodeStorageLayerWith, persistentNodeRuntimeLayer, type NodeRuntimeService } from "@sandnet/node"
import { EventStore } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as v8 from "node:v8"
import * as vm from "node:vm"

export interface AdvanceFigure {
  readonly days: number
  readonly wallMs: number
  readonly cpuMs: number
  /** The longest a read waited while the advance ran. */
  readonly longestReadWaitMs: number
  readonly reads: number
}

export interface AdvanceBench {
  readonly stepped: ReadonlyArray<AdvanceFigure>
  readonly oneShot: ReadonlyArray<AdvanceFigure>
}

const DAYS = [1, 10, 40] as const
/** The one-shot baseline of a 40-day jump would take about a minute: only 1 and 10 days. */
const ONE_SHOT_DAYS = [1, 10] as const

/** A node as `sandnet start --in-memory` runs it, advancing in steps of `step` (undefined: the default). */
const withNode = async <A>(step: Micros | undefined, body: (runtime: NodeRuntimeService) => Promise<A>): Promise<A> => {
  const scope = Effect.runSync(Scope.make())
  const storage = nodeStorageLayerWith({ keepsIndexes: false }).pipe(Layer.provideMerge(EventStore.memory))
  const layer = persistentNodeRuntimeLayer({ wallets: true, automation: true, ...(step === undefined ? {} : { advanceStepMicros: step }) }).pipe(Layer.provideMerge(storage))
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  try {
    return await body(Context.get(context, NodeRuntime))
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/**
 * One advance of `days`, with a read asked for 10 ms after the last one was answered while it
 * runs: the longest wait is the longest time between two answers (or the advance's start or end)
 * less those 10 ms, so that an event loop held by the advance counts too.
 */
/** A full garbage collection, so that an advance does not pay for the garbage of the one before. */
const collectGarbage = (): void => {
  v8.setFlagsFromString("--expose-gc")
  const gc = vm.runInNewContext("gc") as unknown
  if (typeof gc === "function") gc()
}

const measure = async (runtime: NodeRuntimeService, days: number): Promise<AdvanceFigure> => {
  collectGarbage()
  let running = true
  let longest = 0
  let reads = 0
  let last = performance.now()
  const prober = (async () => {
    while (running) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      if (!running) break
      await Effect.runPromise(runtime.read(() => Effect.void))
      const now = performance.now()
      longest = Math.max(longest, now - last - 10)
      last = now
      reads++
    }
  })()
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Effect.runPromise(runtime.advanceTime(days * MICROS_PER_DAY))
  const ended = performance.now()
  const used = process.cpuUsage(cpu)
  longest = Math.max(longest, ended - last - 10)
  running = false
  await prober
  return { days, wallMs: ended - started, cpuMs: (used.user + used.system) / 1000, longestReadWaitMs: Math.max(0, longest), reads }
}

const series = (step: Micros | undefined, days: ReadonlyArray<number>) =>
  withNode(step, async (runtime) => {
    const figures: Array<AdvanceFigure> = []
    for (const d of days) figures.push(await measure(runtime, d))
    return figures
  })

export const benchAdvance = async (): Promise<AdvanceBench> => {
  // Warm-up on a throwaway node, so that neither series pays for the compilation of the engine.
  await withNode(undefined, (runtime) => measure(runtime, 1))
  const stepped = await series(undefined, DAYS)
  // The one-shot baseline: a step as long as the longest jump, so every advance is one operation
  // (and none catches up: the whole jump runs at the normal pace, as before issue 15).
  const oneShot = await series(Math.max(...ONE_SHOT_DAYS) * MICROS_PER_DAY, ONE_SHOT_DAYS)
  return { stepped, oneShot }
}

const ms = (n: number) => `${Math.round(n).toLocaleString("en-US")} ms`

export const renderAdvance = (b: AdvanceBench): ReadonlyArray<string> => [
  "## Time advance",
  "",
  `\`advanceTime\` (what \`POST /v2/sandnet/time/advance\` runs) on a quiet node started in this process as \`sandnet start --in-memory\` does (wallets and automations on, live clock, journals committed to an in-memory store): 1 day, then 10 days, then 40 days on the same node. Stepped: steps of ${ADVANCE_STEP_MICROS / 3_600_000_000} hour of ledger time, each one operation under the lock, the event loop running between them; the steps that end more than ${ADVANCE_NORMAL_PACE_MICROS / MICROS_PER_DAY} day before the target catch up (one round turned per step, the wallets polling once per step: docs/economy.md, "Time advance"), the last day runs at the normal pace. Baseline, same run: the one-shot advance (the whole jump as one operation at the normal pace, as before issue 15) on a fresh node, for 1 and 10 days. Both series run after a warm-up advance of a day on a throwaway node, each advance after a full garbage collection. A read (\`runtime.read\`) is made every 10 ms while an advance runs; the longest wait says how long the node stopped serving.`,
  "",
  "| advance | wall | CPU | CPU per simulated day | longest read wait | reads answered during it | one-shot wall | one-shot CPU | one-shot longest read wait | CPU / one-shot CPU |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...b.stepped.map((s, i) => {
    const o = b.oneShot[i]
    const baseline = o === undefined ? "— | — | — | —" : `${ms(o.wallMs)} | ${ms(o.cpuMs)} | ${ms(o.longestReadWaitMs)} | ${(s.cpuMs / o.cpuMs).toFixed(2)}x`
    return `| ${s.days} day${s.days === 1 ? "" : "s"} | **${ms(s.wallMs)}** | ${ms(s.cpuMs)} | ${ms(s.cpuMs / s.days)} | **${ms(s.longestReadWaitMs)}** | ${s.reads} | ${baseline} |`
  }),
  ""
]
