/**
 * The DSO's contracts as the scan reads them from its super validator's ACS: contracts active on a
 * synchronizer or in flight between two, the current rules contracts, transfer preapprovals, vote
 * requests and featured app rights. Domain values; scan/json/contracts.ts renders them.
 */
import { Either } from "effect"
import type { ActiveContract, ContractId, CreatedNode, PartyId } from "@sandnet/core"
import type { CoinNetwork, SuperValidatorNode } from "../coin-network.ts"
import type { InFlightContract } from "../ledger/acs.ts"
import type { TemplateRegistry } from "../ledger/template.ts"
import type { ParticipantLogic } from "../participant/index.ts"
import { DsoContractNotFound, TransferPreapprovalNotFound, VoteRequestNotFound } from "./errors.ts"
import { ScanTemplates, asObject, entityOf, isTemplate, payloadField, templateIdsOf } from "./templates.ts"

const ok = Either.right
const err = Either.left

/** A contract the DSO's node knows: active on a synchronizer, or in flight between two. */
export type KnownContract =
  | { readonly _tag: "active"; readonly contract: ActiveContract }
  | { readonly _tag: "inFlight"; readonly entry: InFlightContract }

export const activeOf = (known: KnownContract): ActiveContract => (known._tag === "active" ? known.contract : known.entry.contract)
export const createdOf = (known: KnownContract): CreatedNode => activeOf(known).created

export const knownContract = (logic: ParticipantLogic, contractId: ContractId): KnownContract | undefined => {
  const active = logic.acs.get(contractId)
  if (active !== undefined) return { _tag: "active", contract: active }
  const entry = logic.acs.inFlightOf(contractId)
  return entry === undefined ? undefined : { _tag: "inFlight", entry }
}

/** Contracts of a template (every package version) where `party` is a stakeholder, active and in flight. */
export const contractsOf = (logic: ParticipantLogic, registry: TemplateRegistry, reference: string, party: PartyId): ReadonlyArray<KnownContract> => {
  const out: Array<KnownContract> = []
  for (const templateId of templateIdsOf(registry, reference)) {
    for (const contract of logic.acs.ofTemplate(templateId, party)) out.push({ _tag: "active", contract })
  }
  for (const entry of logic.acs.inFlightContracts()) {
    const created = entry.contract.created
    if (isTemplate(created, reference) && (created.signatories.includes(party) || created.observers.includes(party))) out.push({ _tag: "inFlight", entry })
  }
  return out
}

/** The newest of several contracts (latest creation; ties: the later one in ACS order). */
export const newest = (contracts: ReadonlyArray<KnownContract>): KnownContract | undefined => {
  let best: KnownContract | undefined
  for (const c of contracts) if (best === undefined || createdOf(c).createdAt >= createdOf(best).createdAt) best = c
  return best
}

/** The DSO's current contract of a rules template (ExternalPartyCoinRules, AnsRules). */
export const currentDsoContract = (
  logic: ParticipantLogic,
  registry: TemplateRegistry,
  dso: PartyId,
  reference: string
): KnownContract | undefined => newest(contractsOf(logic, registry, reference, dso))

/** The DSO's current contract of a rules template; DsoContractNotFound when it has none. */
export const currentRules = (
  logic: ParticipantLogic,
  registry: TemplateRegistry,
  dso: PartyId,
  reference: string
): Either.Either<KnownContract, DsoContractNotFound> => {
  const current = currentDsoContract(logic, registry, dso, reference)
  return current === undefined ? err(new DsoContractNotFound({ template: entityOf(reference) })) : ok(current)
}

/** S6: the TransferPreapproval whose receiver is `party` (the newest, if several). */
export const transferPreapprovalOf = (
  logic: ParticipantLogic,
  registry: TemplateRegistry,
  party: PartyId
): Either.Either<KnownContract, TransferPreapprovalNotFound> => {
  const found = newest(contractsOf(logic, registry, ScanTemplates.transferPreapproval, party).filter((c) => payloadField(createdOf(c), "receiver") === party))
  return found === undefined ? err(new TransferPreapprovalNotFound({ party })) : ok(found)
}

/** S7: a VoteRequest by contract id, or by the tracking id that later versions of it carry. */
export const voteRequestOf = (
  logic: ParticipantLogic,
  registry: TemplateRegistry,
  dso: PartyId,
  contractId: string
): Either.Either<ActiveContract, VoteRequestNotFound> => {
  const direct = knownContract(logic, contractId)
  if (direct !== undefined && isTemplate(createdOf(direct), ScanTemplates.voteRequest)) return ok(activeOf(direct))
  const tracked = newest(contractsOf(logic, registry, ScanTemplates.voteRequest, dso).filter((c) => payloadField(createdOf(c), "trackingCid") === contractId))
  return tracked === undefined ? err(new VoteRequestNotFound({ contractId })) : ok(activeOf(tracked))
}

/** S8: a FeaturedAppRight by contract id (undefined when there is none). */
export const featuredAppRightOf = (logic: ParticipantLogic, contractId: string): ActiveContract | undefined => {
  const known = knownContract(logic, contractId)
  return known !== undefined && isTemplate(createdOf(known), ScanTemplates.featuredAppRight) ? activeOf(known) : undefined
}

/** A DSO contract as the scan's upstream reads list it: the contract, and its synchronizer (absent while it is being reassigned). */
export interface DsoContract {
  readonly contract: ActiveContract
  readonly synchronizerId: string | undefined
}

/**
 * The DSO's contracts of a template (every package version) on the scan's participant (`sv`'s),
 * active ones in ACS order (oldest first), then those in flight.
 */
export const dsoContractsOf = (network: CoinNetwork, sv: SuperValidatorNode, reference: string): ReadonlyArray<DsoContract> =>
  contractsOf(sv.participant.logic, network.registry, reference, network.dso).map((known) =>
    known._tag === "active" ? { contract: known.contract, synchronizerId: known.contract.synchronizerId } : { contract: known.entry.contract, synchronizerId: undefined }
  )

/** The round number of a round contract (`round: {number}`), -1 when it has none. */
export const roundNumberOf = (c: DsoContract): number => {
  const n = Number(asObject(c.contract.created.createArguments["round"])?.["number"])
  return Number.isFinite(n) ? n : -1
}

/** The DSO's round contracts of a template (open, issuing, closed rounds), lowest round first. */
export const dsoRoundsOf = (network: CoinNetwork, sv: SuperValidatorNode, reference: string): ReadonlyArray<DsoContract> =>
  [...dsoContractsOf(network, sv, reference)].sort((a, b) => roundNumberOf(a) - roundNumberOf(b))

/** The newest round of a template (the DSO's latest open round); DsoContractNotFound when there is none. */
export const newestDsoRound = (network: CoinNetwork, sv: SuperValidatorNode, reference: string): Either.Either<DsoContract, DsoContractNotFound> => {
  const newestRound = dsoRoundsOf(network, sv, reference).at(-1)
  return newestRound === undefined ? err(new DsoContractNotFound({ template: entityOf(reference) })) : ok(newestRound)
}

/** The DSO's contract of a singleton template (DsoRules, CoinRules): the last listed; DsoContractNotFound when there is none. */
export const dsoSingletonOf = (network: CoinNetwork, sv: SuperValidatorNode, reference: string): Either.Either<DsoContract, DsoContractNotFound> => {
  const found = dsoContractsOf(network, sv, reference).at(-1)
  return found === undefined ? err(new DsoContractNotFound({ template: entityOf(reference) })) : ok(found)
}

/** The FeaturedAppRight of a provider party, if the DSO granted it one. */
export const featuredAppRightOfProvider = (network: CoinNetwork, sv: SuperValidatorNode, provider: string): DsoContract | undefined =>
  dsoContractsOf(network, sv, ScanTemplates.featuredAppRight).find((c) => c.contract.created.createArguments["provider"] === provider)
