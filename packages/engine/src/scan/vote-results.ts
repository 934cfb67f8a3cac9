/**
 * Vote results (S1): every DsoRules_CloseVoteRequest the scan ingested, indexed as the scan
 * ingests updates (memoised beside the store, caught up on each read), filtered and paged by a
 * keyset token. Domain values; scan/json/vote-results.ts renders the page.
 */
import { Either } from "effect"
import { InvalidArgument, parseIso, type Json, type JsonObject, type Micros } from "@sandnet/core"
import type { ScanStore } from "./store.ts"
import { CLOSE_VOTE_REQUEST, ScanTemplates, asArray, asObject, nameReferenceOf } from "./templates.ts"

const ok = Either.right
const err = Either.left

/** One vote result: DsoRules_CloseVoteRequestResult, in its compact JSON form. */
export interface VoteResult {
  readonly request: Json
  readonly completedAt: string
  readonly offboardedVoters: ReadonlyArray<Json>
  readonly abstainingSvs: ReadonlyArray<Json>
  readonly outcome: Json
}

interface VoteResultEntry {
  /** Position in the scan's ingestion order, from 1: the page token. */
  readonly seq: number
  readonly result: VoteResult
  /** The accepted vote's effectiveAt, otherwise completedAt. */
  readonly effectiveAt: Micros
  readonly accepted: boolean
  readonly actionName: string
  readonly requester: string
}

interface VoteResultsIndex {
  cursor: number
  readonly entries: Array<VoteResultEntry>
}

const voteResultsIndexes = new WeakMap<ScanStore, VoteResultsIndex>()

/** The inner action's constructor (`SRARC_...`, `CRARC_...`), or the outer one. */
const actionNameOf = (action: JsonObject | undefined): string => {
  const value = asObject(action?.["value"])
  if (value !== undefined) {
    for (const key of Object.keys(value)) {
      const inner = asObject(value[key])
      if (inner !== undefined && typeof inner["tag"] === "string") return inner["tag"]
    }
  }
  return typeof action?.["tag"] === "string" ? action["tag"] : ""
}

const toVoteResult = (seq: number, result: Json): VoteResultEntry | undefined => {
  const r = asObject(result)
  const request = asObject(r?.["request"])
  const outcome = asObject(r?.["outcome"])
  const completedAt = r?.["completedAt"]
  if (r === undefined || request === undefined || outcome === undefined || typeof completedAt !== "string") return undefined
  const accepted = outcome["tag"] === "VRO_Accepted"
  const effective = accepted ? asObject(outcome["value"])?.["effectiveAt"] : completedAt
  const effectiveAt = typeof effective === "string" ? parseIso(effective) : undefined
  if (effectiveAt === undefined) return undefined
  return {
    seq,
    result: {
      request,
      completedAt,
      offboardedVoters: asArray(r["offboardedVoters"]) ?? asArray(r["offboarded"]) ?? [],
      abstainingSvs: asArray(r["abstainingSvs"]) ?? asArray(r["abstainers"]) ?? [],
      outcome
    },
    effectiveAt,
    accepted,
    actionName: actionNameOf(asObject(request["action"])),
    requester: typeof request["requester"] === "string" ? request["requester"] : ""
  }
}

const voteResultsIndex = (scan: ScanStore): VoteResultsIndex => {
  let index = voteResultsIndexes.get(scan)
  if (index === undefined) voteResultsIndexes.set(scan, (index = { cursor: 0, entries: [] }))
  for (; index.cursor < scan.updates.length; index.cursor++) {
    const update = scan.updates.at(index.cursor)!.update
    if (update.kind !== "transaction") continue
    for (const node of update.nodes) {
      if (node.kind !== "exercised" || node.choice !== CLOSE_VOTE_REQUEST) continue
      if (nameReferenceOf(node.templateId, node.packageName) !== ScanTemplates.dsoRules) continue
      const entry = toVoteResult(index.entries.length + 1, node.exerciseResult)
      if (entry !== undefined) index.entries.push(entry)
    }
  }
  return index
}

/** Largest `limit` of one vote-results page. */
export const MAX_VOTE_RESULTS_LIMIT = 1000

export interface VoteResultsQuery {
  /** Substring of the action's name (e.g. SRARC_GrantFeaturedAppRight). */
  readonly actionName?: string | undefined
  readonly accepted?: boolean | undefined
  /** Substring of the requesting SV's name. */
  readonly requester?: string | undefined
  /** ISO-8601; results effective at or after it. */
  readonly effectiveFrom?: string | undefined
  /** ISO-8601; results effective at or before it. */
  readonly effectiveTo?: string | undefined
  readonly limit: number
  /** The next_page_token of the previous page. */
  readonly pageToken?: number | undefined
}

/** One page of vote results. */
export interface VoteResults {
  /** Newest effective date first. */
  readonly results: ReadonlyArray<VoteResult>
  /** The token of the next page (the last result's position) when more results match. */
  readonly nextPageToken: number | undefined
}

/** Descending by effective date, then by ingestion order (later first). */
const laterFirst = (a: VoteResultEntry, b: VoteResultEntry): number => b.effectiveAt - a.effectiveAt || b.seq - a.seq

/** S1: vote results, filtered, newest effective date first, paged by a keyset token. */
export const voteResults = (scan: ScanStore, query: VoteResultsQuery): Either.Either<VoteResults, InvalidArgument> => {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_VOTE_RESULTS_LIMIT) {
    return err(new InvalidArgument({ field: "limit", message: `must be an integer from 1 to ${MAX_VOTE_RESULTS_LIMIT}, got ${query.limit}` }))
  }
  const time = (field: "effectiveFrom" | "effectiveTo"): Either.Either<Micros | undefined, InvalidArgument> => {
    const text = query[field]
    if (text === undefined) return ok(undefined)
    const t = parseIso(text)
    return t === undefined ? err(new InvalidArgument({ field, message: `expected an ISO-8601 date-time, got ${JSON.stringify(text)}` })) : ok(t)
  }
  const from = time("effectiveFrom")
  if (Either.isLeft(from)) return Either.left(from.left)
  const to = time("effectiveTo")
  if (Either.isLeft(to)) return Either.left(to.left)
  const index = voteResultsIndex(scan)
  let cursor: VoteResultEntry | undefined
  if (query.pageToken !== undefined) {
    cursor = index.entries[query.pageToken - 1]
    if (cursor === undefined || cursor.seq !== query.pageToken) {
      return err(new InvalidArgument({ field: "pageToken", message: `${query.pageToken} is not a next_page_token of this scan` }))
    }
  }
  const matches = index.entries
    .filter(
      (e) =>
        (query.actionName === undefined || e.actionName.includes(query.actionName)) &&
        (query.accepted === undefined || e.accepted === query.accepted) &&
        (query.requester === undefined || e.requester.includes(query.requester)) &&
        (from.right === undefined || e.effectiveAt >= from.right) &&
        (to.right === undefined || e.effectiveAt <= to.right) &&
        // after the previous page's last item in the listing order
        (cursor === undefined || laterFirst(cursor, e) < 0)
    )
    .sort(laterFirst)
  const page = matches.slice(0, query.limit)
  const last = page[page.length - 1]
  return ok({ results: page.map((e) => e.result), nextPageToken: matches.length > query.limit && last !== undefined ? last.seq : undefined })
}
