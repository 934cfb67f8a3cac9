import { describe, expect, it } from "@effect/vitest"
import { run, scenarioOf, violationsOf } from "./support.ts"

const svCrash = (downtime: string) =>
  scenarioOf(`
name: sv-crash
seed: 1
duration: 1h
topology: { superValidators: 2, validators: 1, synchronizers: [global-synchronizer], parties: 4 }
workload:
  initialTap: 100
  transfers: { perMinute: 2, minAmount: 1, maxAmount: 5 }
faults:
  crashes:
    - { nodes: [sv2], at: 12m, downtime: ${downtime} }
settle: 5m
`)

describe("a super validator that crashes and restarts", () => {
  it("catches up from what its sequencer held, and its DSO automation works on the rebuilt node", async () => {
    // The DSO (hosted by both SVs, threshold 2) confirms nothing while sv2 is down (12m10s to
    // 37m10s), so the ticks in between are lost and 4 rounds advance. Before the DSO automation
    // read the rebuilt node's ledger, sv2's automation kept planning from the state its node had
    // before the crash after the restart, its plans failed, and only 3 rounds advanced.
    const result = await run(svCrash("25m"))
    expect(violationsOf(result)).toEqual([])
    expect(result.faults.restarts).toBe(1)
    expect(result.summary.workload.economy?.roundsAdvanced).toBe(4)
    const [sv1, sv2] = result.network.superValidators
    expect(sv2!.scan.updates.map((e) => e.update.updateId)).toEqual(sv1!.scan.updates.map((e) => e.update.updateId))
  }, 60_000)
})
