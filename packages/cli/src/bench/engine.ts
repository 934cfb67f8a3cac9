/**
 * Engine benchmark: the smoke scenario's committed transactions per CPU-second and its simulated-
 * time speed-up, against a baseline measured in the same run: bare message deliveries through the
 * same event queue and driver (two actors ping-ponging, no protocol), per CPU-second.
 */
import { Clock, Effect, Either } from "effect"
import { readFileSync } from "node:fs"
import { EventQueueNetwork, ManualClock, makeDriver, type Actor, type Message } from "@sandnet/engine"
import { parseScenario, runScenario } from "@sandnet/sim"
import { bestOf } from "./machine.ts"

export interface EngineBench {
  readonly scenario: string
  readonly committedTransactions: number
  readonly deliveries: number
  readonly runCpuSeconds: number
  readonly transactionsPerCpuSecond: number
  readonly deliveriesPerCpuSecond: number
  readonly simulatedSeconds: number
  readonly wallSeconds: number
  readonly speedUp: number
  readonly historyHash: string
  readonly baselineDeliveriesPerCpuSecond: number
  /** Protocol deliveries per CPU-second over bare deliveries per CPU-second. */
  readonly deliveryRatio: number
  readonly peakRssMiB: number
}

const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1e6
}

/** Bare deliveries per CPU-second: the floor under any protocol built on this network. */
export const bareDeliveries = (count = 300_000): Effect.Effect<number> =>
  Effect.gen(function* () {
    const clock = new ManualClock(0)
    const network = new EventQueueNetwork(() => clock.now)
    let delivered = 0
    const actor = (address: string, peer: string): Actor => ({
      address,
      receive: (message: Message) =>
        Effect.flatMap(Clock.currentTimeNanos, () => {
          delivered++
          return delivered < count ? network.sendAll([{ _tag: "Send", from: address, to: peer, message, ordered: true }]) : Effect.void
        })
    })
    yield* network.register(actor("ping", "pong"))
    yield* network.register(actor("pong", "ping"))
    yield* network.send("ping", "pong", { _tag: "Ball" })
    const started = process.cpuUsage()
    yield* makeDriver(network, clock).runUntilIdle()
    return delivered / cpuSeconds(started)
  })

export const benchEngine = async (scenarioFile: string, runs = 3): Promise<EngineBench> => {
  const scenario = Either.getOrThrow(parseScenario(readFileSync(scenarioFile, "utf8"), scenarioFile))
  const baseline = await bestOf(runs, () => Effect.runPromise(bareDeliveries()), (a, b) => a > b)
  const result = await bestOf(runs, () => Effect.runPromise(runScenario(scenario)), (a, b) => a.runCpuMs < b.runCpuMs)
  const committed = result.network.synchronizers.reduce((n, s) => n + s.mediator.logic.stats.accepted, 0)
  const runCpuSeconds = result.runCpuMs / 1000
  const deliveriesPerCpuSecond = result.summary.deliveries / runCpuSeconds
  return {
    scenario: scenario.name,
    committedTransactions: committed,
    deliveries: result.summary.deliveries,
    runCpuSeconds,
    transactionsPerCpuSecond: committed / runCpuSeconds,
    deliveriesPerCpuSecond,
    simulatedSeconds: result.summary.simulatedTime / 1e6,
    wallSeconds: result.wallTimeMs / 1000,
    speedUp: result.summary.simulatedTime / 1e3 / result.wallTimeMs,
    historyHash: result.historyHash,
    baselineDeliveriesPerCpuSecond: baseline,
    deliveryRatio: deliveriesPerCpuSecond / baseline,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024)
  }
}
