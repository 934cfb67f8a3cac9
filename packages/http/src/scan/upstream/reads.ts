/**
 * The reads behind the upstream scan endpoints that the spec does not name (routes.ts): the
 * order and rendering of the DSO's contracts of a template (rounds, rules, featured apps, vote
 * requests), which the engine lists (ScanApi.dsoContractsOf), and the scan's history in
 * (migration id, record time) order. They render with the engine's scan renderers (ScanApi), so
 * contracts and updates look exactly as on the spec's endpoints.
 */
import type { CommittedLedgerUpdate, Micros } from "@sandnet/core"
import { ScanApi as ScanReads, type ScanStore } from "@sandnet/engine"

/** Package-name references of the templates these reads serve, beyond the spec's (ScanTemplates). */
export const UpstreamTemplates = {
  openMiningRound: "#splice-coin:Splice.Round:OpenMiningRound",
  summarizingMiningRound: "#splice-coin:Splice.Round:SummarizingMiningRound",
  issuingMiningRound: "#splice-coin:Splice.Round:IssuingMiningRound",
  closedMiningRound: "#splice-coin:Splice.Round:ClosedMiningRound",
  coinRules: ScanReads.ScanTemplates.coinRules,
  dsoRules: ScanReads.ScanTemplates.dsoRules,
  featuredAppRight: ScanReads.ScanTemplates.featuredAppRight,
  voteRequest: ScanReads.ScanTemplates.voteRequest
} as const

/** A DSO contract of the scan's node, with its synchronizer (absent while it is being reassigned): ScanApi.dsoContractsOf. */
export type DsoContract = ScanReads.DsoContract

/** ContractWithState as scan renders it. */
export const withState = (c: DsoContract): ScanReads.ContractWithStateJson => ({
  contract: ScanReads.renderContract(c.contract),
  ...(c.synchronizerId === undefined ? {} : { domain_id: c.synchronizerId })
})

/** The round number of a round contract (`round: {number}`), -1 when it has none. */
export const roundNumberOf = (c: DsoContract): number => {
  const round = c.contract.created.createArguments["round"]
  if (typeof round !== "object" || round === null || Array.isArray(round)) return -1
  const n = Number((round as Record<string, unknown>)["number"])
  return Number.isFinite(n) ? n : -1
}

export const byRoundNumber = (a: DsoContract, b: DsoContract): number => roundNumberOf(a) - roundNumberOf(b)

/**
 * A MaybeCachedContractWithStateMap: every current contract by id; the contract is left out for
 * ids the caller says it has cached (`domain_id` is always current). Cached ids that are no longer
 * current are simply absent, which tells the caller to drop them.
 */
export const maybeCachedMap = (
  contracts: ReadonlyArray<DsoContract>,
  cached: ReadonlyArray<string>
): Record<string, ScanReads.MaybeCachedContractWithStateJson> => {
  const known = new Set(cached)
  const out: Record<string, ScanReads.MaybeCachedContractWithStateJson> = {}
  for (const c of contracts) {
    const state = withState(c)
    out[c.contract.created.contractId] = known.has(c.contract.created.contractId) ? (state.domain_id === undefined ? {} : { domain_id: state.domain_id }) : state
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// History in (migration id, record time) order
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
