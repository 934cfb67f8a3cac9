import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { runSwarm, type RunOutline, type RunResult, type Scenario } from "../src/index.ts"
import { scenarioOf } from "./support.ts"

export const shipped = (name: string): Scenario => scenarioOf(readFileSync(fileURLToPath(new URL(`../../../scenarios/${name}.yaml`, import.meta.url)), "utf8"))

/** Runs a swarm and keeps, besides the outlines, what the faults did in each run. */
export const swarm = async (scenario: Scenario, seeds: ReadonlyArray<number>) => {
  const results: Array<Pick<RunResult, "faults" | "invariants" | "summary">> = []
  const outlines: ReadonlyArray<RunOutline> = await Effect.runPromise(
    runSwarm(scenario, seeds, { onRun: (r) => results.push({ faults: r.faults, invariants: r.invariants, summary: r.summary }) })
  )
  return { outlines, results }
}

export const failuresOf = (outlines: ReadonlyArray<RunOutline>): ReadonlyArray<string> =>
  outlines.filter((o) => !o.ok).map((o) => `seed ${o.seed}: ${o.failure?.invariant} at delivery #${o.failure?.delivery}: ${o.failure?.message}`)
