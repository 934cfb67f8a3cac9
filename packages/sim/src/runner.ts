/**
 * The run loop: builds the scenario's network on a virtual clock and a seeded simulated network,
 * bootstraps the DSO, runs the workload for the scenario's duration while the faults of the
 * scenario happen (faults.ts), lets in-flight work settle once they have healed, then checks the
 * invariants and hashes the history. Bounded: the loop stops at the scenario's end (or the last
 * fault's end) plus a settling window, whatever is still queued.
 *
 * The loop delivers one message at a time (the same order as the engine's driver) and checks the
 * cheap invariants after every delivery (monitor.ts), so a failure is known to the delivery that
 * caused it; the last deliveries are kept for the trace.
 */
import { Clock, Context, Effect, Exit, Cause } from "effect"
import { SIMULATION_EPOCH, micros, type Micros } from "@sandnet/core"
import {
  EventQueueNetwork,
  ManualClock,
  Network,
  SkewedClock,
  Topology,
  TopologyState,
  buildCoinNetwork,
  defaultCoinNetworkConfig,
  submitGenesis,
  type Address,
  type CoinNetwork,
  type LinkModel
} from "@sandnet/engine"
import { historyHash } from "./history.ts"
import { checkInvariants } from "./invariants.ts"
import { defaultLatency, latencyLink } from "./link.ts"
import { FaultyLink, emptyLinkFaultStats, planFaults, type FaultEvent, type FaultPlan, type LinkFaultStats, type NodeRef } from "./faults.ts"
import { Monitor, type Violation } from "./monitor.ts"
import { installHandles, NodeControl, type ParticipantHandle } from "./nodes.ts"
import { SeededRandom } from "./random.ts"
import { emptyRetryStats, RetryingClient, type RetryStats } from "./retries.ts"
import type { Scenario } from "./scenario.ts"
import { Timeline, type TimelineSample } from "./timeline.ts"
import { DeliveryRing, describeDelivery, type TraceDelivery } from "./trace.ts"
import { Workload, type WorkloadStats } from "./workload.ts"

export interface RunSummary {
  readonly updates: number
  readonly verdictsAccepted: number
  readonly verdictsRejected: number
  readonly activeContracts: number
  readonly simulatedTime: Micros
  readonly deliveries: number
  readonly workload: WorkloadStats
}

export interface FirstFailure extends Violation {
  /** The network's history hash right after the failing delivery. */
  readonly historyHash: string
  /** The deliveries up to the failing one. */
  readonly window: ReadonlyArray<TraceDelivery>
}

export interface FaultSummary {
  readonly events: ReadonlyArray<FaultEvent>
  readonly links: LinkFaultStats
  readonly restarts: number
  readonly retries: RetryStats
}

export interface RunResult {
  readonly scenario: string
  readonly seed: number
  readonly summary: RunSummary
  /** Violations per invariant at the end of the run; empty lists when it held. */
  readonly invariants: Record<string, ReadonlyArray<string>>
  readonly ok: boolean
  readonly historyHash: string
  readonly wallTimeMs: number
  /** CPU time of the run loop alone (building, workload and settling; not the checks). */
  readonly runCpuMs: number
  readonly network: CoinNetwork
  /** The first invariant seen broken during the run (or at its end), with the delivery that broke it. */
  readonly firstFailure: FirstFailure | undefined
  /** What the during-the-run checks found (the first ones). */
  readonly monitored: ReadonlyArray<Violation>
  readonly faults: FaultSummary
  readonly timeline: ReadonlyArray<TimelineSample>
  /** When the workload started (fault times are relative to it), and how long it ran. */
  readonly start: Micros
  readonly workloadDuration: Micros
  /** The last deliveries of the run (or up to `stopAfter`). */
  readonly window: ReadonlyArray<TraceDelivery>
  /** Set when the run stopped early at `stopAfter`. */
  readonly stoppedAt: number | undefined
  /** An engine defect that stopped the run (an assertion inside the engine). */
  readonly defect: string | undefined
}

export interface Progress {
  /** Simulated time since the workload started. */
  readonly simulatedTime: Micros
  /** The run's whole length from there: the scenario's duration, until faults heal, and settling. */
  readonly duration: Micros
  readonly deliveries: number
  /** Offsets across all participants (every node's ledger end, summed). */
  readonly committed: number
  /** Accepted verdicts of every mediator. */
  readonly transactions: number
}

/** What test hooks may touch. */
export interface SimContext {
  readonly network: CoinNetwork
  readonly queue: EventQueueNetwork
  readonly clock: ManualClock
  readonly handles: ReadonlyArray<ParticipantHandle>
  /** A PRNG stream of its own, for the hook. */
  readonly random: SeededRandom
}

export interface RunOptions {
  readonly seed?: number
  /** Called every 10 simulated seconds of progress. */
  readonly onProgress?: (progress: Progress) => void
  /** How long in-flight work may settle after the workload stops (default: the scenario's). */
  readonly settle?: Micros
  /** Wraps the scenario's link model (tests inject faults this way). */
  readonly link?: (base: LinkModel, random: SeededRandom) => LinkModel
  /** Stops right after this delivery (numbered from 1), e.g. to look at the deliveries around a failure. */
  readonly stopAfter?: number
  /** How many recent deliveries are kept for traces (default 40). */
  readonly traceWindow?: number
  /** Samples the timeline for a report: every `every` of simulated time; `detailed` adds balances. */
  readonly timeline?: { readonly every?: Micros; readonly detailed?: boolean }
  /** Test hook: runs after the network is built, before genesis. */
  readonly beforeGenesis?: (sim: SimContext) => Effect.Effect<void, never, Network | Topology>
  /** Test hook: runs after genesis, before the workload starts. */
  readonly setup?: (sim: SimContext) => Effect.Effect<void, never, Network | Topology>
}

type Action =
  | { readonly at: Micros; readonly order: number; readonly kind: "progress" }
  | { readonly at: Micros; readonly order: number; readonly kind: "sample" }
  | { readonly at: Micros; readonly order: number; readonly kind: "down"; readonly node: NodeRef; readonly until: Micros }
  | { readonly at: Micros; readonly order: number; readonly kind: "up"; readonly node: NodeRef }

/** Time the bootstrap (genesis) gets before the workload starts. */
const BOOTSTRAP: Micros = micros.seconds(10)

const niceInterval = (duration: Micros): Micros => {
  const target = duration / 120
  for (const step of [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map((s) => s * 1_000_000)) if (step >= target) return step
  return 3_600_000_000
}

export const runScenario = (scenario: Scenario, options: RunOptions = {}): Effect.Effect<RunResult> =>
  Effect.gen(function* () {
    const started = performance.now()
    const cpuStart = process.cpuUsage()
    const seed = options.seed ?? scenario.seed
    const random = new SeededRandom(seed)
    const networkRandom = random.fork("network")
    const workloadRandom = random.fork("workload")
    // Faults draw from a stream of their own (not forked: adding faults changes nothing else).
    const faultRandom = new SeededRandom(`${seed}:faults`)
    const clock = new ManualClock(SIMULATION_EPOCH)
    const baseLink = latencyLink(networkRandom, scenario.network.latency ?? defaultLatency)
    const link = options.link?.(baseLink, networkRandom) ?? baseLink
    const queue = new EventQueueNetwork(() => clock.now, link)
    const topology = new TopologyState()
    // A context, not a layer: providing a merged layer builds it anew (forking fibers) on every call.
    const services = Context.make(Network, queue).pipe(Context.add(Topology, topology))
    const inSimulation = <A, E>(effect: Effect.Effect<A, E, Network | Topology>) =>
      Effect.withRandom(Effect.withClock(Effect.provide(effect, services), clock), random)

    const network = yield* Effect.orDie(
      inSimulation(
        buildCoinNetwork({
          ...defaultCoinNetworkConfig,
          name: scenario.name,
          superValidators: scenario.topology.superValidators,
          validators: scenario.topology.validators,
          synchronizers: scenario.topology.synchronizers.map((name) => ({ name }))
        })
      )
    )
    const handles = installHandles(network)
    const start = clock.now + BOOTSTRAP
    const end = start + scenario.duration

    // Faults: the plan, the link model, skewed clocks, restarts, retries.
    const nodes = new Map<string, NodeRef>()
    for (const h of handles) nodes.set(h.name, { name: h.name, address: h.address, kind: "participant" })
    for (const s of network.synchronizers) {
      nodes.set(`${s.info.name}/sequencer`, { name: `${s.info.name}/sequencer`, address: s.info.sequencer, kind: "sequencer" })
      nodes.set(`${s.info.name}/mediator`, { name: `${s.info.name}/mediator`, address: s.info.mediator, kind: "mediator" })
    }
    const plan: FaultPlan = planFaults(
      scenario.faults,
      {
        topology: scenario.topology,
        nodes,
        start,
        duration: scenario.duration,
        confirmationResponseTimeout: (name) => network.synchronizers.find((s) => s.info.name === name)?.info.parameters.confirmationResponseTimeout ?? micros.seconds(30)
      },
      faultRandom
    )
    const faultyLink = plan.affectsLinks ? new FaultyLink(link, plan, faultRandom.fork("links"), { from: start, to: end }) : undefined
    if (faultyLink !== undefined) queue.setLinkModel(faultyLink)
    const clocks = new Map<Address, Clock.Clock>()
    for (const [address, skew] of plan.skews) clocks.set(address, new SkewedClock(clock, skew))
    if (plan.skews.size > 0) queue.setTimeOffsets((address) => plan.skews.get(address) ?? 0)
    const byAddress = new Map(handles.map((h) => [h.address, h]))
    for (const h of handles) h.clock = clocks.get(h.address)
    const timeline = options.timeline === undefined ? undefined : new Timeline(network, start, options.timeline.detailed === true)
    const control = new NodeControl(queue, (h) => timeline?.attach(h))
    const retrying = plan.retries === undefined ? undefined : new RetryingClient(plan.retries, faultRandom.fork("retries"), queue, () => clock.now)
    if (retrying !== undefined) {
      yield* queue.register(retrying)
      retrying.stopAfter(end)
      for (const h of handles) h.onAccepted = retrying.onAccepted
    }
    // (A stream of the hook's own: forking the run's Random would change what the engine draws.)
    const context = (label: string): SimContext => ({ network, queue, clock, handles, random: new SeededRandom(`${seed}:${label}`) })
    if (options.beforeGenesis !== undefined) yield* inSimulation(options.beforeGenesis(context("before-genesis")))

    // The loop: one delivery at a time, each checked.
    const monitor = new Monitor(network, scenario.invariants)
    const ring = new DeliveryRing(options.traceWindow ?? 40)
    let deliveries = 0
    let stopped = false
    let firstFailure: FirstFailure | undefined
    const window = (): ReadonlyArray<TraceDelivery> => ring.entries().map(({ n, delivery }) => describeDelivery(n, delivery))
    const noteFailure = () => {
      const v = monitor.first
      if (v !== undefined && firstFailure === undefined) firstFailure = { ...v, historyHash: historyHash(network), window: window() }
    }
    const afterDelivery = (to: Address, n: number): void => {
      const before = monitor.count
      monitor.afterDelivery(to, n, clock.now)
      if (monitor.count > before) noteFailure()
      if (n === options.stopAfter) stopped = true
    }
    const deliverUntil = (until: Micros): Effect.Effect<void> =>
      Effect.suspend(() => {
        // Deliveries that actors take at once (ReceiveNow) run in this loop without a fiber step
        // each; a delivery with work left as an effect continues the loop after that effect.
        const step: Effect.Effect<void> = Effect.suspend(() => {
          for (;;) {
            if (stopped) return Effect.void
            const next = queue.next(until)
            if (next === undefined) return Effect.void
            if (next.at > clock.now) clock.advanceTo(next.at)
            const n = ++deliveries
            ring.record(next, n)
            const own = clocks.get(next.to)
            const rest = queue.deliverNow(next, own ?? clock)
            if (rest === undefined) {
              afterDelivery(next.to, n)
              continue
            }
            return Effect.flatMap(own === undefined ? rest : Effect.withClock(rest, own), () => {
              afterDelivery(next.to, n)
              return step
            })
          }
        })
        return Effect.withClock(step, clock)
      })
    const runUntil = (until: Micros): Effect.Effect<void> =>
      Effect.map(inSimulation(deliverUntil(until)), () => {
        if (!stopped && until > clock.now) clock.advanceTo(until)
      })

    const actions: Array<Action> = []
    let order = 0
    for (const o of plan.outages) {
      actions.push({ at: o.from, order: order++, kind: "down", node: o.node, until: o.to })
      actions.push({ at: o.to, order: order++, kind: "up", node: o.node })
    }
    const healed = Math.max(end, ...plan.outages.map((o) => o.to), ...plan.partitions.map((p) => p.to))
    const finish = healed + (options.settle ?? scenario.settle)
    for (let t = start + micros.seconds(10); t < finish; t += micros.seconds(10)) actions.push({ at: t, order: order++, kind: "progress" })
    actions.push({ at: finish, order: order++, kind: "progress" })
    const sampleEvery = options.timeline?.every ?? niceInterval(finish - start)
    if (timeline !== undefined) for (let t = start; t <= finish; t += sampleEvery) actions.push({ at: t, order: order++, kind: "sample" })
    actions.sort((a, b) => a.at - b.at || a.order - b.order)

    const apply = (action: Action): Effect.Effect<void> =>
      Effect.suspend(() => {
        switch (action.kind) {
          case "progress":
            options.onProgress?.({
              simulatedTime: clock.now - start,
              duration: finish - start,
              deliveries,
              committed: network.participants.reduce((n, p) => n + p.logic.ledgerEnd, 0),
              transactions: network.synchronizers.reduce((n, s) => n + s.mediator.logic.stats.accepted, 0)
            })
            return Effect.void
          case "sample":
            timeline?.sample(clock.now, deliveries)
            return Effect.void
          case "down": {
            const handle = byAddress.get(action.node.address)
            if (handle !== undefined) control.crash(handle)
            else if (action.node.kind === "mediator") control.holdTimers(action.node.address, action.until)
            return Effect.void
          }
          case "up": {
            const handle = byAddress.get(action.node.address)
            if (handle === undefined) return Effect.void
            return Effect.tap(inSimulation(control.restart(handle, clock.now)), () => {
              monitor.checkAll(deliveries, clock.now)
              if (monitor.count > 0) noteFailure()
            })
          }
        }
      })

    let workload: Workload | undefined
    const loop = Effect.gen(function* () {
      yield* Effect.orDie(inSimulation(submitGenesis(network)))
      yield* runUntil(start)
      if (options.setup !== undefined) yield* inSimulation(options.setup(context("setup")))
      workload = new Workload(network, queue, scenario, workloadRandom)
      yield* inSimulation(queue.register(workload.actor()))
      yield* inSimulation(workload.start(end))
      for (const action of actions) {
        if (stopped) break
        yield* runUntil(action.at)
        if (!stopped) yield* apply(action)
      }
      if (!stopped) yield* runUntil(finish)
    })
    const exit = yield* Effect.exit(loop)
    const cpu = process.cpuUsage(cpuStart)
    const defect = Exit.isFailure(exit) ? Cause.pretty(exit.cause).split("\n").slice(0, 6).join("\n") : undefined

    const checks = (): Record<string, ReadonlyArray<string>> => {
      if (options.stopAfter !== undefined) {
        // Stopped mid-run: only what the monitor saw so far applies.
        const seen: Record<string, Array<string>> = {}
        for (const v of monitor.violations) (seen[v.invariant] ??= []).push(v.message)
        return seen
      }
      try {
        return checkInvariants(network, scenario.invariants)
      } catch (e) {
        return { "invariant-checks": [`the checks themselves failed: ${e instanceof Error ? e.message : String(e)}`] }
      }
    }
    const invariants = checks()
    if (defect !== undefined) invariants["engine"] = [`the engine stopped at delivery ${deliveries}: ${defect}`]
    const hash = historyHash(network)
    if (defect !== undefined && (firstFailure === undefined || firstFailure.delivery >= deliveries)) {
      // The engine threw: that is the failure, at the delivery it was handling.
      firstFailure = { invariant: "engine", message: defect.split("\n")[0] ?? defect, delivery: deliveries, at: clock.now, historyHash: hash, window: window() }
    }
    if (firstFailure === undefined) {
      const broken = Object.entries(invariants).find(([, list]) => list.length > 0)
      if (broken !== undefined) firstFailure = { invariant: broken[0], message: broken[1][0]!, delivery: deliveries, at: clock.now, historyHash: hash, window: window() }
    }
    const ok = Object.values(invariants).every((v) => v.length === 0) && monitor.count === 0
    const stats = network.synchronizers.reduce(
      (acc, s) => ({ accepted: acc.accepted + s.mediator.logic.stats.accepted, rejected: acc.rejected + s.mediator.logic.stats.rejected }),
      { accepted: 0, rejected: 0 }
    )
    const sv1 = network.superValidators[0]!
    return {
      scenario: scenario.name,
      seed,
      summary: {
        updates: sv1.scan.updates.length,
        verdictsAccepted: stats.accepted,
        verdictsRejected: stats.rejected,
        activeContracts: sv1.participant.logic.acs.size,
        simulatedTime: clock.now - SIMULATION_EPOCH,
        deliveries,
        // (A run that died before the workload started gets an idle workload's figures.)
        workload: (workload ?? new Workload(network, queue, scenario, workloadRandom)).stats
      },
      invariants,
      ok,
      historyHash: hash,
      wallTimeMs: performance.now() - started,
      runCpuMs: (cpu.user + cpu.system) / 1000,
      network,
      firstFailure,
      monitored: monitor.violations,
      faults: {
        events: plan.events,
        links: faultyLink?.stats ?? emptyLinkFaultStats(),
        restarts: handles.reduce((n, h) => n + h.restarts, 0),
        retries: retrying?.stats ?? emptyRetryStats()
      },
      timeline: timeline?.samples ?? [],
      start,
      workloadDuration: scenario.duration,
      window: window(),
      stoppedAt: stopped ? deliveries : undefined,
      defect
    }
  })
