/**
 * The `faults` section of a scenario file: what goes wrong, where and when. Everything here is a
 * description; faults.ts turns it into a concrete plan (which node, which window) by drawing from
 * the run's seeded PRNG, so one seed always gives the same faults. Every field is documented in
 * docs/scenarios.md.
 */
import { ParseResult, Schema } from "effect"
import type { Micros } from "@sandnet/core"
import { parseDuration } from "./duration.ts"

const durationSchema = (signed: boolean) =>
  Schema.transformOrFail(Schema.Union(Schema.String, Schema.Number), Schema.Number, {
    strict: true,
    decode: (input, _options, ast) => {
      const negative = signed && typeof input === "string" && input.trim().startsWith("-")
      const value = negative ? parseDuration((input as string).trim().slice(1)) : signed && typeof input === "number" && Number.isFinite(input) ? Math.round(input * 1_000_000) : parseDuration(input)
      return value === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, input, `expected a duration such as ${signed ? '"-1.5s", ' : ""}"250ms", "30s", "10m", "1h" or "2d", got ${JSON.stringify(input)}`))
        : ParseResult.succeed(negative ? -value : value)
    },
    encode: (value) => ParseResult.succeed(`${value}us`)
  })

/** A non-negative duration: "250ms", "30s", "10m", "1h", "2d", or a number of seconds. */
export const FaultDuration = durationSchema(false)
/** A duration that may be negative ("-1.5s"): clock offsets. */
export const SignedDuration = durationSchema(true)

export const Probability = Schema.Number.pipe(Schema.between(0, 1))
const PositiveInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))

/**
 * A distribution of durations: a fixed duration ("50ms"), uniform between two ({ min, max }), or
 * exponential with a mean, optionally capped ({ mean, max }).
 */
export const Distribution = Schema.Union(
  FaultDuration,
  Schema.Struct({ min: FaultDuration, max: FaultDuration }),
  Schema.Struct({ mean: FaultDuration, max: Schema.optional(FaultDuration) })
)
export type Distribution = typeof Distribution.Type

/** Faults of an unordered link (a member's submissions to a sequencer). */
export const LinkFaults = Schema.Struct({
  /** Probability that a message is lost. */
  drop: Schema.optionalWith(Probability, { default: () => 0 }),
  /** Probability that a message arrives twice (the copy after `duplicateDelay`). */
  duplicate: Schema.optionalWith(Probability, { default: () => 0 }),
  duplicateDelay: Schema.optionalWith(Distribution, { default: () => ({ min: 0, max: 2_000_000 }) }),
  /** Probability that a message is held back by `reorderDelay`, so later ones overtake it. */
  reorder: Schema.optionalWith(Probability, { default: () => 0 }),
  reorderDelay: Schema.optionalWith(Distribution, { default: () => ({ min: 10_000, max: 1_000_000 }) }),
  /** Extra delay on every message, on top of the network's latency. */
  delay: Schema.optional(Distribution)
})
export type LinkFaults = typeof LinkFaults.Type

/**
 * Faults of an ordered link (a sequencer's deliveries to a member, a mediator's verdicts to the
 * sequencer). These links never lose or duplicate: a lost delivery is a gap in the member's
 * subscription, which its sequencer client recovers by resubscribing, so it is modelled as a delay.
 */
export const OrderedLinkFaults = Schema.Struct({
  delay: Schema.optional(Distribution),
  /** Probability that a delivery is lost and recovered by a resubscription (`resubscribe` later). */
  gap: Schema.optionalWith(Probability, { default: () => 0 }),
  resubscribe: Schema.optionalWith(Distribution, { default: () => ({ min: 100_000, max: 5_000_000 }) })
})
export type OrderedLinkFaults = typeof OrderedLinkFaults.Type

export const LinkClasses = Schema.Struct({
  /** participant -> sequencer: commands, reassignments, time proofs, traffic limits. */
  submissions: Schema.optional(LinkFaults),
  /** participant -> sequencer -> mediator: confirmation responses (member -> mediator). */
  confirmations: Schema.optional(LinkFaults),
  /** sequencer -> member: every delivery (ordered). */
  deliveries: Schema.optional(OrderedLinkFaults),
  /** mediator -> sequencer: verdicts (ordered). */
  verdicts: Schema.optional(OrderedLinkFaults)
})
export type LinkClasses = typeof LinkClasses.Type

/** When a fault starts: at a fixed time, or drawn uniformly between two (relative to the workload's start). */
const Timing = {
  /** How many faults this entry draws (each at its own time, on its own node). */
  count: Schema.optionalWith(PositiveInt, { default: () => 1 }),
  at: Schema.optional(FaultDuration),
  between: Schema.optional(Schema.Tuple(FaultDuration, FaultDuration))
}

/**
 * Node selectors name nodes or groups of them: `sv3`, `validator12`, `global-synchronizer/sequencer`,
 * `global-synchronizer/mediator`, or `super-validators`, `validators`, `participants`, `sequencers`,
 * `mediators`, `all`.
 */
const Nodes = Schema.Array(Schema.String).pipe(Schema.minItems(1))

export const CrashFault = Schema.Struct({
  nodes: Nodes,
  ...Timing,
  /** How long the node stays down. */
  downtime: Distribution
})
export type CrashFault = typeof CrashFault.Type

export const PartitionFault = Schema.Struct({
  /** The nodes a partition may cut off (participants or mediators). */
  nodes: Nodes,
  /** How many of them each partition cuts off together (default: all). */
  size: Schema.optional(PositiveInt),
  /** The synchronizers they are cut off from (default: all). */
  synchronizers: Schema.optional(Schema.Array(Schema.String)),
  ...Timing,
  duration: Distribution
})
export type PartitionFault = typeof PartitionFault.Type

export const MediatorTimeoutFault = Schema.Struct({
  /** Synchronizers whose mediator may be unavailable (default: all). */
  synchronizers: Schema.optional(Schema.Array(Schema.String)),
  ...Timing,
  /** How long the mediator is unavailable (default: the confirmation response timeout plus 15s). */
  outage: Schema.optional(Distribution)
})
export type MediatorTimeoutFault = typeof MediatorTimeoutFault.Type

export const ClockSkewFault = Schema.Struct({
  nodes: Nodes,
  /** A fixed offset for every selected node ("-1.5s" runs behind). */
  offset: Schema.optional(SignedDuration),
  /** Or an offset drawn uniformly in [-max, max] per node. */
  max: Schema.optional(FaultDuration)
})
export type ClockSkewFault = typeof ClockSkewFault.Type

export const RetryFault = Schema.Struct({
  /** Probability that a client resubmits a command with the same command id. */
  probability: Probability,
  /** How long after the first submission (and between resubmissions). */
  after: Schema.optionalWith(Distribution, { default: () => ({ min: 10_000, max: 30_000_000 }) }),
  /** Resubmissions per retried command. */
  times: Schema.optionalWith(PositiveInt, { default: () => 1 })
})
export type RetryFault = typeof RetryFault.Type

export const FaultsConfig = Schema.Struct({
  links: Schema.optional(LinkClasses),
  partitions: Schema.optionalWith(Schema.Array(PartitionFault), { default: () => [] }),
  crashes: Schema.optionalWith(Schema.Array(CrashFault), { default: () => [] }),
  mediatorTimeouts: Schema.optionalWith(Schema.Array(MediatorTimeoutFault), { default: () => [] }),
  clockSkew: Schema.optionalWith(Schema.Array(ClockSkewFault), { default: () => [] }),
  retries: Schema.optional(RetryFault),
  /** After a restart or a healed partition, how long until held deliveries flow again. */
  reconnect: Schema.optionalWith(Distribution, { default: () => ({ min: 10_000, max: 500_000 }) })
})
export type FaultsConfig = typeof FaultsConfig.Type

export const noFaults: FaultsConfig = { partitions: [], crashes: [], mediatorTimeouts: [], clockSkew: [], reconnect: { min: 10_000, max: 500_000 } }

const NODE_GROUPS = ["super-validators", "validators", "participants", "sequencers", "mediators", "all"] as const

/** Node names of a topology, in a fixed order (super validators, validators, then each synchronizer's sequencer and mediator). */
export const nodeNamesOf = (topology: { readonly superValidators: number; readonly validators: number; readonly synchronizers: ReadonlyArray<string> }) => ({
  superValidators: Array.from({ length: topology.superValidators }, (_, i) => `sv${i + 1}`),
  validators: Array.from({ length: topology.validators }, (_, i) => `validator${i + 1}`),
  sequencers: topology.synchronizers.map((s) => `${s}/sequencer`),
  mediators: topology.synchronizers.map((s) => `${s}/mediator`)
})

/** Resolves node selectors to node names (deduplicated, in topology order), or the selector that names nothing. */
export const resolveNodes = (
  topology: Parameters<typeof nodeNamesOf>[0],
  selectors: ReadonlyArray<string>
): { readonly nodes: ReadonlyArray<string> } | { readonly unknown: string } => {
  const names = nodeNamesOf(topology)
  const all = [...names.superValidators, ...names.validators, ...names.sequencers, ...names.mediators]
  const chosen = new Set<string>()
  for (const selector of selectors) {
    switch (selector as (typeof NODE_GROUPS)[number]) {
      case "super-validators":
        names.superValidators.forEach((n) => chosen.add(n))
        continue
      case "validators":
        names.validators.forEach((n) => chosen.add(n))
        continue
      case "participants":
        ;[...names.superValidators, ...names.validators].forEach((n) => chosen.add(n))
        continue
      case "sequencers":
        names.sequencers.forEach((n) => chosen.add(n))
        continue
      case "mediators":
        names.mediators.forEach((n) => chosen.add(n))
        continue
      case "all":
        all.forEach((n) => chosen.add(n))
        continue
    }
    if (!all.includes(selector)) return { unknown: selector }
    chosen.add(selector)
  }
  return { nodes: all.filter((n) => chosen.has(n)) }
}

/** Checks what the schema cannot: node names, windows, and which fault applies to which kind of node. */
export const validateFaults = (
  faults: FaultsConfig,
  topology: Parameters<typeof nodeNamesOf>[0],
  duration: Micros
): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const checkNodes = (where: string, selectors: ReadonlyArray<string>, allowed: (name: string) => boolean, what: string) => {
    const resolved = resolveNodes(topology, selectors)
    if ("unknown" in resolved) problems.push(`${where}: no node or group is named ${JSON.stringify(resolved.unknown)}`)
    else if (resolved.nodes.length === 0) problems.push(`${where}: selects no node`)
    else for (const n of resolved.nodes) if (!allowed(n)) problems.push(`${where}: ${n} cannot ${what}`)
  }
  const checkTiming = (where: string, f: { readonly count: number; readonly at?: Micros | undefined; readonly between?: readonly [Micros, Micros] | undefined }) => {
    if (f.at !== undefined && f.between !== undefined) problems.push(`${where}: give either at or between, not both`)
    if (f.at !== undefined && f.count > 1) problems.push(`${where}: count > 1 needs between (at names one time)`)
    if (f.between !== undefined && f.between[0] > f.between[1]) problems.push(`${where}: between must go from the earlier time to the later`)
    const last = f.at ?? f.between?.[1] ?? 0
    if (last > duration) problems.push(`${where}: starts after the scenario's duration`)
  }
  const checkDistribution = (where: string, d: Distribution) => {
    if (typeof d === "object" && "min" in d && d.min > d.max) problems.push(`${where}: min must not exceed max`)
  }
  const isSynchronizer = (s: string) => topology.synchronizers.includes(s)
  faults.crashes.forEach((c, i) => {
    checkNodes(`faults.crashes[${i}].nodes`, c.nodes, () => true, "crash")
    checkTiming(`faults.crashes[${i}]`, c)
    checkDistribution(`faults.crashes[${i}].downtime`, c.downtime)
  })
  faults.partitions.forEach((p, i) => {
    checkNodes(`faults.partitions[${i}].nodes`, p.nodes, (n) => !n.endsWith("/sequencer"), "be cut off from a sequencer (it is one)")
    checkTiming(`faults.partitions[${i}]`, p)
    checkDistribution(`faults.partitions[${i}].duration`, p.duration)
    for (const s of p.synchronizers ?? []) if (!isSynchronizer(s)) problems.push(`faults.partitions[${i}].synchronizers: unknown synchronizer ${s}`)
  })
  faults.mediatorTimeouts.forEach((m, i) => {
    checkTiming(`faults.mediatorTimeouts[${i}]`, m)
    if (m.outage !== undefined) checkDistribution(`faults.mediatorTimeouts[${i}].outage`, m.outage)
    for (const s of m.synchronizers ?? []) if (!isSynchronizer(s)) problems.push(`faults.mediatorTimeouts[${i}].synchronizers: unknown synchronizer ${s}`)
  })
  faults.clockSkew.forEach((s, i) => {
    checkNodes(`faults.clockSkew[${i}].nodes`, s.nodes, () => true, "be skewed")
    if ((s.offset === undefined) === (s.max === undefined)) problems.push(`faults.clockSkew[${i}]: give exactly one of offset and max`)
  })
  if (faults.retries !== undefined) checkDistribution("faults.retries.after", faults.retries.after)
  checkDistribution("faults.reconnect", faults.reconnect)
  for (const [name, link] of Object.entries(faults.links ?? {})) {
    if (link === undefined) continue
    if (link.delay !== undefined) checkDistribution(`faults.links.${name}.delay`, link.delay)
  }
  return problems
}
