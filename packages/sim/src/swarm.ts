/**
 * Swarms: one scenario run with many seeds, one after another, each summarized (and, when it fails,
 * turned into a trace that replays it). Seeds are written `7`, `1..1000` or `1,5,9..12`.
 */
import { Effect } from "effect"
import type { Micros } from "@sandnet/core"
import { runScenario, type FirstFailure, type Progress, type RunOptions, type RunResult } from "./runner.ts"
import type { Scenario } from "./scenario.ts"
import { formatSimTime, type TraceFile } from "./trace.ts"

export interface RunOutline {
  readonly seed: number
  readonly ok: boolean
  readonly historyHash: string
  /** Accepted verdicts (committed transactions and reassignment steps) of every synchronizer. */
  readonly transactions: number
  readonly rejected: number
  /** Updates committed by all participants together (each node's ledger end, summed). */
  readonly commits: number
  readonly deliveries: number
  readonly simulatedTime: Micros
  readonly wallTimeMs: number
  readonly runCpuMs: number
  /** Wall time of the end-of-run invariants and the history hash (part of `wallTimeMs`). */
  readonly checksMs: number
  /** Invariants broken at the end of the run (and during it). */
  readonly broken: ReadonlyArray<string>
  readonly failure: FirstFailure | undefined
  /** One line about the faults that happened. */
  readonly faults: string
}

export const faultLine = (result: RunResult): string => {
  const f = result.faults
  const count = (kind: string) => f.events.filter((e) => e.kind === kind).length
  const parts: Array<string> = []
  const crashes = count("crash")
  if (crashes > 0) parts.push(`${crashes} crash${crashes === 1 ? "" : "es"} (${f.restarts} restarts)`)
  if (count("mediator-timeout") > 0) parts.push(`${count("mediator-timeout")} mediator timeouts`)
  if (count("partition") > 0) parts.push(`${count("partition")} partitions`)
  if (count("clock-skew") > 0) parts.push(`${count("clock-skew")} skewed clocks`)
  const l = f.links
  const link = [
    l.dropped > 0 ? `${l.dropped} dropped` : "",
    l.duplicated > 0 ? `${l.duplicated} duplicated` : "",
    l.reordered > 0 ? `${l.reordered} reordered` : "",
    l.gaps > 0 ? `${l.gaps} gaps` : "",
    l.held > 0 ? `${l.held} held` : "",
    l.lost > 0 ? `${l.lost} lost to outages` : ""
  ].filter((s) => s !== "")
  if (link.length > 0) parts.push(`messages: ${link.join(", ")}`)
  const r = f.retries
  if (r.retried > 0) parts.push(`retries: ${r.resubmissions} resubmissions (${r.alreadyInFlight} in flight, ${r.duplicateCommand} duplicate, ${r.resubmitted} resubmitted, ${r.unavailable + r.rejected} rejected)`)
  return parts.length === 0 ? "none" : parts.join("; ")
}

export const outlineOf = (result: RunResult): RunOutline => ({
  seed: result.seed,
  ok: result.ok,
  historyHash: result.historyHash,
  transactions: result.summary.verdictsAccepted,
  rejected: result.summary.verdictsRejected,
  commits: result.network.participants.reduce((n, p) => n + p.logic.ledgerEnd, 0),
  deliveries: result.summary.deliveries,
  simulatedTime: result.summary.simulatedTime,
  wallTimeMs: result.wallTimeMs,
  runCpuMs: result.runCpuMs,
  checksMs: result.checksMs,
  broken: [...new Set([...Object.entries(result.invariants).filter(([, v]) => v.length > 0).map(([k]) => k), ...result.monitored.map((v) => v.invariant)])],
  failure: result.firstFailure,
  faults: faultLine(result)
})

/** The trace file of a failed run (undefined when it did not fail). */
const faultLines = (result: RunResult): Array<string> => result.faults.events.map((e) => `${formatSimTime(e.from)}..${formatSimTime(e.to)} ${e.kind}: ${e.detail}`)

export const traceOf = (result: RunResult, scenario: { readonly file: string; readonly text: string }, keepPassed = false): TraceFile | undefined => {
  const failure = result.firstFailure
  if (failure === undefined) {
    if (!keepPassed) return undefined
    return {
      sandnetTrace: 1,
      scenario: { file: scenario.file, name: result.scenario, text: scenario.text },
      seed: result.seed,
      passed: { historyHash: result.historyHash, deliveries: result.summary.deliveries },
      violations: [],
      deliveries: [],
      faults: faultLines(result)
    }
  }
  const during = result.monitored.length > 0 && result.monitored[0]!.delivery === failure.delivery && result.monitored[0]!.invariant === failure.invariant
  return {
    sandnetTrace: 1,
    scenario: { file: scenario.file, name: result.scenario, text: scenario.text },
    seed: result.seed,
    failure: {
      invariant: failure.invariant,
      message: failure.message,
      delivery: failure.delivery,
      simulatedTime: formatSimTime(failure.at),
      phase: during ? "during" : "end",
      historyHash: failure.historyHash
    },
    violations: [
      ...result.monitored.slice(0, 10).map((v) => `#${v.delivery} ${v.invariant}: ${v.message}`),
      ...Object.entries(result.invariants).flatMap(([name, list]) => list.slice(0, 5).map((v) => `end ${name}: ${v}`))
    ].slice(0, 30),
    deliveries: failure.window,
    faults: faultLines(result)
  }
}

/** `7`, `1..1000`, `1,5,9..12` -> the seeds, in order (undefined when it is not such a list). */
export const parseSeeds = (text: string): ReadonlyArray<number> | undefined => {
  const seeds: Array<number> = []
  for (const part of text.split(",")) {
    const range = /^\s*(-?\d+)\s*(?:\.\.\s*(-?\d+)\s*)?$/.exec(part)
    if (range === null) return undefined
    const from = Number(range[1])
    const to = range[2] === undefined ? from : Number(range[2])
    if (to < from || to - from > 10_000_000) return undefined
    for (let s = from; s <= to; s++) seeds.push(s)
  }
  return seeds.length === 0 ? undefined : seeds
}

export interface SwarmHooks {
  readonly onStart?: (seed: number, index: number) => void
  readonly onProgress?: (seed: number, progress: Progress) => void
  /** Called with the full result (the network included) before it is let go. */
  readonly onRun?: (result: RunResult, outline: RunOutline, index: number) => void
}

/** Runs the scenario once per seed, one after another; keeps only the outlines. */
export const runSwarm = (
  scenario: Scenario,
  seeds: ReadonlyArray<number>,
  hooks: SwarmHooks = {},
  options: Omit<RunOptions, "seed" | "onProgress"> = {}
): Effect.Effect<ReadonlyArray<RunOutline>> =>
  Effect.forEach(seeds, (seed, index) =>
    Effect.suspend(() => {
      hooks.onStart?.(seed, index)
      const onProgress = hooks.onProgress
      return Effect.map(runScenario(scenario, { ...options, seed, ...(onProgress === undefined ? {} : { onProgress: (p: Progress) => onProgress(seed, p) }) }), (result) => {
        const outline = outlineOf(result)
        hooks.onRun?.(result, outline, index)
        return outline
      })
    })
  )
