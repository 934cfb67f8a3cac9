/**
 * ACS snapshots (S9): the DSO's active contracts at every full hour of record time, taken from the
 * scan's ingested updates by an index memoised beside the store and caught up on each read (see
 * `acsSnapshotIndex`). Domain values; scan/json/acs-snapshots.ts renders the downloadable objects.
 */
import { MICROS_PER_HOUR, type CommittedLedgerUpdate, type ContractId, type CreatedNode, type Micros, type PartyId } from "@sandnet/core"
import type { ScanStore } from "./store.ts"

/** Snapshots are taken at every full hour of record time (UTC), after the first update's. */
export const ACS_SNAPSHOT_PERIOD: Micros = MICROS_PER_HOUR

/** One active contract of a snapshot, with the update that created it (when the scan saw it). */
export interface SnapshotEntry {
  readonly created: CreatedNode
  readonly createdInUpdateId: string | undefined
}

/** The DSO's ACS at one or more snapshot times (all equal: no update came between them), sorted by contract id. */
export interface SnapshotContent {
  readonly entries: ReadonlyArray<SnapshotEntry>
}

/** A snapshot: its record time and its content (shared by consecutive snapshots without updates between them). */
export interface AcsSnapshot {
  readonly recordTime: Micros
  readonly content: SnapshotContent
}

/** Snapshots at `first`, `first + period`, ..., `last` (one time for the first update's). */
interface SnapshotSegment {
  readonly first: Micros
  last: Micros
  readonly content: SnapshotContent
}

interface AcsSnapshotIndex {
  cursor: number
  readonly acs: Map<ContractId, SnapshotEntry>
  /** Creating update of contracts that left on an unassign (an assign restores it). */
  readonly origins: Map<ContractId, string | undefined>
  readonly segments: Array<SnapshotSegment>
  nextBoundary: Micros
}

const snapshotIndexes = new WeakMap<ScanStore, AcsSnapshotIndex>()

const freeze = (acs: Map<ContractId, SnapshotEntry>): SnapshotContent => ({
  entries: [...acs.values()].sort((a, b) => (a.created.contractId < b.created.contractId ? -1 : a.created.contractId > b.created.contractId ? 1 : 0))
})

const applyToSnapshotAcs = (index: AcsSnapshotIndex, update: CommittedLedgerUpdate["update"], dso: PartyId): void => {
  const isDsoContract = (c: CreatedNode) => c.signatories.includes(dso) || c.observers.includes(dso)
  if (update.kind === "transaction") {
    for (const node of update.nodes) {
      if (node.kind === "created") {
        if (isDsoContract(node)) index.acs.set(node.contractId, { created: node, createdInUpdateId: update.updateId })
      } else if (node.consuming) {
        index.acs.delete(node.contractId)
      }
    }
    return
  }
  const event = update.event
  if (event.kind === "unassign") {
    const entry = index.acs.get(event.contractId)
    if (entry !== undefined) {
      index.origins.set(event.contractId, entry.createdInUpdateId)
      index.acs.delete(event.contractId)
    }
  } else if (isDsoContract(event.createdEvent)) {
    const id = event.createdEvent.contractId
    index.acs.set(id, { created: event.createdEvent, createdInUpdateId: index.origins.get(id) })
    index.origins.delete(id)
  }
}

const nextHour = (t: Micros): Micros => (Math.floor(t / ACS_SNAPSHOT_PERIOD) + 1) * ACS_SNAPSHOT_PERIOD

/**
 * Catches the snapshot index up with the scan. The snapshot at time T holds the DSO's active
 * contracts after every ingested update with record time at or before T; it is taken when the
 * scan ingests the first update with a record time after T (so it is final). Snapshot times: the
 * first update's record time, then every full hour of record time that an update has passed.
 * Consecutive hours without updates share one content.
 */
const acsSnapshotIndex = (scan: ScanStore): AcsSnapshotIndex => {
  let index = snapshotIndexes.get(scan)
  if (index === undefined) snapshotIndexes.set(scan, (index = { cursor: 0, acs: new Map(), origins: new Map(), segments: [], nextBoundary: 0 }))
  for (; index.cursor < scan.updates.length; index.cursor++) {
    const update = scan.updates.at(index.cursor)!.update
    const recordTime = update.recordTime
    if (index.cursor === 0) {
      applyToSnapshotAcs(index, update, scan.dso)
      index.segments.push({ first: recordTime, last: recordTime, content: freeze(index.acs) })
      index.nextBoundary = nextHour(recordTime)
      continue
    }
    if (index.nextBoundary < recordTime) {
      // Every hour boundary strictly before this update is final: one content for all of them.
      const lastBoundary = index.nextBoundary + Math.floor((recordTime - 1 - index.nextBoundary) / ACS_SNAPSHOT_PERIOD) * ACS_SNAPSHOT_PERIOD
      index.segments.push({ first: index.nextBoundary, last: lastBoundary, content: freeze(index.acs) })
      index.nextBoundary = lastBoundary + ACS_SNAPSHOT_PERIOD
    }
    applyToSnapshotAcs(index, update, scan.dso)
  }
  return index
}

const snapshotAt = (index: AcsSnapshotIndex, t: Micros): AcsSnapshot | undefined => {
  // Last segment starting at or before t.
  let lo = 0
  let hi = index.segments.length - 1
  let found: SnapshotSegment | undefined
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const segment = index.segments[mid]!
    if (segment.first <= t) {
      found = segment
      lo = mid + 1
    } else hi = mid - 1
  }
  if (found === undefined) return undefined
  const recordTime = found.first === found.last ? found.first : Math.min(found.last, found.first + Math.floor((t - found.first) / ACS_SNAPSHOT_PERIOD) * ACS_SNAPSHOT_PERIOD)
  return { recordTime, content: found.content }
}

/** The latest ACS snapshot taken at or before `t`; undefined when none was taken yet. */
export const acsSnapshotAt = (scan: ScanStore, t: Micros): AcsSnapshot | undefined => snapshotAt(acsSnapshotIndex(scan), t)
