import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { run, small, violationsOf } from "./support.ts"

/**
 * Properties over random workloads and topologies: whatever the network shape, rates and seed,
 * coin is conserved, no contract is consumed twice, offsets strictly increase per node, update ids
 * agree across super validators, reassignment counters follow the rules and verdicts are
 * deduplicated (all checked by the run's invariants), and the same seed replays to the same hash.
 */
describe("protocol properties over random workloads", () => {
  it("every invariant holds", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          svs: fc.integer({ min: 1, max: 4 }),
          validators: fc.integer({ min: 1, max: 3 }),
          syncs: fc.integer({ min: 1, max: 2 }),
          parties: fc.integer({ min: 2, max: 8 }),
          perMinute: fc.integer({ min: 5, max: 120 }),
          reassignmentsPerHour: fc.integer({ min: 0, max: 240 }),
          seed: fc.integer({ min: 0, max: 1_000_000 })
        }),
        async ({ seed, ...shape }) => {
          const scenario = small({ ...shape, minutes: 3 })
          const result = await run(scenario, { seed })
          expect(violationsOf(result)).toEqual([])
          // Everything submitted is decided: nothing hangs in flight after the settling window.
          const w = result.summary.workload
          expect(w.transfersSucceeded + w.transfersFailed).toBe(w.transfersSubmitted)
        }
      ),
      { numRuns: 12 }
    )
  }, 300_000)

  it("replays to the same history for the same seed", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1_000_000 }), async (seed) => {
        const scenario = small({ minutes: 2, parties: 4 })
        const [a, b] = [await run(scenario, { seed }), await run(scenario, { seed })]
        expect(a.historyHash).toBe(b.historyHash)
      }),
      { numRuns: 4 }
    )
  }, 120_000)
})
