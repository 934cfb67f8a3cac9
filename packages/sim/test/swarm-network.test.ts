import { describe, expect, it } from "@effect/vitest"
import { failuresOf, shipped, swarm } from "./swarm-support.ts"

/**
 * 50 seeds of scenarios/faults-network.yaml (with faults-crash.yaml's 50, the suite's swarm of
 * 100): messages dropped, duplicated, reordered and delayed, subscription gaps, partitions that
 * heal. Every invariant is checked during (after each delivery) and at the end of each run.
 */
describe("a swarm of network faults", () => {
  it("keeps every invariant in 50 seeds", async () => {
    const { outlines, results } = await swarm(shipped("faults-network"), Array.from({ length: 50 }, (_, i) => i + 1))
    expect(failuresOf(outlines)).toEqual([])
    expect(new Set(outlines.map((o) => o.historyHash)).size).toBe(50)
    // The faults did happen, and the protocol kept going through them.
    const total = (f: (r: (typeof results)[number]) => number) => results.reduce((n, r) => n + f(r), 0)
    expect(total((r) => r.faults.links.dropped)).toBeGreaterThan(100)
    expect(total((r) => r.faults.links.duplicated)).toBeGreaterThan(100)
    expect(total((r) => r.faults.links.reordered)).toBeGreaterThan(100)
    expect(total((r) => r.faults.links.gaps)).toBeGreaterThan(100)
    expect(total((r) => r.faults.links.lost + r.faults.links.held)).toBeGreaterThan(100)
    expect(total((r) => r.faults.events.filter((e) => e.kind === "partition").length)).toBe(150)
    for (const o of outlines) expect(o.transactions).toBeGreaterThan(50)
  }, 240_000)
})
