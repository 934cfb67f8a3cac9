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
  type ArchivedLogLimits,
  type HistoryOrderKeeping,
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
  /** Wall time of the end-of-run invariants and the history hash (part of `wallTimeMs`). */
  readonly checksMs: number
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

/** How many deliveries run between two `pause`s of a driver (RunOptions.pause). */
export const PAUSE_EVERY = 2048

export interface RunOptions {
  readonly seed?: number
  /** Called every 10 simulated seconds of progress. */
  readonly onProgress?: (progress: Progress) => void
  /**
   * Run every `PAUSE_EVERY` deliveries: a driver lets its event loop turn there (a signal can then
   * stop the run). It changes nothing in the run.
   */
  readonly pause?: Effect.Effect<void>
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
  /** How much history stays as objects (default: all of it); a run must not depend on it. */
  readonly historyLimits?: ArchivedLogLimits
  /** When the scans' history orders are made (default: at the first read; a run never pages its scans); a run must not depend on it. */
  readonly historyOrder?: HistoryOrderKeeping
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
    const world = yield* buildWorld(scenario, options)
    const faults = yield* installFaults(world, scenario, options)
    if (options.beforeGenesis !== undefined) yield* world.inSimulation(options.beforeGenesis(hookContext(world, "before-genesis")))
    const run = new RunLoop(world, faults, scenario, options)
    const exit = yield* Effect.exit(run.phases())
    const cpu = process.cpuUsage(cpuStart)
    const defect = Exit.isFailure(exit) ? Cause.pretty(exit.cause).split("\n").slice(0, 6).join("\n") : undefined
    return resultOf(run, defect, cpu, started)
  })

/** The simulated world of one run: its random streams, the virtual clock, the simulated network and the coin network on it. */
interface SimWorld {
  readonly seed: number
  readonly workloadRandom: SeededRandom
  readonly faultRandom: SeededRandom
  readonly clock: ManualClock
  readonly link: LinkModel
  readonly queue: EventQueueNetwork
  /** Runs an engine effect with the simulation's services, clock and Random. */
  readonly inSimulation: <A, E>(effect: Effect.Effect<A, E, Network | Topology>) => Effect.Effect<A, E>
  readonly network: CoinNetwork
  readonly handles: ReadonlyArray<ParticipantHandle>
  /** When the workload starts (after the bootstrap) and stops. */
  readonly start: Micros
  readonly end: Micros
}

const buildWorld = (scenario: Scenario, options: RunOptions): Effect.Effect<SimWorld> =>
  Effect.gen(function* () {
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
        }, { historyLimits: options.historyLimits, historyOrder: options.historyOrder })
      )
    )
    const handles = installHandles(network)
    const start = clock.now + BOOTSTRAP
    const end = start + scenario.duration
    return { seed, workloadRandom, faultRandom, clock, link, queue, inSimulation, network, handles, start, end }
  })

/** The faults of a run and what carries them out; the timeline too, which follows restarted nodes. */
interface FaultSetup {
  readonly plan: FaultPlan
  readonly faultyLink: FaultyLink | undefined
  /** The clocks of skewed nodes, by address. */
  readonly clocks: ReadonlyMap<Address, Clock.Clock>
  readonly byAddress: ReadonlyMap<Address, ParticipantHandle>
  readonly timeline: Timeline | undefined
  readonly control: NodeControl
  readonly retrying: RetryingClient | undefined
}

/** Faults: the plan, the link model, skewed clocks, restarts, retries. */
const installFaults = (world: SimWorld, scenario: Scenario, options: RunOptions): Effect.Effect<FaultSetup> =>
  Effect.gen(function* () {
    const { network, handles, queue, clock, link, start, end, faultRandom } = world
    const plan: FaultPlan = planFaults(
      scenario.faults,
      {
        topology: scenario.topology,
        nodes: faultTargets(network, handles),
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
    return { plan, faultyLink, clocks, byAddress, timeline, control, retrying }
  })

/** The nodes a fault can name: participants, and each synchronizer's sequencer and mediator. */
const faultTargets = (network: CoinNetwork, handles: ReadonlyArray<ParticipantHandle>): Map<string, NodeRef> => {
  const nodes = new Map<string, NodeRef>()
  for (const h of handles) nodes.set(h.name, { name: h.name, address: h.address, kind: "participant" })
  for (const s of network.synchronizers) {
    nodes.set(`${s.info.name}/sequencer`, { name: `${s.info.name}/sequencer`, address: s.info.sequencer, kind: "sequencer" })
    nodes.set(`${s.info.name}/mediator`, { name: `${s.info.name}/mediator`, address: s.info.mediator, kind: "mediator" })
  }
  return nodes
}

/** What a test hook may touch. (A stream of the hook's own: forking the run's Random would change what the engine draws.) */
const hookContext = (world: SimWorld, label: string): SimContext => ({
  network: world.network,
  queue: world.queue,
  clock: world.clock,
  handles: world.handles,
  random: new SeededRandom(`${world.seed}:${label}`)
})

/**
 * The actions between deliveries, in time order: outages (down, then up), a progress report every
 * 10 simulated seconds, timeline samples; and when the run finishes (faults healed, then settling).
 */
const scheduleActions = (
  world: SimWorld,
  faults: FaultSetup,
  scenario: Scenario,
  options: RunOptions
): { readonly actions: ReadonlyArray<Action>; readonly finish: Micros } => {
  const { start, end } = world
  const { plan, timeline } = faults
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
  return { actions, finish }
}

/**
 * The loop: one delivery at a time, each checked, the last ones kept for the trace; the scheduled
 * actions between deliveries; the first failure and the workload, for the result.
 */
class RunLoop {
  deliveries = 0
  stopped = false
  firstFailure: FirstFailure | undefined
  workload: Workload | undefined
  readonly monitor: Monitor
  private readonly ring: DeliveryRing
  private readonly queue: EventQueueNetwork
  private readonly clock: ManualClock
  private readonly actions: ReadonlyArray<Action>
  private readonly finish: Micros

  constructor(
    readonly world: SimWorld,
    readonly faults: FaultSetup,
    readonly scenario: Scenario,
    readonly options: RunOptions
  ) {
    this.queue = world.queue
    this.clock = world.clock
    this.monitor = new Monitor(world.network, scenario.invariants)
    this.ring = new DeliveryRing(options.traceWindow ?? 40)
    const { actions, finish } = scheduleActions(world, faults, scenario, options)
    this.actions = actions
    this.finish = finish
  }

  window(): ReadonlyArray<TraceDelivery> {
    return this.ring.entries().map(({ n, delivery }) => describeDelivery(n, delivery))
  }

  private noteFailure(): void {
    const v = this.monitor.first
    if (v !== undefined && this.firstFailure === undefined) this.firstFailure = { ...v, historyHash: historyHash(this.world.network), window: this.window() }
  }

  private afterDelivery(to: Address, n: number): void {
    const before = this.monitor.count
    this.monitor.afterDelivery(to, n, this.clock.now)
    if (this.monitor.count > before) this.noteFailure()
    if (n === this.options.stopAfter) this.stopped = true
  }

  private deliverUntil(until: Micros): Effect.Effect<void> {
    return Effect.suspend(() => {
      const { queue, clock, ring } = this
      const clocks = this.faults.clocks
      const pause = this.options.pause
      // Deliveries that actors take at once (ReceiveNow) run in this loop without a fiber step
      // each; a delivery with work left as an effect continues the loop after that effect.
      const step: Effect.Effect<void> = Effect.suspend(() => {
        for (;;) {
          if (this.stopped) return Effect.void
          const next = queue.next(until)
          if (next === undefined) return Effect.void
          if (next.at > clock.now) clock.advanceTo(next.at)
          const n = ++this.deliveries
          ring.record(next, n)
          const own = clocks.get(next.to)
          const rest = queue.deliverNow(next, own ?? clock)
          const pauseHere = pause !== undefined && n % PAUSE_EVERY === 0
          if (rest === undefined) {
            this.afterDelivery(next.to, n)
            if (pauseHere) return Effect.zipRight(pause, step)
            continue
          }
          return Effect.flatMap(own === undefined ? rest : Effect.withClock(rest, own), () => {
            this.afterDelivery(next.to, n)
            return pauseHere ? Effect.zipRight(pause, step) : step
          })
        }
      })
      return Effect.withClock(step, clock)
    })
  }

  private runUntil(until: Micros): Effect.Effect<void> {
    return Effect.map(this.world.inSimulation(this.deliverUntil(until)), () => {
      if (!this.stopped && until > this.clock.now) this.clock.advanceTo(until)
    })
  }

  /** A scheduled action: a progress report, a timeline sample, a node going down or coming back up. */
  private apply(action: Action): Effect.Effect<void> {
    return Effect.suspend(() => {
      const { world, faults, clock } = this
      switch (action.kind) {
        case "progress":
          this.options.onProgress?.({
            simulatedTime: clock.now - world.start,
            duration: this.finish - world.start,
            deliveries: this.deliveries,
            committed: world.network.participants.reduce((n, p) => n + p.logic.ledgerEnd, 0),
            transactions: world.network.synchronizers.reduce((n, s) => n + s.mediator.logic.stats.accepted, 0)
          })
          return Effect.void
        case "sample":
          faults.timeline?.sample(clock.now, this.deliveries)
          return Effect.void
        case "down": {
          const handle = faults.byAddress.get(action.node.address)
          if (handle !== undefined) faults.control.crash(handle)
          else if (action.node.kind === "mediator") faults.control.holdTimers(action.node.address, action.until)
          return Effect.void
        }
        case "up": {
          const handle = faults.byAddress.get(action.node.address)
          if (handle === undefined) return Effect.void
          return Effect.tap(world.inSimulation(faults.control.restart(handle, clock.now)), () => {
            this.monitor.checkAll(this.deliveries, clock.now)
            if (this.monitor.count > 0) this.noteFailure()
          })
        }
      }
    })
  }

  /** Genesis, the bootstrap, the setup hook, the workload with the actions in between, then settling. */
  phases(): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const { world, scenario, options } = this
      const { network, queue, inSimulation } = world
      yield* Effect.orDie(inSimulation(submitGenesis(network)))
      yield* this.runUntil(world.start)
      if (options.setup !== undefined) yield* inSimulation(options.setup(hookContext(world, "setup")))
      this.workload = new Workload(network, queue, scenario, world.workloadRandom)
      yield* inSimulation(queue.register(this.workload.actor()))
      yield* inSimulation(this.workload.start(world.end))
      for (const action of this.actions) {
        if (this.stopped) break
        yield* this.runUntil(action.at)
        if (!this.stopped) yield* this.apply(action)
      }
      if (!this.stopped) yield* this.runUntil(this.finish)
    })
  }
}

/** What the run found and measured, once the loop has stopped (or the engine has thrown: `defect`). */
const resultOf = (run: RunLoop, defect: string | undefined, cpu: NodeJS.CpuUsage, started: number): RunResult => {
  const { world, faults, scenario, monitor } = run
  const { network } = world
  const checksStarted = performance.now()
  const invariants = invariantsAtEnd(run)
  if (defect !== undefined) invariants["engine"] = [`the engine stopped at delivery ${run.deliveries}: ${defect}`]
  const hash = historyHash(network)
  const checksMs = performance.now() - checksStarted
  const firstFailure = firstFailureAtEnd(run, invariants, defect, hash)
  const ok = Object.values(invariants).every((v) => v.length === 0) && monitor.count === 0
  return {
    scenario: scenario.name,
    seed: world.seed,
    summary: summaryOf(run),
    invariants,
    ok,
    historyHash: hash,
    wallTimeMs: performance.now() - started,
    runCpuMs: (cpu.user + cpu.system) / 1000,
    checksMs,
    network,
    firstFailure,
    monitored: monitor.violations,
    faults: {
      events: faults.plan.events,
      links: faults.faultyLink?.stats ?? emptyLinkFaultStats(),
      restarts: world.handles.reduce((n, h) => n + h.restarts, 0),
      retries: faults.retrying?.stats ?? emptyRetryStats()
    },
    timeline: faults.timeline?.samples ?? [],
    start: world.start,
    workloadDuration: scenario.duration,
    window: run.window(),
    stoppedAt: run.stopped ? run.deliveries : undefined,
    defect
  }
}

/** Violations per invariant at the end; a run stopped mid-way (`stopAfter`) has only what the monitor saw so far. */
const invariantsAtEnd = (run: RunLoop): Record<string, ReadonlyArray<string>> => {
  if (run.options.stopAfter !== undefined) {
    const seen: Record<string, Array<string>> = {}
    for (const v of run.monitor.violations) (seen[v.invariant] ??= []).push(v.message)
    return seen
  }
  try {
    return checkInvariants(run.world.network, run.scenario.invariants)
  } catch (e) {
    return { "invariant-checks": [`the checks themselves failed: ${e instanceof Error ? e.message : String(e)}`] }
  }
}

/** The first failure: the one seen during the run, unless the engine threw first; else the first invariant broken at the end. */
const firstFailureAtEnd = (
  run: RunLoop,
  invariants: Record<string, ReadonlyArray<string>>,
  defect: string | undefined,
  hash: string
): FirstFailure | undefined => {
  const { deliveries } = run
  const at = run.world.clock.now
  let firstFailure = run.firstFailure
  if (defect !== undefined && (firstFailure === undefined || firstFailure.delivery >= deliveries)) {
    // The engine threw: that is the failure, at the delivery it was handling.
    firstFailure = { invariant: "engine", message: defect.split("\n")[0] ?? defect, delivery: deliveries, at, historyHash: hash, window: run.window() }
  }
  if (firstFailure === undefined) {
    const broken = Object.entries(invariants).find(([, list]) => list.length > 0)
    if (broken !== undefined) firstFailure = { invariant: broken[0], message: broken[1][0]!, delivery: deliveries, at, historyHash: hash, window: run.window() }
  }
  return firstFailure
}

const summaryOf = (run: RunLoop): RunSummary => {
  const { network, clock, queue } = run.world
  const stats = network.synchronizers.reduce(
    (acc, s) => ({ accepted: acc.accepted + s.mediator.logic.stats.accepted, rejected: acc.rejected + s.mediator.logic.stats.rejected }),
    { accepted: 0, rejected: 0 }
  )
  const sv1 = network.superValidators[0]!
  return {
    updates: sv1.scan.updates.length,
    verdictsAccepted: stats.accepted,
    verdictsRejected: stats.rejected,
    activeContracts: sv1.participant.logic.acs.size,
    simulatedTime: clock.now - SIMULATION_EPOCH,
    deliveries: run.deliveries,
    // (A run that died before the workload started gets an idle workload's figures.)
    workload: (run.workload ?? new Workload(network, queue, run.scenario, run.world.workloadRandom)).stats
  }
}
