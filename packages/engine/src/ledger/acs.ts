/**
 * A participant's active contract set: contracts where one of its hosted parties is a stakeholder,
 * with their synchronizer and reassignment counter, indexed by template and stakeholder.
 * Also tracks contracts locked by pending confirmation requests (so that two concurrent
 * transactions can never both consume one contract) and contracts in flight between synchronizers.
 */
import { invariant, type ActiveContract, type ContractId, type PartyId, type SynchronizerId } from "@sandnet/core"

export interface InFlightContract {
  readonly contract: ActiveContract
  readonly unassignId: string
  readonly sourceSynchronizer: SynchronizerId
  readonly targetSynchronizer: SynchronizerId
  readonly reassignmentCounter: number
}

export class ActiveContractSet {
  private readonly contracts = new Map<ContractId, ActiveContract>()
  private readonly index = new Map<string, Map<PartyId, Set<ContractId>>>()
  private readonly locks = new Map<ContractId, number>()
  private readonly inFlight = new Map<ContractId, InFlightContract>()
  /** Told of every contract that becomes active (with it) or stops being active (undefined): the node's stored ACS index follows it. */
  onChange: ((contractId: ContractId, contract: ActiveContract | undefined) => void) | undefined = undefined

  get size(): number {
    return this.contracts.size
  }

  get(contractId: ContractId): ActiveContract | undefined {
    return this.contracts.get(contractId)
  }

  has(contractId: ContractId): boolean {
    return this.contracts.has(contractId)
  }

  add(contract: ActiveContract): void {
    const id = contract.created.contractId
    invariant(!this.contracts.has(id), () => `contract ${id} added twice to an ACS`)
    this.contracts.set(id, contract)
    let byParty = this.index.get(contract.created.templateId)
    if (byParty === undefined) this.index.set(contract.created.templateId, (byParty = new Map()))
    for (const party of contract.created.signatories) this.indexUnder(byParty, party, id)
    for (const party of contract.created.observers) this.indexUnder(byParty, party, id)
    this.onChange?.(id, contract)
  }

  private indexUnder(byParty: Map<PartyId, Set<ContractId>>, party: PartyId, id: ContractId): void {
    let ids = byParty.get(party)
    if (ids === undefined) byParty.set(party, (ids = new Set()))
    ids.add(id)
  }

  /** Removes an active contract; returns it, or undefined when it was not active here. */
  remove(contractId: ContractId): ActiveContract | undefined {
    const contract = this.contracts.get(contractId)
    if (contract === undefined) return undefined
    this.contracts.delete(contractId)
    this.locks.delete(contractId)
    const byParty = this.index.get(contract.created.templateId)
    if (byParty !== undefined) {
      for (const party of contract.created.signatories) byParty.get(party)?.delete(contractId)
      for (const party of contract.created.observers) byParty.get(party)?.delete(contractId)
    }
    this.onChange?.(contractId, undefined)
    return contract
  }

  /** Active contracts of a template where `party` is a stakeholder, oldest first. */
  *ofTemplate(templateId: string, party: PartyId): IterableIterator<ActiveContract> {
    const ids = this.index.get(templateId)?.get(party)
    if (ids === undefined) return
    for (const id of ids) {
      const contract = this.contracts.get(id)
      if (contract !== undefined) yield contract
    }
  }

  /**
   * The same contracts as `ofTemplate`, as an array, filtered on the way: wallets read their
   * party's coins on every transfer, and a generator's per-item cost showed in profiles.
   */
  listOfTemplate(templateId: string, party: PartyId, keep: (contract: ActiveContract) => boolean): Array<ActiveContract> {
    const out: Array<ActiveContract> = []
    const ids = this.index.get(templateId)?.get(party)
    if (ids === undefined) return out
    for (const id of ids) {
      const contract = this.contracts.get(id)
      if (contract !== undefined && keep(contract)) out.push(contract)
    }
    return out
  }

  countOf(templateId: string, party: PartyId): number {
    return this.index.get(templateId)?.get(party)?.size ?? 0
  }

  /** Every active contract, in the order they became active. */
  all(): IterableIterator<ActiveContract> {
    return this.contracts.values()
  }

  lockedBy(contractId: ContractId): number | undefined {
    return this.locks.get(contractId)
  }

  lock(contractId: ContractId, requestId: number): void {
    invariant(!this.locks.has(contractId), () => `contract ${contractId} locked twice`)
    this.locks.set(contractId, requestId)
  }

  unlock(contractId: ContractId, requestId: number): void {
    if (this.locks.get(contractId) === requestId) this.locks.delete(contractId)
  }

  /** Moves a contract out of the active set while it travels to another synchronizer. */
  markUnassigned(entry: InFlightContract): void {
    const id = entry.contract.created.contractId
    const removed = this.remove(id)
    invariant(removed !== undefined, () => `unassigned contract ${id} was not active`)
    invariant(
      entry.reassignmentCounter === removed.reassignmentCounter + 1,
      () => `unassign of ${id} must increase the reassignment counter by one (${removed.reassignmentCounter} -> ${entry.reassignmentCounter})`
    )
    this.inFlight.set(id, entry)
  }

  inFlightOf(contractId: ContractId): InFlightContract | undefined {
    return this.inFlight.get(contractId)
  }

  /** Ends a contract's flight (it was assigned on the target). */
  clearInFlight(contractId: ContractId): InFlightContract | undefined {
    const entry = this.inFlight.get(contractId)
    this.inFlight.delete(contractId)
    return entry
  }

  inFlightContracts(): IterableIterator<InFlightContract> {
    return this.inFlight.values()
  }
}

export const stakeholdersOf = (contract: ActiveContract): ReadonlyArray<PartyId> => {
  const { signatories, observers } = contract.created
  return observers.length === 0 ? signatories : [...new Set([...signatories, ...observers])]
}
