import { describe, expect, it } from "@effect/vitest"
import { failuresOf, shipped, swarm } from "./swarm-support.ts"

/**
 * 50 seeds of scenarios/faults-crash.yaml: participants crash and restart from their journals, a
 * sequencer goes down, a mediator stays unavailable past the confirmation response timeout,
 * clocks are skewed and clients resubmit commands with the same command id.
 */
describe("a swarm of node faults", () => {
  it("keeps every invariant in 50 seeds", async () => {
    const { outlines, results } = await swarm(shipped("faults-crash"), Array.from({ length: 50 }, (_, i) => i + 1))
    expect(failuresOf(outlines)).toEqual([])
    expect(new Set(outlines.map((o) => o.historyHash)).size).toBe(50)
    const total = (f: (r: (typeof results)[number]) => number) => results.reduce((n, r) => n + f(r), 0)
    expect(total((r) => r.faults.restarts)).toBeGreaterThan(100)
    expect(total((r) => r.faults.events.filter((e) => e.kind === "mediator-timeout").length)).toBe(50)
    // Clients retried: the participants answered in flight or duplicate, and nothing was committed twice (exactly-once held).
    expect(total((r) => r.faults.retries.alreadyInFlight)).toBeGreaterThan(50)
    expect(total((r) => r.faults.retries.duplicateCommand)).toBeGreaterThan(500)
    for (const o of outlines) expect(o.transactions).toBeGreaterThan(50)
  }, 240_000)
})
