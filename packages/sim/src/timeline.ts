/**
 * The run's timeline: samples taken at fixed points of simulated time, for the report's plots.
 * Counts are cumulative (the report takes differences); latencies are per interval. Latency is from
 * a command's submission to its completion at the submitting participant (which follows the
 * verdict's delivery), read from every participant's journal as it is written.
 */
import { amountOf, type Micros } from "@sandnet/core"
import { Coin, OpenMiningRound, type CoinNetwork, type CoinPayload, type OpenMiningRoundPayload, type ParticipantEvent, type ParticipantNode } from "@sandnet/engine"

export interface Quantiles {
  readonly count: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
}

export interface TimelineSample {
  /** Simulated time since the workload started. */
  readonly t: Micros
  readonly deliveries: number
  /** Accepted verdicts of every synchronizer's mediator (cumulative). */
  readonly transactions: number
  /** Verdicts ingested by the first super validator's scan, by outcome (cumulative). */
  readonly verdicts: Readonly<Record<string, number>>
  /** Traffic (bytes) charged for the requests behind those verdicts (cumulative). */
  readonly traffic: number
  readonly submitted: number
  readonly succeeded: number
  readonly failed: number
  /** Submission-to-completion latency of the commands completed in this interval, in milliseconds. */
  readonly latency: Quantiles | undefined
  /** The latest open mining round. */
  readonly round: number | undefined
  /** Coin in circulation and its spread over parties (only with detailed sampling). */
  readonly supply: number | undefined
  readonly balances: Quantiles | undefined
}

const quantiles = (values: Array<number>): Quantiles | undefined => {
  if (values.length === 0) return undefined
  values.sort((a, b) => a - b)
  const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))]!
  return { count: values.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: values[values.length - 1]! }
}

/** Verdict outcome labels: ACCEPTED, or REJECTED with the reason's code. */
export const outcomeOf = (result: string, reason: string | undefined): string => {
  if (result === "VERDICT_RESULT_ACCEPTED") return "ACCEPTED"
  const code = reason === undefined ? undefined : /^([A-Z_]+)(:|$)/.exec(reason)?.[1]
  return code === undefined ? "REJECTED" : `REJECTED ${code}`
}

export class Timeline {
  readonly samples: Array<TimelineSample> = []
  private readonly submittedAt = new Map<string, Micros>()
  private latencies: Array<number> = []
  private submitted = 0
  private succeeded = 0
  private failed = 0
  private verdictCursor = 0
  private traffic = 0
  private readonly verdicts: Record<string, number> = {}

  constructor(
    private readonly network: CoinNetwork,
    private readonly start: Micros,
    private readonly detailed: boolean
  ) {
    for (const node of network.participants) this.attach(node)
  }

  /** Follows a participant's journal (again after a restart: the rebuilt node has a new one). */
  attach(node: ParticipantNode): void {
    const logic = node.logic
    const uid = logic.uid
    const previous = logic.journalSink
    logic.journalSink = (event: ParticipantEvent) => {
      previous?.(event)
      this.onEvent(uid, event)
    }
  }

  private onEvent(uid: string, event: ParticipantEvent): void {
    if (event._tag === "CommandSubmitted") {
      this.submitted++
      this.submittedAt.set(`${uid}|${event.commandKey}`, event.at)
    } else if (event._tag === "CommandCompleted") {
      if (event.completion._tag === "Succeeded") this.succeeded++
      else this.failed++
      const key = `${uid}|${event.commandKey}`
      const at = this.submittedAt.get(key)
      if (at !== undefined) {
        this.submittedAt.delete(key)
        this.latencies.push((event.at - at) / 1000)
      }
    }
  }

  sample(now: Micros, deliveries: number): void {
    const sv = this.network.superValidators[0]!
    const log = sv.scan.verdictLog
    for (; this.verdictCursor < log.length; this.verdictCursor++) {
      const { verdict, trafficSummary } = log.at(this.verdictCursor)!
      const outcome = outcomeOf(verdict.result, verdict.reason)
      this.verdicts[outcome] = (this.verdicts[outcome] ?? 0) + 1
      this.traffic += trafficSummary.totalTrafficCost
    }
    const acs = sv.participant.logic.acs
    let round: number | undefined
    for (const c of acs.ofTemplate(OpenMiningRound.templateId, this.network.dso)) {
      const n = Number((c.created.createArguments as unknown as OpenMiningRoundPayload).round.number)
      if (round === undefined || n > round) round = n
    }
    let supply: number | undefined
    let balances: Quantiles | undefined
    if (this.detailed) {
      const byOwner = new Map<string, bigint>()
      let total = 0n
      for (const c of acs.ofTemplate(Coin.templateId, this.network.dso)) {
        const p = c.created.createArguments as unknown as CoinPayload
        const amount = amountOf(p.amount.initialAmount)
        total += amount
        byOwner.set(p.owner, (byOwner.get(p.owner) ?? 0n) + amount)
      }
      supply = Number(total) / 1e10
      balances = quantiles([...byOwner.values()].map((v) => Number(v) / 1e10))
    }
    this.samples.push({
      t: now - this.start,
      deliveries,
      transactions: this.network.synchronizers.reduce((n, s) => n + s.mediator.logic.stats.accepted, 0),
      verdicts: { ...this.verdicts },
      traffic: this.traffic,
      submitted: this.submitted,
      succeeded: this.succeeded,
      failed: this.failed,
      latency: quantiles(this.latencies),
      round,
      supply,
      balances
    })
    this.latencies = []
  }
}
