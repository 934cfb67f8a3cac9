/**
 * A large or long scenario's single run starts the command again with a young generation four times
 * V8's default (semi-spaces of 64 MB, not 16), which V8 sizes only as a process starts
 * (`v8.setFlagsFromString` later changes nothing). Such a simulation allocates fast and keeps much
 * of it (twenty super validators' logs, ACSs and scans; or days of history): with the default,
 * objects that would have died young are promoted and collected again in the old generation, and
 * each scavenge walks more of the growing old generation's pointers into the young one. Measured
 * (docs/benchmarks.md): the large scenario (10,000 parties, 2026-11-29) 80.5 and 84.6 -> 73.6 and
 * 71.0 s wall, peak RSS 2,680 and 2,646 -> 2,263 and 2,219 MiB; 2,000 parties about 5% faster; the
 * economy scenario (60 parties, 2 days, 2026-12-01) scavenges 2,020 -> 1,237 ms and run-loop CPU
 * 21.2 -> 18.4 s (three pairs' mean), a day of it 886 -> 614 ms; smoke (50 parties, an hour) the same either way, so
 * shorter and smaller scenarios keep the default and skip starting again. A swarm's workers, the
 * command's own children, are started with the flag when the scenario is large or long.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { constants } from "node:os"
import { MICROS_PER_DAY } from "@sandnet/core"
import type { Scenario } from "@sandnet/sim"

/** Scenarios of at least this many parties run with the larger young generation. */
export const LARGE_SCENARIO_PARTIES = 2_000
/** And scenarios of at least this simulated duration (a day, in microseconds). */
export const LONG_SCENARIO_DURATION = MICROS_PER_DAY
export const LARGE_YOUNG_GENERATION = "--max-semi-space-size=64"

/**
 * Whether this run of `sandnet simulate` should start again with the larger young generation: a
 * large or long scenario, in the command's own process (not a test calling the command), which has no size
 * of its own given (on its command line or in `NODE_OPTIONS`, which `execArgv` does not list).
 */
export const wantsLargeYoungGeneration = (
  scenario: Scenario,
  argv: ReadonlyArray<string>,
  execArgv: ReadonlyArray<string>,
  nodeOptions: string = process.env["NODE_OPTIONS"] ?? ""
): boolean => argv[2] === "simulate" && execArgvFor(scenario, execArgv, nodeOptions).length > execArgv.length

/** Whether `scenario` is large or long enough for the larger young generation. */
export const needsLargeYoungGeneration = (scenario: Scenario): boolean =>
  scenario.topology.parties >= LARGE_SCENARIO_PARTIES || scenario.duration >= LONG_SCENARIO_DURATION

/**
 * The flags for a process that runs `scenario` (a swarm's worker, the large bench's run): the larger
 * young generation added when it is large or long and no size was given (`NODE_OPTIONS` reaches the
 * child too, and the command line's flag would win over it).
 */
export const execArgvFor = (scenario: Scenario, execArgv: ReadonlyArray<string>, nodeOptions: string = process.env["NODE_OPTIONS"] ?? ""): Array<string> =>
  needsLargeYoungGeneration(scenario) && !execArgv.some((flag) => flag.startsWith("--max-semi-space-size")) && !/--max-semi-space-size\b/.test(nodeOptions)
    ? [LARGE_YOUNG_GENERATION, ...execArgv]
    : [...execArgv]

const FORWARDED: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM", "SIGHUP"]

/**
 * Runs this command again with the larger young generation, the child on this terminal; signals are
 * passed on, and this process ends with the child's exit code (128 + the signal's number when a
 * signal ended it). Interrupted (the runtime's own SIGINT or SIGTERM), it waits for the child, which
 * got the signal too, to end first: no run is left behind.
 */
export const runAgainWithLargeYoungGeneration: Effect.Effect<void> = Effect.async<void>((resume) => {
  const child = spawn(process.execPath, [LARGE_YOUNG_GENERATION, ...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit" })
  const pass = (signal: NodeJS.Signals) => void child.kill(signal)
  for (const signal of FORWARDED) process.on(signal, pass)
  const ended = new Promise<void>((done) => {
    const end = (exitCode: number) => {
      for (const s of FORWARDED) process.off(s, pass)
      process.exitCode = exitCode
      done()
    }
    child.once("close", (code, signal) => end(code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0))))
    // not started at all: 'close' may never come
    child.once("error", (error) => {
      process.stderr.write(`sandnet simulate: could not start the run again with a larger young generation: ${error.message}\n`)
      end(1)
    })
  })
  void ended.then(() => resume(Effect.void))
  return Effect.promise(() => ended)
})
