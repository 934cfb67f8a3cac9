/**
 * `ClusterLink`: this process's side of a network spread over processes (docs/storage.md, "A
 * network spread over processes"). Every process builds the same network from the configuration
 * the cluster agreed on (same ids), but owns only some of its actors: the participant (and scan,
 * wallet, automations) of its node, and, in the process of the first super validator, the
 * synchronizers' sequencers and mediators.
 *
 * - Protocol messages to an actor of another process leave through the cluster transport (a
 *   mailbox table in the cluster's schema), in their wire form, after the journal batch of the
 *   operation that produced them has committed: nothing is sent that a crash could take back.
 * - Inbound messages are read on every tick and queued for their local actor. Two cursors (last
 *   seq per sender) are stored with the batch that holds their effects: `delivered`, and `settled`,
 *   which only moves when no local participant or mediator awaits anything (no request between
 *   its confirmation request and its verdict). Requests in flight live in memory, so a restarted
 *   process is handed everything after `settled` again and rebuilds them; only the sequencer skips
 *   what it already sequenced (up to `delivered`), so nothing is sequenced twice. Messages it
 *   already acted on are answered as duplicates and ignored (verdicts: first wins).
 * - The other nodes' journals (participant and scan streams, in their schemas) are followed into
 *   this process's copies of those actors, read-only, before inbound messages are delivered. That
 *   is how this process learns the topology (parties hosted elsewhere) and the DSO's contracts that
 *   transactions read (the real system gets the first from the synchronizer's topology broadcast
 *   and the second from a scan). A sender journals a party before it sends anything naming it, so
 *   following first means the recipient knows the party when the message arrives. The process's
 *   engine checkpoint holds those copies and how far they were followed; a restart from it follows
 *   on from there.
 */
import { invariant, type TrafficSummary, type Verdict } from "@sandnet/core"
import { type CoinNetwork, type EventQueueNetwork, type ParticipantEvent, Wire, type Message } from "@sandnet/engine"
import type { OutgoingClusterMessage } from "@sandnet/store"
import { Effect } from "effect"
import { JournalReplayFailed } from "../journal/errors.ts"
import { Streams } from "../journal/streams.ts"
import type { ClusterMembership } from "./membership.ts"

/** Snapshot key (in the `runtime` stream) of the inbox cursor. */
export const INBOX_KEY = "cluster-inbox"

interface WireEnvelope {
  readonly from: string
  readonly to: string
  readonly ordered: boolean
  readonly message: string
}

/** The stored inbox cursors (see the module comment). */
export interface InboxCursor {
  readonly delivered: Readonly<Record<string, number>>
  readonly settled: Readonly<Record<string, number>>
}

const sortedRecord = (map: ReadonlyMap<string, number>): Record<string, number> =>
  Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

/** A stream of another node's journal that this process follows into its copy of that node. */
interface FollowedStream {
  readonly schema: string
  readonly stream: string
  readonly apply: (body: unknown) => void
}

/** How many inbound messages / journal entries one pull reads at most. */
const PAGE = 2000

/** The process's side of the cluster for one engine instance. */
export class ClusterLink {
  /** Address -> owning node, for every participant and synchronizer member. */
  private readonly owners = new Map<string, string>()
  private outbox: Array<OutgoingClusterMessage> = []
  /** Last seq received per sender. */
  readonly inbox = new Map<string, number>()
  /** Last seq per sender behind which nothing is in flight here. */
  private readonly settled = new Map<string, number>()
  /** After a restart: messages to a sequencer up to these seqs were sequenced already. */
  private readonly sequenced = new Map<string, number>()
  private inboxMoved = false
  /** Whether `settled` is behind `inbox` (moved on at the next quiet commit point). */
  private settling = false
  /** Next seq to read per followed stream. */
  private readonly followed = new Map<string, number>()
  /**
   * Entries of the other nodes' journals applied here since this link was made: what a restart
   * without a newer checkpoint would follow again (the checkpoint schedule counts them with the
   * process's own journal).
   */
  private followedSinceStart = 0
  readonly synchronizerHost: string
  /** The other nodes' streams this process follows, in the order it applies them. */
  private readonly followedStreams: ReadonlyArray<FollowedStream>

  constructor(
    readonly membership: ClusterMembership,
    private readonly network: CoinNetwork,
    stored: InboxCursor | undefined
  ) {
    const nodes = [...network.superValidators, ...network.validators]
    if (!nodes.some((n) => n.name === membership.node)) {
      throw new Error(`no node named ${membership.node} in the network (nodes: ${nodes.map((n) => n.name).join(", ")})`)
    }
    this.synchronizerHost = network.superValidators[0]!.name
    for (const n of nodes) this.owners.set(n.participant.address, n.name)
    for (const s of network.synchronizers) {
      this.owners.set(s.sequencer.address, this.synchronizerHost)
      this.owners.set(s.mediator.address, this.synchronizerHost)
    }
    this.followedStreams = followedStreamsOf(network, membership)
    for (const [sender, seq] of Object.entries(stored?.settled ?? {})) {
      this.inbox.set(sender, seq)
      this.settled.set(sender, seq)
    }
    for (const [sender, seq] of Object.entries(stored?.delivered ?? {})) this.sequenced.set(sender, seq)
    this.sequencers = new Set(network.synchronizers.map((s) => s.sequencer.address))
  }

  private readonly sequencers: ReadonlySet<string>

  get node(): string {
    return this.membership.node
  }

  /** Whether this process runs genesis and the synchronizers (the first super validator's). */
  get hostsSynchronizers(): boolean {
    return this.membership.node === this.synchronizerHost
  }

  isLocalNode(name: string): boolean {
    return name === this.membership.node
  }

  /** Whether deliveries to `address` happen here (actors that are not participants or synchronizer members are local). */
  isLocal(address: string): boolean {
    const owner = this.owners.get(address)
    return owner === undefined || owner === this.membership.node
  }

  /** Routes the queue's messages for other processes into the outbox. */
  attach(queue: EventQueueNetwork): void {
    queue.setRemoteRoute({
      isLocal: (address) => this.isLocal(address),
      send: (from, to, message, ordered) => {
        const envelope: WireEnvelope = { from, to, ordered, message: Wire.toWire(message) }
        this.outbox.push({ recipient: this.owners.get(to)!, body: JSON.stringify(envelope) })
      }
    })
  }

  /** The messages produced since the last call, in order. */
  takeOutbox(): ReadonlyArray<OutgoingClusterMessage> {
    const out = this.outbox
    this.outbox = []
    return out
  }

  /** Entries of the other nodes' journals applied since this link was made. */
  get followedEntries(): number {
    return this.followedSinceStart
  }

  /**
   * How far the other nodes' journals were followed: the next entry of each stream followed so far,
   * in stream order (an engine checkpoint's part: its copies of those nodes hold up to there).
   */
  followedPositions(): ReadonlyArray<readonly [string, number]> {
    return Object.entries(sortedRecord(this.followed))
  }

  /**
   * After an engine checkpoint was restored: its copies of the other nodes hold their journals up
   * to these positions, so following goes on from there. Only before anything was followed. Each
   * stream must still hold the last entry followed (one statement reads them): a node whose schema
   * was dropped and made again alone has a shorter journal, and the checkpoint is given up then
   * (the start replays and follows everything again, as before checkpoints).
   */
  readonly resumeFollowing = (positions: ReadonlyArray<readonly [string, number]>): Effect.Effect<void, JournalReplayFailed> =>
    Effect.gen(this, function* () {
      invariant(this.followed.size === 0, "following resumes from a checkpoint only before anything was followed")
      const streams = new Map(this.followedStreams.map((f) => [f.stream, f] as const))
      const checks: Array<{ readonly followed: FollowedStream; readonly last: number }> = []
      for (const [stream, next] of positions) {
        invariant(Number.isSafeInteger(next) && next >= 1, () => `a followed position of ${stream} that is not an entry: ${next}`)
        const followed = streams.get(stream)
        if (followed === undefined) return yield* new JournalReplayFailed({ message: `the engine checkpoint follows ${stream}, which no other node of this network journals` })
        if (next > 1) checks.push({ followed, last: next - 1 })
      }
      const found = yield* Effect.orDie(this.membership.transport.readJournals(checks.map((c) => ({ schema: c.followed.schema, stream: c.followed.stream, fromSeq: c.last })), 1))
      for (const [i, check] of checks.entries()) {
        if (found[i]?.[0]?.seq !== check.last) {
          return yield* new JournalReplayFailed({ message: `the engine checkpoint followed ${check.followed.stream} to entry ${check.last}, which that node's journal no longer holds` })
        }
      }
      for (const [stream, next] of positions) this.followed.set(stream, next)
    })

  /** The inbox cursors when they moved since the last call (to be stored with the batch). */
  takeInboxCursor(): InboxCursor | undefined {
    let changed = this.inboxMoved
    this.inboxMoved = false
    if (changed || this.settling) {
      const local = [...this.network.superValidators, ...this.network.validators].filter((n) => this.isLocalNode(n.name))
      const quiet =
        local.every((n) => n.participant.logic.pendingRequestCount === 0) &&
        (!this.hostsSynchronizers || this.network.synchronizers.every((s) => s.mediator.logic.pendingCount === 0))
      this.settling = !quiet
      if (quiet) {
        for (const [sender, seq] of this.inbox) {
          if (this.settled.get(sender) === seq) continue
          this.settled.set(sender, seq)
          changed = true
        }
      }
    }
    return changed ? { delivered: sortedRecord(this.inbox), settled: sortedRecord(this.settled) } : undefined
  }

  /** Follows the other nodes' journals, then queues inbound messages. Returns how many of each arrived. */
  readonly pull = (queue: EventQueueNetwork): Effect.Effect<{ readonly followed: number; readonly received: number }, unknown> =>
    Effect.gen(this, function* () {
      const followed = yield* this.follow
      let received = 0
      for (;;) {
        const messages = yield* this.membership.transport.receive(this.membership.node, this.inbox, PAGE)
        for (const m of messages) {
          const envelope = JSON.parse(m.body) as WireEnvelope
          this.inbox.set(m.sender, m.seq)
          this.inboxMoved = true
          if (this.sequencers.has(envelope.to) && m.seq <= (this.sequenced.get(m.sender) ?? 0)) continue
          const message: Message = Wire.fromWire(envelope.message)
          queue.receiveRemote(envelope.from, envelope.to, message)
        }
        received += messages.length
        if (messages.length < PAGE) return { followed, received }
      }
    })

  /**
   * Applies new entries of the other nodes' participant and scan journals to this process's copies:
   * node after node, each participant stream and then its scan's, as far as each goes. The first
   * page of every stream is read in one statement (a tick reads them all, mostly to find nothing
   * new); a stream with more than a page goes on page by page before the next stream.
   */
  readonly follow: Effect.Effect<number, unknown> = Effect.gen(this, function* () {
    const transport = this.membership.transport
    const positionOf = (stream: string) => this.followed.get(stream) ?? 1
    const firstPages = yield* transport.readJournals(
      this.followedStreams.map((f) => ({ schema: f.schema, stream: f.stream, fromSeq: positionOf(f.stream) })),
      PAGE
    )
    let applied = 0
    for (const [i, followed] of this.followedStreams.entries()) {
      for (let entries = firstPages[i]!; ; ) {
        for (const entry of entries) followed.apply(entry.body)
        if (entries.length > 0) this.followed.set(followed.stream, entries[entries.length - 1]!.seq + 1)
        applied += entries.length
        this.followedSinceStart += entries.length
        if (entries.length < PAGE) break
        entries = yield* transport.readJournal(followed.schema, followed.stream, positionOf(followed.stream), PAGE)
      }
    }
    return applied
  })
}

/**
 * The other nodes' streams a process follows, in the order it applies them (node after node, each
 * participant stream and then its scan's), and how each entry is applied to its copy of that node.
 */
const followedStreamsOf = (network: CoinNetwork, membership: ClusterMembership): ReadonlyArray<FollowedStream> =>
  [...network.superValidators, ...network.validators]
    .filter((node) => node.name !== membership.node)
    .flatMap((node): Array<FollowedStream> => {
      const schema = membership.schemaOf(node.name)
      const sv = network.superValidators.find((s) => s.name === node.name)
      const participant: FollowedStream = {
        schema,
        stream: Streams.participant(node.name),
        apply: (body) => {
          const event = (body as { event: ParticipantEvent }).event
          node.participant.logic.apply(event, true)
          if (event._tag === "UpdateCommitted") sv?.scan.onCommitted(event.entry)
        }
      }
      if (sv === undefined) return [participant]
      const scan: FollowedStream = {
        schema,
        stream: Streams.scan(node.name),
        apply: (body) => {
          const v = (body as { event: { verdict: Verdict; trafficSummary: TrafficSummary } }).event
          sv.scan.ingestVerdict(v.verdict, v.trafficSummary, true)
        }
      }
      return [participant, scan]
    })
