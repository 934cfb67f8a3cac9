/**
 * Faults: the scenario's `faults` section (fault-config.ts) drawn into a concrete plan with the
 * run's seeded PRNG (which node crashes, when, for how long), and the link model that applies it to
 * every message the simulated network carries.
 *
 * Link classes follow the real system: members submit to a sequencer over unordered links (a
 * submission may be lost, duplicated, delayed or overtaken); a sequencer delivers to its members and
 * a mediator sends its verdicts over ordered links (never lost: a gap in a subscription is recovered
 * by resubscribing, so it only delays what follows). A node that is down or cut off loses what is
 * sent to it over unordered links; what a sequencer holds for it (its deliveries) arrives after it
 * reconnects, in order.
 *
 * The plan is fixed before the run starts, so the link model knows at send time whether a message
 * will arrive while its receiver is down or cut off.
 */
import type { Micros } from "@sandnet/core"
import type { Address, LinkModel, Message, SubmissionRequest } from "@sandnet/engine"
import { resolveNodes, type Distribution, type FaultsConfig, type LinkFaults, type OrderedLinkFaults, type RetryFault } from "./fault-config.ts"
import type { SeededRandom } from "./random.ts"

/** Draws a duration from a distribution (whole microseconds). */
export const sample = (distribution: Distribution, random: SeededRandom): Micros => {
  if (typeof distribution === "number") return distribution
  if ("min" in distribution) return random.unsafeInt(distribution.min, distribution.max)
  const drawn = Math.round(random.unsafeExponential(distribution.mean))
  return distribution.max === undefined ? drawn : Math.min(drawn, distribution.max)
}

export type NodeKind = "participant" | "sequencer" | "mediator"

export interface NodeRef {
  readonly name: string
  readonly address: Address
  readonly kind: NodeKind
}

/** A node's outage: down from `from` (inclusive) to `to` (exclusive), in simulated time. */
export interface Outage {
  readonly node: NodeRef
  readonly from: Micros
  readonly to: Micros
  readonly cause: "crash" | "mediator-timeout"
}

export interface Partition {
  readonly nodes: ReadonlyArray<NodeRef>
  readonly sequencers: ReadonlyArray<NodeRef>
  readonly from: Micros
  readonly to: Micros
}

/** What happened when, for summaries, traces and the report. */
export interface FaultEvent {
  readonly kind: "crash" | "mediator-timeout" | "partition" | "clock-skew"
  readonly nodes: ReadonlyArray<string>
  readonly from: Micros
  readonly to: Micros
  readonly detail: string
}

export interface FaultPlan {
  /** Merged outage windows per node, sorted by start. */
  readonly outages: ReadonlyArray<Outage>
  readonly partitions: ReadonlyArray<Partition>
  readonly skews: ReadonlyMap<Address, Micros>
  readonly links: FaultsConfig["links"]
  readonly retries: RetryFault | undefined
  readonly reconnect: Distribution
  readonly events: ReadonlyArray<FaultEvent>
  /** Whether the link model needs wrapping at all (a plan without faults leaves the network untouched). */
  readonly affectsLinks: boolean
}

export interface PlanContext {
  readonly topology: { readonly superValidators: number; readonly validators: number; readonly synchronizers: ReadonlyArray<string> }
  /** Node names (sv1, validator2, global-synchronizer/mediator...) to their addresses. */
  readonly nodes: ReadonlyMap<string, NodeRef>
  /** When the workload starts: fault times are relative to it. */
  readonly start: Micros
  readonly duration: Micros
  /** Per synchronizer name: how long a mediator waits for confirmations. */
  readonly confirmationResponseTimeout: (synchronizer: string) => Micros
}

const pickTime = (f: { readonly at?: Micros | undefined; readonly between?: readonly [Micros, Micros] | undefined }, ctx: PlanContext, random: SeededRandom): Micros => {
  if (f.at !== undefined) return ctx.start + f.at
  const [from, to] = f.between ?? [0, ctx.duration]
  return ctx.start + random.unsafeInt(from, to)
}

const nodesOf = (ctx: PlanContext, selectors: ReadonlyArray<string>): ReadonlyArray<NodeRef> => {
  const resolved = resolveNodes(ctx.topology, selectors)
  if ("unknown" in resolved) throw new Error(`no node is named ${resolved.unknown}`)
  return resolved.nodes.map((n) => {
    const ref = ctx.nodes.get(n)
    if (ref === undefined) throw new Error(`node ${n} is not in the network`)
    return ref
  })
}

/** `size` distinct items, drawn without replacement, kept in their original order. */
const choose = <A>(items: ReadonlyArray<A>, size: number, random: SeededRandom): ReadonlyArray<A> => {
  const indexes = items.map((_, i) => i)
  for (let i = 0; i < Math.min(size, indexes.length); i++) {
    const j = i + Math.floor(random.unsafeNext() * (indexes.length - i))
    ;[indexes[i], indexes[j]] = [indexes[j]!, indexes[i]!]
  }
  return indexes
    .slice(0, size)
    .sort((a, b) => a - b)
    .map((i) => items[i]!)
}

/** Merges overlapping windows of one node into one (a crash during a crash extends it). */
const mergeOutages = (outages: ReadonlyArray<Outage>): ReadonlyArray<Outage> => {
  const byNode = new Map<Address, Array<Outage>>()
  for (const o of outages) {
    let list = byNode.get(o.node.address)
    if (list === undefined) byNode.set(o.node.address, (list = []))
    list.push(o)
  }
  const merged: Array<Outage> = []
  for (const list of byNode.values()) {
    list.sort((a, b) => a.from - b.from || a.to - b.to)
    let current: Outage | undefined
    for (const o of list) {
      if (current !== undefined && o.from <= current.to) current = { ...current, to: Math.max(current.to, o.to) }
      else {
        if (current !== undefined) merged.push(current)
        current = o
      }
    }
    if (current !== undefined) merged.push(current)
  }
  return merged.sort((a, b) => a.from - b.from || (a.node.address < b.node.address ? -1 : 1))
}

/** Draws the concrete faults of one run. */
export const planFaults = (faults: FaultsConfig, ctx: PlanContext, random: SeededRandom): FaultPlan => {
  const outages: Array<Outage> = []
  const partitions: Array<Partition> = []
  const events: Array<FaultEvent> = []
  for (const crash of faults.crashes) {
    const candidates = nodesOf(ctx, crash.nodes)
    for (let i = 0; i < crash.count; i++) {
      const node = random.unsafePick(candidates)!
      const from = pickTime(crash, ctx, random)
      const to = from + Math.max(1, sample(crash.downtime, random))
      outages.push({ node, from, to, cause: "crash" })
    }
  }
  for (const timeout of faults.mediatorTimeouts) {
    const synchronizers = timeout.synchronizers ?? ctx.topology.synchronizers
    for (let i = 0; i < timeout.count; i++) {
      const synchronizer = random.unsafePick(synchronizers)!
      const node = ctx.nodes.get(`${synchronizer}/mediator`)!
      const from = pickTime(timeout, ctx, random)
      const outage = timeout.outage === undefined ? ctx.confirmationResponseTimeout(synchronizer) + 15_000_000 : sample(timeout.outage, random)
      outages.push({ node, from, to: from + Math.max(1, outage), cause: "mediator-timeout" })
    }
  }
  const merged = mergeOutages(outages)
  for (const o of merged) events.push({ kind: o.cause, nodes: [o.node.name], from: o.from, to: o.to, detail: o.cause === "crash" ? `${o.node.name} down` : `${o.node.name} unavailable past its timeout` })
  for (const p of faults.partitions) {
    const candidates = nodesOf(ctx, p.nodes)
    const sequencers = (p.synchronizers ?? ctx.topology.synchronizers).map((s) => ctx.nodes.get(`${s}/sequencer`)!)
    for (let i = 0; i < p.count; i++) {
      const nodes = p.size === undefined ? candidates : choose(candidates, p.size, random)
      const from = pickTime(p, ctx, random)
      const to = from + Math.max(1, sample(p.duration, random))
      partitions.push({ nodes, sequencers, from, to })
      events.push({ kind: "partition", nodes: nodes.map((n) => n.name), from, to, detail: `${nodes.map((n) => n.name).join(", ")} cut off from ${sequencers.map((s) => s.name).join(", ")}` })
    }
  }
  partitions.sort((a, b) => a.from - b.from)
  const skews = new Map<Address, Micros>()
  for (const s of faults.clockSkew) {
    for (const node of nodesOf(ctx, s.nodes)) {
      const offset = s.offset ?? random.unsafeInt(-(s.max ?? 0), s.max ?? 0)
      if (offset === 0) continue
      skews.set(node.address, offset)
      events.push({ kind: "clock-skew", nodes: [node.name], from: ctx.start, to: ctx.start + ctx.duration, detail: `${node.name} clock ${offset >= 0 ? "+" : ""}${(offset / 1e6).toFixed(3)}s` })
    }
  }
  events.sort((a, b) => a.from - b.from)
  const links = faults.links
  const linkFaults = links !== undefined && Object.values(links).some((l) => l !== undefined)
  return {
    outages: merged,
    partitions,
    skews,
    links,
    retries: faults.retries,
    reconnect: faults.reconnect,
    events,
    affectsLinks: linkFaults || merged.length > 0 || partitions.length > 0
  }
}

export interface LinkFaultStats {
  dropped: number
  duplicated: number
  reordered: number
  delayed: number
  gaps: number
  /** Held by a sequencer (or the mediator's client) until the receiver came back or the partition healed. */
  held: number
  /** Lost because the receiver was down or cut off. */
  lost: number
}

export const emptyLinkFaultStats = (): LinkFaultStats => ({ dropped: 0, duplicated: 0, reordered: 0, delayed: 0, gaps: 0, held: 0, lost: 0 })

export type LinkClass = "submissions" | "confirmations" | "deliveries" | "verdicts"

/** Which class of link a message travels on (undefined: a link faults never touch). */
export const linkClassOf = (from: Address, to: Address, message: Message): LinkClass | undefined => {
  if (from.startsWith("SEQ::")) return "deliveries"
  if (!to.startsWith("SEQ::")) return undefined
  if (from.startsWith("MED::")) return "verdicts"
  if (message._tag === "SubmissionRequest") {
    const envelopes = (message as SubmissionRequest).envelopes
    if (envelopes.length > 0 && envelopes.every((e) => e.content._tag === "ConfirmationResponse")) return "confirmations"
  }
  return "submissions"
}

interface Windowed {
  readonly from: Micros
  readonly to: Micros
}

/**
 * The link model of a faulty network. The base model (seeded latency) is asked first, exactly as
 * without faults; the faults draw from their own PRNG stream, so a scenario's latencies do not
 * change when faults are added, only what the faults touch.
 */
export class FaultyLink implements LinkModel {
  readonly stats = emptyLinkFaultStats()
  private readonly downByAddress = new Map<Address, ReadonlyArray<Windowed>>()
  private readonly partitionsOf = new Map<Address, ReadonlyArray<Partition>>()

  constructor(
    private readonly base: LinkModel,
    private readonly plan: FaultPlan,
    private readonly random: SeededRandom,
    /** When the link-class faults apply: while the workload runs (the bootstrap before and the settling after are spared). */
    private readonly window: Windowed
  ) {
    for (const o of plan.outages) this.downByAddress.set(o.node.address, [...(this.downByAddress.get(o.node.address) ?? []), o])
    for (const p of plan.partitions) {
      for (const n of [...p.nodes, ...p.sequencers]) this.partitionsOf.set(n.address, [...(this.partitionsOf.get(n.address) ?? []), p])
    }
  }

  /** The outage of a node at a time, if it is down then. */
  outageAt(address: Address, at: Micros): Windowed | undefined {
    const windows = this.downByAddress.get(address)
    if (windows === undefined) return undefined
    for (const w of windows) if (w.from <= at && at < w.to) return w
    return undefined
  }

  readonly route = (from: Address, to: Address, message: Message, now: Micros, ordered: boolean): ReadonlyArray<Micros> => {
    const times = this.base.route(from, to, message, now, ordered)
    const linkClass = linkClassOf(from, to, message)
    if (linkClass === undefined) return times
    const faulty = now >= this.window.from && now < this.window.to
    const out: Array<Micros> = []
    for (const time of times) {
      if (ordered || linkClass === "deliveries" || linkClass === "verdicts") {
        const faults = faulty && (linkClass === "deliveries" || linkClass === "verdicts") ? this.plan.links?.[linkClass] : undefined
        const at = this.reach(from, to, now, this.orderedFaults(time, faults), true)
        if (at !== undefined) out.push(at)
        continue
      }
      const faults = faulty ? this.plan.links?.[linkClass as "submissions" | "confirmations"] : undefined
      for (const t of this.unorderedFaults(time, faults)) {
        const at = this.reach(from, to, now, t, false)
        if (at !== undefined) out.push(at)
      }
    }
    return out
  }

  private orderedFaults(time: Micros, faults: OrderedLinkFaults | undefined): Micros {
    if (faults === undefined) return time
    let t = time
    if (faults.delay !== undefined) {
      t += sample(faults.delay, this.random)
      this.stats.delayed++
    }
    if (this.random.unsafeChance(faults.gap)) {
      t += sample(faults.resubscribe, this.random)
      this.stats.gaps++
    }
    return t
  }

  private unorderedFaults(time: Micros, faults: LinkFaults | undefined): ReadonlyArray<Micros> {
    if (faults === undefined) return [time]
    if (this.random.unsafeChance(faults.drop)) {
      this.stats.dropped++
      return []
    }
    let t = time
    if (faults.delay !== undefined) {
      t += sample(faults.delay, this.random)
      this.stats.delayed++
    }
    if (this.random.unsafeChance(faults.reorder)) {
      t += sample(faults.reorderDelay, this.random)
      this.stats.reordered++
    }
    if (!this.random.unsafeChance(faults.duplicate)) return [t]
    this.stats.duplicated++
    return [t, t + sample(faults.duplicateDelay, this.random)]
  }

  /**
   * When a message sent at `now` and due at `time` reaches its receiver, given outages and
   * partitions: undefined when it is lost (unordered), later when it is held (ordered).
   */
  private reach(from: Address, to: Address, now: Micros, time: Micros, ordered: boolean): Micros | undefined {
    let t = time
    let held = false
    for (let round = 0; round < 16; round++) {
      let moved = false
      const outage = this.outageAt(to, t)
      if (outage !== undefined) {
        if (!ordered) {
          this.stats.lost++
          return undefined
        }
        t = outage.to + sample(this.plan.reconnect, this.random)
        held = moved = true
      }
      for (const p of this.partitionsOf.get(to) ?? []) {
        if (!this.cutOff(p, from, to) || !(now < p.to && t >= p.from)) continue
        if (!ordered) {
          this.stats.lost++
          return undefined
        }
        t = p.to + sample(this.plan.reconnect, this.random)
        held = moved = true
      }
      if (!moved) break
    }
    if (held) this.stats.held++
    return t
  }

  private cutOff(p: Partition, from: Address, to: Address): boolean {
    const isNode = (a: Address) => p.nodes.some((n) => n.address === a)
    const isSequencer = (a: Address) => p.sequencers.some((s) => s.address === a)
    return (isNode(from) && isSequencer(to)) || (isSequencer(from) && isNode(to))
  }
}
