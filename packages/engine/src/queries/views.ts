/**
 * Committed updates as an update format shows them: transaction, reassignment and topology views.
 *
 * - Shapes: ACS delta shows created and archived events of contracts whose stakeholders include a
 *   requesting party, without contracts created and archived in the same transaction (transient);
 *   ledger effects shows created and exercised events whose witnesses include a requesting party;
 *   trees (the deprecated shape) are ledger effects where every party filter matches every
 *   template. `witnessParties` are the requesting parties that see the event and whose filter
 *   matches it.
 * - Topology: a participant's log also holds topology updates (ParticipantAuthorizationAdded when
 *   it started hosting a party). They are shown only when the update format asks for
 *   participant authorization events, with the events of the listed parties (none listed: every
 *   party), never in trees; otherwise they are filtered out like any update without visible
 *   events (UPDATE_NOT_FOUND for lookups).
 */
import type {
  ActiveContract,
  CommittedUpdate,
  ContractId,
  CreatedNode,
  ExercisedNode,
  Json,
  Micros,
  ParticipantAuthorizationEvent,
  PartyId,
  ReassignmentUpdate,
  SynchronizerId,
  TopologyUpdate,
  TransactionUpdate,
  TxNode
} from "@sandnet/core"
import type { ParticipantLogic } from "../participant/index.ts"
import { createdEventBlob } from "./created-event-blob.ts"
import {
  splitTemplateId,
  type ResolvedEventFormat,
  type ResolvedTransactionFormat,
  type ResolvedUpdateFormat,
  type TransactionShape
} from "./event-format.ts"
import { createdSubject, exercisedSubject, matchEvent, type Match } from "./matching.ts"

export interface CreatedEventView {
  readonly kind: "created"
  readonly offset: number
  readonly node: CreatedNode
  readonly witnessParties: ReadonlyArray<PartyId>
  readonly acsDelta: boolean
  /** Set when a matching filter asked for it. */
  readonly createdEventBlob: string | undefined
  /** Interface views asked for by matching interface filters. */
  readonly interfaceViews: ReadonlyArray<{ readonly interfaceId: string; readonly view: Json }>
  /** The package of the template (Sandnet has no package preference: the creating package). */
  readonly representativePackageId: string
}

export interface ArchivedEventView {
  readonly kind: "archived"
  readonly offset: number
  readonly node: ExercisedNode
  readonly witnessParties: ReadonlyArray<PartyId>
  readonly implementedInterfaces: ReadonlyArray<string>
}

export interface ExercisedEventView {
  readonly kind: "exercised"
  readonly offset: number
  readonly node: ExercisedNode
  readonly witnessParties: ReadonlyArray<PartyId>
  readonly acsDelta: boolean
  readonly implementedInterfaces: ReadonlyArray<string>
}

export type EventView = CreatedEventView | ArchivedEventView | ExercisedEventView

export interface TransactionView {
  readonly kind: "transaction"
  readonly offset: number
  readonly update: TransactionUpdate
  readonly shape: TransactionShape | "TREE"
  /** In node-id order. */
  readonly events: ReadonlyArray<EventView>
  /** Root node ids of the events shown (trees). */
  readonly rootNodeIds: ReadonlyArray<number>
  /** Command id and paid traffic cost are shown to the submitting parties on the submitting participant only. */
  readonly forSubmitter: boolean
}

export interface UnassignedEventView {
  readonly kind: "unassigned"
  readonly offset: number
  readonly witnessParties: ReadonlyArray<PartyId>
}

export interface AssignedEventView {
  readonly kind: "assigned"
  readonly offset: number
  readonly created: CreatedEventView
}

export interface ReassignmentView {
  readonly kind: "reassignment"
  readonly offset: number
  readonly update: ReassignmentUpdate
  readonly event: UnassignedEventView | AssignedEventView
  readonly forSubmitter: boolean
}

export interface SynchronizerTime {
  readonly synchronizerId: SynchronizerId
  readonly recordTime: Micros
}

export interface CheckpointView {
  readonly kind: "checkpoint"
  readonly offset: number
  readonly synchronizerTimes: ReadonlyArray<SynchronizerTime>
}

export interface TopologyTransactionView {
  readonly kind: "topology"
  readonly offset: number
  readonly update: TopologyUpdate
  /** The events of the requested parties (non-empty). */
  readonly events: ReadonlyArray<ParticipantAuthorizationEvent>
}

export type UpdateView = TransactionView | ReassignmentView | TopologyTransactionView

export type StreamItem = UpdateView | CheckpointView

const requestingParties = (format: ResolvedEventFormat, logic: ParticipantLogic): ReadonlySet<PartyId> => {
  const parties = new Set<PartyId>(format.byParty.keys())
  if (format.anyParty !== undefined) for (const p of logic.hostedParties()) parties.add(p)
  return parties
}

const isForSubmitter = (
  format: ResolvedEventFormat,
  logic: ParticipantLogic,
  submittingParticipant: string,
  submitters: ReadonlyArray<PartyId>
): boolean => {
  if (submittingParticipant !== logic.uid) return false
  const parties = requestingParties(format, logic)
  return submitters.some((p) => parties.has(p))
}

export const createdView = (
  node: CreatedNode,
  offset: number,
  match: Match,
  acsDelta: boolean,
  contract: () => ActiveContract
): CreatedEventView => ({
  kind: "created",
  offset,
  node,
  witnessParties: match.parties,
  acsDelta,
  createdEventBlob: match.includeCreatedEventBlob ? createdEventBlob(contract()) : undefined,
  interfaceViews: match.views.flatMap((interfaceId) => {
    const view = node.interfaceViews[interfaceId]
    return view === undefined ? [] : [{ interfaceId, view }]
  }),
  representativePackageId: splitTemplateId(node.templateId).pkg
})

/** Contracts created and archived by the same transaction (not part of its ACS delta). */
export const transientContracts = (update: TransactionUpdate): ReadonlySet<ContractId> => {
  const created = new Set<ContractId>()
  const transient = new Set<ContractId>()
  for (const node of update.nodes) {
    if (node.kind === "created") created.add(node.contractId)
    else if (node.consuming && created.has(node.contractId)) transient.add(node.contractId)
  }
  return transient
}

/** What deciding on one node of a transaction needs. */
interface TransactionContext {
  readonly format: ResolvedEventFormat
  readonly offset: number
  readonly transient: ReadonlySet<ContractId>
  readonly hosts: (party: PartyId) => boolean
  readonly contractOf: (node: CreatedNode) => () => ActiveContract
}

/** ACS delta: stakeholders see creates and archives (consuming exercises) of contracts that are not transient. */
const acsDeltaEvent = (c: TransactionContext, node: TxNode): EventView | undefined => {
  if (c.transient.has(node.contractId)) return undefined
  if (node.kind === "created") {
    const match = matchEvent(c.format, [...node.signatories, ...node.observers], c.hosts, createdSubject(node))
    return match === undefined ? undefined : createdView(node, c.offset, match, true, c.contractOf(node))
  }
  if (!node.consuming) return undefined
  const match = matchEvent(c.format, node.stakeholders, c.hosts, exercisedSubject(node))
  return match === undefined ? undefined : { kind: "archived", offset: c.offset, node, witnessParties: match.parties, implementedInterfaces: match.views }
}

/** Ledger effects and trees: witnesses see the node; `acsDelta` says whether it is also part of the ACS delta. */
const ledgerEffectsEvent = (c: TransactionContext, node: TxNode): EventView | undefined => {
  if (node.kind === "created") {
    const match = matchEvent(c.format, node.witnesses, c.hosts, createdSubject(node))
    if (match === undefined) return undefined
    const stakeholderSees =
      !c.transient.has(node.contractId) &&
      matchEvent(c.format, [...node.signatories, ...node.observers], c.hosts, createdSubject(node)) !== undefined
    return createdView(node, c.offset, match, stakeholderSees, c.contractOf(node))
  }
  const match = matchEvent(c.format, node.witnesses, c.hosts, exercisedSubject(node))
  if (match === undefined) return undefined
  const acsDelta =
    node.consuming && !c.transient.has(node.contractId) && matchEvent(c.format, node.stakeholders, c.hosts, exercisedSubject(node)) !== undefined
  return { kind: "exercised", offset: c.offset, node, witnessParties: match.parties, acsDelta, implementedInterfaces: match.views }
}

/** The node ids of the shown events none of whose ancestors is shown (the roots of a tree). */
const shownRootNodeIds = (update: TransactionUpdate, events: ReadonlyArray<EventView>): ReadonlyArray<number> => {
  const shown = new Set(events.map((e) => e.node.nodeId))
  const parentOf = new Map<number, number>()
  for (const node of update.nodes) if (node.kind === "exercised") for (const child of node.childNodeIds) parentOf.set(child, node.nodeId)
  return events
    .map((e) => e.node.nodeId)
    .filter((id) => {
      let parent = parentOf.get(id)
      while (parent !== undefined) {
        if (shown.has(parent)) return false
        parent = parentOf.get(parent)
      }
      return true
    })
}

/** A transaction as the format shows it; undefined when no event is left. */
export const viewTransaction = (
  logic: ParticipantLogic,
  entry: CommittedUpdate,
  format: ResolvedTransactionFormat
): TransactionView | undefined => {
  const update = entry.update
  if (update.kind !== "transaction") return undefined
  const context: TransactionContext = {
    format: format.eventFormat,
    offset: entry.offset,
    transient: transientContracts(update),
    hosts: (p: PartyId) => logic.hosts(p),
    contractOf: (node: CreatedNode) => (): ActiveContract => ({
      created: node,
      createdInUpdateId: update.updateId,
      synchronizerId: update.synchronizerId,
      reassignmentCounter: 0
    })
  }
  const eventOf = format.shape === "ACS_DELTA" ? acsDeltaEvent : ledgerEffectsEvent
  const events: Array<EventView> = []
  for (const node of update.nodes) {
    const event = eventOf(context, node)
    if (event !== undefined) events.push(event)
  }
  if (events.length === 0) return undefined
  return {
    kind: "transaction",
    offset: entry.offset,
    update,
    shape: format.shape,
    events,
    rootNodeIds: shownRootNodeIds(update, events),
    forSubmitter: isForSubmitter(format.eventFormat, logic, update.submittingParticipant, update.submitters)
  }
}

/** A reassignment as the format shows it (ACS-delta rules: stakeholders). */
export const viewReassignment = (
  logic: ParticipantLogic,
  entry: CommittedUpdate,
  format: ResolvedEventFormat
): ReassignmentView | undefined => {
  const update = entry.update
  if (update.kind !== "reassignment") return undefined
  const hosts = (p: PartyId) => logic.hosts(p)
  const event = update.event
  const forSubmitter = isForSubmitter(format, logic, update.submittingParticipant, [update.submitter])
  if (event.kind === "unassign") {
    const match = matchEvent(format, event.stakeholders, hosts, {
      templateId: event.templateId,
      packageName: event.packageName,
      implemented: []
    })
    if (match === undefined) return undefined
    return { kind: "reassignment", offset: entry.offset, update, event: { kind: "unassigned", offset: entry.offset, witnessParties: match.parties }, forSubmitter }
  }
  const node = event.createdEvent
  const match = matchEvent(format, [...node.signatories, ...node.observers], hosts, createdSubject(node))
  if (match === undefined) return undefined
  const contract = (): ActiveContract => ({
    created: node,
    createdInUpdateId: update.updateId,
    synchronizerId: event.targetSynchronizer,
    reassignmentCounter: event.reassignmentCounter
  })
  return {
    kind: "reassignment",
    offset: entry.offset,
    update,
    event: { kind: "assigned", offset: entry.offset, created: createdView(node, entry.offset, match, true, contract) },
    forSubmitter
  }
}

/**
 * A topology update as participant authorization events of `parties` show it (empty: every party;
 * the caller's right to read them was checked with the format); undefined when none is left.
 */
export const viewTopology = (entry: CommittedUpdate, parties: ReadonlyArray<PartyId>): TopologyTransactionView | undefined => {
  const update = entry.update
  if (update.kind !== "topology") return undefined
  const events = parties.length === 0 ? update.events : update.events.filter((e) => parties.includes(e.partyId))
  if (events.length === 0) return undefined
  return { kind: "topology", offset: entry.offset, update, events }
}

/** One committed update as an update format shows it; undefined when everything is filtered out. */
export const viewUpdate = (logic: ParticipantLogic, entry: CommittedUpdate, format: ResolvedUpdateFormat): UpdateView | undefined => {
  switch (entry.update.kind) {
    case "transaction":
      return format.transactions === undefined ? undefined : viewTransaction(logic, entry, format.transactions)
    case "reassignment":
      return format.reassignments === undefined ? undefined : viewReassignment(logic, entry, format.reassignments)
    case "topology":
      return format.topologyParties === undefined ? undefined : viewTopology(entry, format.topologyParties)
  }
}
