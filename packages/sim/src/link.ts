/**
 * The simulated network's links: seeded latency on every message (faults are layered on top in
 * faults.ts). The engine's EventQueueNetwork keeps ordered links FIFO whatever the delays.
 */
import type { Micros } from "@sandnet/core"
import type { LinkModel } from "@sandnet/engine"
import type { SeededRandom } from "./random.ts"

export interface LatencyModel {
  readonly min: Micros
  readonly max: Micros
}

export const defaultLatency: LatencyModel = { min: 1_000, max: 25_000 }

export const latencyLink = (random: SeededRandom, latency: LatencyModel): LinkModel => ({
  route: (_from, _to, _message, now) => [now + random.unsafeInt(latency.min, latency.max)]
})
