/** Updates and events the scan ingested, by update id (S2, S3) and in history order. Domain values; scan/json renders them. */
import { Either } from "effect"
import type { AppActivityRecords, CommittedLedgerUpdate, Micros } from "@sandnet/core"
import { UpdateNotFound } from "./errors.ts"
import type { ScanStore, ScanVerdict } from "./store.ts"

const ok = Either.right
const err = Either.left

/** An update the scan ingested, by id. */
export const lookupUpdate = (scan: ScanStore, updateId: string): Either.Either<CommittedLedgerUpdate, UpdateNotFound> => {
  const entry = scan.updateById(updateId)
  return entry === undefined ? err(new UpdateNotFound({ updateId })) : ok(entry)
}

/** What the scan knows of an update id. */
export interface ScanEvent {
  /** The DSO-projected update, if the DSO saw it. */
  readonly update: CommittedLedgerUpdate | undefined
  /** The first verdict ingested, with its traffic summary (never for a reassignment). */
  readonly verdict: ScanVerdict | undefined
  readonly appActivity: AppActivityRecords | undefined
}

/**
 * The event of an update id: its update (if the DSO saw it), the first verdict ingested (not for
 * reassignments, which have none in Splice), the verdict's traffic summary and the app activity
 * records. A rejected or wholly private transaction has only its verdict.
 */
export const lookupEvent = (scan: ScanStore, updateId: string): Either.Either<ScanEvent, UpdateNotFound> => {
  const entry = scan.updateById(updateId)
  const verdict = scan.verdictOf(updateId)
  if (entry === undefined && verdict === undefined) return err(new UpdateNotFound({ updateId }))
  const withVerdict = verdict !== undefined && (entry === undefined || entry.update.kind === "transaction")
  return ok({ update: entry, verdict: withVerdict ? verdict : undefined, appActivity: scan.appActivityOf(updateId) })
}

// ---------------------------------------------------------------------------------------------
// History in (migration id, record time) order (the upstream update and event history)
// ---------------------------------------------------------------------------------------------

/** Where an update or verdict stands in the scan's history order. */
export interface HistoryKey {
  readonly migrationId: number
  readonly recordTime: Micros
}

export const compareKeys = (a: HistoryKey, b: HistoryKey): number => a.migrationId - b.migrationId || a.recordTime - b.recordTime

export const keyOfUpdate = (entry: CommittedLedgerUpdate): HistoryKey => {
  const update = entry.update
  return update.kind === "transaction"
    ? { migrationId: update.migrationId, recordTime: update.recordTime }
    : { migrationId: update.event.migrationId, recordTime: update.recordTime }
}

/** The scan's updates after `after` (exclusive), in history order, at most `limit`. */
export const updatesAfter = (scan: ScanStore, after: HistoryKey | undefined, limit: number): ReadonlyArray<CommittedLedgerUpdate> =>
  scan.updates
    .filter((entry) => after === undefined || compareKeys(keyOfUpdate(entry), after) > 0)
    .sort((a, b) => compareKeys(keyOfUpdate(a), keyOfUpdate(b)))
    .slice(0, limit)

/**
 * The update ids of the scan's events (an update, a verdict, or both) after `after`, in history
 * order, at most `limit`. A verdict without an update (a rejected or wholly private transaction)
 * stands at its own record time.
 */
export const eventIdsAfter = (scan: ScanStore, after: HistoryKey | undefined, limit: number): ReadonlyArray<string> => {
  const keyed = new Map<string, HistoryKey>()
  for (const entry of scan.updates) keyed.set(entry.update.updateId, keyOfUpdate(entry))
  for (const { verdict } of scan.verdictLog) {
    if (!keyed.has(verdict.updateId)) keyed.set(verdict.updateId, { migrationId: verdict.migrationId, recordTime: verdict.recordTime })
  }
  return [...keyed]
    .filter(([, key]) => after === undefined || compareKeys(key, after) > 0)
    .sort(([idA, a], [idB, b]) => compareKeys(a, b) || (idA < idB ? -1 : idA > idB ? 1 : 0))
    .slice(0, limit)
    .map(([id]) => id)
}
