/**
 * A super validator's scan: ingests every update the DSO party sees (projected for the DSO), with
 * its verdict, traffic summary and app activity records, and every verdict the mediator sends
 * (rejected transactions have a verdict and no update). Verdicts are deduplicated by update id:
 * only the first one ingested is kept. Offsets are the SV participant's own (topology updates are
 * not ingested: the scan's offsets skip theirs).
 */
import {
  invariant,
  RecentlyMade,
  type AppActivityRecords,
  type CommittedLedgerUpdate,
  type CommittedUpdate,
  type PartyId,
  type TrafficSummary,
  type Verdict
} from "@sandnet/core"
import { ArchivedLog, NEVER_ARCHIVE, type ArchivedLogImage, type ArchivedLogLimits } from "../history/archived-log.ts"
import { projectTransaction } from "../ledger/projection.ts"
import type { Outgoing } from "../network/network.ts"
import type { ProtocolRequest } from "../protocol/messages.ts"
import type { CommitListener, ParticipantLogic } from "../participant/index.ts"
import { idBlocks, idsOfBlocks, type IdBlock } from "../history/id-blocks.ts"
import { buildHistoryOrders, EventOrder, UpdateOrder, type HistoryKey, type HistoryOrders, type Ingested, type OrderImage } from "./history-order.ts"

/** Verdicts whose scan entries are kept to be shared by the next scans that ingest them (their deliveries interleave with later verdicts'). */
export const VERDICTS_SHARED = 2048

/**
 * When a scan's history order is made: `kept` from the start, placing each update and verdict as
 * it arrives (a serving node, whose pages read it any time); `built when read` at the first read,
 * from the logs, then kept (a simulation, which never pages its scans: placing every entry in
 * twenty scans' two orders was 7% of the large scenario's bootstrap profile).
 */
export type HistoryOrderKeeping = "kept" | "built when read"

export interface ScanVerdict {
  readonly verdict: Verdict
  readonly trafficSummary: TrafficSummary
}

/** Computes the app activity records of an update (set by the coin economy). */
export type AppActivity = (entry: CommittedLedgerUpdate, traffic: TrafficSummary | undefined) => AppActivityRecords | undefined

/** The scan checkpoint's format: a restore refuses another (the journal is replayed whole then). 2: the ids of the verdicts and of the event order as blocks. */
export const SCAN_CHECKPOINT_VERSION = 2

/** The event order's image, its ids as blocks (history/id-blocks.ts: a block that did not change is the same bytes). */
export interface EventOrderImage extends Omit<OrderImage<string>, "values"> {
  readonly ids: ReadonlyArray<IdBlock>
}

/**
 * A scan's state as data (an engine checkpoint's part, beside its participant's): the logs as
 * archived segments and objects, their id maps, the history orders when kept, the app activity
 * records. Restored into a scan built afresh, it is the scan that ingesting the same updates and
 * verdicts builds.
 */
export interface ScanCheckpoint {
  readonly version: typeof SCAN_CHECKPOINT_VERSION
  readonly dso: PartyId
  readonly updates: ArchivedLogImage<CommittedLedgerUpdate>
  readonly byUpdateId: ReadonlyArray<readonly [string, number]>
  readonly verdicts: ArchivedLogImage<ScanVerdict>
  /** The verdicts' update ids in the verdict log's order (the index by update id is their positions). */
  readonly verdictIds: ReadonlyArray<IdBlock>
  readonly orders: { readonly updates: OrderImage<number>; readonly events: EventOrderImage } | undefined
  readonly activity: ReadonlyArray<readonly [string, AppActivityRecords]>
  readonly duplicateVerdictsIgnored: number
}

export class ScanStore implements CommitListener {
  /** DSO-visible updates in the SV's offset order (older ones kept compressed). */
  readonly updates: ArchivedLog<CommittedLedgerUpdate>
  private readonly byUpdateId = new Map<string, number>()
  /** Verdicts in ingestion order (the first per update id; older ones kept compressed). */
  readonly verdictLog: ArchivedLog<ScanVerdict>
  /** Update id -> index in `verdictLog`. */
  private readonly verdictIndex = new Map<string, number>()
  /** The updates and the events in the scan's history order (migration id, record time); undefined until built (`HistoryOrderKeeping`). */
  private orders: HistoryOrders | undefined
  private readonly activity = new Map<string, AppActivityRecords>()
  duplicateVerdictsIgnored = 0
  appActivity: AppActivity = () => undefined
  /** Where every ingested verdict also goes (the store), duplicates included; replay calls `ingestVerdict` without it. */
  verdictSink: ((verdict: Verdict, trafficSummary: TrafficSummary) => void) | undefined = undefined

  constructor(
    readonly participant: ParticipantLogic,
    readonly dso: PartyId,
    historyLimits: ArchivedLogLimits | undefined = NEVER_ARCHIVE,
    historyOrder: HistoryOrderKeeping = "kept"
  ) {
    this.updates = new ArchivedLog(historyLimits)
    this.verdictLog = new ArchivedLog(historyLimits)
    this.orders = historyOrder === "kept" ? buildHistoryOrders([], []) : undefined
  }

  /** The history orders, built from the logs at the first call when they were not kept from the start. */
  historyOrders(): HistoryOrders {
    this.orders ??= buildHistoryOrders(ingestedUpdates(this.updates), ingestedVerdicts(this.verdictLog))
    return this.orders
  }

  /** Whether a party is the DSO, as one function for the store's life (a projection takes it on every commit). */
  private readonly isDso = (party: PartyId): boolean => party === this.dso

  readonly onCommitted = (entry: CommittedUpdate): ReadonlyArray<Outgoing> => {
    const update = entry.update
    // Topology updates have no verdict and are no part of the scan's history.
    if (update.kind === "topology") return []
    const visible =
      update.kind === "transaction"
        ? projectTransaction(update, this.isDso)
        : (update.event.kind === "unassign" ? update.event.stakeholders : [...update.event.createdEvent.signatories, ...update.event.createdEvent.observers]).includes(this.dso)
          ? update
          : undefined
    if (visible === undefined) return []
    // The participant's own log entry when the DSO sees all of it (every transfer; `update` is no
    // topology update here): the scan's offsets are its participant's, and twenty scans each made
    // an equal entry per update.
    const ingested: CommittedLedgerUpdate = visible === update ? (entry as CommittedLedgerUpdate) : { offset: entry.offset, update: visible }
    const key = keyOfUpdate(ingested)
    const verdict = this.verdictOf(update.updateId)
    // the event stood at an earlier update's key, else at its verdict's, if either was ingested
    const orders = this.orders
    if (orders !== undefined) {
      const earlier = this.updateById(update.updateId)
      orders.events.place(update.updateId, key, earlier !== undefined ? keyOfUpdate(earlier) : verdict !== undefined ? keyOfVerdict(verdict.verdict) : undefined)
      orders.updates.add(key, this.updates.length)
    }
    this.byUpdateId.set(update.updateId, this.updates.length)
    this.updates.push(ingested)
    const records = this.appActivity(ingested, verdict?.trafficSummary)
    if (records !== undefined) this.activity.set(update.updateId, records)
    return []
  }

  readonly onVerdict = (verdict: Verdict, trafficSummary: TrafficSummary, _request: ProtocolRequest): void => {
    this.ingestVerdict(verdict, trafficSummary)
  }

  /** Stores the first verdict per update id; later ones are ignored and reported as such. */
  ingestVerdict(verdict: Verdict, trafficSummary: TrafficSummary, replaying = false): boolean {
    if (!replaying) this.verdictSink?.(verdict, trafficSummary)
    if (this.verdictIndex.has(verdict.updateId)) {
      this.duplicateVerdictsIgnored++
      return false
    }
    // An update's event stands at the update's key; a verdict alone, at its own.
    if (this.orders !== undefined && !this.byUpdateId.has(verdict.updateId)) this.orders.events.place(verdict.updateId, keyOfVerdict(verdict), undefined)
    this.verdictIndex.set(verdict.updateId, this.verdictLog.length)
    this.verdictLog.push(scanVerdict(verdict, trafficSummary))
    return true
  }

  updateById(updateId: string): CommittedLedgerUpdate | undefined {
    const i = this.byUpdateId.get(updateId)
    return i === undefined ? undefined : this.updates.at(i)
  }

  verdictOf(updateId: string): ScanVerdict | undefined {
    const i = this.verdictIndex.get(updateId)
    return i === undefined ? undefined : this.verdictLog.at(i)
  }

  appActivityOf(updateId: string): AppActivityRecords | undefined {
    return this.activity.get(updateId)
  }

  /** The scan's checkpoint now (between two messages). */
  checkpoint(): ScanCheckpoint {
    return {
      version: SCAN_CHECKPOINT_VERSION,
      dso: this.dso,
      updates: this.updates.image(),
      byUpdateId: [...this.byUpdateId],
      verdicts: this.verdictLog.image(),
      verdictIds: idBlocks(inPositionOrder(this.verdictIndex)),
      orders: this.orders === undefined ? undefined : { updates: this.orders.updates.image(), events: eventOrderImage(this.orders.events) },
      activity: [...this.activity],
      duplicateVerdictsIgnored: this.duplicateVerdictsIgnored
    }
  }

  /** Restores a checkpoint into this scan, built afresh (nothing ingested). */
  restore(checkpoint: ScanCheckpoint): void {
    invariant(checkpoint.version === SCAN_CHECKPOINT_VERSION, () => `a scan checkpoint of version ${checkpoint.version} (this engine reads ${SCAN_CHECKPOINT_VERSION})`)
    invariant(checkpoint.dso === this.dso, "a scan checkpoint is restored into a scan of its DSO party")
    invariant(this.updates.length === 0 && this.verdictLog.length === 0, "a scan checkpoint is restored into a scan with nothing ingested")
    this.updates.restore(checkpoint.updates)
    for (const [id, index] of checkpoint.byUpdateId) this.byUpdateId.set(id, index)
    this.verdictLog.restore(checkpoint.verdicts)
    let position = 0
    for (const id of idsOfBlocks(checkpoint.verdictIds)) this.verdictIndex.set(id, position++)
    invariant(this.byUpdateId.size === this.updates.length && this.verdictIndex.size === this.verdictLog.length, "a scan checkpoint's id maps hold an entry per update and per verdict")
    // kept orders are taken as they were; without them on either side, they are built from the logs when read
    this.orders = checkpoint.orders === undefined || this.orders === undefined ? undefined : ordersOf(checkpoint.orders)
    for (const [id, records] of checkpoint.activity) this.activity.set(id, records)
    this.duplicateVerdictsIgnored = checkpoint.duplicateVerdictsIgnored
  }
}

/**
 * A verdict's entry, one object for every scan that ingests it (immutable): every super
 * validator's scan holds every verdict, twenty wrappers of the same two objects in the large
 * scenario before.
 */
const ingestedRecently = new RecentlyMade<Verdict, ScanVerdict>(VERDICTS_SHARED)
const scanVerdict = (verdict: Verdict, trafficSummary: TrafficSummary): ScanVerdict => {
  const shared = ingestedRecently.get(verdict)
  if (shared !== undefined && shared.trafficSummary === trafficSummary) return shared
  const entry: ScanVerdict = { verdict, trafficSummary }
  ingestedRecently.set(verdict, entry)
  return entry
}

export const keyOfUpdate = (entry: CommittedLedgerUpdate): HistoryKey => {
  const update = entry.update
  return update.kind === "transaction"
    ? { migrationId: update.migrationId, recordTime: update.recordTime }
    : { migrationId: update.event.migrationId, recordTime: update.recordTime }
}

const ordersOf = (image: NonNullable<ScanCheckpoint["orders"]>): HistoryOrders => {
  const updates = new UpdateOrder()
  updates.restore(image.updates)
  const events = new EventOrder()
  const { ids, ...keys } = image.events
  events.restore({ ...keys, values: [...idsOfBlocks(ids)] })
  return { updates, events }
}

const eventOrderImage = (order: EventOrder): EventOrderImage => {
  const { values, ...keys } = order.image()
  return { ...keys, ids: idBlocks(values) }
}

/** The ids of an index whose values are their insertion positions (the verdicts'), checking that they are. */
function* inPositionOrder(index: ReadonlyMap<string, number>): Generator<string> {
  let position = 0
  for (const [id, at] of index) {
    invariant(at === position, () => `the verdict index holds ${id} at ${at}, inserted ${position}th`)
    position++
    yield id
  }
}

const keyOfVerdict = (verdict: Verdict): HistoryKey => ({ migrationId: verdict.migrationId, recordTime: verdict.recordTime })

function* ingestedUpdates(updates: Iterable<CommittedLedgerUpdate>): Generator<Ingested> {
  for (const entry of updates) yield { id: entry.update.updateId, key: keyOfUpdate(entry) }
}

function* ingestedVerdicts(verdicts: Iterable<ScanVerdict>): Generator<Ingested> {
  for (const { verdict } of verdicts) yield { id: verdict.updateId, key: keyOfVerdict(verdict) }
}
