/**
 * The large scenario's benchmark (scenarios/large.yaml: 20 super validators, 100 validators, 3
 * synchronizers, 10,000 parties): committed transactions per CPU-second of the run loop, the
 * simulated-time speed-up, and the peak RSS. It runs once, in a process of its own (`sandnet
 * simulate FILE` with SANDNET_SIMULATE_WORKER=1, the swarm's worker), so that its peak RSS is its own. Its baselines are
 * the engine section's, measured in the same `sandnet bench` run: the smoke scenario (4 super
 * validators) and bare deliveries through the same queue and driver.
 */
import { Either } from "effect"
import { fork } from "node:child_process"
import { readFileSync } from "node:fs"
import { parseScenario, type RunOutline, type Scenario } from "@sandnet/sim"
import { execArgvFor } from "../simulation-heap.ts"
import type { WorkerReply } from "../simulate.ts"
import type { EngineBench } from "./engine.ts"
import { fmt } from "./machine.ts"

export interface LargeBench {
  readonly scenario: string
  readonly superValidators: number
  readonly validators: number
  readonly synchronizers: number
  readonly parties: number
  readonly committedTransactions: number
  /** Updates committed by all participants together: every transfer is committed at 20+ nodes. */
  readonly nodeCommits: number
  readonly deliveries: number
  readonly runCpuSeconds: number
  readonly transactionsPerCpuSecond: number
  readonly nodeCommitsPerCpuSecond: number
  readonly deliveriesPerCpuSecond: number
  readonly simulatedSeconds: number
  readonly wallSeconds: number
  /** Of the wall time, the end-of-run invariants and history hash. */
  readonly checksSeconds: number
  readonly speedUp: number
  readonly peakRssMiB: number
  readonly historyHash: string
  readonly ok: boolean
}

/** The run in a process of its own, with the young generation `sandnet simulate` gives a scenario of its size (simulation-heap.ts). */
const runInWorker = (file: string, scenario: Scenario): Promise<{ outline: RunOutline; peakRssKiB: number }> =>
  new Promise((resolve, reject) => {
    const child = fork(process.argv[1] ?? "", ["simulate", file], { execArgv: execArgvFor(scenario, process.execArgv), env: { ...process.env, SANDNET_SIMULATE_WORKER: "1" }, stdio: ["ignore", "inherit", "inherit", "ipc"] })
    child.on("message", (raw) => {
      const reply = raw as WorkerReply
      if (reply.type !== "done" || reply.outline === undefined) return
      child.send({ exit: true })
      resolve({ outline: reply.outline, peakRssKiB: reply.peakRssKiB ?? 0 })
    })
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? undefined : reject(new Error(`the large scenario's worker exited with ${code}`))))
    child.send({ seed: scenario.seed })
  })

export const benchLarge = async (file = "scenarios/large.yaml"): Promise<LargeBench> => {
  const scenario = Either.getOrThrow(parseScenario(readFileSync(file, "utf8"), file))
  const { outline, peakRssKiB } = await runInWorker(file, scenario)
  const runCpuSeconds = outline.runCpuMs / 1000
  return {
    scenario: scenario.name,
    superValidators: scenario.topology.superValidators,
    validators: scenario.topology.validators,
    synchronizers: scenario.topology.synchronizers.length,
    parties: scenario.topology.parties,
    committedTransactions: outline.transactions,
    nodeCommits: outline.commits,
    deliveries: outline.deliveries,
    runCpuSeconds,
    transactionsPerCpuSecond: outline.transactions / runCpuSeconds,
    nodeCommitsPerCpuSecond: outline.commits / runCpuSeconds,
    deliveriesPerCpuSecond: outline.deliveries / runCpuSeconds,
    simulatedSeconds: outline.simulatedTime / 1e6,
    wallSeconds: outline.wallTimeMs / 1000,
    checksSeconds: outline.checksMs / 1000,
    speedUp: outline.simulatedTime / 1e3 / outline.wallTimeMs,
    peakRssMiB: Math.round(peakRssKiB / 1024),
    historyHash: outline.historyHash,
    ok: outline.ok
  }
}

export const renderLarge = (l: LargeBench, engine: EngineBench | undefined): ReadonlyArray<string> => {
  const lines = [
    "## Large scenario (simulation at scale)",
    "",
    `Scenario \`${l.scenario}\` (scenarios/${l.scenario}.yaml): ${l.superValidators} super validators, ${fmt(l.validators)} validators, ${l.synchronizers} synchronizers, ${fmt(l.parties)} parties;`,
    `one run in a process of its own, ${l.ok ? "every invariant held" : "**invariants broken**"}, history hash \`${l.historyHash.slice(0, 16)}…\`.`,
    "Every transfer is confirmed and committed by all super validators (the DSO is a stakeholder of every coin), so the",
    "work per transaction grows with their number; the baselines are the engine section's, from the same run.",
    "",
    "| figure | value |",
    "|---|---|",
    `| committed transactions (accepted verdicts) | ${fmt(l.committedTransactions)} |`,
    `| updates committed by all participants together | ${fmt(l.nodeCommits)} (${fmt(l.nodeCommits / Math.max(1, l.committedTransactions), 1)} per transaction) |`,
    `| CPU time of the run loop | ${fmt(l.runCpuSeconds, 1)} s |`,
    `| **committed transactions per CPU-second** | **${fmt(l.transactionsPerCpuSecond)}** |`,
    `| node commits per CPU-second | ${fmt(l.nodeCommitsPerCpuSecond)} |`,
    `| simulated time / wall time (speed-up) | ${fmt(l.simulatedSeconds)} s / ${fmt(l.wallSeconds, 1)} s = **${fmt(l.speedUp, 1)}x** real time |`,
    `| of the wall time, the end-of-run invariants and history hash | ${fmt(l.checksSeconds, 1)} s |`,
    `| protocol message deliveries per CPU-second | ${fmt(l.deliveriesPerCpuSecond)} |`,
    `| **peak RSS** | **${fmt(l.peakRssMiB)} MiB** |`
  ]
  if (engine !== undefined) {
    lines.push(
      `| baseline: committed transactions per CPU-second, \`${engine.scenario}\` | ${fmt(engine.transactionsPerCpuSecond)} (ratio large / ${engine.scenario}: ${fmt(l.transactionsPerCpuSecond / engine.transactionsPerCpuSecond, 3)}) |`,
      `| baseline: bare deliveries per CPU-second | ${fmt(engine.baselineDeliveriesPerCpuSecond)} (ratio: ${fmt(l.deliveriesPerCpuSecond / engine.baselineDeliveriesPerCpuSecond, 3)}) |`
    )
  }
  lines.push("")
  return lines
}
