/**
 * Scenario files (YAML): topology, workload, network, faults, duration, seed and the invariants to
 * check. Validated with Schema; every field is documented in docs/scenarios.md.
 */
import { Either, ParseResult, Schema } from "effect"
import { parse as parseYaml } from "yaml"
import type { Micros } from "@sandnet/core"
import { parseDuration } from "./duration.ts"
import { FaultsConfig, noFaults, validateFaults } from "./fault-config.ts"

export const DurationField = Schema.transformOrFail(Schema.Union(Schema.String, Schema.Number), Schema.Number, {
  strict: true,
  decode: (input, _options, ast) => {
    const value = parseDuration(input)
    return value === undefined
      ? ParseResult.fail(new ParseResult.Type(ast, input, `expected a duration such as "250ms", "30s", "10m", "1h" or "2d", got ${JSON.stringify(input)}`))
      : ParseResult.succeed(value)
  },
  encode: (micros) => ParseResult.succeed(`${micros}us`)
})

const PositiveInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))
const NonNegativeInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))
const NonNegative = Schema.Number.pipe(Schema.greaterThanOrEqualTo(0))

export const InvariantName = Schema.Literal(
  "conservation",
  "no-double-spend",
  "offsets-increase",
  "update-ids-agree",
  "reassignment-counters",
  "verdicts-deduplicated",
  "scans-converge",
  "stakeholders-committed",
  "exactly-once",
  "commands-complete",
  "acs-converge"
)
export type InvariantName = typeof InvariantName.Type
export const ALL_INVARIANTS: ReadonlyArray<InvariantName> = InvariantName.literals

export const Topology = Schema.Struct({
  superValidators: PositiveInt,
  validators: NonNegativeInt,
  synchronizers: Schema.Array(Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9-]{0,62}$/))).pipe(Schema.minItems(1)),
  /** Parties onboarded across the validators, round-robin (the operators are extra). */
  parties: NonNegativeInt
})

export const Latency = Schema.Struct({ min: DurationField, max: DurationField })

const Probability = Schema.Number.pipe(Schema.between(0, 1))

/** A kind of two-step transfer: its rate, amounts, lifetime and what the receiver (or sender) does with it. */
const OfferWorkload = Schema.Struct({
  perMinute: NonNegative,
  minAmount: NonNegative,
  maxAmount: NonNegative,
  /** How long an offer stays acceptable (ledger time). */
  expiresIn: Schema.optionalWith(DurationField, { default: () => 30 * 60_000_000 }),
  /** The receiver decides after a random delay of up to this long. */
  decideWithin: Schema.optionalWith(DurationField, { default: () => 40 * 60_000_000 }),
  acceptProbability: Schema.optionalWith(Probability, { default: () => 0.7 }),
  rejectProbability: Schema.optionalWith(Probability, { default: () => 0.1 }),
  /** The sender withdraws instead (of what the receiver neither accepts nor rejects). */
  withdrawProbability: Schema.optionalWith(Probability, { default: () => 0.1 })
})

/**
 * The wallet automations of every validator (and their configuration knobs); with this section
 * absent, wallets run without automations.
 */
const AutomationWorkload = Schema.Struct({
  pollInterval: Schema.optionalWith(DurationField, { default: () => 60_000_000 }),
  /** Share of the parties that auto-accept offers from anyone. */
  autoAcceptShare: Schema.optionalWith(Probability, { default: () => 0.25 }),
  /** Parties (the first ones) that sweep their excess to the next party. */
  sweepers: Schema.optionalWith(NonNegativeInt, { default: () => 0 }),
  sweepMaxBalanceUSD: Schema.optionalWith(NonNegative, { default: () => 10 }),
  sweepMinBalanceUSD: Schema.optionalWith(NonNegative, { default: () => 2 }),
  /** Bytes per second of extra traffic each validator sustains (0: no top-ups). */
  targetThroughput: Schema.optionalWith(NonNegative, { default: () => 0 }),
  minTopupInterval: Schema.optionalWith(DurationField, { default: () => 10 * 60_000_000 }),
  mergeMaxHoldings: Schema.optionalWith(PositiveInt, { default: () => 10 }),
  preapprovalLifetime: Schema.optionalWith(DurationField, { default: () => 90 * 86_400_000_000 }),
  preapprovalRenewal: Schema.optionalWith(DurationField, { default: () => 30 * 86_400_000_000 })
})

export const WorkloadConfig = Schema.Struct({
  /** Coin tapped for each onboarded party at the start (a development network). */
  initialTap: Schema.optionalWith(NonNegative, { default: () => 1000 }),
  /** One-step transfers through the receiver's TransferPreapproval. */
  transfers: Schema.optional(Schema.Struct({ perMinute: NonNegative, minAmount: NonNegative, maxAmount: NonNegative })),
  /** Legacy transfer offers (the coin is not locked). */
  offers: Schema.optional(OfferWorkload),
  /** Token-standard transfers (TransferInstruction; the coin is locked). */
  tokenTransfers: Schema.optional(OfferWorkload),
  reassignments: Schema.optional(Schema.Struct({ perHour: NonNegative })),
  /** Users onboarded while the scenario runs (tapped and given a preapproval like the first ones). */
  onboarding: Schema.optional(Schema.Struct({ perHour: NonNegative })),
  /** Buy-traffic requests by users, for their validator. */
  traffic: Schema.optional(Schema.Struct({ perHour: NonNegative, bytes: Schema.optionalWith(PositiveInt, { default: () => 1_000_000 }) })),
  /** Vote requests by super validators (featured app rights granted or revoked). */
  votes: Schema.optional(Schema.Struct({ perHour: NonNegative, acceptProbability: Schema.optionalWith(Probability, { default: () => 0.7 }) })),
  /** Validator operators (the first ones) that feature themselves at the start (featured one-step transfers). */
  featuredProviders: Schema.optional(NonNegativeInt),
  automation: Schema.optional(AutomationWorkload)
})
export type WorkloadConfig = typeof WorkloadConfig.Type

export const Scenario = Schema.Struct({
  name: Schema.String,
  description: Schema.optional(Schema.String),
  seed: Schema.optionalWith(Schema.Int, { default: () => 1 }),
  duration: DurationField,
  topology: Topology,
  network: Schema.optionalWith(Schema.Struct({ latency: Schema.optional(Latency) }), { default: () => ({}) }),
  workload: Schema.optionalWith(WorkloadConfig, { default: () => ({ initialTap: 1000 }) }),
  /** What goes wrong (fault-config.ts); none by default. */
  faults: Schema.optionalWith(FaultsConfig, { default: () => noFaults }),
  /** How long in-flight work may settle after the workload stops (faults have healed by then). */
  settle: Schema.optionalWith(DurationField, { default: () => 5 * 60_000_000 }),
  invariants: Schema.optionalWith(Schema.Array(InvariantName), { default: () => ALL_INVARIANTS })
})
export type Scenario = typeof Scenario.Type

export class ScenarioError extends Schema.TaggedError<ScenarioError>()("ScenarioError", {
  file: Schema.String,
  message: Schema.String
}) {}

export const parseScenario = (text: string, file = "<scenario>"): Either.Either<Scenario, ScenarioError> => {
  let raw: unknown
  try {
    raw = parseYaml(text)
  } catch (e) {
    return Either.left(new ScenarioError({ file, message: `not valid YAML: ${e instanceof Error ? e.message : String(e)}` }))
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    // Schema's message would quote the whole file (a text file given by mistake)
    const what = raw === null || raw === undefined ? "empty" : Array.isArray(raw) ? "a YAML list" : `a YAML ${typeof raw}`
    return Either.left(new ScenarioError({ file, message: `not a scenario: it is ${what}, and a scenario is a YAML mapping (name, seed, topology, ...; e.g. scenarios/smoke.yaml)` }))
  }
  const decoded = Schema.decodeUnknownEither(Scenario, { onExcessProperty: "error" })(raw)
  if (Either.isLeft(decoded)) {
    // One line per problem, at its path (e.g. faults.crashes.0.downtime: expected a duration ...).
    // (An optional field's "Expected undefined" alternative says nothing useful.)
    const all = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
    const useful = all.filter((i) => !i.message.startsWith("Expected undefined, actual"))
    const issues = useful.length > 0 ? useful : all
    return Either.left(new ScenarioError({ file, message: issues.map((i) => `${i.path.length === 0 ? "(top)" : i.path.join(".")}: ${i.message}`).join("\n") }))
  }
  const scenario = decoded.right
  const latency = scenario.network.latency
  if (latency !== undefined && latency.min > latency.max) {
    return Either.left(new ScenarioError({ file, message: "network.latency.min must not exceed network.latency.max" }))
  }
  const faultProblems = validateFaults(scenario.faults, scenario.topology, scenario.duration)
  if (faultProblems.length > 0) return Either.left(new ScenarioError({ file, message: faultProblems.join("\n") }))
  return Either.right(scenario)
}

export type { Micros }
