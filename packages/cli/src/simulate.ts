/**
 * `sandnet simulate`: runs scenarios on the deterministic simulator.
 *
 *   sandnet simulate FILE [--seed N] [--report out.html]   one run: summary, history hash last
 *   sandnet simulate FILE --seeds 1..1000 [--jobs 2]       a swarm: a line per run, a summary
 *   sandnet simulate FILE --seed N --until STEP            the deliveries around delivery STEP
 *   sandnet simulate --replay trace.json                   reruns a failed run to its failure
 *
 * A failed run (an invariant broken) leaves a trace file (--trace-dir, default .sandnet/traces)
 * and the exit code is 1. A replay that does not reproduce its failure exits with 3.
 */
import { FileSystem } from "@effect/platform"
import { Console, Effect, Either, Option } from "effect"
import { fork, type ChildProcess } from "node:child_process"
import { dirname, join } from "node:path"
import {
  decodeTrace,
  encodeTrace,
  formatDuration,
  formatSimTime,
  formatTraceDelivery,
  outlineOf,
  parseScenario,
  parseSeeds,
  renderReport,
  runScenario,
  traceOf,
  type Progress,
  type RunOutline,
  type RunResult,
  type Scenario,
  type TraceFile
} from "@sandnet/sim"
import { ProgressBar } from "./progress.ts"
import { execArgvFor, runAgainWithLargeYoungGeneration, wantsLargeYoungGeneration } from "./simulation-heap.ts"

export const formatSummary = (result: RunResult): ReadonlyArray<string> => {
  const s = result.summary
  const w = s.workload
  const speedUp = s.simulatedTime / 1000 / Math.max(1, result.wallTimeMs)
  const checked = Object.keys(result.invariants)
  const broken = Object.entries(result.invariants).filter(([, v]) => v.length > 0)
  const lines = [
    `scenario ${result.scenario}, seed ${result.seed}`,
    `simulated time    ${formatDuration(s.simulatedTime)}`,
    `wall time         ${(result.wallTimeMs / 1000).toFixed(2)} s (${speedUp.toFixed(0)}x real time; the end-of-run checks ${(result.checksMs / 1000).toFixed(2)} s of it), ${(result.runCpuMs / 1000).toFixed(2)} s CPU in the run loop`,
    `updates           ${s.updates} (as the DSO's scan sees them)`,
    `verdicts          ${s.verdictsAccepted} accepted, ${s.verdictsRejected} rejected (${Math.round(s.verdictsAccepted / Math.max(0.001, result.runCpuMs / 1000))} accepted per CPU-second)`,
    `contracts         ${s.activeContracts} active (DSO view)`,
    `deliveries        ${s.deliveries} messages`,
    `parties           ${w.partiesOnboarded} onboarded, ${w.tapsSucceeded} tapped, ${w.preapprovalsCreated} preapprovals`,
    `transfers         ${w.transfersSubmitted} submitted, ${w.transfersSucceeded} succeeded, ${w.transfersFailed} failed, ${w.transfersSkipped} skipped`,
    `reassignments     ${w.reassignmentsSubmitted} started, ${w.reassignmentsSucceeded} steps succeeded, ${w.reassignmentsFailed} failed`,
    ...economyLines(result),
    ...faultLines(result),
    broken.length === 0 && result.ok
      ? `invariants        ${checked.length} checked, all held (${checked.join(", ")})`
      : `invariants        ${broken.length} of ${checked.length} BROKEN`
  ]
  for (const [name, violations] of broken) {
    lines.push(`  ${name}: ${violations.length} violation(s)`)
    for (const v of violations.slice(0, 5)) lines.push(`    - ${v}`)
  }
  const first = result.firstFailure
  if (first !== undefined) lines.push(`first failure     ${first.invariant} at delivery #${first.delivery} (${formatSimTime(first.at)}): ${first.message}`)
  lines.push(`history-hash: ${result.historyHash}`)
  return lines
}

/** What the economy did (only for runs with wallets): rounds, rewards, offers, merges, dust, traffic, votes. */
const economyLines = (result: RunResult): ReadonlyArray<string> => {
  const w = result.summary.workload
  const e = w.economy
  if (e === undefined) return []
  return [
    `rounds            ${e.roundsAdvanced} advanced, ${e.roundsIssued} issued, ${e.roundsClosed} closed`,
    `rewards minted    ${e.rewardsMinted} coin in ${e.rewardCollections} collections (${e.appCouponsCollected} app, ${e.validatorCouponsCollected} validator coupons, ${e.livenessRecordsCollected} liveness records); ${e.couponsExpired} coupons expired unminted`,
    `one-step          ${e.oneStepTransfers} through preapprovals, ${e.featuredTransfers} featured; ${e.preapprovalsRenewed} preapprovals renewed; ${e.sweeps} sweeps`,
    `offers            ${e.offersCreated} created, ${e.offersAccepted} accepted (${e.autoAccepted} automatically), ${e.offersCompleted} completed, ${e.offersExpired} expired, ${e.offersFailed} failed (${w.offersRejected} rejected, ${w.offersWithdrawn} withdrawn, ${e.acceptedOffersAborted} aborted)`,
    `token transfers   ${e.tokenTransfersCreated} created, ${e.tokenTransfersCompleted} completed, ${e.tokenTransfersClosed} closed (${w.tokenTransfersRejected} rejected, ${w.tokenTransfersWithdrawn} withdrawn, ${e.instructionsExpired} expired)`,
    `holdings merged   ${e.holdingsMerged} holdings in ${e.mergeTransactions} merges; ${e.dustExpired} dust holdings expired (${e.dustBurned} coin)`,
    `traffic bought    ${e.trafficPurchases} purchases, ${e.trafficBytesBought} bytes, ${e.trafficCoinBurned} coin burned (requests: ${w.buyTrafficRequested} made, ${e.buyTrafficRequestsCompleted} completed, ${e.buyTrafficRequestsRejected} rejected, ${e.buyTrafficRequestsExpired} expired)`,
    `votes             ${w.votesRequested} requested, ${w.votesCast} cast, ${e.votesClosed} closed; liveness recorded ${e.livenessRecorded} times`
  ]
}

/** The faults that happened (nothing for a fault-free run). */
const faultLines = (result: RunResult): ReadonlyArray<string> => {
  const f = result.faults
  const l = f.links
  const r = f.retries
  const lines: Array<string> = []
  for (const kind of ["crash", "mediator-timeout", "partition", "clock-skew"] as const) {
    const events = f.events.filter((e) => e.kind === kind)
    if (events.length === 0) continue
    const label = { crash: "crashes", "mediator-timeout": "mediator timeouts", partition: "partitions", "clock-skew": "clock skew" }[kind]
    const shown = events.slice(0, 4).map((e) => (kind === "clock-skew" ? e.detail : `${e.detail} ${formatSimTime(e.from)}-${formatSimTime(e.to)}`))
    lines.push(`${label.padEnd(18)}${events.length}: ${shown.join("; ")}${events.length > 4 ? "; ..." : ""}`)
  }
  if (f.restarts > 0) lines.push(`restarts          ${f.restarts} participants rebuilt from their journals`)
  if (l.dropped + l.duplicated + l.reordered + l.delayed + l.gaps + l.held + l.lost > 0) {
    lines.push(`messages          ${l.dropped} dropped, ${l.duplicated} duplicated, ${l.reordered} reordered, ${l.delayed} delayed, ${l.gaps} subscription gaps, ${l.held} held for a node that was down or cut off, ${l.lost} lost to one`)
  }
  if (r.retried > 0) {
    lines.push(`retries           ${r.retried} commands resubmitted ${r.resubmissions} times: ${r.alreadyInFlight} SUBMISSION_ALREADY_IN_FLIGHT, ${r.duplicateCommand} DUPLICATE_COMMAND, ${r.resubmitted} went through again (the first had failed), ${r.unavailable} UNAVAILABLE, ${r.rejected} rejected otherwise`)
  }
  return lines
}

export const printResult = (result: RunResult): Effect.Effect<void> =>
  Effect.sync(() => {
    for (const line of formatSummary(result)) process.stdout.write(line + "\n")
  })

export interface SimulateOptions {
  readonly file: Option.Option<string>
  readonly seed: Option.Option<number>
  readonly seeds: Option.Option<string>
  readonly replay: Option.Option<string>
  readonly until: Option.Option<number>
  readonly report: Option.Option<string>
  readonly traceDir: string
  /** Leave the trace of a run that passed too (one run), to replay it exactly elsewhere. */
  readonly keepTrace: boolean
  readonly jobs: number
  readonly quiet: boolean
  /** Internal: a swarm's worker process (seeds come and outlines go over IPC). */
  readonly worker: boolean
}

interface Loaded {
  readonly file: string
  readonly text: string
  readonly scenario: Scenario
}

const usage = (message: string): Effect.Effect<never> =>
  Effect.flatMap(Console.error(message), () => Effect.sync(() => process.exit(2)))

const load = (file: string): Effect.Effect<Loaded, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.orElse(fs.readFileString(file), () => usage(`${file}: cannot read it`))
    return yield* fromText(file, text)
  })

const fromText = (file: string, text: string): Effect.Effect<Loaded> => {
  const scenario = parseScenario(text, file)
  return Either.isLeft(scenario) ? usage(`${file}: ${scenario.left.message}`) : Effect.succeed({ file, text, scenario: scenario.right })
}

const writeFile = (path: string, content: string): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    yield* Effect.orDie(fs.makeDirectory(dirname(path), { recursive: true }))
    yield* Effect.orDie(fs.writeFileString(path, content))
  })

const tracePath = (dir: string, trace: TraceFile): string => join(dir, `${trace.scenario.name}-seed-${trace.seed}.json`)

const progressOf = (bar: ProgressBar, label: string, base: { transactions: number }, swarm?: { done: number; total: number; failed: number }) => (p: Progress) =>
  bar.update({
    label,
    simulated: p.simulatedTime,
    duration: p.duration,
    transactions: base.transactions + p.transactions,
    ...(swarm === undefined ? {} : { seedsDone: swarm.done, seedsTotal: swarm.total, failed: swarm.failed })
  })

/** One run: the summary, a trace when it failed, a report when asked. */
const single = (loaded: Loaded, seed: number | undefined, options: SimulateOptions) =>
  Effect.gen(function* () {
    const bar = new ProgressBar(process.stderr, !options.quiet)
    const label = `seed ${seed ?? loaded.scenario.seed}`
    const withReport = Option.isSome(options.report)
    const result = yield* runScenario(loaded.scenario, { pause: letTheEventLoopTurn,
      ...(seed === undefined ? {} : { seed }),
      onProgress: progressOf(bar, label, { transactions: 0 }),
      ...(withReport ? { timeline: { detailed: true } } : {})
    })
    bar.clear()
    yield* printResult(result)
    const trace = traceOf(result, loaded, options.keepTrace)
    if (trace !== undefined) {
      const path = tracePath(options.traceDir, trace)
      yield* writeFile(path, encodeTrace(trace))
      const around = trace.failure === undefined ? "" : `; around the step: sandnet simulate ${loaded.file} --seed ${result.seed} --until ${trace.failure.delivery}`
      yield* Console.log(`trace             ${path} (replay: sandnet simulate --replay ${path}${around})`)
    }
    if (Option.isSome(options.report)) {
      yield* writeFile(options.report.value, renderReport(result, { file: loaded.file, generatedBy: `sandnet simulate ${loaded.file} --seed ${result.seed}` }))
      yield* Console.log(`report            ${options.report.value}`)
    }
    if (!result.ok) yield* Effect.sync(() => (process.exitCode = 1))
  })

const AROUND = 10

const printWindow = (result: RunResult, step: number) =>
  Effect.gen(function* () {
    const shown = result.window.filter((d) => d.n >= step - AROUND && d.n <= step + AROUND)
    if (shown.length === 0) return yield* Console.log(`the run has only ${result.summary.deliveries} deliveries`)
    yield* Console.log(`deliveries #${shown[0]!.n}..#${shown[shown.length - 1]!.n} of ${result.scenario}, seed ${result.seed} (>> marks #${step}):`)
    for (const d of shown) yield* Console.log(formatTraceDelivery(d, d.n === step))
    const seen = result.monitored.filter((v) => v.delivery <= step + AROUND)
    if (seen.length === 0) yield* Console.log(`no invariant was seen broken up to delivery #${shown[shown.length - 1]!.n}`)
    for (const v of seen.slice(0, 10)) yield* Console.log(`broken after #${v.delivery} (${formatSimTime(v.at)}): ${v.invariant}: ${v.message}`)
  })

/** `--until STEP`: runs to STEP and a little past it, and prints the deliveries around it. */
const until = (loaded: Loaded, seed: number | undefined, step: number, options: SimulateOptions) =>
  Effect.gen(function* () {
    const bar = new ProgressBar(process.stderr, !options.quiet)
    const result = yield* runScenario(loaded.scenario, { pause: letTheEventLoopTurn,
      ...(seed === undefined ? {} : { seed }),
      stopAfter: step + AROUND,
      traceWindow: 2 * AROUND + 1,
      onProgress: progressOf(bar, `seed ${seed ?? loaded.scenario.seed}`, { transactions: 0 })
    })
    bar.clear()
    yield* printWindow(result, step)
  })

/** `--replay trace.json`: reruns the traced run to its failure and checks it happens again, identically. */
const replay = (path: string, options: SimulateOptions) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.orElse(fs.readFileString(path), () => usage(`${path}: cannot read it`))
    const decoded = decodeTrace(text)
    if (Either.isLeft(decoded)) return yield* usage(`${path}: not a trace file: ${decoded.left}`)
    const trace = decoded.right
    const loaded = yield* fromText(trace.scenario.file, trace.scenario.text)
    if (trace.failure !== undefined) return yield* replayFailure(trace, trace.failure, loaded, options)
    if (trace.passed !== undefined) return yield* replayPass(trace, trace.passed, loaded, options)
    return yield* usage(`${path}: not a trace file: it records neither a failure nor a passed run`)
  })

type TracedFailure = NonNullable<TraceFile["failure"]>
type TracedPass = NonNullable<TraceFile["passed"]>

const replayFailure = (trace: TraceFile, failure: TracedFailure, loaded: Loaded, options: SimulateOptions) =>
  Effect.gen(function* () {
    yield* Console.log(`replaying ${trace.scenario.name} (${trace.scenario.file}), seed ${trace.seed}: ${failure.invariant} broke at delivery #${failure.delivery} (${failure.simulatedTime})`)
    const bar = new ProgressBar(process.stderr, !options.quiet)
    const result = yield* runScenario(loaded.scenario, { pause: letTheEventLoopTurn,
      seed: trace.seed,
      ...(failure.phase === "during" ? { stopAfter: failure.delivery + AROUND, traceWindow: 2 * AROUND + 1 } : { traceWindow: 2 * AROUND + 1 }),
      onProgress: progressOf(bar, `seed ${trace.seed}`, { transactions: 0 })
    })
    bar.clear()
    const again = result.firstFailure
    if (failure.phase === "during") yield* printWindow(result, failure.delivery)
    else for (const line of formatSummary(result)) yield* Console.log(line)
    const same = again !== undefined && again.invariant === failure.invariant && again.delivery === failure.delivery && again.historyHash === failure.historyHash
    if (same) {
      yield* Console.log(`reproduced: ${again.invariant} broke again at delivery #${again.delivery}, history hash ${again.historyHash.slice(0, 16)}… as recorded`)
      yield* Effect.sync(() => (process.exitCode = 1))
    } else {
      yield* Console.log(
        again === undefined
          ? "NOT reproduced: no invariant broke"
          : `NOT reproduced: ${again.invariant} at delivery #${again.delivery} (hash ${again.historyHash.slice(0, 16)}…), the trace says ${failure.invariant} at #${failure.delivery} (hash ${failure.historyHash.slice(0, 16)}…)`
      )
      yield* Effect.sync(() => (process.exitCode = 3))
    }
  })

/** A kept trace of a run that passed: the rerun must pass again and end on the same history hash. */
const replayPass = (trace: TraceFile, passed: TracedPass, loaded: Loaded, options: SimulateOptions) =>
  Effect.gen(function* () {
    yield* Console.log(`replaying ${trace.scenario.name} (${trace.scenario.file}), seed ${trace.seed}: it passed after ${passed.deliveries} deliveries`)
    const bar = new ProgressBar(process.stderr, !options.quiet)
    const result = yield* runScenario(loaded.scenario, { pause: letTheEventLoopTurn, seed: trace.seed, onProgress: progressOf(bar, `seed ${trace.seed}`, { transactions: 0 }) })
    bar.clear()
    yield* printResult(result)
    if (result.ok && result.historyHash === passed.historyHash) {
      return yield* Console.log(`reproduced: the run passed again, history hash ${result.historyHash.slice(0, 16)}… as recorded`)
    }
    yield* Console.log(
      result.ok
        ? `NOT reproduced: history hash ${result.historyHash.slice(0, 16)}…, the trace says ${passed.historyHash.slice(0, 16)}…`
        : `NOT reproduced: ${result.firstFailure?.invariant ?? "an invariant"} broke; the trace says the run passed`
    )
    yield* Effect.sync(() => (process.exitCode = 3))
  })

const outlineLine = (o: RunOutline): string => {
  const head = `seed ${String(o.seed).padEnd(6)} ${o.ok ? "ok    " : "FAILED"} ${String(o.transactions).padStart(7)} tx ${String(o.rejected).padStart(5)} rejected  ${formatDuration(o.simulatedTime).padStart(7)} simulated  ${(o.wallTimeMs / 1000).toFixed(2).padStart(6)} s  hash ${o.historyHash.slice(0, 12)}`
  const failure = o.failure === undefined ? "" : `\n    ${o.failure.invariant} at delivery #${o.failure.delivery} (${formatSimTime(o.failure.at)}): ${o.failure.message}`
  return `${head}  faults: ${o.faults}${failure}`
}

/** Between two stretches of a run: the event loop turns (SIGTERM and SIGINT can stop the run, a worker sees its parent go). */
const letTheEventLoopTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

export interface WorkerReply {
  readonly type: "progress" | "done"
  readonly seed: number
  readonly progress?: Progress
  readonly outline?: RunOutline
  readonly trace?: TraceFile
  /** The worker's peak resident set size so far, in KiB. */
  readonly peakRssKiB?: number
}

/**
 * Runs seeds in `jobs` child processes (this command with SANDNET_SIMULATE_WORKER=1), handing out
 * one seed at a time. Interrupted (SIGTERM, SIGINT), it kills its workers; a worker whose parent
 * is gone (its IPC channel closed) exits by itself.
 */
const parallel = (loaded: Loaded, seeds: ReadonlyArray<number>, jobs: number, onProgress: (seed: number, p: Progress) => void, onDone: (o: RunOutline, trace: TraceFile | undefined) => void) =>
  Effect.async<void>((resume) => {
    let next = 0
    let running = 0
    const script = process.argv[1] ?? ""
    const children: Array<ChildProcess> = []
    for (let i = 0; i < Math.min(jobs, seeds.length); i++) {
      const child = fork(script, ["simulate", loaded.file], { execArgv: execArgvFor(loaded.scenario, process.execArgv), env: { ...process.env, SANDNET_SIMULATE_WORKER: "1" }, stdio: ["ignore", "inherit", "inherit", "ipc"] })
      children.push(child)
      running++
      let current: number | undefined
      const feed = () => {
        current = next < seeds.length ? seeds[next++] : undefined
        child.send(current === undefined ? { exit: true } : { seed: current })
      }
      child.on("message", (raw) => {
        const reply = raw as WorkerReply
        if (reply.type === "progress" && reply.progress !== undefined) onProgress(reply.seed, reply.progress)
        else if (reply.type === "done" && reply.outline !== undefined) {
          onDone(reply.outline, reply.trace)
          feed()
        }
      })
      child.on("exit", (code) => {
        // A worker that died (out of memory, say) fails the seed it had; its other seeds go unrun.
        if (current !== undefined) onDone(crashedOutline(current, code), undefined)
        running--
        if (running === 0) resume(Effect.void)
      })
      feed()
    }
    return Effect.sync(() => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    })
  })

const crashedOutline = (seed: number, code: number | null): RunOutline => ({
  seed,
  ok: false,
  historyHash: "",
  transactions: 0,
  rejected: 0,
  commits: 0,
  deliveries: 0,
  simulatedTime: 0,
  wallTimeMs: 0,
  runCpuMs: 0,
  checksMs: 0,
  broken: ["worker"],
  failure: { invariant: "worker", message: `the worker process running this seed exited (code ${code ?? "none"})`, delivery: 0, at: 0, historyHash: "", window: [] },
  faults: "unknown"
})

/** The worker side: runs the seeds it is sent, replies with outlines (and traces of failures). */
const worker = (loaded: Loaded) =>
  Effect.async<void>((resume) => {
    const send = (reply: WorkerReply) => process.send?.(reply)
    // The parent is gone (killed, or it stopped the swarm): so is this worker's work.
    process.once("disconnect", () => process.exit(0))
    process.on("message", (raw) => {
      const message = raw as { seed?: number; exit?: boolean }
      if (message.exit === true || message.seed === undefined) {
        process.removeAllListeners("disconnect")
        process.disconnect?.()
        return resume(Effect.void)
      }
      const seed = message.seed
      let last = 0
      Effect.runPromise(
        runScenario(loaded.scenario, { pause: letTheEventLoopTurn,
          seed,
          onProgress: (progress) => {
            const now = performance.now()
            if (now - last > 200) {
              last = now
              send({ type: "progress", seed, progress })
            }
          }
        })
      ).then((result) => {
        const trace = traceOf(result, loaded)
        send({ type: "done", seed, outline: outlineOf(result), peakRssKiB: process.resourceUsage().maxRSS, ...(trace === undefined ? {} : { trace }) })
      })
    })
  })

/**
 * `--jobs` > 1: runs the seeds in worker processes and hands each finished run to `finished`, in
 * this fiber and in the order they finish, until every seed is done or the workers stopped.
 */
const inWorkers = <E, R>(
  loaded: Loaded,
  seeds: ReadonlyArray<number>,
  jobs: number,
  onProgress: (seed: number, p: Progress) => void,
  finished: (o: RunOutline, trace: TraceFile | undefined) => Effect.Effect<void, E, R>,
  allDone: () => boolean
) =>
  Effect.gen(function* () {
    const pending: Array<{ o: RunOutline; trace: TraceFile | undefined }> = []
    const wake: { resume: (() => void) | undefined; workersDone: boolean } = { resume: undefined, workersDone: false }
    const onDone = (o: RunOutline, trace: TraceFile | undefined) => {
      pending.push({ o, trace })
      wake.resume?.()
    }
    yield* Effect.fork(
      Effect.tap(parallel(loaded, seeds, jobs, onProgress, onDone), () =>
        Effect.sync(() => {
          wake.workersDone = true
          wake.resume?.()
        })
      )
    )
    for (;;) {
      const item = pending.shift()
      if (item !== undefined) {
        yield* finished(item.o, item.trace)
        continue
      }
      if (allDone() || wake.workersDone) break
      yield* Effect.async<void>((resume) => void (wake.resume = () => ((wake.resume = undefined), resume(Effect.void))))
    }
  })

/** `--seeds`: every seed once; a line per run; traces of failures; a summary. */
const swarm = (loaded: Loaded, seeds: ReadonlyArray<number>, options: SimulateOptions) =>
  Effect.gen(function* () {
    const bar = new ProgressBar(process.stderr, !options.quiet)
    const state = { done: 0, total: seeds.length, failed: 0 }
    const totals = { transactions: 0, cpuMs: 0 }
    const outlines: Array<RunOutline> = []
    const failed: Array<{ seed: number; path: string }> = []
    const finished = (o: RunOutline, trace: TraceFile | undefined) =>
      Effect.gen(function* () {
        state.done++
        totals.transactions += o.transactions
        totals.cpuMs += o.runCpuMs
        outlines.push(o)
        bar.clear()
        yield* Console.log(outlineLine(o))
        if (!o.ok) {
          state.failed++
          if (trace !== undefined) {
            const path = tracePath(options.traceDir, trace)
            yield* writeFile(path, encodeTrace(trace))
            failed.push({ seed: o.seed, path })
            yield* Console.log(`    trace: ${path}  (sandnet simulate --replay ${path})`)
          }
        }
        bar.update({ label: "", simulated: 0, duration: 0, transactions: totals.transactions, seedsDone: state.done, seedsTotal: state.total, failed: state.failed }, true)
      })
    const current = new Map<number, Progress>()
    const onProgress = (seed: number, p: Progress) => {
      current.set(seed, p)
      bar.update({ label: `seed ${seed}`, simulated: p.simulatedTime, duration: p.duration, transactions: totals.transactions + p.transactions, seedsDone: state.done, seedsTotal: state.total, failed: state.failed })
    }
    if (options.jobs > 1) {
      yield* inWorkers(loaded, seeds, options.jobs, onProgress, finished, () => state.done >= seeds.length)
    } else {
      for (const seed of seeds) {
        const result = yield* runScenario(loaded.scenario, { pause: letTheEventLoopTurn, seed, onProgress: (p) => onProgress(seed, p) })
        yield* finished(outlineOf(result), traceOf(result, loaded))
      }
    }
    bar.clear()
    const elapsed = bar.elapsedSeconds
    const hashes = new Set(outlines.map((o) => o.historyHash)).size
    yield* Console.log(
      `${outlines.length} runs of ${loaded.scenario.name}: ${outlines.length - state.failed} ok, ${state.failed} FAILED${failed.length > 0 ? ` (seeds ${failed.map((f) => f.seed).join(", ")})` : ""}; ` +
        `${totals.transactions.toLocaleString("en-US")} transactions in ${elapsed.toFixed(1)} s wall (${Math.round(totals.transactions / Math.max(0.001, elapsed)).toLocaleString("en-US")} tx/s), ` +
        `${Math.round(totals.transactions / Math.max(0.001, totals.cpuMs / 1000)).toLocaleString("en-US")} tx per CPU-second of run loop; ${hashes} distinct histories`
    )
    if (state.failed > 0) yield* Effect.sync(() => (process.exitCode = 1))
  })

export const simulateCommand = (options: SimulateOptions): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    if (Option.isSome(options.replay)) return yield* replay(options.replay.value, options)
    if (Option.isNone(options.file)) return yield* usage("sandnet simulate needs a scenario FILE (or --replay trace.json)")
    const loaded = yield* load(options.file.value)
    if (options.worker) return yield* worker(loaded)
    const seed = Option.getOrUndefined(options.seed)
    if (Option.isSome(options.seeds)) {
      if (Option.isSome(options.seed) || Option.isSome(options.until) || Option.isSome(options.report)) return yield* usage("--seeds runs a swarm: it does not go with --seed, --until or --report")
      const seeds = parseSeeds(options.seeds.value)
      if (seeds === undefined) return yield* usage(`--seeds ${options.seeds.value}: expected e.g. 1..1000 or 1,5,9..12`)
      return yield* swarm(loaded, seeds, options)
    }
    if (Option.isSome(options.until) && Option.isSome(options.report)) return yield* usage("--report goes with one whole run, not with --until")
    if (wantsLargeYoungGeneration(loaded.scenario, process.argv, process.execArgv)) return yield* runAgainWithLargeYoungGeneration
    if (Option.isSome(options.until)) return yield* until(loaded, seed, options.until.value, options)
    return yield* single(loaded, seed, options)
  })
