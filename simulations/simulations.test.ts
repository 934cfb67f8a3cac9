import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ContractId, Micros } from "@sandnet/core"
import { ParticipantLogic, type ProtocolRequest, type SynchronizerInfo } from "@sandnet/engine"
import { replaceLogic, type SimContext } from "@sandnet/sim"
import { doubleSpendRace } from "./double-spend-race.ts"
import { reassignmentRoundTrips } from "./reassignment-round-trips.ts"
import { runSimulation, type Simulation } from "./support.ts"

/** Every simulation program: its checks and every scenario invariant hold; one seed, one history. */
const replaysBySeed = <S>(simulation: Simulation<S>, seed: number) =>
  it.effect(
    `${simulation.name}: holds its checks, the same seed gives the same history hash, another seed another`,
    () =>
      Effect.gen(function* () {
        const first = yield* runSimulation(simulation, seed)
        expect(first.failures).toEqual([])
        const again = yield* runSimulation(simulation, seed)
        expect(again.result.historyHash).toBe(first.result.historyHash)
        const other = yield* runSimulation(simulation, seed + 1)
        expect(other.failures).toEqual([])
        expect(other.result.historyHash).not.toBe(first.result.historyHash)
      }),
    120_000
  )

/** A deliberately broken participant: its confirmations ignore inactive and locked inputs. */
class CarelessParticipant extends ParticipantLogic {
  override checkView(request: ProtocolRequest, inputs: ReadonlyArray<ContractId>, requestId: Micros, synchronizer: SynchronizerInfo): string | undefined {
    return request.kind === "transaction" ? undefined : super.checkView(request, inputs, requestId, synchronizer)
  }
}

const careless = (sim: SimContext) =>
  Effect.forEach(sim.handles, (handle) => replaceLogic(sim.network, sim.queue, handle, (old) => new CarelessParticipant(old.config, old.topology, old.registry)), {
    discard: true
  })

describe("simulation programs", () => {
  replaysBySeed(doubleSpendRace, 7)
  replaysBySeed(reassignmentRoundTrips, 3)

  it.effect(
    "the race program catches a broken engine: with confirmations that ignore locked inputs, both transfers commit",
    () =>
      Effect.gen(function* () {
        const outcome = yield* runSimulation(doubleSpendRace, 7, { beforeGenesis: careless })
        expect(outcome.failures).toContain("exactly one of the two should commit, got 2 succeeded and 0 failed")
        expect(outcome.failures.some((f) => f.startsWith("no-double-spend: "))).toBe(true)
      }),
    120_000
  )
})
