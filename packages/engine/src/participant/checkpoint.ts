/**
 * A participant's checkpoint: its state after some journal entry, as data, so that a restart
 * restores it and replays only the entries after it instead of the whole journal.
 *
 * What it holds is what a replay of the journal up to that entry rebuilds and what the node's
 * reads and next commands depend on: the ACS (in the order its contracts became active, which
 * is the order its index by template and party walks) and the contracts in flight between
 * synchronizers, the update log and the completions (their archived segments as compressed bytes,
 * no entry parsed), the update id index, the command book, the ledger end, the submission counter
 * and the reassignment counters, and the setup events that are not the topology's alone
 * (`isRetainedSetup`), re-applied first. The topology the network's nodes share is the network
 * checkpoint's (topology.ts `TopologyState.image`): restored before its nodes. What a replay does not
 * rebuild either is not in it: requests awaiting their verdict, locks, the sequencer times seen
 * (all in memory only; a restart drops them).
 *
 * A command in flight is restored with its submission not sequenced, as a replay rebuilds it:
 * its deadline then looks at it again (a live node forgot the submission once the sequencer
 * delivered it, but the request the verdict would have answered is gone after a restart).
 */
import { invariant, type ActiveContract, type CommittedUpdate, type ContractId, type ParticipantUid } from "@sandnet/core"
import type { ArchivedLogImage } from "../history/archived-log.ts"
import { entriesOfIndexBlocks, indexBlocks, type IndexBlock } from "../history/id-blocks.ts"
import type { PersistedInFlight } from "../ledger/acs.ts"
import type { CommandBookImage } from "./command-book.ts"
import type { CompletionRecord, ParticipantEvent } from "./model.ts"
import type { ParticipantState } from "./state.ts"

/** The checkpoint's format: a restore refuses another (the journal is replayed whole then). 2: the index by update id as blocks; 3: the decided commands too. */
export const PARTICIPANT_CHECKPOINT_VERSION = 3

export interface ParticipantCheckpoint {
  readonly version: typeof PARTICIPANT_CHECKPOINT_VERSION
  readonly uid: ParticipantUid
  readonly ledgerEnd: number
  readonly nonce: number
  /** Transactions and reassignments committed (what a replay counts of the node's stats). */
  readonly committed: number
  readonly contracts: ReadonlyArray<ActiveContract>
  readonly inFlightContracts: ReadonlyArray<PersistedInFlight>
  readonly reassigned: ReadonlyArray<readonly [ContractId, number]>
  readonly log: ArchivedLogImage<CommittedUpdate>
  /** The log's positions by update id, as blocks (history/id-blocks.ts: a block that did not change is the same bytes). */
  readonly updateIndex: ReadonlyArray<IndexBlock>
  readonly completions: ArchivedLogImage<CompletionRecord>
  readonly commands: CommandBookImage
  /** `retainedSetup`, re-applied first. */
  readonly setup: ReadonlyArray<ParticipantEvent>
}

/**
 * The setup events a participant keeps (`retainedSetup`) and its checkpoint re-applies: hostings
 * with signing keys and packages. A party allocated here changes only the topology, which the
 * network's checkpoint holds whole (its hostings, as the nodes' events left them).
 */
export const isRetainedSetup = (event: ParticipantEvent): boolean => event._tag === "PartyHosted" || event._tag === "PackagesUploaded" || event._tag === "PackagesVetted"

/** A bound on `retainedSetup`: uploads and external parties are few; more is a runaway. */
export const MAX_RETAINED_SETUP = 100_000

/** The participant's checkpoint now (between two messages: nothing half applied). */
export const checkpointOf = (node: ParticipantState): ParticipantCheckpoint => ({
  version: PARTICIPANT_CHECKPOINT_VERSION,
  uid: node.uid,
  ledgerEnd: node.ledgerEnd,
  nonce: node.nonce,
  committed: node.stats.committed,
  contracts: [...node.acs.all()],
  inFlightContracts: node.acs.inFlightImage(),
  reassigned: [...node.reassigned],
  log: node.log.image(),
  updateIndex: indexBlocks(node.updateIndex.image()),
  completions: node.completions.image(),
  commands: node.commands.image(),
  setup: node.retainedSetup.slice()
})

/**
 * Restores a checkpoint into a node built afresh (no genesis, nothing committed) over the topology
 * as it was then: then it is the node a replay up to there builds.
 */
export const restoreCheckpoint = (node: ParticipantState, checkpoint: ParticipantCheckpoint): void => {
  invariant(checkpoint.version === PARTICIPANT_CHECKPOINT_VERSION, () => `a participant checkpoint of version ${checkpoint.version} (this engine reads ${PARTICIPANT_CHECKPOINT_VERSION})`)
  invariant(checkpoint.uid === node.uid, () => `the checkpoint of ${checkpoint.uid} restored into ${node.uid}`)
  invariant(node.ledgerEnd === 0 && node.acs.size === 0 && node.commands.size === 0, () => `a checkpoint is restored into a node with nothing committed (${node.uid})`)
  invariant(checkpoint.log.segments.length * checkpoint.log.segmentEntries + checkpoint.log.hot.length === checkpoint.ledgerEnd, "a checkpoint's log holds an entry per offset")
  for (const event of checkpoint.setup) node.apply(event, true)
  for (const contract of checkpoint.contracts) node.acs.add(contract)
  for (const entry of checkpoint.inFlightContracts) node.acs.restoreInFlight(entry)
  for (const [contractId, counter] of checkpoint.reassigned) node.reassigned.set(contractId, counter)
  node.log.restore(checkpoint.log)
  node.updateIndex.restore([...entriesOfIndexBlocks(checkpoint.updateIndex)])
  node.completions.restore(checkpoint.completions)
  node.commands.restore(checkpoint.commands)
  for (const [commandKey, command] of checkpoint.commands.inFlight) {
    const synchronizer = node.topology.synchronizer(command.synchronizerId)
    invariant(synchronizer !== undefined, () => `a command in flight on unknown synchronizer ${command.synchronizerId}`)
    node.submissions.set(command.messageId, {
      messageId: command.messageId,
      commandKey,
      synchronizer,
      maxSequencingTime: command.maxSequencingTime,
      updateId: command.updateId,
      sequenced: false
    })
  }
  node.ledgerEnd = checkpoint.ledgerEnd
  node.nonce = checkpoint.nonce
  node.stats.committed = checkpoint.committed
}
