/**
 * The state of a participant that its roles share: the ACS and update log (commit), requests
 * awaiting their verdict (confirmation), submissions and commands in flight with their outcomes
 * (submission, completions), the reassignment counters (reassignment), its packages and vetting
 * (packages), external parties' signing keys (parties), and the journal. Reads of
 * it live here too. Each role is a module of functions over this state; `ParticipantLogic`
 * (logic.ts) ties them together and folds journal events (`apply`), so that every change goes
 * through the journal and replaying it rebuilds the node.
 */
import { invariant, type ActiveContract, type CommittedUpdate, type ContractId, type Micros, type ParticipantUid, type PartyId, type SynchronizerId } from "@sandnet/core"
import type * as External from "../external/index.ts"
import { ActiveContractSet, stakeholdersOf } from "../ledger/acs.ts"
import type { TemplateRegistry } from "../ledger/template.ts"
import type * as Packages from "../packages/index.ts"
import type { TopologyState } from "../topology.ts"
import { CommandBook } from "./command-book.ts"
import { ParticipantJournal } from "./journal.ts"
import { PendingRequests } from "./pending.ts"
import { ArchivedLog } from "../history/archived-log.ts"
import { UpdateIdIndex } from "../history/update-id-index.ts"
import {
  commandKeyOf,
  type CommitListener,
  type Completion,
  type CompletionRecord,
  type InFlightSubmission,
  type ParticipantConfig,
  type ParticipantEvent,
  type ParticipantStats
} from "./model.ts"
import { initialPackages } from "./built-in-packages.ts"

export abstract class ParticipantState {
  readonly acs = new ActiveContractSet()
  /** Committed updates in offset order (offset n is entry n-1); older entries are kept compressed. */
  readonly log: ArchivedLog<CommittedUpdate>
  /** Update id -> index in `log`. */
  readonly updateIndex = new UpdateIdIndex<number>()
  /** Confirmation requests awaiting their verdict, by synchronizer and request id (pending.ts). */
  readonly pending = new PendingRequests()
  /** Synchronizers whose deadline sweep timer is armed. */
  readonly sweepArmed = new Set<SynchronizerId>()
  /** Update ids with a pending request here, for duplicate detection. */
  readonly pendingUpdateIds = new Set<string>()
  /** Submissions sent to a sequencer, by message id. */
  readonly submissions = new Map<string, InFlightSubmission>()
  /** This node's commands, by command key (deduplication and completions). */
  readonly commands = new CommandBook((completionAt) => {
    const record = this.completions.at(completionAt)
    invariant(record !== undefined, () => `a decided command's completion record ${completionAt} is kept`)
    return record.completedAt
  })
  /** Every completion of this node's commands, in the order they happened (rebuilt by replay; older ones kept compressed). */
  readonly completions: ArchivedLog<CompletionRecord>
  /** The latest sequencer time seen per synchronizer. */
  readonly observedTime = new Map<SynchronizerId, Micros>()
  readonly listeners: Array<CommitListener> = []
  /**
   * The latest reassignment counter this node committed for each contract that was ever
   * reassigned (only those: the map stays small). Lets it tell stale events from newer ones when
   * synchronizers reach it out of order.
   */
  readonly reassigned = new Map<ContractId, number>()
  /** Signing keys of the external parties hosted through the ledger API (as their topology registered them). */
  readonly signingKeys = new Map<PartyId, External.SigningKeysWithThreshold>()
  private ownPackages: Packages.PackageRegistry | undefined = undefined
  private ownVetted: Set<string> | undefined = undefined
  /** Serial of the node's VettedPackages topology state: 1 at start, +1 whenever `vetted` grows. */
  vettingSerial = 1
  /** The submission counter (seeds and message ids); journaled, only increases. */
  nonce = 0
  ledgerEnd = 0
  readonly stats: ParticipantStats = { submitted: 0, committed: 0, rejected: 0, confirmationsSent: 0 }
  /** The node's durable journal, in order (replaying it rebuilds everything but in-flight requests). */
  readonly journal = new ParticipantJournal()
  /**
   * Whether `journal` keeps the events (simulations recover a crashed node from it). A node with a
   * store turns it off: the store holds the journal, and keeping every event in memory too cost
   * its heap a copy of the whole history.
   */
  keepsJournal = true
  /**
   * The setup events that are not the topology's alone, in journal order: parties hosted through
   * the ledger API (their signing keys) and packages uploaded and vetted. Few (an upload or an
   * external party each), kept for the node's life: a checkpoint holds them (checkpoint.ts).
   */
  readonly retainedSetup: Array<ParticipantEvent> = []
  /** Where journal events also go (the store); replay does not call it. */
  journalSink: ((event: ParticipantEvent) => void) | undefined = undefined

  constructor(
    readonly config: ParticipantConfig,
    readonly topology: TopologyState,
    readonly registry: TemplateRegistry
  ) {
    this.log = new ArchivedLog(config.historyLimits)
    this.completions = new ArchivedLog(config.historyLimits)
  }

  /**
   * Built-in and uploaded packages. The built-ins are taken on first use: encoding them costs a
   * network build, and most (simulated) networks never ask.
   */
  get packages(): Packages.PackageRegistry {
    return (this.ownPackages ??= initialPackages(this.registry).packages)
  }

  set packages(registry: Packages.PackageRegistry) {
    this.ownPackages = registry
  }

  /** Package ids vetted on the node's synchronizers (built-ins, and uploads with vetting). */
  get vetted(): Set<string> {
    return (this.ownVetted ??= new Set(initialPackages(this.registry).vetted))
  }

  /** Folds one journal event into the state (and journals it unless replaying). */
  abstract apply(event: ParticipantEvent, replaying?: boolean): void

  get uid(): ParticipantUid {
    return this.config.uid
  }

  /** Confirmation requests this node has seen and awaits the verdict of (kept in memory only). */
  get pendingRequestCount(): number {
    return this.pending.size
  }

  addListener(listener: CommitListener): void {
    this.listeners.push(listener)
  }

  hostedParties(): ReadonlySet<PartyId> {
    return this.topology.partiesOn(this.uid)
  }

  /** Whether the party is hosted here; one function for the node's life (projections take it as their predicate on every commit). */
  readonly hosts = (party: PartyId): boolean => this.topology.hosts(this.uid, party)

  hostsAny(parties: ReadonlyArray<PartyId>): boolean {
    for (const party of parties) if (this.topology.hosts(this.uid, party)) return true
    return false
  }

  updateById(updateId: string): CommittedUpdate | undefined {
    const i = this.updateIndex.get(updateId)
    return i === undefined ? undefined : this.log.at(i)
  }

  /** Committed updates with offset > `after`, at most `limit`. Offsets are dense: offset n is log[n-1]. */
  updatesAfter(after: number, limit = Number.MAX_SAFE_INTEGER): ReadonlyArray<CommittedUpdate> {
    return this.log.slice(Math.max(0, after), Math.max(0, after) + limit)
  }

  updateAtOffset(offset: number): CommittedUpdate | undefined {
    return offset >= 1 ? this.log.at(offset - 1) : undefined
  }

  /** The command's outcome once it is decided (none while an attempt of it is in flight). */
  completionOf(commandId: string, actAs: ReadonlyArray<PartyId>): Completion | undefined {
    const entry = this.commands.get(commandKeyOf(commandId, actAs))
    return entry === undefined || entry.status === "inFlight" ? undefined : this.completions.at(entry.completionAt)?.completion
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

  /** The signing keys of an external party hosted through the ledger API. */
  signingKeysOf(party: PartyId): External.SigningKeysWithThreshold | undefined {
    return this.signingKeys.get(party)
  }

  /** The newest reassignment counter known here for a contract (-1 when none). */
  latestCounter(id: ContractId): number {
    return Math.max(this.reassigned.get(id) ?? -1, this.acs.get(id)?.reassignmentCounter ?? -1, this.acs.inFlightOf(id)?.reassignmentCounter ?? -1)
  }

  /**
   * Whether a submission is the one its command is waiting for: the command is in flight with this
   * update id. A command that failed may be submitted again under the same command id; the journal
   * keeps every attempt, so a rebuilt node knows of the earlier ones too, and their deadlines or
   * errors must not fail the later attempt.
   */
  isCurrentAttempt(submission: InFlightSubmission): boolean {
    const command = this.commands.get(submission.commandKey)
    return command?.status === "inFlight" && command.updateId === submission.updateId
  }

  observe(synchronizerId: SynchronizerId, timestamp: Micros): void {
    if ((this.observedTime.get(synchronizerId) ?? 0) < timestamp) this.observedTime.set(synchronizerId, timestamp)
  }
}
