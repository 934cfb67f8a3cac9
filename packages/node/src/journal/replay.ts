/**
 * Replay: stored journals into a freshly built network (no genesis), as at a restart, a reset's
 * rebuild or `sandnet rebuild`.
 */
import type { Micros, TrafficSummary, Verdict } from "@sandnet/core"
import {
  buildCoinNetwork,
  EventQueueNetwork,
  External,
  ManualClock,
  Network,
  Outgoing,
  isWalletEventTagged,
  Topology,
  TopologyState,
  type WalletEvent,
  type CoinNetwork,
  type CoinNetworkConfig,
  type ParticipantEvent,
  type SubmissionDeadline
} from "@sandnet/engine"
import type { JournalEntry } from "@sandnet/store"
import { restoreEngineCheckpoint, type EngineCheckpoint } from "../checkpoint/engine-checkpoint.ts"
import { Effect, Either, Layer } from "effect"
import { JournalReplayFailed } from "./errors.ts"
import { decodeBinary, type LedgerEvent } from "./ledger-events.ts"
import type { SequencerSnapshot } from "./runtime-state.ts"
import { isBody, Streams } from "./streams.ts"

export interface ReplayResult {
  /** Wallet journals by validator name, for the wallets built after the ledger state. */
  readonly wallets: ReadonlyMap<string, ReadonlyArray<WalletEvent>>
  /** SubmissionDeadline timers of commands still in flight (their outcome is unknown). */
  readonly timers: ReadonlyArray<Outgoing>
  readonly replayed: number
}

type NetworkNode = CoinNetwork["validators"][number]

/** A command submitted and not completed: its deadline timer is armed again after replay. */
interface InFlight {
  readonly uid: string
  readonly messageId: string
  readonly maxSequencingTime: Micros
}

/** What a replay builds up while it goes through the entries. */
interface Replay {
  readonly network: CoinNetwork
  readonly participants: ReadonlyMap<string, NetworkNode>
  readonly scans: ReadonlyMap<string, CoinNetwork["superValidators"][number]>
  readonly wallets: Map<string, Array<WalletEvent>>
  readonly inFlight: Map<string, InFlight>
  /** Whether a node's participant runs here (a cluster process's copies of the others' do not: their commands are not this process's). */
  readonly hostedHere: (node: NetworkNode) => boolean
}

/**
 * Replays stored journals into a freshly built network (no genesis), from the engine checkpoint
 * they follow when there is one: participants' events, scan
 * verdicts and commits (in the order they happened), a legacy store's `ledger` stream, then the
 * sequencers' state. Listeners other than the scans are not called: automations and
 * wallets are built afterwards, from the rebuilt ledger state, and nothing is sent.
 */
export const replayJournals = (
  network: CoinNetwork,
  entries: ReadonlyArray<JournalEntry>,
  sequencers: ReadonlyMap<string, SequencerSnapshot>,
  now: Micros,
  checkpoint?: EngineCheckpoint,
  hostedHere: (node: NetworkNode) => boolean = () => true
): Either.Either<ReplayResult, JournalReplayFailed> => {
  const replay: Replay = {
    network,
    hostedHere,
    participants: new Map([...network.superValidators, ...network.validators].map((n) => [Streams.participant(n.name), n])),
    scans: new Map(network.superValidators.map((sv) => [Streams.scan(sv.name), sv])),
    wallets: new Map(),
    inFlight: new Map()
  }
  let replayed = 0
  if (checkpoint !== undefined) {
    try {
      restoreFromCheckpoint(replay, checkpoint)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      return Either.left(new JournalReplayFailed({ message: `the engine checkpoint does not fit this network (${reason})` }))
    }
  }
  try {
    restoreExternalParties(replay, entries)
    for (const entry of entries) {
      const failed = replayEntry(replay, entry)
      if (failed !== undefined) return Either.left(failed)
      replayed++
    }
  } catch (error) {
    // an invariant of the engine broke: the journal does not fit this network
    return Either.left(new JournalReplayFailed({ message: error instanceof Error ? error.message : String(error) }))
  }
  restoreSequencers(network, sequencers)
  return Either.right({ wallets: replay.wallets, timers: deadlineTimers(replay.inFlight, now), replayed })
}

/** The checkpoint the entries follow, into the network; its commands in flight are followed as the replayed ones are. */
const restoreFromCheckpoint = (replay: Replay, checkpoint: EngineCheckpoint): void => {
  restoreEngineCheckpoint(replay.network, checkpoint)
  for (const [stream, node] of replay.participants) {
    if (!replay.hostedHere(node)) continue
    const logic = node.participant.logic
    for (const s of logic.submissions.values()) replay.inFlight.set(`${stream}|${s.commandKey}`, { uid: logic.uid, messageId: s.messageId, maxSequencingTime: s.maxSequencingTime })
  }
}

/**
 * Legacy stores: external parties' hostings of the `ledger` stream first, as before (they were
 * journaled after the operation that hosted them, behind whatever it committed for them).
 */
const restoreExternalParties = ({ network }: Replay, entries: ReadonlyArray<JournalEntry>): void => {
  for (const entry of entries) {
    if (entry.stream !== Streams.ledger || !isBody(entry.body)) continue
    const e = entry.body.event as LedgerEvent
    if (e._tag !== "ExternalPartyRegistered" || e.hosting === null) continue
    const signingKeys = External.signingKeysToJson(decodeBinary(e.signingKeys) as External.SigningKeysWithThreshold)
    takeLegacy(network, { _tag: "PartyHosted", hosting: e.hosting, signingKeys })
  }
}

/** A legacy `ledger` event, as the participants' events it stands for, into every participant (not journaled again: the stream stays). */
const takeLegacy = (network: CoinNetwork, event: ParticipantEvent): void => {
  for (const node of network.participants) {
    node.logic.apply(event, true)
  }
}

/** Applies one entry to the network (or collects it, for the wallets); a failure says why it does not fit. */
const replayEntry = (replay: Replay, entry: JournalEntry): JournalReplayFailed | undefined => {
  if (!isBody(entry.body)) return new JournalReplayFailed({ message: `${entry.stream} #${entry.seq} is not a journal body` })
  const event = entry.body.event
  const node = replay.participants.get(entry.stream)
  if (node !== undefined) {
    replayParticipantEvent(replay, node, entry.stream, event as ParticipantEvent)
  } else if (replay.scans.has(entry.stream)) {
    const v = event as { verdict: Verdict; trafficSummary: TrafficSummary }
    replay.scans.get(entry.stream)!.scan.ingestVerdict(v.verdict, v.trafficSummary, true)
  } else if (entry.stream.startsWith("wallet/")) {
    return collectWalletEvent(replay, entry, event)
  } else if (entry.stream === Streams.ledger) {
    return replayLedgerEvent(replay, entry, event as LedgerEvent)
  } else {
    return new JournalReplayFailed({ message: `unknown stream ${entry.stream}` })
  }
  return undefined
}

/** A participant's event, into its logic (and its scan, for an SV's commits); follows the commands in flight. */
const replayParticipantEvent = (replay: Replay, node: NetworkNode, stream: string, e: ParticipantEvent): void => {
  const logic = node.participant.logic
  logic.apply(e, true)
  if (e._tag === "UpdateCommitted") {
    const sv = replay.network.superValidators.find((s) => s.participant === node.participant)
    sv?.scan.onCommitted(e.entry)
  } else if (e._tag === "CommandSubmitted") {
    replay.inFlight.set(`${stream}|${e.commandKey}`, { uid: logic.uid, messageId: e.messageId, maxSequencingTime: e.maxSequencingTime })
  } else if (e._tag === "CommandCompleted") {
    replay.inFlight.delete(`${stream}|${e.commandKey}`)
  }
}

/** A wallet's event, kept for the wallet built after the ledger state. */
const collectWalletEvent = (replay: Replay, entry: JournalEntry, event: unknown): JournalReplayFailed | undefined => {
  const validator = entry.stream.slice("wallet/".length)
  if (!isWalletEventTagged(event)) return new JournalReplayFailed({ message: `${entry.stream} #${entry.seq}: not a wallet event (_tag ${JSON.stringify((event as { _tag?: unknown } | null)?._tag)})` })
  const list = replay.wallets.get(validator)
  if (list === undefined) replay.wallets.set(validator, [event])
  else list.push(event)
  return undefined
}

/**
 * Legacy stores: packages uploaded before they were participant state, into every participant
 * (they must re-encode to the ids they were stored under); external parties came first.
 */
const replayLedgerEvent = ({ network }: Replay, entry: JournalEntry, e: LedgerEvent): JournalReplayFailed | undefined => {
  if (e._tag !== "PackagesUploaded") return undefined
  const first = network.participants[0]
  const fits = first === undefined ? Either.right(undefined) : first.logic.packages.addUploaded(e.packages, e.uploadedAt)
  if (Either.isLeft(fits)) return new JournalReplayFailed({ message: `ledger #${entry.seq}: ${fits.left}` })
  takeLegacy(network, { _tag: "PackagesUploaded", uploadedAt: e.uploadedAt as Micros, packages: e.packages })
  if (e.vetted) takeLegacy(network, { _tag: "PackagesVetted", packageIds: e.packages.map((p) => p.packageId) })
  return undefined
}

/** The sequencers' stored state (last timestamp, members' traffic). */
const restoreSequencers = (network: CoinNetwork, sequencers: ReadonlyMap<string, SequencerSnapshot>): void => {
  for (const s of network.synchronizers) {
    const snap = sequencers.get(s.info.name)
    if (snap === undefined) continue
    s.sequencer.logic.lastTimestamp = snap.lastTimestamp
    s.sequencer.logic.traffic.clear()
    for (const [member, traffic] of snap.traffic) s.sequencer.logic.traffic.set(member, { ...traffic })
  }
}

/** The deadline timers of the commands still in flight, due no earlier than `now`. */
const deadlineTimers = (inFlight: ReadonlyMap<string, InFlight>, now: Micros): Array<Outgoing> => {
  const timers: Array<Outgoing> = []
  for (const f of inFlight.values()) {
    const deadline: SubmissionDeadline = { _tag: "SubmissionDeadline", messageId: f.messageId }
    timers.push(Outgoing.timer(f.uid, deadline, Math.max(now, f.maxSequencingTime + 1)))
  }
  return timers
}

/**
 * Builds a network from stored journals without a runtime (for `sandnet rebuild`): the network of
 * `config`, with the entries whose ordinal is at most `upTo` replayed. Returns the network and a
 * function replaying further entries into it.
 */
export const replayNetwork = (config: CoinNetworkConfig, start: Micros) =>
  Effect.gen(function* () {
    const clock = new ManualClock(start)
    const queue = new EventQueueNetwork(() => clock.now)
    const topology = new TopologyState()
    const layer = Layer.merge(Layer.succeed(Network, queue), Layer.succeed(Topology, topology))
    const network = yield* Effect.withClock(Effect.provide(buildCoinNetwork(config), layer), clock)
    return {
      network,
      replay: (entries: ReadonlyArray<JournalEntry>, sequencers: ReadonlyMap<string, SequencerSnapshot> = new Map()) =>
        replayJournals(network, entries, sequencers, clock.now)
    }
  })
