/**
 * The `swarm` section of `sandnet bench`: `sandnet simulate scenarios/faults-crash.yaml --seeds 1..N
 * --jobs J` as a user runs it, from spawning the command to its exit. Two jobs on a short swarm (20
 * seeds: what a swarm pays once, the processes' start and the JIT's warm-up, weighs most) and on a
 * longer one (200 seeds), beside the baseline of the same 200 seeds on one job in the same run (the
 * ratio is what a second job gives on this machine). The seeds finished in the second half of the
 * run, over the time they took, are the warm rate: what every seed after the first few costs.
 */
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fmt } from "./machine.ts"

export interface SwarmRun {
  readonly seeds: number
  readonly jobs: number
  /** From spawning the command to its exit. */
  readonly wallMs: number
  /** Seeds per second over the whole command. */
  readonly seedsPerSecond: number
  /** Seeds per second over the second half of the seeds (from the moment half were done to the last). */
  readonly warmSeedsPerSecond: number
  readonly transactions: number
  readonly allOk: boolean
}

export interface SwarmBench {
  readonly scenario: string
  readonly runs: ReadonlyArray<SwarmRun>
  readonly baseline: SwarmRun
}

/** Runs the swarm in a child process (this command), timing each seed's line as it comes. */
const runSwarm = (scenario: string, seeds: number, jobs: number): Promise<SwarmRun> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const args = [...process.execArgv, process.argv[1] ?? "", "simulate", scenario, "--seeds", `1..${seeds}`, "--jobs", String(jobs), "--quiet"]
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] })
    const finishedAt: Array<number> = []
    let summary = ""
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("seed ")) finishedAt.push(performance.now())
      else if (line.includes(" runs of ")) summary = line
    })
    child.on("error", reject)
    child.on("exit", (code) => {
      const wallMs = performance.now() - started
      if (finishedAt.length !== seeds) return reject(new Error(`the swarm of ${seeds} seeds exited (code ${code}) after ${finishedAt.length} seeds`))
      const half = Math.floor(seeds / 2)
      const warmMs = finishedAt[seeds - 1]! - finishedAt[half - 1]!
      const transactions = /; ([0-9,]+) transactions/.exec(summary)?.[1]
      resolve({
        seeds,
        jobs,
        wallMs,
        seedsPerSecond: seeds / (wallMs / 1000),
        warmSeedsPerSecond: (seeds - half) / (warmMs / 1000),
        transactions: transactions === undefined ? 0 : Number(transactions.replaceAll(",", "")),
        allOk: code === 0 && summary.includes(`${seeds} ok, 0 FAILED`)
      })
    })
  })

export const benchSwarm = async (scenario = "scenarios/faults-crash.yaml"): Promise<SwarmBench> => {
  const runs = [await runSwarm(scenario, 20, 2), await runSwarm(scenario, 200, 2)]
  const baseline = await runSwarm(scenario, 200, 1)
  return { scenario, runs, baseline }
}

const row = (name: string, r: SwarmRun, baseline: SwarmRun) =>
  `| ${name} | ${fmt(r.wallMs / 1000, 1)} s | **${fmt(r.seedsPerSecond, 1)}** | ${fmt(r.warmSeedsPerSecond, 1)} | ${fmt(r.transactions)} | ${r.allOk ? "all ok" : "**failures**"} | ${fmt(r.seedsPerSecond / baseline.seedsPerSecond, 2)} |`

export const renderSwarm = (s: SwarmBench): ReadonlyArray<string> => {
  const long = s.runs.find((r) => r.seeds === s.baseline.seeds && r.jobs === 2)
  const met = long !== undefined && long.seedsPerSecond >= 15 && long.allOk
  return [
    "## Swarm of seeds",
    "",
    `\`sandnet simulate ${s.scenario} --seeds 1..N --jobs J\`, from spawning the command to its exit; one run each. Warm seeds/s: the`,
    "seeds finished in the second half of the run over the time they took (what a seed costs once the processes are",
    "started and the JIT has warmed up). Baseline in the same run: the same 200 seeds on one job.",
    "",
    "| swarm | wall | seeds/s | warm seeds/s | transactions | runs | ratio to one job, 200 seeds |",
    "|---|---|---|---|---|---|---|",
    ...s.runs.map((r) => row(`${r.seeds} seeds, ${r.jobs} jobs`, r, s.baseline)),
    row(`baseline: ${s.baseline.seeds} seeds, 1 job`, s.baseline, s.baseline),
    "",
    `Issue 13's target, at least 15 seeds/s on 2 jobs (taken on the 200-seed swarm): ${met ? "met" : "not met"} in this run.`,
    ""
  ]
}
