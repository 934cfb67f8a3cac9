/**
 * Contract events: the create and archive events of a contract id (events by contract id) and a
 * contract by id (the contract service), found through an index of the participant's update log.
 */
import { Either, Schema } from "effect"
import type { ActiveContract, ContractId, CreatedNode, ExercisedNode, PartyId, SynchronizerId } from "@sandnet/core"
import { stakeholdersOf } from "../ledger/acs.ts"
import type { ParticipantLogic, ParticipantNode } from "../participant/index.ts"
import type { ResolvedEventFormat } from "./event-format.ts"
import { createdSubject, exercisedSubject, matchEvent } from "./matching.ts"
import { createdView, transientContracts, type ArchivedEventView, type CreatedEventView } from "./views.ts"

/** No create or archive event of the contract is visible with the format (CONTRACT_EVENTS_NOT_FOUND). */
export class ContractEventsNotFound extends Schema.TaggedError<ContractEventsNotFound>()("ContractEventsNotFound", {
  contractId: Schema.String
}) {
  override get message(): string {
    return `Contract events not found, or not visible: contract id ${this.contractId}`
  }
}

/** No contract with this id is known here, or none of the querying parties is a stakeholder (CONTRACT_NOT_FOUND). */
export class ContractNotFoundById extends Schema.TaggedError<ContractNotFoundById>()("ContractNotFoundById", {
  contractId: Schema.String
}) {
  override get message(): string {
    return `Contract could not be found with id ${this.contractId}`
  }
}

interface ContractEventsEntry {
  /** Offset of the update with the contract's first create event (a transaction, else an assignment). */
  created: number | undefined
  /** Offset of the transaction whose consuming exercise archived it. */
  archived: number | undefined
}

interface ContractEventsIndex {
  indexedTo: number
  readonly byContract: Map<ContractId, ContractEventsEntry>
}

/**
 * Where each contract was created and archived in a participant's update log, built on first use
 * and caught up with the log on every later one (kept beside the logic: a rebuilt node starts a
 * new index; the simulation never pays for it).
 */
const contractIndexes = new WeakMap<ParticipantLogic, ContractEventsIndex>()

const contractEventsIndex = (logic: ParticipantLogic): ContractEventsIndex => {
  let index = contractIndexes.get(logic)
  if (index === undefined) {
    index = { indexedTo: 0, byContract: new Map() }
    contractIndexes.set(logic, index)
  }
  const entryOf = (id: ContractId): ContractEventsEntry => {
    let entry = index!.byContract.get(id)
    if (entry === undefined) index!.byContract.set(id, (entry = { created: undefined, archived: undefined }))
    return entry
  }
  for (let at = index.indexedTo + 1; at <= logic.ledgerEnd; at++) {
    const update = logic.updateAtOffset(at)?.update
    if (update === undefined) continue
    if (update.kind === "transaction") {
      for (const node of update.nodes) {
        if (node.kind === "created") {
          const entry = entryOf(node.contractId)
          // A contract seen assigned before its creation arrived: the creation is its create event.
          if (entry.created === undefined || logic.updateAtOffset(entry.created)?.update.kind !== "transaction") entry.created = at
        } else if (node.consuming) {
          const entry = entryOf(node.contractId)
          entry.archived ??= at
        }
      }
    } else if (update.kind === "reassignment" && update.event.kind === "assign") {
      const entry = entryOf(update.event.createdEvent.contractId)
      entry.created ??= at
    }
  }
  index.indexedTo = logic.ledgerEnd
  return index
}

interface FoundCreate {
  readonly node: CreatedNode
  readonly offset: number
  readonly contract: ActiveContract
  readonly transient: boolean
}

const createOf = (logic: ParticipantLogic, offset: number | undefined, contractId: ContractId): FoundCreate | undefined => {
  const entry = offset === undefined ? undefined : logic.updateAtOffset(offset)
  if (entry === undefined) return undefined
  const update = entry.update
  if (update.kind === "transaction") {
    const node = update.nodes.find((n): n is CreatedNode => n.kind === "created" && n.contractId === contractId)
    if (node === undefined) return undefined
    return {
      node,
      offset: entry.offset,
      contract: { created: node, createdInUpdateId: update.updateId, synchronizerId: update.synchronizerId, reassignmentCounter: 0 },
      transient: transientContracts(update).has(contractId)
    }
  }
  if (update.kind === "reassignment" && update.event.kind === "assign") {
    const node = update.event.createdEvent
    return {
      node,
      offset: entry.offset,
      contract: {
        created: node,
        createdInUpdateId: update.updateId,
        synchronizerId: update.event.targetSynchronizer,
        reassignmentCounter: update.event.reassignmentCounter
      },
      transient: false
    }
  }
  return undefined
}

export interface ContractEvents {
  readonly created: { readonly event: CreatedEventView; readonly synchronizerId: SynchronizerId } | undefined
  readonly archived: { readonly event: ArchivedEventView; readonly synchronizerId: SynchronizerId } | undefined
}

/**
 * The create and the archive event of a contract as an event format shows them (ACS-delta rules:
 * a requesting party must be a stakeholder and its filter match). Active and archived contracts
 * alike; a contract created and archived in one transaction shows both, the create with
 * `acsDelta` false. None visible: ContractEventsNotFound.
 */
export const eventsByContractId = (
  participant: ParticipantNode,
  contractId: ContractId,
  format: ResolvedEventFormat
): Either.Either<ContractEvents, ContractEventsNotFound> => {
  const logic = participant.logic
  const entry = contractEventsIndex(logic).byContract.get(contractId)
  const hosts = (p: PartyId) => logic.hosts(p)
  let created: ContractEvents["created"] = undefined
  const create = createOf(logic, entry?.created, contractId)
  if (create !== undefined) {
    const match = matchEvent(format, stakeholdersOf(create.contract), hosts, createdSubject(create.node))
    if (match !== undefined) {
      created = { event: createdView(create.node, create.offset, match, !create.transient, () => create.contract), synchronizerId: create.contract.synchronizerId }
    }
  }
  let archived: ContractEvents["archived"] = undefined
  const archiving = entry?.archived === undefined ? undefined : logic.updateAtOffset(entry.archived)
  if (archiving !== undefined && archiving.update.kind === "transaction") {
    const update = archiving.update
    const node = update.nodes.find((n): n is ExercisedNode => n.kind === "exercised" && n.consuming && n.contractId === contractId)
    if (node !== undefined) {
      const match = matchEvent(format, node.stakeholders, hosts, exercisedSubject(node))
      if (match !== undefined) {
        archived = {
          event: { kind: "archived", offset: archiving.offset, node, witnessParties: match.parties, implementedInterfaces: match.views },
          synchronizerId: update.synchronizerId
        }
      }
    }
  }
  if (created === undefined && archived === undefined) return Either.left(new ContractEventsNotFound({ contractId }))
  return Either.right({ created, archived })
}

/**
 * A contract by id (the contract service): its create event, when one of the querying parties is
 * a stakeholder (no querying parties: any contract this participant knows). Archived contracts
 * are found too, as on Canton (its contract store keeps them until pruning).
 */
export const contractById = (
  participant: ParticipantNode,
  contractId: ContractId,
  queryingParties: ReadonlyArray<PartyId>
): Either.Either<{ readonly contract: ActiveContract; readonly witnessParties: ReadonlyArray<PartyId> }, ContractNotFoundById> => {
  const logic = participant.logic
  const create = createOf(logic, contractEventsIndex(logic).byContract.get(contractId)?.created, contractId)
  if (create === undefined) return Either.left(new ContractNotFoundById({ contractId }))
  const stakeholders = stakeholdersOf(create.contract)
  const witnessParties = queryingParties.length === 0 ? [...new Set(stakeholders)].sort() : [...new Set(queryingParties.filter((p) => stakeholders.includes(p)))].sort()
  if (witnessParties.length === 0) return Either.left(new ContractNotFoundById({ contractId }))
  return Either.right({ contract: create.contract, witnessParties })
}
