/**
 * A participant's active contract set: contracts where one of its hosted parties is a stakeholder,
 * with their synchronizer and reassignment counter, indexed by template and stakeholder.
 * Also tracks contracts locked by pending confirmation requests (so that two concurrent
 * transactions can never both consume one contract) and contracts in flight between synchronizers,
 * whose reassignment lifecycle (machines/reassignment.ts) decides which unassign and assign steps
 * are valid.
 */
import { invariant, type ActiveContract, type ContractId, type PartyId, type SynchronizerId } from "@sandnet/core"
import type { SnapshotFrom } from "xstate"
import { persist, refusalOf, restore, start, step, type PersistedLifecycle } from "../machines/lifecycle.ts"
import { reassignmentMachine, type ReassignmentEvent } from "../machines/reassignment.ts"

/** An unassign or assign of a contract: which unassignment, from where to where, at which counter. */
export interface ReassignmentMove {
  readonly unassignId: string
  readonly sourceSynchronizer: SynchronizerId
  readonly targetSynchronizer: SynchronizerId
  readonly reassignmentCounter: number
}

export interface InFlightContract extends ReassignmentMove {
  readonly contract: ActiveContract
  /** The contract's reassignment lifecycle, unassigned: what its assign must match. */
  readonly lifecycle: SnapshotFrom<typeof reassignmentMachine>
}

/** Told when a contract of the watched template becomes active here (true) or stops being active (false). */
/** A contract in flight as an image holds it: its lifecycle persisted. */
export interface PersistedInFlight extends ReassignmentMove {
  readonly contract: ActiveContract
  readonly lifecycle: PersistedLifecycle<typeof reassignmentMachine>
}

export type TemplateWatcher = (contract: ActiveContract, active: boolean) => void

/** Most watchers one ACS keeps (each is a view derived from it, such as the wallet's holding totals). */
export const MAX_TEMPLATE_WATCHERS = 16

export class ActiveContractSet {
  private readonly contracts = new Map<ContractId, ActiveContract>()
  /**
   * By template and stakeholder, the contracts themselves (not their ids): reads walk them without
   * a lookup each. A contract is indexed under each stakeholder on every node that hosts one (with
   * twenty super validators, every coin under its owner on each of their nodes), so a party's one
   * contract of a template is held as itself, a Set only from the second on (the Sets' own objects
   * were 68 MiB of the large scenario's live heap, 36 MiB after).
   */
  private readonly index = new Map<string, Map<PartyId, IndexEntry>>()
  private readonly locks = new Map<ContractId, number>()
  private readonly inFlight = new Map<ContractId, InFlightContract>()
  /** Told of every contract that becomes active (with it) or stops being active (undefined): the node's stored ACS index follows it. */
  onChange: ((contractId: ContractId, contract: ActiveContract | undefined) => void) | undefined = undefined
  private readonly watchers = new Map<string, Array<TemplateWatcher>>()
  private watcherCount = 0

  /** Tells `watcher` of every contract of `templateId` that becomes active or stops being active from now on. */
  watchTemplate(templateId: string, watcher: TemplateWatcher): void {
    invariant(this.watcherCount < MAX_TEMPLATE_WATCHERS, () => `an ACS keeps at most ${MAX_TEMPLATE_WATCHERS} template watchers`)
    const list = this.watchers.get(templateId)
    if (list === undefined) this.watchers.set(templateId, [watcher])
    else list.push(watcher)
    this.watcherCount += 1
  }

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
    for (const party of contract.created.signatories) this.indexUnder(byParty, party, contract)
    for (const party of contract.created.observers) this.indexUnder(byParty, party, contract)
    const watchers = this.watchers.get(contract.created.templateId)
    if (watchers !== undefined) for (const watcher of watchers) watcher(contract, true)
    this.onChange?.(id, contract)
  }

  private indexUnder(byParty: Map<PartyId, IndexEntry>, party: PartyId, contract: ActiveContract): void {
    const entry = byParty.get(party)
    if (entry === undefined) byParty.set(party, contract)
    else if (entry instanceof Set) entry.add(contract)
    // the same party among signatories and observers indexes a contract once
    else if (entry !== contract) byParty.set(party, new Set([entry, contract]))
  }

  private unindexUnder(byParty: Map<PartyId, IndexEntry>, party: PartyId, contract: ActiveContract): void {
    const entry = byParty.get(party)
    if (entry === contract) byParty.delete(party)
    else if (entry instanceof Set && entry.delete(contract) && entry.size === 1) byParty.set(party, entry.values().next().value!)
  }

  /** Removes an active contract; returns it, or undefined when it was not active here. */
  remove(contractId: ContractId): ActiveContract | undefined {
    const contract = this.contracts.get(contractId)
    if (contract === undefined) return undefined
    this.contracts.delete(contractId)
    this.locks.delete(contractId)
    const byParty = this.index.get(contract.created.templateId)
    if (byParty !== undefined) {
      for (const party of contract.created.signatories) this.unindexUnder(byParty, party, contract)
      for (const party of contract.created.observers) this.unindexUnder(byParty, party, contract)
    }
    const watchers = this.watchers.get(contract.created.templateId)
    if (watchers !== undefined) for (const watcher of watchers) watcher(contract, false)
    this.onChange?.(contractId, undefined)
    return contract
  }

  /**
   * Active contracts of a template where `party` is a stakeholder, oldest first: an iterator over
   * the index itself (no generator, no lookup per contract; reads walk it on every transfer). Read
   * it before the ACS changes: a party's one contract is iterated as it was when asked.
   */
  ofTemplate(templateId: string, party: PartyId): IterableIterator<ActiveContract> {
    const entry = this.index.get(templateId)?.get(party)
    return entry === undefined ? NONE.values() : entry instanceof Set ? entry.values() : [entry].values()
  }

  /** The same contracts as `ofTemplate`, as an array, filtered on the way. */
  listOfTemplate(templateId: string, party: PartyId, keep: (contract: ActiveContract) => boolean): Array<ActiveContract> {
    const out: Array<ActiveContract> = []
    const entry = this.index.get(templateId)?.get(party)
    if (entry === undefined) return out
    if (!(entry instanceof Set)) return keep(entry) ? [entry] : out
    for (const contract of entry.values()) if (keep(contract)) out.push(contract)
    return out
  }

  countOf(templateId: string, party: PartyId): number {
    const entry = this.index.get(templateId)?.get(party)
    return entry === undefined ? 0 : entry instanceof Set ? entry.size : 1
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

  /**
   * Moves a contract out of the active set while it travels to another synchronizer. Its
   * reassignment lifecycle must take the unassign (from the synchronizer it is on, to another one,
   * raising the counter by one).
   */
  markUnassigned(contract: ActiveContract, move: ReassignmentMove): void {
    const id = contract.created.contractId
    const removed = this.remove(id)
    invariant(removed !== undefined, () => `unassigned contract ${id} was not active`)
    const assigned = start(reassignmentMachine, { contractId: id, synchronizerId: removed.synchronizerId, reassignmentCounter: removed.reassignmentCounter })
    const unassigned = step(reassignmentMachine, assigned, eventOf("unassign", move))
    invariant(unassigned.accepted, () => `unassign of ${id} refused by its reassignment lifecycle: ${JSON.stringify(unassigned.accepted ? undefined : unassigned.refusal)}`)
    this.inFlight.set(id, {
      contract,
      unassignId: move.unassignId,
      sourceSynchronizer: move.sourceSynchronizer,
      targetSynchronizer: move.targetSynchronizer,
      reassignmentCounter: move.reassignmentCounter,
      lifecycle: unassigned.snapshot
    })
  }

  inFlightOf(contractId: ContractId): InFlightContract | undefined {
    return this.inFlight.get(contractId)
  }

  /** Whether `move` is the assign of the contract's unassign in flight here (its lifecycle would take it). */
  assignMatches(contractId: ContractId, move: ReassignmentMove): boolean {
    const inFlight = this.inFlight.get(contractId)
    return inFlight !== undefined && refusalOf(inFlight.lifecycle, eventOf("assign", move)) === undefined
  }

  /**
   * A contract assigned to a synchronizer becomes active here, at the assign's counter. When it is
   * the assign of the unassign in flight here, its reassignment lifecycle must take it; otherwise
   * the events of two synchronizers crossed (the assign came first, or a later one overtook an
   * earlier one) and the contract takes the newer state, whatever this node held of it.
   */
  assigned(contract: ActiveContract, move: ReassignmentMove): void {
    const id = contract.created.contractId
    const inFlight = this.inFlight.get(id)
    if (inFlight !== undefined) {
      this.inFlight.delete(id)
      if (inFlight.unassignId === move.unassignId) {
        const result = step(reassignmentMachine, inFlight.lifecycle, eventOf("assign", move))
        invariant(result.accepted, () => `assign of ${id} refused by its reassignment lifecycle: ${JSON.stringify(result.accepted ? undefined : result.refusal)}`)
      }
    }
    // Still active on the source here (its unassign has not arrived yet): it moves now.
    if (this.contracts.has(id)) this.remove(id)
    this.add(contract)
  }

  inFlightContracts(): IterableIterator<InFlightContract> {
    return this.inFlight.values()
  }

  /** The contracts in flight as data (an engine checkpoint's part): their lifecycles persisted. */
  inFlightImage(): Array<PersistedInFlight> {
    return [...this.inFlight.values()].map((entry) => ({ ...entry, lifecycle: persist(reassignmentMachine, entry.lifecycle) }))
  }

  /** Takes a contract in flight from an image (an engine checkpoint's restore): not active here, its lifecycle where it was. */
  restoreInFlight(entry: PersistedInFlight): void {
    const id = entry.contract.created.contractId
    invariant(!this.contracts.has(id) && !this.inFlight.has(id), () => `contract ${id} restored in flight twice, or while active`)
    this.inFlight.set(id, { ...entry, lifecycle: restore(reassignmentMachine, entry.lifecycle) })
  }
}

const NONE: ReadonlySet<ActiveContract> = new Set()

/** A party's active contracts of one template, oldest first: the one contract itself, or a Set of two or more. */
type IndexEntry = ActiveContract | Set<ActiveContract>

export const stakeholdersOf = (contract: ActiveContract): ReadonlyArray<PartyId> => {
  const { signatories, observers } = contract.created
  return observers.length === 0 ? signatories : [...new Set([...signatories, ...observers])]
}

const eventOf = (type: ReassignmentEvent["type"], move: ReassignmentMove): ReassignmentEvent => ({
  type,
  unassignId: move.unassignId,
  source: move.sourceSynchronizer,
  target: move.targetSynchronizer,
  reassignmentCounter: move.reassignmentCounter
})
