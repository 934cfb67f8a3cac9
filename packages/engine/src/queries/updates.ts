/**
 * Reading the update log: streams, pages, lookups by id and offset, and offset checks.
 *
 * Streams: updates with offset in (beginExclusive, endInclusive], ascending (or descending when
 * asked), at most `maxItems` items. When the answered range ends after the last update shown
 * (updates were filtered out, or none exist) and the range was not cut by the limit, one
 * OffsetCheckpoint at the range's end closes the answer, with the record time of the last update
 * of each synchronizer up to it.
 */
import { Either } from "effect"
import type { Micros, SynchronizerId } from "@sandnet/core"
import type { ParticipantLogic, ParticipantNode } from "../participant/index.ts"
import { NotAPageToken, OffsetAfterLedgerEnd, UpdateNotFound } from "./errors.ts"
import type { ResolvedTransactionFormat, ResolvedUpdateFormat } from "./event-format.ts"
import { viewTransaction, viewUpdate, type StreamItem, type SynchronizerTime, type TransactionView, type UpdateView } from "./views.ts"

export interface UpdatesQuery {
  readonly beginExclusive: number
  readonly endInclusive?: number | undefined
  readonly descending: boolean
  /** At most this many items (updates and checkpoints). */
  readonly maxItems: number
  readonly format: ResolvedUpdateFormat
}

export interface UpdatesPage {
  readonly items: ReadonlyArray<StreamItem>
  /** The last offset examined (the next page begins after it). */
  readonly scannedTo: number
  /** True when the page stopped at `maxItems`. */
  readonly truncated: boolean
}

/** Checks a stream's offsets against the ledger end: both must be at or before it. */
export const checkOffsets = (
  participant: ParticipantNode,
  beginExclusive: number,
  endInclusive: number | undefined,
  fields: { readonly begin: string; readonly end: string } = { begin: "beginExclusive", end: "endInclusive" }
): OffsetAfterLedgerEnd | undefined => {
  const logic = participant.logic
  if (beginExclusive > logic.ledgerEnd) return new OffsetAfterLedgerEnd({ field: fields.begin, offset: beginExclusive, ledgerEnd: logic.ledgerEnd })
  if (endInclusive !== undefined && endInclusive > logic.ledgerEnd) {
    return new OffsetAfterLedgerEnd({ field: fields.end, offset: endInclusive, ledgerEnd: logic.ledgerEnd })
  }
  return undefined
}

/** The latest record time of each synchronizer among the updates at or before `offset`, by synchronizer id. */
export const synchronizerTimesAt = (logic: ParticipantLogic, offset: number): ReadonlyArray<SynchronizerTime> => {
  const known = logic.topology.synchronizers().map((s) => s.synchronizerId)
  const times = new Map<SynchronizerId, Micros>()
  for (let at = Math.min(offset, logic.ledgerEnd); at >= 1 && times.size < known.length; at--) {
    const update = logic.updateAtOffset(at)?.update
    if (update !== undefined && !times.has(update.synchronizerId)) times.set(update.synchronizerId, update.recordTime)
  }
  return [...times.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([synchronizerId, recordTime]) => ({ synchronizerId, recordTime }))
}

/** One page of the update stream (see the module comment for the checkpoint rule). */
export const readUpdates = (participant: ParticipantNode, query: UpdatesQuery): UpdatesPage => updatesOf(participant.logic, query)

/**
 * The first page of a stream, once its offsets are checked against the ledger end; the stream
 * goes on with `readUpdates` after the page's `scannedTo`.
 */
export const openUpdates = (participant: ParticipantNode, query: UpdatesQuery): Either.Either<UpdatesPage, OffsetAfterLedgerEnd> => {
  const offsets = checkOffsets(participant, query.beginExclusive, query.endInclusive)
  return offsets !== undefined ? Either.left(offsets) : Either.right(readUpdates(participant, query))
}

const updatesOf = (logic: ParticipantLogic, query: UpdatesQuery): UpdatesPage => {
  const end = Math.min(query.endInclusive ?? logic.ledgerEnd, logic.ledgerEnd)
  const items: Array<StreamItem> = []
  if (query.maxItems <= 0 || end <= query.beginExclusive) return { items, scannedTo: Math.max(query.beginExclusive, end), truncated: false }
  if (query.descending) {
    for (let offset = end; offset > query.beginExclusive; offset--) {
      const entry = logic.updateAtOffset(offset)
      const view = entry === undefined ? undefined : viewUpdate(logic, entry, query.format)
      if (view === undefined) continue
      items.push(view)
      if (items.length >= query.maxItems) return { items, scannedTo: offset, truncated: offset > query.beginExclusive + 1 }
    }
    return { items, scannedTo: query.beginExclusive, truncated: false }
  }
  let lastShown = query.beginExclusive
  for (let offset = query.beginExclusive + 1; offset <= end; offset++) {
    const entry = logic.updateAtOffset(offset)
    const view = entry === undefined ? undefined : viewUpdate(logic, entry, query.format)
    if (view === undefined) continue
    items.push(view)
    lastShown = offset
    if (items.length >= query.maxItems) return { items, scannedTo: offset, truncated: offset < end }
  }
  if (end > lastShown) {
    if (items.length >= query.maxItems) return { items, scannedTo: lastShown, truncated: true }
    items.push({ kind: "checkpoint", offset: end, synchronizerTimes: synchronizerTimesAt(logic, end) })
  }
  return { items, scannedTo: end, truncated: false }
}

/** L6: an update by id, as the format shows it. */
export const updateById = (participant: ParticipantNode, updateId: string, format: ResolvedUpdateFormat): Either.Either<UpdateView, UpdateNotFound> => {
  const logic = participant.logic
  const entry = logic.updateById(updateId)
  const view = entry === undefined ? undefined : viewUpdate(logic, entry, format)
  return view === undefined ? Either.left(new UpdateNotFound({ updateId })) : Either.right(view)
}

/** An update by offset, as the format shows it. */
export const updateByOffset = (participant: ParticipantNode, offset: number, format: ResolvedUpdateFormat): Either.Either<UpdateView, UpdateNotFound> => {
  const logic = participant.logic
  const entry = logic.updateAtOffset(offset)
  const view = entry === undefined ? undefined : viewUpdate(logic, entry, format)
  return view === undefined ? Either.left(new UpdateNotFound({ offset })) : Either.right(view)
}

/** Where a lookup finds its update: by update id or by offset. */
export type UpdateLocator = { readonly updateId: string } | { readonly offset: number }

/** An update by id or by offset, as the format shows it. */
export const lookupUpdate = (participant: ParticipantNode, by: UpdateLocator, format: ResolvedUpdateFormat): Either.Either<UpdateView, UpdateNotFound> =>
  "updateId" in by ? updateById(participant, by.updateId, format) : updateByOffset(participant, by.offset, format)

/** A transaction by id or by offset (the deprecated transaction and tree lookups): any other update is not found. */
export const lookupTransaction = (participant: ParticipantNode, by: UpdateLocator, format: ResolvedUpdateFormat): Either.Either<TransactionView, UpdateNotFound> =>
  Either.flatMap(lookupUpdate(participant, by, format), (view) =>
    view.kind === "transaction" ? Either.right(view) : Either.left(new UpdateNotFound("updateId" in by ? { updateId: by.updateId } : { offset: by.offset }))
  )

export interface UpdatesPageQuery {
  readonly beginExclusive: number
  /** The page's upper bound (the ledger end when the request named none). */
  readonly endInclusive: number
  readonly descending: boolean
  readonly maxItems: number
  readonly format: ResolvedUpdateFormat
}

export interface UpdatesPageResult {
  /** The updates of the page (no checkpoints), in the requested order. */
  readonly updates: ReadonlyArray<UpdateView>
  /** The page covers the offsets in (lowestExclusive, highestInclusive]. */
  readonly lowestExclusive: number
  readonly highestInclusive: number
  /** Whether updates of the range lie beyond the page (the next page continues after it). */
  readonly more: boolean
}

/**
 * One page of updates (`get-updates-page`): at most `maxItems` updates of (beginExclusive,
 * endInclusive], from the low end (ascending) or the high end (descending), with the offsets the
 * page covers so that the next page starts right after (or below) it.
 */
export const readUpdatesPage = (participant: ParticipantNode, query: UpdatesPageQuery): UpdatesPageResult => {
  const logic = participant.logic
  const page = updatesOf(logic, {
    beginExclusive: query.beginExclusive,
    endInclusive: query.endInclusive,
    descending: query.descending,
    maxItems: query.maxItems,
    format: query.format
  })
  const updates = page.items.filter((item): item is UpdateView => item.kind !== "checkpoint")
  const end = Math.max(query.beginExclusive, Math.min(query.endInclusive, logic.ledgerEnd))
  if (query.descending) {
    return {
      updates,
      lowestExclusive: page.truncated ? page.scannedTo - 1 : query.beginExclusive,
      highestInclusive: end,
      more: page.truncated
    }
  }
  return { updates, lowestExclusive: query.beginExclusive, highestInclusive: page.truncated ? page.scannedTo : end, more: page.truncated }
}

export interface UpdatesPageRequest {
  readonly beginExclusive: number
  /** The request's upper bound; undefined: the ledger end, and the pages follow it as it grows. */
  readonly endInclusive: number | undefined
  readonly descending: boolean
  /** Where a page token says the page starts (undefined on the first page). */
  readonly continueAt: number | undefined
  readonly maxItems: number
  readonly format: ResolvedUpdateFormat
}

/**
 * One page of a paged update request (`get-updates-page`): the request's offsets must be at or
 * before the ledger end, and a continuation inside its range. Descending pages move the upper
 * bound down, ascending ones the lower bound up. `next` is where the next page continues: after
 * a full page, and after every ascending page of an open-ended request (it follows the ledger).
 */
export const updatesPage = (
  participant: ParticipantNode,
  request: UpdatesPageRequest
): Either.Either<UpdatesPageResult & { readonly next: number | undefined }, OffsetAfterLedgerEnd | NotAPageToken> => {
  const { beginExclusive: begin, endInclusive: end, descending, continueAt } = request
  const offsets = checkOffsets(participant, begin, end, { begin: "beginOffsetExclusive", end: "endOffsetInclusive" })
  if (offsets !== undefined) return Either.left(offsets)
  const ledgerEnd = participant.logic.ledgerEnd
  const pageBegin = !descending && continueAt !== undefined ? continueAt : begin
  const pageEnd = descending ? (continueAt ?? end ?? ledgerEnd) : (end ?? ledgerEnd)
  if (pageBegin > ledgerEnd || pageBegin < begin || pageEnd < begin) return Either.left(new NotAPageToken())
  const page = readUpdatesPage(participant, { beginExclusive: pageBegin, endInclusive: pageEnd, descending, maxItems: request.maxItems, format: request.format })
  const tailing = !descending && end === undefined
  const next = page.more ? (descending ? page.lowestExclusive : page.highestInclusive) : tailing ? page.highestInclusive : undefined
  return Either.right({ ...page, next })
}

/**
 * A committed transaction as a format shows it, for the command service's answers: an empty
 * event list when none of its events is visible; UpdateNotFound when the update is not a
 * transaction of this participant.
 */
export const committedTransaction = (
  participant: ParticipantNode,
  updateId: string,
  format: ResolvedTransactionFormat,
  shape: TransactionView["shape"]
): Either.Either<TransactionView, UpdateNotFound> => {
  const logic = participant.logic
  const entry = logic.updateById(updateId)
  if (entry === undefined || entry.update.kind !== "transaction") return Either.left(new UpdateNotFound({ updateId }))
  const view = viewTransaction(logic, entry, format)
  return Either.right(
    view ?? {
      kind: "transaction",
      offset: entry.offset,
      update: entry.update,
      shape,
      events: [],
      rootNodeIds: [],
      forSubmitter: entry.update.submittingParticipant === logic.uid
    }
  )
}

/** The participant's ledger end (the offset of its last update; 0 before any). */
export const ledgerEnd = (participant: ParticipantNode): number => participant.logic.ledgerEnd
