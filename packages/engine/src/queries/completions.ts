/** Command completions: the completion stream of a user's commands, with checkpoints, and a completion's traffic cost. */
import { partitionPoint, type PartyId } from "@sandnet/core"
import { Either } from "effect"
import type { CompletionRecord, ParticipantLogic, ParticipantNode } from "../participant/index.ts"
import type { OffsetAfterLedgerEnd } from "./errors.ts"
import { checkOffsets, synchronizerTimesAt } from "./updates.ts"
import type { CheckpointView } from "./views.ts"

export interface CompletionsQuery {
  /** Only commands submitted by this user (undefined: any user). */
  readonly userId: string | undefined
  /** Only commands acting for one of these parties (empty: any party). */
  readonly parties: ReadonlyArray<PartyId>
}

export interface CompletionView {
  readonly kind: "completion"
  readonly record: CompletionRecord
  /** The command's actAs parties among the requested ones (all of them when any party was asked for). */
  readonly actAs: ReadonlyArray<PartyId>
  /** The paid traffic cost of a successful command's transaction, as its update on this participant records it. */
  readonly paidTrafficCost: number | undefined
}

export type CompletionItem = CompletionView | CheckpointView

/** Where a completion stream stands: the next completion to look at and the offset it covered. */
export interface CompletionCursor {
  readonly index: number
  readonly coveredTo: number
}

/** The cursor of a stream that starts after `beginExclusive`: at the first completion with a greater offset. */
export const completionsFrom = (participant: ParticipantNode, beginExclusive: number): CompletionCursor => {
  const list = participant.logic.completions
  return { index: partitionPoint(list.length, (i) => list.at(i)!.offset <= beginExclusive), coveredTo: beginExclusive }
}

/** A successful command's paid traffic cost, as its transaction on this participant records it. */
const completionTrafficCost = (logic: ParticipantLogic, record: CompletionRecord): number | undefined => {
  if (record.completion._tag !== "Succeeded") return undefined
  const update = logic.updateById(record.completion.updateId)?.update
  return update?.kind === "transaction" ? update.paidTrafficCost : undefined
}

/**
 * The next completions of a stream (command completion service): those of the user's commands
 * acting for a requested party, from the cursor on, at most `maxItems` items. When the ledger end
 * lies after the last offset covered and the limit did not cut the page, an OffsetCheckpoint at
 * the ledger end closes it (as the update stream's checkpoints).
 */
export const readCompletions = (participant: ParticipantNode, query: CompletionsQuery, cursor: CompletionCursor, maxItems: number): CompletionsRead => {
  const logic = participant.logic
  const items: Array<CompletionItem> = []
  const list = logic.completions
  const requested = new Set(query.parties)
  let coveredTo = cursor.coveredTo
  let index = cursor.index
  for (; index < list.length; index++) {
    if (items.length >= maxItems) return { items, cursor: { index, coveredTo }, truncated: true }
    const record = list.at(index)!
    if (query.userId !== undefined && record.userId !== query.userId) continue
    const actAs = requested.size === 0 ? [...record.completion.actAs] : record.completion.actAs.filter((p) => requested.has(p))
    if (actAs.length === 0) continue
    items.push({ kind: "completion", record, actAs, paidTrafficCost: completionTrafficCost(logic, record) })
    coveredTo = Math.max(coveredTo, record.offset)
  }
  if (logic.ledgerEnd > coveredTo) {
    if (items.length >= maxItems) return { items, cursor: { index, coveredTo }, truncated: true }
    items.push({ kind: "checkpoint", offset: logic.ledgerEnd, synchronizerTimes: synchronizerTimesAt(logic, logic.ledgerEnd) })
    coveredTo = logic.ledgerEnd
  }
  return { items, cursor: { index, coveredTo }, truncated: false }
}

/** What one read of a completion stream gives: its items, where the stream stands, and whether the limit cut it. */
export interface CompletionsRead {
  readonly items: ReadonlyArray<CompletionItem>
  readonly cursor: CompletionCursor
  readonly truncated: boolean
}

/** The first read of a completion stream after `beginExclusive`, once the offset is checked against the ledger end. */
export const openCompletions = (
  participant: ParticipantNode,
  query: CompletionsQuery,
  beginExclusive: number,
  maxItems: number
): Either.Either<CompletionsRead, OffsetAfterLedgerEnd> => {
  const offsets = checkOffsets(participant, beginExclusive, undefined)
  return offsets !== undefined ? Either.left(offsets) : Either.right(readCompletions(participant, query, completionsFrom(participant, beginExclusive), maxItems))
}

/** Whether a stream at `cursor` has anything new to read: a completion, or a ledger end after what it covered. */
export const completionsAfter = (participant: ParticipantNode, cursor: CompletionCursor): boolean =>
  participant.logic.completions.length > cursor.index || participant.logic.ledgerEnd > cursor.coveredTo
