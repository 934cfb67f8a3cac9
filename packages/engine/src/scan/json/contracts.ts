/**
 * Contracts as scan serves them (ContractJson, ContractWithStateJson, the rules' caching form),
 * and the read-and-render entry points of S4-S8. `created_event_blob` is the ledger API's
 * created-event blob (queries/created-event-blob.ts: base64 of canonical JSON), the same in the
 * registry's disclosed contracts, so clients pass it back to the ledger unchanged.
 *
 * JSON rendering: it belongs to the HTTP layer and moves there with the rest of scan/json/.
 */
import { Either } from "effect"
import { toIso, type ActiveContract, type Json, type PartyId } from "@sandnet/core"
import type { CoinNetwork, SuperValidatorNode } from "../../coin-network.ts"
import { createdEventBlob } from "../../queries/created-event-blob.ts"
import {
  activeOf,
  createdOf,
  currentRules,
  featuredAppRightOf,
  transferPreapprovalOf,
  voteRequestOf,
  type KnownContract
} from "../contracts.ts"
import type { DsoContractNotFound, TransferPreapprovalNotFound, VoteRequestNotFound } from "../errors.ts"

export interface ContractJson {
  readonly template_id: string
  readonly contract_id: string
  readonly payload: Json
  readonly created_event_blob: string
  readonly created_at: string
}

export interface ContractWithStateJson {
  readonly contract: ContractJson
  /** The contract's current synchronizer; absent while it is being reassigned. */
  readonly domain_id?: string
}

export interface MaybeCachedContractWithStateJson {
  readonly contract?: ContractJson
  readonly domain_id?: string
}

/**
 * A contract as scan serves it. `created_event_blob` is the ledger API's created-event blob
 * (LedgerApi.createdEventBlob: base64 of canonical JSON), so a client can pass it back unchanged
 * as a disclosed contract.
 */
export const renderContract = (contract: ActiveContract): ContractJson => ({
  template_id: contract.created.templateId,
  contract_id: contract.created.contractId,
  payload: contract.created.createArguments,
  created_event_blob: createdEventBlob(contract),
  created_at: toIso(contract.created.createdAt)
})

/** A known contract with where it is now (`domain_id` absent while it is being reassigned). */
export const renderContractWithState = (known: KnownContract): ContractWithStateJson => ({
  contract: renderContract(activeOf(known)),
  ...(known._tag === "active" ? { domain_id: known.contract.synchronizerId } : {})
})

/**
 * The current rules contract with the scan's caching semantics: `contract` is omitted when the
 * caller's cached contract id is the current one; `domain_id` always says where the contract is
 * now (absent while it is being reassigned).
 */
export const renderMaybeCached = (current: KnownContract, cachedContractId: string | undefined): MaybeCachedContractWithStateJson => {
  const state = renderContractWithState(current)
  return createdOf(current).contractId === cachedContractId ? (state.domain_id === undefined ? {} : { domain_id: state.domain_id }) : state
}

/** S4, S5: the current rules contract (ExternalPartyCoinRules, AnsRules) on the scan's node, in its caching form. */
export const maybeCachedRules = (
  network: CoinNetwork,
  sv: SuperValidatorNode,
  reference: string,
  cachedContractId: string | undefined
): Either.Either<MaybeCachedContractWithStateJson, DsoContractNotFound> =>
  Either.map(currentRules(sv.participant.logic, network.registry, network.dso, reference), (current) => renderMaybeCached(current, cachedContractId))

/** S6: the TransferPreapproval whose receiver is `party`, with its state. */
export const transferPreapprovalByParty = (
  network: CoinNetwork,
  sv: SuperValidatorNode,
  party: PartyId
): Either.Either<ContractWithStateJson, TransferPreapprovalNotFound> =>
  Either.map(transferPreapprovalOf(sv.participant.logic, network.registry, party), renderContractWithState)

/** S7: a VoteRequest by contract id or tracking id. */
export const voteRequestById = (
  network: CoinNetwork,
  sv: SuperValidatorNode,
  contractId: string
): Either.Either<ContractJson, VoteRequestNotFound> => Either.map(voteRequestOf(sv.participant.logic, network.registry, network.dso, contractId), renderContract)

/** S8: a FeaturedAppRight by contract id (undefined when there is none). */
export const featuredAppRightById = (sv: SuperValidatorNode, contractId: string): ContractJson | undefined => {
  const contract = featuredAppRightOf(sv.participant.logic, contractId)
  return contract === undefined ? undefined : renderContract(contract)
}
