/**
 * A page of vote results as scan renders it (S1).
 *
 * JSON rendering: it belongs to the HTTP layer and moves there with the rest of scan/json/.
 */
import { Either } from "effect"
import type { InvalidArgument } from "@sandnet/core"
import type { ScanStore } from "../store.ts"
import { voteResults, type VoteResult, type VoteResults, type VoteResultsQuery } from "../vote-results.ts"

export interface VoteResultsPage {
  readonly dso_rules_vote_results: ReadonlyArray<VoteResult>
  readonly next_page_token?: number
}

export const renderVoteResults = (results: VoteResults): VoteResultsPage => ({
  dso_rules_vote_results: results.results,
  ...(results.nextPageToken === undefined ? {} : { next_page_token: results.nextPageToken })
})

/** S1: vote results, filtered, newest effective date first, paged by a keyset token; rendered. */
export const listVoteResults = (scan: ScanStore, query: VoteResultsQuery): Either.Either<VoteResultsPage, InvalidArgument> =>
  Either.map(voteResults(scan, query), renderVoteResults)
