/**
 * The engine checkpoint: the state of a node's network after some journal entry, as data, stored
 * beside the journals so that a restart restores it and replays only the entries after it
 * (docs/storage.md, "Engine checkpoints"). It is a cache of the journals, never their
 * replacement: the journals stay whole (`sandnet rebuild` and a reset's rebuild replay them), and a
 * checkpoint that does not decode or fit is ignored (the journals are replayed whole).
 *
 * What it holds: the topology's hostings, each participant's checkpoint (engine participant
 * checkpoint.ts), each super validator's scan's, each wallet's, and the heads of the engine's
 * streams and the journal ordinal it covers. It is put with the batch that holds the last entries it
 * covers, so that it is committed with them or not at all.
 *
 * A process of a cluster (cluster/link.ts) journals only its own nodes' streams and follows the
 * other nodes' journals into its copies of their participants and scans. Its checkpoint holds those
 * copies too, with the positions it had followed them to (`followed`): a restart restores them and
 * follows on from there, instead of from each journal's first entry.
 */
import { invariant } from "@sandnet/core"
import {
  checkpointOf,
  historyLogsOf,
  restoreCheckpoint,
  walletCheckpointOf,
  type CoinNetwork,
  type ParticipantCheckpoint,
  type ScanCheckpoint,
  type TopologyImage,
  type WalletApi,
  type WalletCheckpoint
} from "@sandnet/engine"
import { Streams } from "../journal/streams.ts"

/** The document's format: another is ignored (the journals are replayed whole). 2: the scans' id indexes as blocks (engine history/id-blocks.ts); 3: the participants' index by update id; 4: their decided commands; 5: the wallets' finished records' places. */
export const ENGINE_CHECKPOINT_VERSION = 5

export interface EngineCheckpoint {
  readonly version: typeof ENGINE_CHECKPOINT_VERSION
  /** The last journal ordinal it covers. */
  readonly ordinal: number
  /** Each engine stream's last seq it covers (a stream not named had no entry then). */
  readonly heads: ReadonlyArray<readonly [string, number]>
  readonly topology: TopologyImage
  /** By participant stream. */
  readonly participants: ReadonlyArray<readonly [string, ParticipantCheckpoint]>
  /** By scan stream. */
  readonly scans: ReadonlyArray<readonly [string, ScanCheckpoint]>
  /** By validator name. */
  readonly wallets: ReadonlyArray<readonly [string, WalletCheckpoint]>
  /**
   * A cluster process's: the next entry to follow of each of the other nodes' streams that its
   * copies hold (a stream not named is followed from its first entry). Absent in one process's.
   */
  readonly followed?: ReadonlyArray<readonly [string, number]>
}

/**
 * The network's checkpoint now, covering the journal up to `heads` and `ordinal` (between two
 * operations). The history logs' backlog is archived first: as compressed segments it costs the
 * checkpoint its bytes, where as objects it cost a serialization and a parse of every entry.
 */
export const engineCheckpointOf = (
  network: CoinNetwork,
  wallets: ReadonlyArray<WalletApi>,
  heads: ReadonlyMap<string, number>,
  ordinal: number,
  followed?: ReadonlyArray<readonly [string, number]>
): EngineCheckpoint => {
  for (const log of historyLogsOf(network)) log.archiveBacklogNow()
  const image = imageOf(network, wallets, heads, ordinal)
  return followed === undefined ? image : { ...image, followed }
}

const imageOf = (network: CoinNetwork, wallets: ReadonlyArray<WalletApi>, heads: ReadonlyMap<string, number>, ordinal: number): EngineCheckpoint => ({
  version: ENGINE_CHECKPOINT_VERSION,
  ordinal,
  // a wallet stream without its wallet's checkpoint here (wallets not run) is read whole at a restart
  heads: [...heads].filter(([stream]) => stream !== Streams.admin && (!stream.startsWith("wallet/") || wallets.some((w) => Streams.wallet(w.node.validator.name) === stream))),
  topology: network.topology.image(),
  participants: nodesOf(network).map((node) => [Streams.participant(node.name), checkpointOf(node.participant.logic)] as const),
  scans: network.superValidators.map((sv) => [Streams.scan(sv.name), sv.scan.checkpoint()] as const),
  wallets: wallets.map((wallet) => [wallet.node.validator.name, walletCheckpointOf(wallet.node)] as const)
})

/**
 * Restores the ledger side of a checkpoint (topology, participants, scans) into a network built
 * afresh (no genesis); the wallets take theirs when they are built (`walletCheckpoints`).
 */
export const restoreEngineCheckpoint = (network: CoinNetwork, checkpoint: EngineCheckpoint): void => {
  invariant(checkpoint.version === ENGINE_CHECKPOINT_VERSION, () => `an engine checkpoint of version ${checkpoint.version}`)
  const participants = new Map(checkpoint.participants)
  const scans = new Map(checkpoint.scans)
  const nodes = nodesOf(network)
  invariant(participants.size === nodes.length && scans.size === network.superValidators.length, "an engine checkpoint holds every node of its network")
  network.topology.restore(checkpoint.topology)
  for (const node of nodes) {
    const participant = participants.get(Streams.participant(node.name))
    invariant(participant !== undefined, () => `the engine checkpoint has no participant ${node.name}`)
    restoreCheckpoint(node.participant.logic, participant)
  }
  for (const sv of network.superValidators) {
    const scan = scans.get(Streams.scan(sv.name))
    invariant(scan !== undefined, () => `the engine checkpoint has no scan ${sv.name}`)
    sv.scan.restore(scan)
  }
}

const nodesOf = (network: CoinNetwork) => [...network.superValidators, ...network.validators]

/** The wallets' checkpoints by validator name. */
export const walletCheckpoints = (checkpoint: EngineCheckpoint | undefined): ReadonlyMap<string, WalletCheckpoint> => new Map(checkpoint?.wallets ?? [])
