/**
 * A serving node keeps its older history compressed (engine history/archived-log.ts); a run must
 * not depend on it. The same scenario and seed with nearly everything archived (two entries kept
 * as objects, segments of three) has the same history, passes every invariant (which read each
 * log whole), and did archive.
 */
import { describe, expect, it } from "@effect/vitest"
import { run, small, violationsOf } from "./support.ts"

describe("history kept compressed", () => {
  it("a run with nearly all history archived is the same run", async () => {
    const scenario = small({ minutes: 10, svs: 2, validators: 2, syncs: 2, reassignmentsPerHour: 120 })
    const plain = await run(scenario, { seed: 5 })
    const archived = await run(scenario, { seed: 5, historyLimits: { hotEntries: 2, segmentEntries: 3 } })
    expect(violationsOf(archived)).toEqual([])
    expect(archived.historyHash).toBe(plain.historyHash)
    const participant = archived.network.validators[0]!.participant.logic
    expect(participant.log.archivedLength).toBeGreaterThan(participant.log.length - 5)
    const scan = archived.network.superValidators[0]!.scan
    expect(scan.updates.archivedLength).toBeGreaterThan(0)
    expect(scan.verdictLog.archivedLength).toBeGreaterThan(0)
    expect(plain.network.validators[0]!.participant.logic.log.archivedLength).toBe(0)
  }, 120_000)
})
