/** Updates and events the scan ingested, by update id (S2, S3) and in history order. Domain values; scan/json renders them. */
import { Either } from "effect"
import type { AppActivityRecords, CommittedLedgerUpdate } from "@sandnet/core"
import type { HistoryKey } from "./history-order.ts"
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

export { compareKeys, type HistoryKey } from "./history-order.ts"
export { keyOfUpdate } from "./store.ts"

/** The scan's updates after `after` (exclusive), in history order, at most `limit`. */
export const updatesAfter = (scan: ScanStore, after: HistoryKey | undefined, limit: number): ReadonlyArray<CommittedLedgerUpdate> =>
  scan.historyOrders().updates.positionsAfter(after, limit).map((position) => scan.updates.at(position)!)

/**
 * The update ids of the scan's events (an update, a verdict, or both) after `after`, in history
 * order, at most `limit`. A verdict without an update (a rejected or wholly private transaction)
 * stands at its own record time.
 */
export const eventIdsAfter = (scan: ScanStore, after: HistoryKey | undefined, limit: number): ReadonlyArray<string> => scan.historyOrders().events.idsAfter(after, limit)
