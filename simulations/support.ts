/**
 * What a simulation program is: a scenario (the network and its background workload) plus hooks
 * that do something a scenario file cannot say (a race, a sequence of reassignments) and a check
 * of what must have happened. Each program runs on its own (`npx tsx simulations/<name>.ts --seed N`)
 * and in the test suite, which runs it twice with one seed and compares history hashes.
 */
import { realpathSync } from "node:fs"
import { Effect, Either } from "effect"
import { parseArgs } from "node:util"
import { fileURLToPath } from "node:url"
import type { Address, Message } from "@sandnet/engine"
import { parseScenario, runScenario, type RunOptions, type RunResult, type Scenario, type SimContext } from "@sandnet/sim"

export interface Simulation<S> {
  readonly name: string
  readonly description: string
  /** The network and background workload, in the scenario format (docs/scenarios.md). */
  readonly scenario: string
  /** Fresh state for one run (a run's hooks write into it). */
  readonly initial: () => S
  /** Hooks of one run, writing what they observe into `state`. */
  readonly options: (state: S) => RunOptions
  /** What must hold after the run, as failures (empty when it all held). */
  readonly check: (result: RunResult, state: S) => ReadonlyArray<string>
  /** Lines for the summary. */
  readonly report: (result: RunResult, state: S) => ReadonlyArray<string>
}

export interface SimulationOutcome<S> {
  readonly result: RunResult
  readonly state: S
  /** The program's own failures, then every broken scenario invariant. */
  readonly failures: ReadonlyArray<string>
}

export const defineSimulation = <S>(simulation: Simulation<S>): Simulation<S> => simulation

export const scenarioOf = (simulation: Simulation<unknown>): Scenario => Either.getOrThrow(parseScenario(simulation.scenario, `${simulation.name}.ts`))

/** One run; `extra` adds run options of the caller's (tests break the engine through `beforeGenesis`). */
export const runSimulation = <S>(simulation: Simulation<S>, seed: number, extra: RunOptions = {}): Effect.Effect<SimulationOutcome<S>> =>
  Effect.gen(function* () {
    const state = simulation.initial()
    const result = yield* runScenario(scenarioOf(simulation as Simulation<unknown>), { ...simulation.options(state), ...extra, seed })
    const broken = Object.entries(result.invariants).flatMap(([name, list]) => list.map((v) => `${name}: ${v}`))
    const failures = [...simulation.check(result, state), ...broken, ...(result.defect === undefined ? [] : [`engine defect: ${result.defect}`])]
    return { result, state, failures }
  })

/**
 * An actor of the program's own on the simulated network: `at` schedules a step at a simulated
 * time; steps run in delivery order like every other actor's messages, so the run stays
 * deterministic.
 */
export const programActor = (
  sim: SimContext,
  address: Address,
  steps: ReadonlyArray<{ readonly at: number; readonly run: () => Effect.Effect<void> }>
): Effect.Effect<void> =>
  Effect.gen(function* () {
    yield* sim.queue.register({
      address,
      receive: (message: Message) => {
        const step = steps[Number((message as Message & { readonly step: number }).step)]
        return step === undefined ? Effect.void : step.run()
      }
    })
    for (const [i, step] of steps.entries()) yield* sim.queue.schedule(address, { _tag: "ProgramStep", step: i } as Message, step.at)
  })

/** Runs a simulation from the command line when its file is the program node was started with. */
export const main = <S>(simulation: Simulation<S>, moduleUrl: string): void => {
  // run only as the program itself (not when imported); compared as real paths, as a symlinked
  // checkout names the program by its link
  if (process.argv[1] === undefined || realpathSync(fileURLToPath(moduleUrl)) !== realpathSync(process.argv[1])) return
  const { values } = parseArgs({ options: { seed: { type: "string", default: "1" } } })
  const seed = Number(values.seed)
  if (!Number.isSafeInteger(seed)) {
    process.stderr.write(`--seed must be an integer, got ${values.seed}\n`)
    process.exit(2)
  }
  void Effect.runPromise(runSimulation(simulation, seed)).then(({ result, state, failures }) => {
    const lines = [
      `simulation ${simulation.name}, seed ${seed}: ${simulation.description}`,
      ...simulation.report(result, state),
      `deliveries        ${result.summary.deliveries}`,
      failures.length === 0 ? "checks            all held" : `checks            ${failures.length} FAILED:\n  ${failures.slice(0, 20).join("\n  ")}`,
      `history-hash: ${result.historyHash}`
    ]
    process.stdout.write(lines.join("\n") + "\n")
    process.exitCode = failures.length === 0 ? 0 : 1
  })
}
