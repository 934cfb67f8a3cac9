/**
 * How the upstream scan endpoints that the spec does not name (routes.ts) and the scan proxy
 * render the DSO's contracts the engine lists (ScanApi.dsoContractsOf, dsoRoundsOf): with their
 * state, and in the rules' caching form, with the engine's scan renderers so that contracts look
 * exactly as on the spec's endpoints.
 */
import { ScanApi as ScanReads } from "@sandnet/engine"

/** A DSO contract of the scan's node, with its synchronizer (absent while it is being reassigned): ScanApi.dsoContractsOf. */
export type DsoContract = ScanReads.DsoContract

/** ContractWithState as scan renders it. */
export const withState = (c: DsoContract): ScanReads.ContractWithStateJson => ({
  contract: ScanReads.renderContract(c.contract),
  ...(c.synchronizerId === undefined ? {} : { domain_id: c.synchronizerId })
})

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
