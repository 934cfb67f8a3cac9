/**
 * A participant (validator node): hosts parties, interprets their commands into transactions,
 * submits them to a synchronizer, confirms the views of its hosted parties (rejecting when an
 * input contract is not active or is locked by another request: no double spend), commits on
 * ACCEPTED verdicts, assigns its own offsets and keeps its ACS and update log.
 *
 * State changes go through `apply(event)` so that the node's journal (its durable truth) can be
 * replayed to rebuild it: the ACS and indexes are derived from the committed updates.
 */
import { Clock, Deferred, Effect, Either } from "effect"
import {
  ContractNotActive,
  canonicalJson,
  invariant,
  micros,
  partyId as makePartyId,
  sha256OfParts,
  updateIdOf,
  type ActiveContract,
  type CommittedUpdate,
  type ContractId,
  type InterpretationError,
  type Json,
  type Micros,
  type ParticipantUid,
  type PartyId,
  type ReassignmentUpdate,
  type SynchronizerId,
  type TopologyUpdate,
  type TraceContext,
  type TrafficSummary,
  type TransactionUpdate,
  type Verdict
} from "@sandnet/core"
import { CommandRejected, ErrorCodes, PartyAlreadyExists } from "../errors.ts"
import { ActiveContractSet, stakeholdersOf } from "../ledger/acs.ts"
import { interpret, type Command, type InterpretedTransaction } from "../ledger/interpreter.ts"
import { projectTransaction } from "../ledger/projection.ts"
import type { TemplateRegistry } from "../ledger/template.ts"
import { Network, Outgoing, receiveOf, type Actor, type Address, type Message } from "../network/network.ts"
import type {
  AssignRequest,
  Deliver,
  DeliverError,
  Envelope,
  EnvelopeContent,
  ProtocolRequest,
  RequestDeadline,
  RequestView,
  SubmissionDeadline,
  SubmissionRequest,
  TransactionRequest,
  UnassignRequest,
  ViewResponse
} from "../protocol/messages.ts"
import { Topology, type PartyHosting, type SynchronizerInfo, type TopologyState } from "../topology.ts"

export interface SubmitRequest {
  /** The ledger API user submitting (kept with the command: its completions are that user's). */
  readonly userId?: string
  /** The client's submission id (Commands.submission_id), echoed in the completion. */
  readonly submissionId?: string
  readonly actAs: ReadonlyArray<PartyId>
  readonly readAs?: ReadonlyArray<PartyId>
  readonly commandId: string
  readonly workflowId?: string
  readonly commands: ReadonlyArray<Command>
  /** Contracts the submitter may use without seeing them (explicit disclosure). */
  readonly disclosedContracts?: ReadonlyArray<ActiveContract>
  readonly synchronizerId?: SynchronizerId
  readonly externalTransactionHash?: string
  readonly traceContext?: TraceContext
  /**
   * Executes a transaction prepared earlier (interactive submission): interpretation reuses its
   * seed and ledger time, and must yield exactly the prepared nodes (what the parties signed), or
   * the command is rejected as stale.
   */
  readonly prepared?: {
    readonly transactionSeed: string
    readonly ledgerTime: Micros
    readonly nodes: Json
  }
}

export interface ReassignRequest {
  readonly submitter: PartyId
  readonly commandId: string
  readonly workflowId?: string
  readonly contractId: ContractId
  readonly targetSynchronizer: SynchronizerId
}

export type Completion =
  | {
      readonly _tag: "Succeeded"
      readonly commandId: string
      readonly actAs: ReadonlyArray<PartyId>
      readonly updateId: string
      readonly offset: number
      readonly recordTime: Micros
      readonly results: ReadonlyArray<Json>
    }
  | {
      readonly _tag: "Failed"
      readonly commandId: string
      readonly actAs: ReadonlyArray<PartyId>
      readonly updateId: string | undefined
      readonly code: string
      readonly reason: string
    }

/**
 * A completion as the ledger API's command completion service shows it: the command's outcome
 * with the submitting user, where and when it was decided, and its offset. A successful command's
 * offset is its update's; a failed one carries the ledger end at the time of the failure (Sandnet
 * gives rejections no offset of their own: the update log's offsets stay dense). Completions are
 * kept in the order they happened, so their offsets never decrease.
 */
export interface CompletionRecord {
  readonly completion: Completion
  readonly userId: string | undefined
  readonly submissionId: string | undefined
  readonly synchronizerId: SynchronizerId
  readonly recordTime: Micros
  readonly offset: number
}

/** The node's journal: replaying these events rebuilds the participant. */
export type ParticipantEvent =
  | { readonly _tag: "PartyAllocated"; readonly party: PartyId }
  /** A party hosted with an explicit hosting (external parties, multi-hosted parties). */
  | { readonly _tag: "PartyHosted"; readonly hosting: PartyHosting; readonly signingKeys: Json | undefined }
  | { readonly _tag: "UpdateCommitted"; readonly entry: CommittedUpdate }
  | { readonly _tag: "CommandCompleted"; readonly commandKey: string; readonly completion: Completion; readonly at: Micros }
  | { readonly _tag: "SubmissionCounter"; readonly nonce: number }
  | {
      readonly _tag: "CommandSubmitted"
      readonly commandKey: string
      readonly commandId: string
      readonly actAs: ReadonlyArray<PartyId>
      /** The submitting ledger API user, when the submission named one. */
      readonly userId?: string
      readonly submissionId?: string
      readonly messageId: string
      readonly synchronizerId: SynchronizerId
      readonly maxSequencingTime: Micros
      readonly updateId: string
      readonly results: ReadonlyArray<Json>
      readonly at: Micros
    }

export interface CommitListener {
  /**
   * Called for every transaction and reassignment committed at this node, in offset order (not
   * for topology updates: nothing listens for them; replaying readers skip them by kind).
   */
  readonly onCommitted?: (entry: CommittedUpdate, now: Micros) => ReadonlyArray<Outgoing>
  /** Called for every verdict this node receives (super validators receive all of them). */
  readonly onVerdict?: (verdict: Verdict, trafficSummary: TrafficSummary, request: ProtocolRequest) => void
  /** Called for completions of this node's own commands. */
  readonly onCompletion?: (completion: Completion, now: Micros) => ReadonlyArray<Outgoing>
}

interface PendingRequest {
  readonly key: string
  readonly requestId: Micros
  readonly synchronizer: SynchronizerInfo
  readonly request: ProtocolRequest
  readonly locked: Array<ContractId>
  readonly deadline: Micros
}

interface InFlightSubmission {
  readonly messageId: string
  readonly commandKey: string
  readonly synchronizer: SynchronizerInfo
  readonly maxSequencingTime: Micros
  readonly updateId: string
  sequenced: boolean
}

interface CommandEntry {
  status: "inFlight" | "succeeded" | "failed"
  completion: Completion | undefined
  completedAt: Micros
  readonly actAs: ReadonlyArray<PartyId>
  readonly commandId: string
  readonly userId: string | undefined
  readonly submissionId: string | undefined
  /** Where the latest submission went (a completion's synchronizer). */
  readonly synchronizerId: SynchronizerId | undefined
  readonly results: ReadonlyArray<Json>
  /** The update id of the command's latest submission (a command failed before may be submitted again). */
  readonly updateId: string | undefined
}

export interface ParticipantStats {
  submitted: number
  committed: number
  rejected: number
  confirmationsSent: number
}

const MAX_DEDUPLICATION: Micros = micros.days(7)

export const commandKeyOf = (commandId: string, actAs: ReadonlyArray<PartyId>): string =>
  [...actAs].sort().join(",") + "|" + commandId

export interface ParticipantConfig {
  readonly uid: ParticipantUid
  readonly name: string
  readonly namespace: string
  readonly isSuperValidator: boolean
  readonly defaultSynchronizer: SynchronizerId
}

/** The participant's logic: synchronous, deterministic, driven by messages and the time passed in. */
export class ParticipantLogic {
  readonly acs = new ActiveContractSet()
  readonly log: Array<CommittedUpdate> = []
  private readonly updateIndex = new Map<string, number>()
  private readonly pending = new Map<string, PendingRequest>()
  /** Synchronizers whose deadline sweep timer is armed. */
  private readonly sweepArmed = new Set<SynchronizerId>()
  /** Update ids with a pending request here, for duplicate detection. */
  private readonly pendingUpdateIds = new Set<string>()

  /** Confirmation requests this node has seen and awaits the verdict of (kept in memory only). */
  get pendingRequestCount(): number {
    return this.pending.size
  }
  private readonly submissions = new Map<string, InFlightSubmission>()
  private readonly commands = new Map<string, CommandEntry>()
  /** Every completion of this node's commands, in the order they happened (rebuilt by replay). */
  readonly completions: Array<CompletionRecord> = []
  private readonly waiters = new Map<string, Array<Deferred.Deferred<Completion>>>()
  private readonly observedTime = new Map<SynchronizerId, Micros>()
  private readonly listeners: Array<CommitListener> = []
  /**
   * The latest reassignment counter this node committed for each contract that was ever
   * reassigned (only those: the map stays small). Lets it tell stale events from newer ones when
   * synchronizers reach it out of order.
   */
  private readonly reassigned = new Map<ContractId, number>()
  /** Signing keys of external parties allocated through this node (as their topology registered them). */
  private readonly signingKeys = new Map<PartyId, Json>()
  private nonce = 0
  ledgerEnd = 0
  readonly stats: ParticipantStats = { submitted: 0, committed: 0, rejected: 0, confirmationsSent: 0 }
  /** The node's durable journal, in order (replaying it rebuilds everything but in-flight requests). */
  readonly journal: Array<ParticipantEvent> = []
  /** Where journal events also go (the store); replay does not call it. */
  journalSink: ((event: ParticipantEvent) => void) | undefined = undefined

  constructor(
    readonly config: ParticipantConfig,
    readonly topology: TopologyState,
    readonly registry: TemplateRegistry
  ) {}

  get uid(): ParticipantUid {
    return this.config.uid
  }

  addListener(listener: CommitListener): void {
    this.listeners.push(listener)
  }

  hostedParties(): ReadonlySet<PartyId> {
    return this.topology.partiesOn(this.uid)
  }

  hosts(party: PartyId): boolean {
    return this.topology.hosts(this.uid, party)
  }

  hostsAny(parties: ReadonlyArray<PartyId>): boolean {
    for (const party of parties) if (this.topology.hosts(this.uid, party)) return true
    return false
  }

  // ---------------------------------------------------------------- journal

  apply(event: ParticipantEvent, replaying = false): void {
    switch (event._tag) {
      case "PartyAllocated":
        if (!this.topology.isKnownParty(event.party)) {
          this.topology.setHosting({
            party: event.party,
            participants: [{ participantUid: this.uid, permission: "Submission" }],
            threshold: 1,
            external: false
          })
        }
        break
      case "PartyHosted":
        if (!this.topology.isKnownParty(event.hosting.party)) this.topology.setHosting(event.hosting)
        if (event.signingKeys !== undefined) this.signingKeys.set(event.hosting.party, event.signingKeys)
        break
      case "UpdateCommitted":
        this.applyCommit(event.entry)
        break
      case "CommandCompleted": {
        const entry = this.commands.get(event.commandKey)
        const base: CommandEntry = entry ?? {
          status: "inFlight" as const,
          completion: undefined,
          completedAt: event.at,
          actAs: event.completion.actAs,
          commandId: event.completion.commandId,
          userId: undefined,
          submissionId: undefined,
          synchronizerId: undefined,
          results: [],
          updateId: event.completion.updateId
        }
        base.status = event.completion._tag === "Succeeded" ? "succeeded" : "failed"
        base.completion = event.completion
        base.completedAt = event.at
        this.commands.set(event.commandKey, base)
        const completion = event.completion
        const offset = completion._tag === "Succeeded" ? completion.offset : this.ledgerEnd
        invariant(offset >= (this.completions[this.completions.length - 1]?.offset ?? 0), "completion offsets must not decrease")
        this.completions.push({
          completion,
          userId: base.userId,
          submissionId: base.submissionId,
          synchronizerId: base.synchronizerId ?? this.config.defaultSynchronizer,
          recordTime: completion._tag === "Succeeded" ? completion.recordTime : event.at,
          offset
        })
        break
      }
      case "SubmissionCounter":
        invariant(event.nonce >= this.nonce, "submission counter must only increase")
        this.nonce = event.nonce
        break
      case "CommandSubmitted": {
        const synchronizer = this.topology.synchronizer(event.synchronizerId)
        invariant(synchronizer !== undefined, "command submitted to an unknown synchronizer")
        this.commands.set(event.commandKey, {
          status: "inFlight",
          completion: undefined,
          completedAt: event.at,
          actAs: event.actAs,
          commandId: event.commandId,
          userId: event.userId,
          submissionId: event.submissionId,
          synchronizerId: event.synchronizerId,
          results: event.results,
          updateId: event.updateId
        })
        this.submissions.set(event.messageId, {
          messageId: event.messageId,
          commandKey: event.commandKey,
          synchronizer,
          maxSequencingTime: event.maxSequencingTime,
          updateId: event.updateId,
          sequenced: false
        })
        break
      }
    }
    if (!replaying) {
      this.journal.push(event)
      this.journalSink?.(event)
    }
  }

  /**
   * Rebuilds a crashed node: replays its journal, takes over the requests its request journal
   * had pending (with their locks), and returns the timers to re-arm for what is still in flight.
   */
  static recover(crashed: ParticipantLogic, now: Micros): { readonly logic: ParticipantLogic; readonly timers: ReadonlyArray<Outgoing> } {
    const logic = new ParticipantLogic(crashed.config, crashed.topology, crashed.registry)
    for (const event of crashed.journal) {
      logic.apply(event, true)
      logic.journal.push(event)
    }
    const timers: Array<Outgoing> = []
    for (const pending of crashed.pending.values()) {
      const locked: Array<ContractId> = []
      for (const contractId of pending.locked) {
        if (logic.acs.has(contractId) && logic.acs.lockedBy(contractId) === undefined) {
          logic.acs.lock(contractId, pending.requestId)
          locked.push(contractId)
        }
      }
      logic.pending.set(pending.key, { ...pending, locked })
      logic.pendingUpdateIds.add(pending.request.updateId)
      timers.push(...logic.armDeadlineSweep(pending, now))
    }
    // Submissions whose outcome is unknown: look again (a time proof settles them).
    for (const submission of logic.submissions.values()) {
      if (!logic.isCurrentAttempt(submission)) continue
      const deadline: SubmissionDeadline = { _tag: "SubmissionDeadline", messageId: submission.messageId }
      timers.push(Outgoing.timer(logic.uid, deadline, Math.max(now, submission.maxSequencingTime + 1)))
    }
    invariant(logic.ledgerEnd === crashed.ledgerEnd, "replaying the journal must restore the ledger end")
    for (const listener of crashed.listeners) logic.listeners.push(listener)
    return { logic, timers }
  }

  /** The newest reassignment counter known here for a contract (-1 when none). */
  private latestCounter(id: ContractId): number {
    return Math.max(this.reassigned.get(id) ?? -1, this.acs.get(id)?.reassignmentCounter ?? -1, this.acs.inFlightOf(id)?.reassignmentCounter ?? -1)
  }

  private applyCommit(entry: CommittedUpdate): void {
    invariant(entry.offset === this.ledgerEnd + 1, () => `offset ${entry.offset} must follow ledger end ${this.ledgerEnd}`)
    const update = entry.update
    if (update.kind === "topology") {
      // Hosting changes live in the topology; the log only records when they became effective.
      invariant(!this.updateIndex.has(update.updateId), () => `topology update ${update.updateId} committed twice`)
      this.ledgerEnd = entry.offset
      this.log.push(entry)
      this.updateIndex.set(update.updateId, this.log.length - 1)
      return
    }
    if (update.kind === "transaction") {
      for (const node of update.nodes) {
        if (node.kind === "created") {
          // A contract this node already saw reassigned was created before: the creation's
          // synchronizer was just slower to reach it (see `reassigned`).
          if ((this.hostsAny(node.signatories) || this.hostsAny(node.observers)) && !this.reassigned.has(node.contractId)) {
            this.acs.add({
              created: node,
              createdInUpdateId: update.updateId,
              synchronizerId: update.synchronizerId,
              reassignmentCounter: 0
            })
          }
        } else if (node.consuming) {
          this.acs.remove(node.contractId)
        }
      }
    } else {
      const event = update.event
      // Events of different synchronizers reach a node in any order: an assign (on the target) can
      // come before its unassign, even before the contract's creation (on the source). The
      // reassignment counter says which is newer; stale events change nothing.
      if (event.kind === "unassign") {
        const id = event.contractId
        const stale = this.latestCounter(id) >= event.reassignmentCounter
        this.reassigned.set(id, Math.max(this.reassigned.get(id) ?? 0, event.reassignmentCounter))
        const contract = this.acs.get(id)
        if (!stale && contract !== undefined) {
          this.acs.markUnassigned({
            contract,
            unassignId: event.unassignId,
            sourceSynchronizer: event.sourceSynchronizer,
            targetSynchronizer: event.targetSynchronizer,
            reassignmentCounter: event.reassignmentCounter
          })
        }
      } else {
        const id = event.createdEvent.contractId
        if (this.latestCounter(id) <= event.reassignmentCounter) {
          this.acs.clearInFlight(id)
          // Still active on the source here (its unassign has not arrived yet): it moves now.
          if (this.acs.has(id)) this.acs.remove(id)
          this.acs.add({
            created: event.createdEvent,
            createdInUpdateId: update.updateId,
            synchronizerId: event.targetSynchronizer,
            reassignmentCounter: event.reassignmentCounter
          })
        }
        this.reassigned.set(id, Math.max(this.reassigned.get(id) ?? 0, event.reassignmentCounter))
      }
    }
    this.ledgerEnd = entry.offset
    this.log.push(entry)
    this.updateIndex.set(update.updateId, this.log.length - 1)
    this.stats.committed++
  }

  // ---------------------------------------------------------------- reads

  updateById(updateId: string): CommittedUpdate | undefined {
    const i = this.updateIndex.get(updateId)
    return i === undefined ? undefined : this.log[i]
  }

  /** Committed updates with offset > `after`, at most `limit`. Offsets are dense: offset n is log[n-1]. */
  updatesAfter(after: number, limit = Number.MAX_SAFE_INTEGER): ReadonlyArray<CommittedUpdate> {
    return this.log.slice(Math.max(0, after), Math.max(0, after) + limit)
  }

  updateAtOffset(offset: number): CommittedUpdate | undefined {
    return offset >= 1 ? this.log[offset - 1] : undefined
  }

  completionOf(commandId: string, actAs: ReadonlyArray<PartyId>): Completion | undefined {
    return this.commands.get(commandKeyOf(commandId, actAs))?.completion
  }

  isInFlight(commandId: string, actAs: ReadonlyArray<PartyId>): boolean {
    return this.commands.get(commandKeyOf(commandId, actAs))?.status === "inFlight"
  }

  /** A contract the given parties can see here: they are stakeholders of it. */
  visibleContract(contractId: ContractId, parties: ReadonlySet<PartyId>): ActiveContract | undefined {
    const contract = this.acs.get(contractId)
    if (contract === undefined) return undefined
    return stakeholdersOf(contract).some((p) => parties.has(p)) ? contract : undefined
  }

  // ---------------------------------------------------------------- parties

  /**
   * Allocates a local party (submission permission) and commits the topology update that records
   * it, at the next offset, with `now` as its record time.
   */
  allocateParty(hint: string, now: Micros, synchronizerId?: SynchronizerId): Either.Either<PartyId, PartyAlreadyExists> {
    const party = this.reserveParty(hint)
    if (Either.isLeft(party)) return party
    this.authorizationAdded(party.right, now, synchronizerId)
    return party
  }

  /**
   * Allocates a local party without its topology update. Only for the network's genesis, whose
   * topology updates `submitGenesis` commits (journaled; a restarted node rebuilds the network
   * without genesis and replays them).
   */
  reserveParty(hint: string): Either.Either<PartyId, PartyAlreadyExists> {
    const party = makePartyId(hint, this.config.namespace)
    if (this.topology.isKnownParty(party)) return Either.left(new PartyAlreadyExists({ party }))
    this.apply({ _tag: "PartyAllocated", party })
    return Either.right(party)
  }

  /**
   * Hosts a party with an explicit hosting (an external party whose topology transactions were
   * verified, or a party hosted on several participants), journaled like every allocation. When
   * this participant is one of the hosting participants, commits its topology update.
   */
  hostParty(hosting: PartyHosting, now: Micros, signingKeys?: Json, synchronizerId?: SynchronizerId): Either.Either<PartyId, PartyAlreadyExists> {
    if (this.topology.isKnownParty(hosting.party)) return Either.left(new PartyAlreadyExists({ party: hosting.party }))
    this.apply({ _tag: "PartyHosted", hosting, signingKeys })
    if (this.hosts(hosting.party)) this.authorizationAdded(hosting.party, now, synchronizerId)
    return Either.right(hosting.party)
  }

  /**
   * Commits a topology update at the next offset: this participant started hosting `party` (with
   * the permission the topology gives it), effective at `now` on `synchronizerId` (the default
   * synchronizer when not given). The update id is a hash of the change (synchronizer, party,
   * record time): every participant hosting the party from the same change gets the same id.
   */
  authorizationAdded(party: PartyId, now: Micros, synchronizerId: SynchronizerId = this.config.defaultSynchronizer): CommittedUpdate {
    const permission = this.topology.permissionOf(this.uid, party)
    invariant(permission !== undefined, () => `participant ${this.uid} does not host ${party}`)
    invariant(this.topology.synchronizer(synchronizerId) !== undefined, () => `unknown synchronizer ${synchronizerId}`)
    const update: TopologyUpdate = {
      kind: "topology",
      updateId: updateIdOf("topology", synchronizerId, party, String(now)),
      synchronizerId,
      recordTime: now,
      events: [{ kind: "authorizationAdded", partyId: party, participantId: this.uid, permission }]
    }
    const entry: CommittedUpdate = { offset: this.ledgerEnd + 1, update }
    this.apply({ _tag: "UpdateCommitted", entry })
    return entry
  }

  signingKeysOf(party: PartyId): Json | undefined {
    return this.signingKeys.get(party)
  }

  // ---------------------------------------------------------------- submission

  private nextSeed(commandId: string, now: Micros): string {
    this.nonce++
    this.apply({ _tag: "SubmissionCounter", nonce: this.nonce })
    return sha256OfParts("transaction-seed", this.uid, String(this.nonce), commandId, String(now))
  }

  private checkDeduplication(commandKey: string, now: Micros): CommandRejected | undefined {
    const entry = this.commands.get(commandKey)
    if (entry === undefined) return undefined
    if (entry.status === "inFlight") {
      return new CommandRejected({ code: ErrorCodes.alreadyInFlight, message: `command ${entry.commandId} is already in flight` })
    }
    if (entry.status === "succeeded" && now - entry.completedAt < MAX_DEDUPLICATION) {
      return new CommandRejected({
        code: ErrorCodes.duplicateCommand,
        message: `command ${entry.commandId} was already accepted in update ${entry.completion?._tag === "Succeeded" ? entry.completion.updateId : ""}`
      })
    }
    return undefined
  }

  private requireHosted(parties: ReadonlyArray<PartyId>): CommandRejected | undefined {
    for (const party of parties) {
      const permission = this.topology.permissionOf(this.uid, party)
      if (permission === undefined) {
        return new CommandRejected({ code: ErrorCodes.partyNotHosted, message: `party ${party} is not hosted on participant ${this.uid}` })
      }
    }
    return undefined
  }

  /**
   * Interprets and submits a command. Returns the update id and what to send; fails when the
   * command cannot be interpreted or is a duplicate. The outcome arrives later as a Completion.
   */
  submit(
    request: SubmitRequest,
    now: Micros
  ): Either.Either<{ readonly updateId: string; readonly transaction: InterpretedTransaction; readonly out: ReadonlyArray<Outgoing> }, InterpretationError | CommandRejected> {
    if (request.actAs.length === 0) {
      return Either.left(new CommandRejected({ code: "INVALID_ARGUMENT", message: "actAs must name at least one party" }))
    }
    const hostingError = this.requireHosted(request.actAs)
    if (hostingError !== undefined) return Either.left(hostingError)
    const commandKey = commandKeyOf(request.commandId, request.actAs)
    const duplicate = this.checkDeduplication(commandKey, now)
    if (duplicate !== undefined) return Either.left(duplicate)

    const readers = new Set<PartyId>([...request.actAs, ...(request.readAs ?? [])])
    const disclosed = new Map<ContractId, ActiveContract>()
    for (const c of request.disclosedContracts ?? []) disclosed.set(c.created.contractId, c)
    const lookup = (contractId: ContractId): ActiveContract | undefined => {
      const own = this.visibleContract(contractId, readers)
      if (own !== undefined) return own
      const shared = disclosed.get(contractId)
      // A disclosed contract that this node knows to be archived or in flight is not usable.
      if (shared !== undefined && this.acs.inFlightOf(contractId) === undefined) return shared
      return undefined
    }
    const fresh = this.nextSeed(request.commandId, now)
    const seed = request.prepared?.transactionSeed ?? fresh
    const interpreted = interpret({
      registry: this.registry,
      transactionSeed: seed,
      ledgerTime: request.prepared?.ledgerTime ?? now,
      actAs: request.actAs,
      lookup,
      commands: request.commands
    })
    if (Either.isLeft(interpreted)) return Either.left(interpreted.left)
    const transaction = interpreted.right
    if (request.prepared !== undefined && canonicalJson(transaction.nodes) !== canonicalJson(request.prepared.nodes)) {
      return Either.left(
        new CommandRejected({
          code: ErrorCodes.preparedTransactionStale,
          message: "the prepared transaction no longer interprets to what was signed (its inputs changed since preparation); prepare it again"
        })
      )
    }

    // Every input must be on one synchronizer; it is where the transaction runs.
    let synchronizerId = request.synchronizerId
    for (const [contractId, input] of transaction.inputs) {
      const at = this.acs.get(contractId)?.synchronizerId ?? input.contract.synchronizerId
      if (at === "") continue
      if (synchronizerId === undefined) synchronizerId = at
      else if (synchronizerId !== at) {
        return Either.left(
          new CommandRejected({
            code: ErrorCodes.noSynchronizer,
            message: `inputs are on different synchronizers (${synchronizerId}, ${at}); reassign ${contractId} first`
          })
        )
      }
    }
    const synchronizer = this.topology.synchronizer(synchronizerId ?? this.config.defaultSynchronizer)
    if (synchronizer === undefined) {
      return Either.left(new CommandRejected({ code: ErrorCodes.noSynchronizer, message: `unknown synchronizer ${synchronizerId}` }))
    }

    const updateId = updateIdOf(seed)
    const txRequest: TransactionRequest = {
      kind: "transaction",
      updateId,
      commandId: request.commandId,
      workflowId: request.workflowId ?? "",
      submitters: [...request.actAs].sort(),
      submittingParticipant: this.uid,
      synchronizerId: synchronizer.synchronizerId,
      transaction,
      externalTransactionHash: request.externalTransactionHash,
      traceContext: request.traceContext
    }
    const views: Array<RequestView> = transaction.views.map((v) => ({
      viewId: v.viewId,
      informees: v.informees,
      confirmingParties: v.confirmingParties,
      subViews: v.subViews,
      viewHash: v.viewHash
    }))
    const envelopes: Array<Envelope> = transaction.views.map((v) => ({
      recipients: this.topology.participantsOf(v.informees),
      content: { _tag: "ConfirmationRequest", request: txRequest, viewIds: [v.viewId] },
      size: v.size,
      viewIds: [v.viewId]
    }))
    envelopes.push({
      recipients: [synchronizer.mediator],
      content: { _tag: "MediatorRequest", request: txRequest, views, rootViews: transaction.rootViews },
      size: 120 + 90 * views.length,
      viewIds: []
    })
    this.stats.submitted++
    const out = this.sendToSequencer(synchronizer, commandKey, request.commandId, request.actAs, updateId, envelopes, now, transaction.results, {
      userId: request.userId,
      submissionId: request.submissionId
    })
    return Either.right({ updateId, transaction, out })
  }

  /** Starts moving a contract to another synchronizer (unassign; the assign follows on acceptance). */
  reassign(request: ReassignRequest, now: Micros): Either.Either<{ readonly updateId: string; readonly out: ReadonlyArray<Outgoing> }, CommandRejected | ContractNotActive> {
    const hostingError = this.requireHosted([request.submitter])
    if (hostingError !== undefined) return Either.left(hostingError)
    const commandKey = commandKeyOf(request.commandId, [request.submitter])
    const duplicate = this.checkDeduplication(commandKey, now)
    if (duplicate !== undefined) return Either.left(duplicate)
    const contract = this.visibleContract(request.contractId, new Set([request.submitter]))
    if (contract === undefined) {
      const inFlight = this.acs.inFlightOf(request.contractId)
      return Either.left(
        new ContractNotActive({ contractId: request.contractId, reason: inFlight !== undefined ? "being reassigned" : "not an active contract of the submitter" })
      )
    }
    if (!contract.created.signatories.includes(request.submitter)) {
      return Either.left(new CommandRejected({ code: "INVALID_ARGUMENT", message: `only a signatory can reassign ${request.contractId}` }))
    }
    const source = this.topology.synchronizer(contract.synchronizerId)
    const target = this.topology.synchronizer(request.targetSynchronizer)
    if (source === undefined || target === undefined) {
      return Either.left(new CommandRejected({ code: ErrorCodes.noSynchronizer, message: `unknown synchronizer ${request.targetSynchronizer}` }))
    }
    if (source.synchronizerId === target.synchronizerId) {
      return Either.left(new CommandRejected({ code: "INVALID_ARGUMENT", message: `contract ${request.contractId} is already on ${target.synchronizerId}` }))
    }
    const seed = this.nextSeed(request.commandId, now)
    const updateId = updateIdOf(seed, "unassign")
    const unassign: UnassignRequest = {
      kind: "unassign",
      updateId,
      commandId: request.commandId,
      workflowId: request.workflowId ?? "",
      submitter: request.submitter,
      submittingParticipant: this.uid,
      contract,
      sourceSynchronizer: source.synchronizerId,
      targetSynchronizer: target.synchronizerId,
      reassignmentCounter: contract.reassignmentCounter + 1
    }
    this.stats.submitted++
    const out = this.sendToSequencer(source, commandKey, request.commandId, [request.submitter], updateId, reassignmentEnvelopes(this.topology, source, unassign), now, [])
    return Either.right({ updateId, out })
  }

  /** Completes a reassignment whose unassign was accepted: assign on the target. */
  private assignAfterUnassign(unassign: UnassignRequest, now: Micros): ReadonlyArray<Outgoing> {
    const target = this.topology.synchronizer(unassign.targetSynchronizer)
    invariant(target !== undefined, "assign target synchronizer must exist")
    const commandId = `${unassign.commandId}:assign`
    const commandKey = commandKeyOf(commandId, [unassign.submitter])
    if (this.commands.has(commandKey)) return []
    const seed = this.nextSeed(commandId, now)
    const assign: AssignRequest = {
      kind: "assign",
      updateId: updateIdOf(seed, "assign"),
      commandId,
      workflowId: unassign.workflowId,
      submitter: unassign.submitter,
      submittingParticipant: this.uid,
      contract: unassign.contract,
      sourceSynchronizer: unassign.sourceSynchronizer,
      targetSynchronizer: unassign.targetSynchronizer,
      unassignId: unassign.updateId,
      reassignmentCounter: unassign.reassignmentCounter
    }
    this.stats.submitted++
    return this.sendToSequencer(target, commandKey, commandId, [unassign.submitter], assign.updateId, reassignmentEnvelopes(this.topology, target, assign), now, [])
  }

  private sendToSequencer(
    synchronizer: SynchronizerInfo,
    commandKey: string,
    commandId: string,
    actAs: ReadonlyArray<PartyId>,
    updateId: string,
    envelopes: ReadonlyArray<Envelope>,
    now: Micros,
    results: ReadonlyArray<Json>,
    submitter: { readonly userId?: string | undefined; readonly submissionId?: string | undefined } = {}
  ): ReadonlyArray<Outgoing> {
    const messageId = `${this.uid}:${this.nonce}`
    const maxSequencingTime = now + synchronizer.parameters.maxSequencingTimeOffset
    this.apply({
      _tag: "CommandSubmitted",
      commandKey,
      commandId,
      actAs: [...actAs].sort(),
      ...(submitter.userId !== undefined ? { userId: submitter.userId } : {}),
      ...(submitter.submissionId !== undefined ? { submissionId: submitter.submissionId } : {}),
      messageId,
      synchronizerId: synchronizer.synchronizerId,
      maxSequencingTime,
      updateId,
      results,
      at: now
    })
    const submission: SubmissionRequest = { _tag: "SubmissionRequest", sender: this.uid, messageId, maxSequencingTime, envelopes }
    const deadline: SubmissionDeadline = { _tag: "SubmissionDeadline", messageId }
    return [Outgoing.send(this.uid, synchronizer.sequencer, submission), Outgoing.timer(this.uid, deadline, maxSequencingTime + 1)]
  }

  // ---------------------------------------------------------------- completions

  awaitCompletion(commandId: string, actAs: ReadonlyArray<PartyId>, deferred: Deferred.Deferred<Completion>): Completion | undefined {
    const key = commandKeyOf(commandId, actAs)
    const entry = this.commands.get(key)
    if (entry?.completion !== undefined && entry.status !== "inFlight") return entry.completion
    let list = this.waiters.get(key)
    if (list === undefined) this.waiters.set(key, (list = []))
    list.push(deferred)
    return undefined
  }

  private complete(commandKey: string, completion: Completion, now: Micros, effects: Array<Effect.Effect<unknown>>): ReadonlyArray<Outgoing> {
    const entry = this.commands.get(commandKey)
    if (entry === undefined || entry.status !== "inFlight") return []
    this.apply({ _tag: "CommandCompleted", commandKey, completion, at: now })
    this.pruneDeduplication(now)
    const waiting = this.waiters.get(commandKey)
    if (waiting !== undefined) {
      this.waiters.delete(commandKey)
      for (const deferred of waiting) effects.push(Deferred.succeed(deferred, completion))
    }
    const out: Array<Outgoing> = []
    for (const listener of this.listeners) if (listener.onCompletion !== undefined) out.push(...listener.onCompletion(completion, now))
    return out
  }

  private pruneDeduplication(now: Micros): void {
    if (this.commands.size < 200_000) return
    for (const [key, entry] of this.commands) {
      if (entry.status === "inFlight" || now - entry.completedAt < MAX_DEDUPLICATION) break
      this.commands.delete(key)
    }
  }

  private failCommand(commandKey: string, updateId: string | undefined, code: string, reason: string, now: Micros, effects: Array<Effect.Effect<unknown>>): ReadonlyArray<Outgoing> {
    const entry = this.commands.get(commandKey)
    if (entry === undefined) return []
    this.stats.rejected++
    return this.complete(commandKey, { _tag: "Failed", commandId: entry.commandId, actAs: entry.actAs, updateId, code, reason }, now, effects)
  }

  // ---------------------------------------------------------------- protocol

  handle(message: Message, now: Micros, effects: Array<Effect.Effect<unknown>>): ReadonlyArray<Outgoing> {
    switch (message._tag) {
      case "Deliver":
        return this.onDeliver(message as Deliver, now, effects)
      case "DeliverError":
        return this.onDeliverError(message as DeliverError, now, effects)
      case "SubmissionDeadline":
        return this.onSubmissionDeadline((message as SubmissionDeadline).messageId, now, effects)
      case "RequestDeadline":
        return this.onRequestDeadline((message as RequestDeadline).synchronizerId, now, effects)
      default:
        return []
    }
  }

  private observe(synchronizerId: SynchronizerId, timestamp: Micros): void {
    if ((this.observedTime.get(synchronizerId) ?? 0) < timestamp) this.observedTime.set(synchronizerId, timestamp)
  }

  /**
   * Whether a submission is the one its command is waiting for: the command is in flight with this
   * update id. A command that failed may be submitted again under the same command id; the journal
   * keeps every attempt, so a rebuilt node knows of the earlier ones too, and their deadlines or
   * errors must not fail the later attempt.
   */
  private isCurrentAttempt(submission: InFlightSubmission): boolean {
    const command = this.commands.get(submission.commandKey)
    return command?.status === "inFlight" && command.updateId === submission.updateId
  }

  private onDeliverError(error: DeliverError, now: Micros, effects: Array<Effect.Effect<unknown>>): ReadonlyArray<Outgoing> {
    this.observe(error.synchronizerId, error.timestamp)
    const submission = this.submissions.get(error.messageId)
    if (submission === undefined) return []
    this.submissions.delete(error.messageId)
    if (!this.isCurrentAttempt(submission)) return []
    const code = error.reason.split(":")[0] ?? error.reason
    return this.failCommand(submission.commandKey, submission.updateId, code, error.reason, now, effects)
  }

  private onSubmissionDeadline(messageId: string, now: Micros, effects: Array<Effect.Effect<unknown>>): ReadonlyArray<Outgoing> {
    const submission = this.submissions.get(messageId)
    // Nothing to do for an attempt the command no longer waits for, or one that was sequenced:
    // its receipt came, or (on a node rebuilt since, which forgot receipts) its request is
    // pending or committed here.
    if (
      submission === undefined ||
      submission.sequenced ||
      !this.isCurrentAttempt(submission) ||
      this.pendingUpdateIds.has(submission.updateId) ||
      this.updateIndex.has(submission.updateId)
    ) {
      this.submissions.delete(messageId)
      return []
    }
    const observed = this.observedTime.get(submission.synchronizer.synchronizerId) ?? 0
    if (observed > submission.maxSequencingTime) {
      // The sequencer's clock passed the deadline without sequencing it: it never will.
      this.submissions.delete(messageId)
      return this.failCommand(submission.commandKey, submission.updateId, ErrorCodes.notSequencedTimeout, "the submission was not sequenced before its max sequencing time", now, effects)
    }
    // Ask the sequencer for its time (a time proof), and look again a little later.
    return this.requestTimeProof(submission.synchronizer, messageId, now)
  }

  private requestTimeProof(synchronizer: SynchronizerInfo, reminderFor: string, now: Micros): ReadonlyArray<Outgoing> {
    const proof: SubmissionRequest = {
      _tag: "SubmissionRequest",
      sender: this.uid,
      messageId: `${this.uid}:time-proof:${now}`,
      maxSequencingTime: now + synchronizer.parameters.maxSequencingTimeOffset,
      envelopes: []
    }
    const deadline: SubmissionDeadline = { _tag: "SubmissionDeadline", messageId: reminderFor }
    return [Outgoing.send(this.uid, synchronizer.sequencer, proof), Outgoing.timer(this.uid, deadline, now + micros.seconds(5))]
  }

  private onRequestDeadline(synchronizerId: SynchronizerId, now: Micros, effects: Array<Effect.Effect<unknown>>): ReadonlyArray<Outgoing> {
    this.sweepArmed.delete(synchronizerId)
    const out: Array<Outgoing> = []
    const observed = this.observedTime.get(synchronizerId) ?? 0
    let proofRequested = false
    // Requests of a synchronizer were registered in sequencing order, so their deadlines ascend.
    for (const pending of [...this.pending.values()]) {
      if (pending.synchronizer.synchronizerId !== synchronizerId) continue
      if (observed > pending.deadline) {
        // Sequencer time passed the latest point a verdict could be sequenced: every participant
        // reaches the same conclusion from the same sequencer timestamps.
        this.release(pending)
        if (pending.request.submittingParticipant === this.uid) {
          out.push(...this.failCommand(commandKeyOf(pending.request.commandId, submittersOf(pending.request)), pending.request.updateId, ErrorCodes.localVerdictTimeout, "no verdict was sequenced in time", now, effects))
        }
        continue
      }
      // The oldest undecided request: when its deadline has passed locally, ask the sequencer for
      // its time (a time proof) and look again a little later; otherwise wake up at its deadline.
      const due = pending.deadline <= now
      if (due && !proofRequested) {
        out.push(this.requestTimeProof(pending.synchronizer, "", now)[0]!)
        proofRequested = true
      }
      this.sweepArmed.add(synchronizerId)
      const reminder: RequestDeadline = { _tag: "RequestDeadline", synchronizerId }
      out.push(Outgoing.timer(this.uid, reminder, due ? now + micros.seconds(5) : pending.deadline + micros.seconds(1)))
      break
    }
    return out
  }

  private onDeliver(deliver: Deliver, now: Micros, effects: Array<Effect.Effect<unknown>>): ReadonlyArray<Outgoing> {
    this.observe(deliver.synchronizerId, deliver.timestamp)
    if (deliver.messageId !== undefined) {
      const submission = this.submissions.get(deliver.messageId)
      if (submission !== undefined) {
        submission.sequenced = true
        this.submissions.delete(deliver.messageId)
      }
    }
    const out: Array<Outgoing> = []
    // A batch may carry several views of one request: gather them first, by update id (envelopes
    // that crossed a process boundary carry equal copies of the request, not one object).
    let requestViews: Map<string, { readonly request: ProtocolRequest; readonly viewIds: Array<number> }> | undefined
    for (const content of deliver.contents) {
      if (content._tag === "ConfirmationRequest") {
        requestViews ??= new Map()
        const entry = requestViews.get(content.request.updateId)
        if (entry === undefined) requestViews.set(content.request.updateId, { request: content.request, viewIds: [...content.viewIds] })
        else entry.viewIds.push(...content.viewIds)
      } else if (content._tag === "ConfirmationResult") {
        out.push(...this.onResult(deliver, content, now, effects))
      }
    }
    if (requestViews !== undefined) {
      for (const { request, viewIds } of requestViews.values()) out.push(...this.onRequest(deliver, request, viewIds))
    }
    return out
  }

  private onRequest(deliver: Deliver, request: ProtocolRequest, viewIds: ReadonlyArray<number>): ReadonlyArray<Outgoing> {
    const synchronizer = this.topology.synchronizer(deliver.synchronizerId)
    invariant(synchronizer !== undefined, "request from an unknown synchronizer")
    const requestId = deliver.timestamp
    const key = `${synchronizer.synchronizerId}:${requestId}`
    const duplicate = this.pendingUpdateIds.has(request.updateId) || this.updateIndex.has(request.updateId)
    const locked: Array<ContractId> = []
    const pending: PendingRequest = {
      key,
      requestId,
      synchronizer,
      request,
      locked,
      deadline: requestId + synchronizer.parameters.confirmationResponseTimeout + synchronizer.parameters.mediatorReactionTimeout
    }
    const responses: Array<ViewResponse> = []
    const views = viewsOf(request)
    for (const viewId of viewIds) {
      const view = views[viewId]
      if (view === undefined) continue
      const parties = view.confirmingParties.filter((p) => {
        const permission = this.topology.permissionOf(this.uid, p)
        return permission === "Submission" || permission === "Confirmation"
      })
      if (parties.length === 0) continue
      const reason = duplicate ? ErrorCodes.duplicateUpdate : this.checkView(request, view.inputs, requestId, synchronizer)
      responses.push({ viewId, parties, approve: reason === undefined, reason })
    }
    if (!duplicate) {
      // Lock what the request would consume, so a concurrent request cannot consume it too.
      for (const contractId of consumedBy(request)) {
        if (this.acs.has(contractId) && this.acs.lockedBy(contractId) === undefined) {
          this.acs.lock(contractId, requestId)
          locked.push(contractId)
        }
      }
      this.pending.set(key, pending)
      this.pendingUpdateIds.add(request.updateId)
    }
    const out: Array<Outgoing> = []
    if (responses.length > 0) {
      this.stats.confirmationsSent++
      const submission: SubmissionRequest = {
        _tag: "SubmissionRequest",
        sender: this.uid,
        messageId: `${this.uid}:response:${key}`,
        receipt: false,
        maxSequencingTime: requestId + synchronizer.parameters.confirmationResponseTimeout,
        envelopes: [
          {
            recipients: [synchronizer.mediator],
            content: { _tag: "ConfirmationResponse", requestId, updateId: request.updateId, participant: this.uid, responses },
            size: 100 + 60 * responses.length,
            viewIds: responses.map((r) => r.viewId)
          }
        ]
      }
      out.push(Outgoing.send(this.uid, synchronizer.sequencer, submission))
    }
    if (!duplicate) out.push(...this.armDeadlineSweep(pending, pending.requestId))
    return out
  }

  /**
   * Arms the synchronizer's deadline sweep for a new pending request unless one is armed already.
   * One timer per synchronizer instead of one per request: almost every request is decided long
   * before its deadline, and a timer per request made a fifth of all deliveries reminders with
   * nothing to do.
   */
  armDeadlineSweep(pending: PendingRequest, now: Micros): ReadonlyArray<Outgoing> {
    const id = pending.synchronizer.synchronizerId
    if (this.sweepArmed.has(id)) return []
    this.sweepArmed.add(id)
    const reminder: RequestDeadline = { _tag: "RequestDeadline", synchronizerId: id }
    return [Outgoing.timer(this.uid, reminder, Math.max(now, pending.deadline + micros.seconds(1)))]
  }

  /** Why this node cannot approve a view, or undefined when it can. */
  checkView(request: ProtocolRequest, inputs: ReadonlyArray<ContractId>, requestId: Micros, synchronizer: SynchronizerInfo): string | undefined {
    if (request.kind === "transaction") {
      const skew = Math.abs(requestId - request.transaction.ledgerTime)
      if (skew > synchronizer.parameters.ledgerTimeRecordTimeTolerance) {
        return `${ErrorCodes.ledgerTimeOutOfBounds}: ledger time is ${skew}us away from the record time`
      }
    }
    for (const contractId of inputs) {
      const known = request.kind === "assign" ? undefined : this.acs.get(contractId)
      if (request.kind === "assign") {
        const inFlight = this.acs.inFlightOf(contractId)
        const stakeholder = stakeholdersOf(request.contract).some((p) => this.hosts(p))
        if (!stakeholder) continue
        if (inFlight === undefined || inFlight.unassignId !== request.unassignId || inFlight.reassignmentCounter !== request.reassignmentCounter) {
          // Assign before this node saw the unassign (it is sequenced on another synchronizer) is
          // allowed unless the contract is active here at that reassignment counter or a later one.
          const active = this.acs.get(contractId)
          if (active !== undefined && active.reassignmentCounter >= request.reassignmentCounter) {
            return `${ErrorCodes.reassignmentMismatch}: ${contractId} is still active here`
          }
        }
        continue
      }
      // Only contracts of a party hosted here can be checked here.
      const contract = request.kind === "transaction" ? request.transaction.inputs.get(contractId)?.contract : request.contract
      if (contract === undefined) continue
      if (!stakeholdersOf(contract).some((p) => this.hosts(p))) continue
      if (known === undefined) {
        return `${ErrorCodes.inactiveContracts}: ${contractId} is not active${this.acs.inFlightOf(contractId) !== undefined ? " (being reassigned)" : ""}`
      }
      if (known.synchronizerId !== synchronizer.synchronizerId) {
        return `${ErrorCodes.inactiveContracts}: ${contractId} is on synchronizer ${known.synchronizerId}`
      }
      const lock = this.acs.lockedBy(contractId)
      if (lock !== undefined && lock !== requestId) return `${ErrorCodes.lockedContracts}: ${contractId} is locked by another request`
    }
    return undefined
  }

  private release(pending: PendingRequest): void {
    for (const contractId of pending.locked) this.acs.unlock(contractId, pending.requestId)
    this.pending.delete(pending.key)
    this.pendingUpdateIds.delete(pending.request.updateId)
  }

  private onResult(
    deliver: Deliver,
    content: Extract<EnvelopeContent, { _tag: "ConfirmationResult" }>,
    now: Micros,
    effects: Array<Effect.Effect<unknown>>
  ): ReadonlyArray<Outgoing> {
    const out: Array<Outgoing> = []
    for (const listener of this.listeners) listener.onVerdict?.(content.verdict, content.trafficSummary, content.request)
    const key = `${deliver.synchronizerId}:${content.requestId}`
    const pending = this.pending.get(key)
    if (pending === undefined) return out
    // A verdict sequenced after the deadline is void for everyone (see onRequestDeadline).
    if (deliver.timestamp > pending.deadline) return out
    this.release(pending)
    const request = pending.request
    const submittedHere = request.submittingParticipant === this.uid
    const commandKey = commandKeyOf(request.commandId, submittersOf(request))
    if (content.verdict.result !== "VERDICT_RESULT_ACCEPTED") {
      if (submittedHere) out.push(...this.failCommand(commandKey, request.updateId, rejectionCode(content.verdict.reason), content.verdict.reason ?? "rejected", now, effects))
      return out
    }
    const update = this.toUpdate(request, content.requestId, content.trafficSummary)
    const projected = update.kind === "transaction" ? projectTransaction(update, (p) => this.hosts(p)) : reassignmentVisible(update, this) ? update : undefined
    let offset = this.ledgerEnd
    if (projected !== undefined) {
      const entry: CommittedUpdate = { offset: this.ledgerEnd + 1, update: projected }
      this.apply({ _tag: "UpdateCommitted", entry })
      offset = entry.offset
      for (const listener of this.listeners) if (listener.onCommitted !== undefined) out.push(...listener.onCommitted(entry, now))
    }
    if (submittedHere) {
      const entry = this.commands.get(commandKey)
      out.push(
        ...this.complete(
          commandKey,
          {
            _tag: "Succeeded",
            commandId: request.commandId,
            actAs: submittersOf(request),
            updateId: request.updateId,
            offset,
            recordTime: content.requestId,
            results: entry?.results ?? []
          },
          now,
          effects
        )
      )
      if (request.kind === "unassign") out.push(...this.assignAfterUnassign(request, now))
    }
    return out
  }

  /** The full update of an accepted request; shared by every node that commits it (it is immutable). */
  private toUpdate(request: ProtocolRequest, recordTime: Micros, traffic: TrafficSummary): TransactionUpdate | ReassignmentUpdate {
    const cached = updatesByRequest.get(request)
    if (cached !== undefined) return cached
    const update = this.buildUpdate(request, recordTime, traffic)
    updatesByRequest.set(request, update)
    return update
  }

  private buildUpdate(request: ProtocolRequest, recordTime: Micros, traffic: TrafficSummary): TransactionUpdate | ReassignmentUpdate {
    const synchronizer = this.topology.synchronizer(request.kind === "assign" ? request.targetSynchronizer : request.kind === "unassign" ? request.sourceSynchronizer : request.synchronizerId)
    invariant(synchronizer !== undefined, "update from an unknown synchronizer")
    switch (request.kind) {
      case "transaction": {
        const tx = request.transaction
        return {
          kind: "transaction",
          updateId: request.updateId,
          commandId: request.commandId,
          workflowId: request.workflowId,
          submitters: request.submitters,
          submittingParticipant: request.submittingParticipant,
          synchronizerId: request.synchronizerId,
          migrationId: synchronizer.migrationId,
          recordTime,
          effectiveAt: tx.ledgerTime,
          rootNodeIds: tx.rootNodeIds,
          nodes: tx.nodes,
          ...(request.externalTransactionHash !== undefined ? { externalTransactionHash: request.externalTransactionHash } : {}),
          ...(request.traceContext !== undefined ? { traceContext: request.traceContext } : {}),
          paidTrafficCost: traffic.totalTrafficCost
        }
      }
      case "unassign": {
        const created = request.contract.created
        return {
          kind: "reassignment",
          updateId: request.updateId,
          commandId: request.commandId,
          workflowId: request.workflowId,
          submitter: request.submitter,
          submittingParticipant: request.submittingParticipant,
          synchronizerId: request.sourceSynchronizer,
          recordTime,
          event: {
            kind: "unassign",
            contractId: created.contractId,
            templateId: created.templateId,
            packageName: created.packageName,
            sourceSynchronizer: request.sourceSynchronizer,
            targetSynchronizer: request.targetSynchronizer,
            migrationId: synchronizer.migrationId,
            unassignId: request.updateId,
            reassignmentCounter: request.reassignmentCounter,
            stakeholders: stakeholdersOf(request.contract)
          }
        }
      }
      case "assign":
        return {
          kind: "reassignment",
          updateId: request.updateId,
          commandId: request.commandId,
          workflowId: request.workflowId,
          submitter: request.submitter,
          submittingParticipant: request.submittingParticipant,
          synchronizerId: request.targetSynchronizer,
          recordTime,
          event: {
            kind: "assign",
            sourceSynchronizer: request.sourceSynchronizer,
            targetSynchronizer: request.targetSynchronizer,
            migrationId: synchronizer.migrationId,
            unassignId: request.unassignId,
            reassignmentCounter: request.reassignmentCounter,
            createdEvent: request.contract.created
          }
        }
    }
  }
}

const updatesByRequest = new WeakMap<ProtocolRequest, TransactionUpdate | ReassignmentUpdate>()

const reassignmentVisible = (update: ReassignmentUpdate, node: ParticipantLogic): boolean => {
  const stakeholders = update.event.kind === "unassign" ? update.event.stakeholders : [...update.event.createdEvent.signatories, ...update.event.createdEvent.observers]
  return stakeholders.some((p) => node.hosts(p))
}

const submittersOf = (request: ProtocolRequest): ReadonlyArray<PartyId> =>
  request.kind === "transaction" ? request.submitters : [request.submitter]

const rejectionCode = (reason: string | undefined): string => {
  if (reason === undefined) return "REJECTED"
  const match = /^([A-Z_]+)(:|$)/.exec(reason)
  return match?.[1] ?? "REJECTED"
}

interface ViewForCheck {
  readonly confirmingParties: ReadonlyArray<PartyId>
  readonly inputs: ReadonlyArray<ContractId>
}

const viewsCache = new WeakMap<ProtocolRequest, ReadonlyArray<ViewForCheck>>()

/** The views of a request with the inputs each must check. A reassignment is one view. */
const viewsOf = (request: ProtocolRequest): ReadonlyArray<ViewForCheck> => {
  const cached = viewsCache.get(request)
  if (cached !== undefined) return cached
  const views: ReadonlyArray<ViewForCheck> =
    request.kind === "transaction"
      ? request.transaction.views.map((v) => ({ confirmingParties: v.confirmingParties, inputs: v.inputContractIds }))
      : [{ confirmingParties: request.contract.created.signatories, inputs: [request.contract.created.contractId] }]
  viewsCache.set(request, views)
  return views
}

const consumedBy = (request: ProtocolRequest): ReadonlyArray<ContractId> => {
  if (request.kind === "transaction") {
    const consumed: Array<ContractId> = []
    for (const [id, input] of request.transaction.inputs) if (input.consumed) consumed.push(id)
    return consumed
  }
  return request.kind === "unassign" ? [request.contract.created.contractId] : []
}

const reassignmentEnvelopes = (topology: TopologyState, synchronizer: SynchronizerInfo, request: UnassignRequest | AssignRequest): ReadonlyArray<Envelope> => {
  const stakeholders = stakeholdersOf(request.contract)
  const signatories = request.contract.created.signatories
  const view: RequestView = {
    viewId: 0,
    informees: stakeholders,
    confirmingParties: signatories,
    subViews: [],
    viewHash: sha256OfParts("reassignment-view", request.updateId)
  }
  return [
    {
      recipients: topology.participantsOf(stakeholders),
      content: { _tag: "ConfirmationRequest", request, viewIds: [0] },
      size: 400,
      viewIds: [0]
    },
    {
      recipients: [synchronizer.mediator],
      content: { _tag: "MediatorRequest", request, views: [view], rootViews: [0] },
      size: 200,
      viewIds: []
    }
  ]
}

// ------------------------------------------------------------------ the actor

export interface ParticipantNode extends Actor {
  readonly logic: ParticipantLogic
  /** Interprets and submits; fails at once on interpretation errors and duplicates. */
  readonly submit: (request: SubmitRequest) => Effect.Effect<{ readonly updateId: string; readonly transaction: InterpretedTransaction }, InterpretationError | CommandRejected>
  readonly reassign: (request: ReassignRequest) => Effect.Effect<{ readonly updateId: string }, CommandRejected | ContractNotActive>
  /** Waits for the completion of a submitted command (the driver must keep delivering messages). */
  readonly awaitCompletion: (commandId: string, actAs: ReadonlyArray<PartyId>) => Effect.Effect<Completion>
  readonly allocateParty: (hint: string) => Effect.Effect<PartyId, PartyAlreadyExists>
}

export const makeParticipant = (
  config: ParticipantConfig,
  registry: TemplateRegistry,
  /** A recovered node's logic (see ParticipantLogic.recover); a fresh one otherwise. */
  recovered?: ParticipantLogic
): Effect.Effect<ParticipantNode, never, Network | Topology> =>
  Effect.gen(function* () {
    const network = yield* Network
    const topology = yield* Topology
    const logic = recovered ?? new ParticipantLogic(config, topology, registry)
    const now = Effect.map(Clock.currentTimeNanos, micros.fromNanos)
    const node: ParticipantNode = {
      address: config.uid,
      logic,
      receive: receiveOf(network, (message, t, effects) => logic.handle(message, t, effects)),
      submit: (request) =>
        Effect.flatMap(now, (t) => {
          const result = logic.submit(request, t)
          if (Either.isLeft(result)) return Effect.fail(result.left)
          return Effect.as(network.sendAll(result.right.out), { updateId: result.right.updateId, transaction: result.right.transaction })
        }),
      reassign: (request) =>
        Effect.flatMap(now, (t) => {
          const result = logic.reassign(request, t)
          if (Either.isLeft(result)) return Effect.fail(result.left)
          return Effect.as(network.sendAll(result.right.out), { updateId: result.right.updateId })
        }),
      awaitCompletion: (commandId, actAs) =>
        Effect.flatMap(Deferred.make<Completion>(), (deferred) => {
          const done = logic.awaitCompletion(commandId, actAs, deferred)
          return done !== undefined ? Effect.succeed(done) : Deferred.await(deferred)
        }),
      allocateParty: (hint) => Effect.flatMap(now, (t) => logic.allocateParty(hint, t))
    }
    if (recovered === undefined) yield* network.register(node)
    return node
  })

export type { Address }
