import { describe, expect, it } from "@effect/vitest"
import { outcomeOf } from "../src/index.ts"
import { run, violationsOf } from "./support.ts"
import { shipped } from "./swarm-support.ts"

describe("fault scenarios replay by seed", () => {
  it.each(["faults-network", "faults-crash"])("%s: the same seed gives the same history hash, another seed another", async (name) => {
    const scenario = shipped(name)
    const a = await run(scenario, { seed: 11 })
    const b = await run(scenario, { seed: 11 })
    const c = await run(scenario, { seed: 12 })
    expect(violationsOf(a)).toEqual([])
    expect(b.historyHash).toBe(a.historyHash)
    expect(b.faults).toEqual(a.faults)
    expect(c.historyHash).not.toBe(a.historyHash)
  }, 60_000)

  it("a mediator unavailable past its timeout rejects with MEDIATOR_SAYS_TX_TIMED_OUT", async () => {
    const result = await run(shipped("faults-crash"), { seed: 1 })
    const outcomes = result.network.superValidators[0]!.scan.verdictLog.map((v) => outcomeOf(v.verdict.result, v.verdict.reason))
    expect(outcomes).toContain("REJECTED MEDIATOR_SAYS_TX_TIMED_OUT")
    expect(result.ok).toBe(true)
  }, 60_000)
})
