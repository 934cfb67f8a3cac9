import { Effect, Either } from "effect"
import { parseScenario, runScenario, type RunOptions, type RunResult, type Scenario } from "../src/index.ts"

export const scenarioOf = (yaml: string): Scenario => Either.getOrThrow(parseScenario(yaml))

export const small = (overrides: { parties?: number; svs?: number; validators?: number; syncs?: number; minutes?: number; perMinute?: number; reassignmentsPerHour?: number } = {}): Scenario =>
  scenarioOf(`
name: small
seed: 1
duration: ${overrides.minutes ?? 5}m
topology:
  superValidators: ${overrides.svs ?? 2}
  validators: ${overrides.validators ?? 2}
  synchronizers: [${Array.from({ length: overrides.syncs ?? 2 }, (_, i) => `sync-${i + 1}`).join(", ")}]
  parties: ${overrides.parties ?? 6}
workload:
  initialTap: 100
  transfers: { perMinute: ${overrides.perMinute ?? 30}, minAmount: 1, maxAmount: 40 }
  reassignments: { perHour: ${overrides.reassignmentsPerHour ?? 60} }
`)

export const run = (scenario: Scenario, options: RunOptions = {}): Promise<RunResult> => Effect.runPromise(runScenario(scenario, options))

export const violationsOf = (result: RunResult): ReadonlyArray<string> =>
  Object.entries(result.invariants).flatMap(([name, list]) => list.map((v) => `${name}: ${v}`))
