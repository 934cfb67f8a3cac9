/**
 * A super validator's scan: ingests every update the DSO party sees (projected for the DSO), with
 * its verdict, traffic summary and app activity records, and every verdict the mediator sends
 * (rejected transactions have a verdict and no update). Verdicts are deduplicated by update id:
 * only the first one ingested is kept. Offsets are the SV participant's own (topology updates are
 * not ingested: the scan's offsets skip theirs).
 */
import {
  type AppActivityRecords,
  type CommittedLedgerUpdate,
  type CommittedUpdate,
  type PartyId,
  type TrafficSummary,
  type Verdict
} from "@sandnet/core"
import { projectTransaction } from "../ledger/projection.ts"
import type { Outgoing } from "../network/network.ts"
import type { ProtocolRequest } from "../protocol/messages.ts"
import type { CommitListener, ParticipantLogic } from "../participant/index.ts"

export interface ScanVerdict {
  readonly verdict: Verdict
  readonly trafficSummary: TrafficSummary
}

/** Computes the app activity records of an update (set by the coin economy). */
export type AppActivity = (entry: CommittedLedgerUpdate, traffic: TrafficSummary | undefined) => AppActivityRecords | undefined

export class ScanStore implements CommitListener {
  /** DSO-visible updates in the SV's offset order. */
  readonly updates: Array<CommittedLedgerUpdate> = []
  private readonly byUpdateId = new Map<string, number>()
  private readonly verdicts = new Map<string, ScanVerdict>()
  /** Verdicts in ingestion order (the first per update id). */
  readonly verdictLog: Array<ScanVerdict> = []
  private readonly activity = new Map<string, AppActivityRecords>()
  duplicateVerdictsIgnored = 0
  appActivity: AppActivity = () => undefined
  /** Where every ingested verdict also goes (the store), duplicates included; replay calls `ingestVerdict` without it. */
  verdictSink: ((verdict: Verdict, trafficSummary: TrafficSummary) => void) | undefined = undefined

  constructor(
    readonly participant: ParticipantLogic,
    readonly dso: PartyId
  ) {}

  readonly onCommitted = (entry: CommittedUpdate): ReadonlyArray<Outgoing> => {
    const update = entry.update
    // Topology updates have no verdict and are no part of the scan's history.
    if (update.kind === "topology") return []
    const visible =
      update.kind === "transaction"
        ? projectTransaction(update, (p) => p === this.dso)
        : (update.event.kind === "unassign" ? update.event.stakeholders : [...update.event.createdEvent.signatories, ...update.event.createdEvent.observers]).includes(this.dso)
          ? update
          : undefined
    if (visible === undefined) return []
    const ingested: CommittedLedgerUpdate = { offset: entry.offset, update: visible }
    this.updates.push(ingested)
    this.byUpdateId.set(update.updateId, this.updates.length - 1)
    const records = this.appActivity(ingested, this.verdicts.get(update.updateId)?.trafficSummary)
    if (records !== undefined) this.activity.set(update.updateId, records)
    return []
  }

  readonly onVerdict = (verdict: Verdict, trafficSummary: TrafficSummary, _request: ProtocolRequest): void => {
    this.ingestVerdict(verdict, trafficSummary)
  }

  /** Stores the first verdict per update id; later ones are ignored and reported as such. */
  ingestVerdict(verdict: Verdict, trafficSummary: TrafficSummary, replaying = false): boolean {
    if (!replaying) this.verdictSink?.(verdict, trafficSummary)
    if (this.verdicts.has(verdict.updateId)) {
      this.duplicateVerdictsIgnored++
      return false
    }
    const entry = { verdict, trafficSummary }
    this.verdicts.set(verdict.updateId, entry)
    this.verdictLog.push(entry)
    return true
  }

  updateById(updateId: string): CommittedLedgerUpdate | undefined {
    const i = this.byUpdateId.get(updateId)
    return i === undefined ? undefined : this.updates[i]
  }

  verdictOf(updateId: string): ScanVerdict | undefined {
    return this.verdicts.get(updateId)
  }

  appActivityOf(updateId: string): AppActivityRecords | undefined {
    return this.activity.get(updateId)
  }
}
