/**
 * The reads behind the upstream scan endpoints that the spec does not name (routes.ts):
 * the DSO's contracts of a template on the scan's participant (rounds, rules, featured apps, vote
 * requests) and the scan's history in (migration id, record time) order. They read the first super
 * validator's scan and participant through the engine's public objects and render with the
 * engine's scan renderers (ScanApi), so contracts and updates look exactly as on the spec's
 * endpoints.
 */
import type { ActiveContract, CommittedLedgerUpdate, Micros, PartyId } from "@sandnet/core"
import { ScanApi as ScanReads, type ParticipantLogic, type ScanStore, type TemplateRegistry } from "@sandnet/engine"

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

export interface DsoContract {
  readonly contract: ActiveContract
  /** Absent while the contract is being reassigned. */
  readonly synchronizerId: string | undefined
}

/**
 * The contracts of a template (every package version) that `party` is a stakeholder of, active
 * and in flight, in ACS order (oldest first), then the in-flight ones.
 */
export const contractsOfTemplate = (logic: ParticipantLogic, registry: TemplateRegistry, reference: string, party: PartyId): ReadonlyArray<DsoContract> => {
  const templateIds = registry.all().filter((t) => t.nameReference === reference).map((t) => t.templateId)
  const out: Array<DsoContract> = []
  for (const templateId of templateIds) {
    for (const contract of logic.acs.ofTemplate(templateId, party)) out.push({ contract, synchronizerId: contract.synchronizerId })
  }
  for (const entry of logic.acs.inFlightContracts()) {
    const created = entry.contract.created
    const stakeholder = created.signatories.includes(party) || created.observers.includes(party)
    if (stakeholder && templateIds.includes(created.templateId)) out.push({ contract: entry.contract, synchronizerId: undefined })
  }
  return out
}

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
