/**
 * The base of an engine instance, before its network starts: a ManualClock, the zero-delay
 * in-process network and the topology (the services engine code runs with), the coin network of
 * the runtime's configuration and the driver that delivers what falls due.
 */
import type { Micros } from "@sandnet/core"
import { buildCoinNetwork, EventQueueNetwork, makeDriver, ManualClock, Network, Topology, TopologyState, type ArchivedLogLimits, type CoinNetworkConfig } from "@sandnet/engine"
import { Context, Effect } from "effect"
import type { EngineInstance } from "./service.ts"

export type EngineBase = Pick<EngineInstance, "network" | "driver" | "clock" | "queue" | "topology" | "provide">

export const buildEngineBase = (config: CoinNetworkConfig, start: Micros, historyLimits: ArchivedLogLimits): Effect.Effect<EngineBase> =>
  Effect.gen(function* () {
    const clock = new ManualClock(start)
    const queue = new EventQueueNetwork(() => clock.now)
    const topology = new TopologyState()
    // A Context, not a Layer: providing a Layer builds it (scope, memo map) on every call, and every
    // engine operation and read goes through here.
    const services = Context.make(Network, queue).pipe(Context.add(Topology, topology))
    const provide = <A, E>(effect: Effect.Effect<A, E, Network | Topology>) => Effect.withClock(Effect.provide(effect, services), clock)
    const network = yield* provide(buildCoinNetwork(config, { historyLimits, historyOrder: "kept" }))
    const driver = makeDriver(queue, clock)
    return { network, driver, clock, queue, topology, provide }
  })
