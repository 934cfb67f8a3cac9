/**
 * Durable node storage: what the node runtime writes to the EventStore, and how a fresh engine is
 * rebuilt from it. See docs/storage.md ("The node's journals").
 *
 * Streams (one journal per actor; every body is `{ n, event }` where `n` is a node-wide ordinal,
 * so that replay can interleave the streams exactly as they were produced):
 *
 *   participant/<name>   ParticipantEvents (parties, commands submitted/completed, commits)
 *   scan/<sv>            verdicts the SV's scan ingested (duplicates included)
 *   wallet/<validator>   the wallet's journal (users, tracking ids, offers, ...)
 *   ledger               uploaded packages, external parties' signing keys and hostings
 *   admin                user management (users, rights, identity providers)
 *
 * Key-value area (snapshots): `runtime` (network config, time offset, last engine time),
 * `sequencer/<synchronizer>` (last timestamp and traffic of every member, one upsert per write
 * batch that changed it), `derived/<...>` (the derived indexes: ACS per participant, scan and
 * wallet digests, checked by `sandnet rebuild`).
 */
import { Admin, buildCoinNetwork, EventQueueNetwork, ManualClock, Network, Topology, TopologyState, type CoinNetwork, type CoinNetworkConfig, type MemberTrafficState, type ParticipantEvent, type PartyHosting, LedgerApi, Outgoing, type Packages, WalletEvent, type SubmissionDeadline } from "@sandnet/engine"
import { sha256OfParts, type CommittedUpdate, type Micros, type TrafficSummary, type Verdict } from "@sandnet/core"
import type { EventStoreService, JournalEntry, SnapshotEntry, SnapshotRef, WriteBatch } from "@sandnet/store"
import { Cause, Chunk, Deferred, Effect, Either, Exit, Fiber, FiberId, Layer, Option, Queue, Schema, type Scope } from "effect"

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

export const Streams = {
  participant: (name: string) => `participant/${name}`,
  scan: (sv: string) => `scan/${sv}`,
  wallet: (validator: string) => `wallet/${validator}`,
  sequencer: (synchronizer: string) => `sequencer/${synchronizer}`,
  ledger: "ledger",
  admin: "admin",
  runtime: "runtime",
  derived: "derived",
  /** Key-value only: a node's active contracts, key = contract id, body = the ActiveContract. */
  acsIndex: (node: string) => `index/acs/${node}`,
  /** Key-value only: the updates a super validator's scan serves, key = update id (ScanIndexRow). */
  scanIndex: (sv: string) => `index/scan/${sv}`
} as const

/** A row of the stored scan index. */
export interface ScanIndexRow {
  readonly offset: number
  readonly recordTime: number
  readonly migrationId: number
  readonly synchronizerId: string
  readonly kind: "transaction" | "reassignment"
}

const scanRowOf = (entry: CommittedUpdate, migrationOf: (synchronizerId: string) => number): ScanIndexRow | undefined => {
  const u = entry.update
  if (u.kind === "topology") return undefined
  return {
    offset: entry.offset,
    recordTime: u.recordTime,
    migrationId: u.kind === "transaction" ? u.migrationId : migrationOf(u.synchronizerId),
    synchronizerId: u.synchronizerId,
    kind: u.kind
  }
}

/** Streams that belong to the engine (a reset or a restore replaces them); `admin` is not one of them. */
export const isEngineStream = (stream: string): boolean => stream !== Streams.admin

export interface JournalBody {
  /** Node-wide ordinal: replay merges the streams in this order. */
  readonly n: number
  readonly event: unknown
}

const isBody = (body: unknown): body is JournalBody =>
  typeof body === "object" && body !== null && typeof (body as { n?: unknown }).n === "number" && "event" in body

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** A write batch of the node's journals could not be committed: the request that produced it fails. */
export class JournalCommitFailed extends Schema.TaggedError<JournalCommitFailed>()("JournalCommitFailed", {
  message: Schema.String
}) {}

/** The stored journals cannot be replayed into an engine (corrupt, or written by another network). */
export class JournalReplayFailed extends Schema.TaggedError<JournalReplayFailed>()("JournalReplayFailed", {
  message: Schema.String
}) {}

// ---------------------------------------------------------------------------------------------
// Events of the `ledger` stream
// ---------------------------------------------------------------------------------------------

export interface PackagesUploaded {
  readonly _tag: "PackagesUploaded"
  readonly uploadedAt: number
  readonly vetted: boolean
  readonly packages: ReadonlyArray<{ readonly packageId: string; readonly description: Packages.StoredPackage["description"] }>
}

export interface ExternalPartyRegistered {
  readonly _tag: "ExternalPartyRegistered"
  readonly hosting: PartyHosting | null
  readonly signingKeys: unknown
}

export type LedgerEvent = PackagesUploaded | ExternalPartyRegistered

/** Byte arrays inside a body (e.g. signing keys) as `{"$bytes": base64}`: JSON keeps them. */
export const encodeBinary = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString("base64") }
  if (Array.isArray(value)) return value.map(encodeBinary)
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeBinary(v)]))
  return value
}

export const decodeBinary = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(decodeBinary)
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
    if (entries.length === 1 && entries[0]![0] === "$bytes" && typeof entries[0]![1] === "string") return new Uint8Array(Buffer.from(entries[0]![1], "base64"))
    return Object.fromEntries(entries.map(([k, v]) => [k, decodeBinary(v)]))
  }
  return value
}

// ---------------------------------------------------------------------------------------------
// The recorder: turns sink calls into journal entries, in order
// ---------------------------------------------------------------------------------------------

export interface ClockState {
  readonly offset: number
  readonly now: Micros
}

export interface SequencerSnapshot {
  readonly lastTimestamp: Micros
  readonly traffic: ReadonlyArray<readonly [string, MemberTrafficState]>
}

/**
 * Collects what an engine (and user management) journal, assigning each entry the next seq of
 * its stream and the next node-wide ordinal. The runtime drains it into one write batch per
 * engine operation, under its lock, so the order of the batches is the order of the changes.
 */
export class JournalRecorder {
  private readonly heads = new Map<string, number>()
  private ordinal = 0
  private entries: Array<JournalEntry> = []
  private puts = new Map<string, SnapshotEntry>()
  private deletes = new Map<string, SnapshotRef>()

  constructor(heads: ReadonlyMap<string, number>, ordinal: number) {
    for (const [stream, seq] of heads) this.heads.set(stream, seq)
    this.ordinal = ordinal
  }

  record(stream: string, kind: string, event: unknown): void {
    const seq = (this.heads.get(stream) ?? 0) + 1
    this.heads.set(stream, seq)
    this.entries.push({ stream, seq, kind, body: { n: ++this.ordinal, event } satisfies JournalBody })
  }

  put(stream: string, key: string, body: unknown): void {
    const id = `${stream}\u0000${key}`
    this.deletes.delete(id)
    this.puts.set(id, { stream, key, body })
  }

  /** Deletes a key-value row with the batch (the last of put and delete on one key wins). */
  delete(stream: string, key: string): void {
    const id = `${stream}\u0000${key}`
    this.puts.delete(id)
    this.deletes.set(id, { stream, key })
  }

  /** Starts again from the store's heads (after a failed commit or a reset): what was collected is dropped. */
  reload(heads: ReadonlyMap<string, number>, ordinal: number): void {
    this.heads.clear()
    for (const [stream, seq] of heads) this.heads.set(stream, seq)
    this.ordinal = ordinal
    this.entries = []
    this.puts = new Map()
    this.deletes = new Map()
  }

  /** Whether anything was collected since the last drain. */
  get pending(): boolean {
    return this.entries.length > 0 || this.puts.size > 0 || this.deletes.size > 0
  }

  get lastOrdinal(): number {
    return this.ordinal
  }

  /** The batch collected so far (undefined when there is nothing to write). */
  drain(): WriteBatch | undefined {
    if (!this.pending) return undefined
    const batch: WriteBatch = { entries: this.entries, putSnapshots: [...this.puts.values()], deleteSnapshots: [...this.deletes.values()] }
    this.entries = []
    this.puts = new Map()
    this.deletes = new Map()
    return batch
  }
}

// ---------------------------------------------------------------------------------------------
// The committer: one write in flight, batches merged in order (group commit at the node level)
// ---------------------------------------------------------------------------------------------

type CommitItem = { readonly batch: WriteBatch | undefined; readonly done: Deferred.Deferred<void, JournalCommitFailed> }

export interface JournalCommitter {
  /**
   * Puts a batch behind everything enqueued before (synchronously: call it while holding the lock
   * that orders the batches) and returns what to await for its commit.
   */
  readonly enqueue: (batch: WriteBatch | undefined) => Deferred.Deferred<void, JournalCommitFailed>
  /** Completes when everything enqueued so far is committed (or failed). */
  readonly barrier: Effect.Effect<void>
  /** Whether a commit failed since the last `healed` (the engine is then ahead of the store). */
  readonly failed: Effect.Effect<boolean>
  readonly healed: Effect.Effect<void>
}

/**
 * One write of several batches, in order. A write applies its puts before its deletes, so a key
 * that a later batch puts again after an earlier one deleted it must not be deleted: the last
 * operation on each key wins.
 */
export const mergeBatches = (batches: ReadonlyArray<WriteBatch>): WriteBatch => {
  if (batches.length === 1) return batches[0]!
  const entries: Array<JournalEntry> = []
  const last = new Map<string, { readonly put: SnapshotEntry } | { readonly delete: SnapshotRef }>()
  for (const b of batches) {
    for (const e of b.entries ?? []) entries.push(e)
    // within one batch a key is either put or deleted (the recorder keeps the last)
    for (const d of b.deleteSnapshots ?? []) last.set(`${d.stream}\u0000${d.key}`, { delete: d })
    for (const p of b.putSnapshots ?? []) last.set(`${p.stream}\u0000${p.key}`, { put: p })
  }
  const putSnapshots: Array<SnapshotEntry> = []
  const deleteSnapshots: Array<SnapshotRef> = []
  for (const op of last.values()) {
    if ("put" in op) putSnapshots.push(op.put)
    else deleteSnapshots.push(op.delete)
  }
  return { entries, putSnapshots, deleteSnapshots }
}

/**
 * Starts the committer fiber: takes every batch queued while the previous commit was in flight
 * and commits them as one atomic write, then answers each caller. A failed write fails all its
 * callers and everything queued behind them until `healed` (their changes depend on it).
 */
export const makeJournalCommitter = (store: EventStoreService): Effect.Effect<JournalCommitter, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<CommitItem>()
    let failedSince = false
    let failure = ""
    // Interruptible only while waiting for work: a batch, once taken, is always finished.
    const step = Effect.uninterruptibleMask((restore) => Effect.gen(function* () {
      const first = yield* restore(Queue.take(queue))
      const items = [first, ...Chunk.toReadonlyArray(yield* Queue.takeAll(queue))]
      const batches = items.flatMap((item) => (item.batch === undefined ? [] : [item.batch]))
      if (failedSince) {
        const error = new JournalCommitFailed({ message: `an earlier commit failed: ${failure}` })
        for (const item of items) yield* Deferred.fail(item.done, error)
        return
      }
      const exit = batches.length === 0 ? Exit.void : yield* Effect.exit(store.write(mergeBatches(batches)))
      if (Exit.isSuccess(exit)) {
        for (const item of items) yield* Deferred.succeed(item.done, undefined)
      } else {
        failedSince = true
        const error = Cause.squash(exit.cause)
        failure = error instanceof Error ? error.message : String(error)
        const failed = new JournalCommitFailed({ message: `the journal write failed: ${failure}` })
        for (const item of items) yield* Deferred.fail(item.done, failed)
      }
    }))
    const fiber = yield* Effect.forkDaemon(Effect.forever(step))
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        // Let what is queued be written, then stop.
        const done = yield* Deferred.make<void, JournalCommitFailed>()
        yield* Queue.offer(queue, { batch: undefined, done })
        yield* Effect.ignore(Deferred.await(done).pipe(Effect.timeout("10 seconds")))
        yield* Fiber.interrupt(fiber)
      })
    )
    const enqueue = (batch: WriteBatch | undefined) => {
      const done = Deferred.unsafeMake<void, JournalCommitFailed>(FiberId.none)
      Queue.unsafeOffer(queue, { batch, done })
      return done
    }
    return {
      enqueue,
      barrier: Effect.suspend(() => Effect.ignore(Deferred.await(enqueue(undefined)))),
      failed: Effect.sync(() => failedSince),
      healed: Effect.sync(() => {
        failedSince = false
        failure = ""
      })
    }
  })

// ---------------------------------------------------------------------------------------------
// Capture: attach the sinks of an engine to a recorder
// ---------------------------------------------------------------------------------------------

/** What the runtime needs to follow between write batches (state that has no sink). */
export interface CaptureState {
  packages: Packages.PackageRegistry | undefined
  vetted: number
  externalParties: number
  sequencers: Map<string, Micros>
  clock: ClockState | undefined
}

export const walletSinkOf = (recorder: JournalRecorder, validator: string) => (event: WalletEvent) =>
  recorder.record(Streams.wallet(validator), event._tag, Schema.encodeSync(WalletEvent)(event))

/**
 * Sets every journal sink of the network's nodes `hostedHere` (all of them unless the network is
 * spread over processes) to `recorder`, and has their ACS and scan indexes follow into the
 * key-value area; returns the state to follow with `collect`.
 */
export const attachSinks = (network: CoinNetwork, recorder: JournalRecorder, hostedHere: (node: { readonly name: string }) => boolean = () => true): CaptureState => {
  const migrationOf = (synchronizerId: string) => network.topology.synchronizer(synchronizerId as never)?.migrationId ?? 0
  for (const node of [...network.superValidators, ...network.validators]) {
    if (!hostedHere(node)) continue
    const stream = Streams.participant(node.name)
    const isSv = network.superValidators.some((sv) => sv.name === node.name)
    const scanIndex = Streams.scanIndex(node.name)
    node.participant.logic.journalSink = (event: ParticipantEvent) => {
      recorder.record(stream, event._tag, event)
      if (isSv && event._tag === "UpdateCommitted") {
        const row = scanRowOf(event.entry, migrationOf)
        if (row !== undefined) recorder.put(scanIndex, event.entry.update.updateId, row)
      }
    }
    const acsIndex = Streams.acsIndex(node.name)
    node.participant.logic.acs.onChange = (contractId, contract) =>
      contract === undefined ? recorder.delete(acsIndex, contractId) : recorder.put(acsIndex, contractId, contract)
  }
  for (const sv of network.superValidators) {
    if (!hostedHere(sv)) continue
    const stream = Streams.scan(sv.name)
    sv.scan.verdictSink = (verdict: Verdict, trafficSummary: TrafficSummary) =>
      recorder.record(stream, "Verdict", { verdict, trafficSummary })
  }
  const ledger = LedgerApi.ledgerApiState(network)
  return {
    packages: ledger.packages,
    vetted: ledger.vetted.size,
    externalParties: ledger.externalParties.size,
    sequencers: new Map(network.synchronizers.map((s) => [s.info.name, s.sequencer.logic.lastTimestamp])),
    clock: undefined
  }
}

/**
 * After an engine operation: journals what changed without a sink (uploaded packages, external
 * parties' keys) and upserts the sequencers' and the clock's snapshots when they moved.
 */
export const collectChanges = (network: CoinNetwork, recorder: JournalRecorder, state: CaptureState, clock: ClockState): void => {
  const ledger = LedgerApi.ledgerApiState(network)
  if (ledger.packages !== state.packages) {
    const before = state.packages
    const added = ledger.packages.packages().filter((p) => before === undefined || !before.has(p.packageId))
    // one event per upload time (one upload per operation in practice)
    const byTime = new Map<number, Array<Packages.StoredPackage>>()
    for (const p of added) {
      const list = byTime.get(p.uploadedAt)
      if (list === undefined) byTime.set(p.uploadedAt, [p])
      else list.push(p)
    }
    for (const [uploadedAt, packages] of [...byTime].sort((a, b) => a[0] - b[0])) {
      const event: PackagesUploaded = {
        _tag: "PackagesUploaded",
        uploadedAt,
        vetted: packages.every((p) => ledger.vetted.has(p.packageId)),
        packages: packages.map((p) => ({ packageId: p.packageId, description: p.description }))
      }
      recorder.record(Streams.ledger, event._tag, event)
    }
    state.packages = ledger.packages
    state.vetted = ledger.vetted.size
  }
  if (ledger.externalParties.size !== state.externalParties) {
    const entries = [...ledger.externalParties.entries()]
    for (const [party, signingKeys] of entries.slice(state.externalParties)) {
      const event: ExternalPartyRegistered = {
        _tag: "ExternalPartyRegistered",
        hosting: network.topology.hosting(party) ?? null,
        signingKeys: encodeBinary(signingKeys)
      }
      recorder.record(Streams.ledger, event._tag, event)
    }
    state.externalParties = ledger.externalParties.size
  }
  for (const s of network.synchronizers) {
    const last = s.sequencer.logic.lastTimestamp
    if (state.sequencers.get(s.info.name) === last) continue
    state.sequencers.set(s.info.name, last)
    const snapshot: SequencerSnapshot = {
      lastTimestamp: last,
      traffic: [...s.sequencer.logic.traffic.entries()].map(([member, t]) => [member, { ...t }] as const)
    }
    recorder.put(Streams.sequencer(s.info.name), "state", snapshot)
  }
  // The clock goes with batches that store something else (an idle tick writes nothing), or when
  // the developer's offset moved: every time the ledger shows is then covered.
  if (state.clock === undefined || state.clock.offset !== clock.offset || (recorder.pending && state.clock.now !== clock.now)) {
    state.clock = clock
    recorder.put(Streams.runtime, "clock", clock)
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the journals back
// ---------------------------------------------------------------------------------------------

export interface StoredJournals {
  /** Every entry of the engine streams, merged in ordinal order. */
  readonly entries: ReadonlyArray<JournalEntry>
  /** Admin events, in order. */
  readonly admin: ReadonlyArray<Admin.AdminEvent>
  readonly heads: ReadonlyMap<string, number>
  readonly lastOrdinal: number
  readonly config: CoinNetworkConfig | undefined
  readonly clock: ClockState | undefined
}

const PAGE = 5000

const readAll = (store: EventStoreService, stream: string) =>
  Effect.gen(function* () {
    const out: Array<JournalEntry> = []
    for (;;) {
      const page = yield* store.readStream(stream, out.length + 1, PAGE)
      for (const e of page) out.push(e)
      if (page.length < PAGE) return out
    }
  })

const ordinalOf = (entry: JournalEntry): number => (isBody(entry.body) ? entry.body.n : 0)

/** Reads every journal of the store (engine streams merged by ordinal, admin decoded). */
export const readJournals = (store: EventStoreService) =>
  Effect.gen(function* () {
    const streams = yield* store.streams()
    const heads = new Map<string, number>()
    const perStream: Array<ReadonlyArray<JournalEntry>> = []
    const admin: Array<Admin.AdminEvent> = []
    let lastOrdinal = 0
    for (const stream of streams) {
      const entries = yield* readAll(store, stream)
      heads.set(stream, entries.length === 0 ? 0 : entries[entries.length - 1]!.seq)
      if (stream !== Streams.admin) for (const e of entries) lastOrdinal = Math.max(lastOrdinal, ordinalOf(e))
      if (stream === Streams.admin) {
        for (const e of entries) {
          const decoded = Schema.decodeUnknownEither(Admin.AdminEvent)(isBody(e.body) ? e.body.event : e.body)
          if (Either.isLeft(decoded)) return yield* new JournalReplayFailed({ message: `admin #${e.seq}: ${decoded.left.message}` })
          admin.push(decoded.right)
        }
      } else {
        perStream.push(entries)
      }
    }
    const merged = perStream.flat().sort((a, b) => ordinalOf(a) - ordinalOf(b))
    const config = yield* store.getSnapshot(Streams.runtime, "config")
    const clock = yield* store.getSnapshot(Streams.runtime, "clock")
    return {
      entries: merged,
      admin,
      heads,
      lastOrdinal,
      config: Option.getOrUndefined(config) as CoinNetworkConfig | undefined,
      clock: Option.getOrUndefined(clock) as ClockState | undefined
    } satisfies StoredJournals
  })

/** The sequencers' snapshots of a network. */
export const readSequencerSnapshots = (store: EventStoreService, network: CoinNetwork) =>
  Effect.gen(function* () {
    const out = new Map<string, SequencerSnapshot>()
    for (const s of network.synchronizers) {
      const snap = yield* store.getSnapshot(Streams.sequencer(s.info.name), "state")
      if (Option.isSome(snap)) out.set(s.info.name, snap.value as SequencerSnapshot)
    }
    return out
  })

// ---------------------------------------------------------------------------------------------
// Replay
// ---------------------------------------------------------------------------------------------

export interface ReplayResult {
  /** Wallet journals by validator name, for the wallets built after the ledger state. */
  readonly wallets: ReadonlyMap<string, ReadonlyArray<WalletEvent>>
  /** SubmissionDeadline timers of commands still in flight (their outcome is unknown). */
  readonly timers: ReadonlyArray<Outgoing>
  readonly replayed: number
}

/**
 * Replays stored journals into a freshly built network (no genesis): participants' events, scan
 * verdicts and commits (in the order they happened), uploaded packages and external parties,
 * then the sequencers' state. Listeners other than the scans are not called: automations and
 * wallets are built afterwards, from the rebuilt ledger state, and nothing is sent.
 */
export const replayJournals = (
  network: CoinNetwork,
  entries: ReadonlyArray<JournalEntry>,
  sequencers: ReadonlyMap<string, SequencerSnapshot>,
  now: Micros
): Either.Either<ReplayResult, JournalReplayFailed> => {
  const participants = new Map([...network.superValidators, ...network.validators].map((n) => [Streams.participant(n.name), n]))
  const scans = new Map(network.superValidators.map((sv) => [Streams.scan(sv.name), sv]))
  const wallets = new Map<string, Array<WalletEvent>>()
  const inFlight = new Map<string, { readonly uid: string; readonly messageId: string; readonly maxSequencingTime: Micros }>()
  const ledger = LedgerApi.ledgerApiState(network)
  let replayed = 0
  try {
    // External parties' hostings first: they are journaled after the operation that hosted them,
    // behind whatever that operation committed for them (hostings only ever add parties).
    for (const entry of entries) {
      if (entry.stream !== Streams.ledger || !isBody(entry.body)) continue
      const e = entry.body.event as LedgerEvent
      if (e._tag !== "ExternalPartyRegistered" || e.hosting === null) continue
      if (!network.topology.isKnownParty(e.hosting.party)) network.topology.setHosting(e.hosting)
      ledger.externalParties.set(e.hosting.party, decodeBinary(e.signingKeys) as never)
    }
    for (const entry of entries) {
      if (!isBody(entry.body)) return Either.left(new JournalReplayFailed({ message: `${entry.stream} #${entry.seq} is not a journal body` }))
      const event = entry.body.event
      const node = participants.get(entry.stream)
      if (node !== undefined) {
        const e = event as ParticipantEvent
        const logic = node.participant.logic
        logic.apply(e, true)
        logic.journal.push(e)
        if (e._tag === "UpdateCommitted") {
          const sv = network.superValidators.find((s) => s.participant === node.participant)
          sv?.scan.onCommitted(e.entry)
        } else if (e._tag === "CommandSubmitted") {
          inFlight.set(`${entry.stream}|${e.commandKey}`, { uid: logic.uid, messageId: e.messageId, maxSequencingTime: e.maxSequencingTime })
        } else if (e._tag === "CommandCompleted") {
          inFlight.delete(`${entry.stream}|${e.commandKey}`)
        }
      } else if (scans.has(entry.stream)) {
        const v = event as { verdict: Verdict; trafficSummary: TrafficSummary }
        scans.get(entry.stream)!.scan.ingestVerdict(v.verdict, v.trafficSummary, true)
      } else if (entry.stream.startsWith("wallet/")) {
        const validator = entry.stream.slice("wallet/".length)
        const decoded = Schema.decodeUnknownEither(WalletEvent)(event)
        if (Either.isLeft(decoded)) return Either.left(new JournalReplayFailed({ message: `${entry.stream} #${entry.seq}: ${decoded.left.message}` }))
        const list = wallets.get(validator)
        if (list === undefined) wallets.set(validator, [decoded.right])
        else list.push(decoded.right)
      } else if (entry.stream === Streams.ledger) {
        const e = event as LedgerEvent
        if (e._tag === "PackagesUploaded") {
          const added = ledger.packages.addDescriptions(
            e.packages.map((p) => p.description),
            e.uploadedAt,
            e.vetted ? { vettedOnSynchronizer: [...ledger.vetted] } : {}
          )
          if (Either.isLeft(added)) return Either.left(new JournalReplayFailed({ message: `ledger #${entry.seq}: ${added.left.message}` }))
          for (const p of e.packages) {
            if (!added.right.registry.has(p.packageId)) {
              return Either.left(new JournalReplayFailed({ message: `ledger #${entry.seq}: package ${p.packageId} does not re-encode to the same id` }))
            }
          }
          ledger.packages = added.right.registry
          if (e.vetted) for (const p of e.packages) ledger.vetted.add(p.packageId)
        }
      } else {
        return Either.left(new JournalReplayFailed({ message: `unknown stream ${entry.stream}` }))
      }
      replayed++
    }
  } catch (error) {
    // an invariant of the engine broke: the journal does not fit this network
    return Either.left(new JournalReplayFailed({ message: error instanceof Error ? error.message : String(error) }))
  }
  for (const s of network.synchronizers) {
    const snap = sequencers.get(s.info.name)
    if (snap === undefined) continue
    s.sequencer.logic.lastTimestamp = snap.lastTimestamp
    s.sequencer.logic.traffic.clear()
    for (const [member, traffic] of snap.traffic) s.sequencer.logic.traffic.set(member, { ...traffic })
  }
  const timers: Array<Outgoing> = []
  for (const f of inFlight.values()) {
    const deadline: SubmissionDeadline = { _tag: "SubmissionDeadline", messageId: f.messageId }
    timers.push(Outgoing.timer(f.uid, deadline, Math.max(now, f.maxSequencingTime + 1)))
  }
  return Either.right({ wallets, timers, replayed })
}

// ---------------------------------------------------------------------------------------------
// Derived indexes (stored for fast reads and checked by `sandnet rebuild`)
// ---------------------------------------------------------------------------------------------

export interface DerivedIndexes {
  /** Ordinal of the last journal entry the indexes include. */
  readonly ordinal: number
  readonly participants: ReadonlyArray<{
    readonly name: string
    readonly ledgerEnd: number
    readonly activeContracts: number
    /** sha256 over the sorted active contract ids. */
    readonly acsDigest: string
    readonly lastUpdateId: string | null
  }>
  readonly scans: ReadonlyArray<{
    readonly name: string
    readonly updates: number
    readonly verdicts: number
    readonly digest: string
  }>
  readonly packages: ReadonlyArray<string>
  readonly parties: number
}

/** Computes the derived indexes of a network's current state. */
export const derivedIndexes = (network: CoinNetwork, ordinal: number): DerivedIndexes => ({
  ordinal,
  participants: [...network.superValidators, ...network.validators].map((node) => {
    const logic = node.participant.logic
    const ids: Array<string> = []
    for (const c of logic.acs.all()) ids.push(c.created.contractId)
    ids.sort()
    return {
      name: node.name,
      ledgerEnd: logic.ledgerEnd,
      activeContracts: ids.length,
      acsDigest: sha256OfParts("acs", ...ids),
      lastUpdateId: logic.log[logic.log.length - 1]?.update.updateId ?? null
    }
  }),
  scans: network.superValidators.map((sv) => ({
    name: sv.name,
    updates: sv.scan.updates.length,
    verdicts: sv.scan.verdictLog.length,
    digest: sha256OfParts(
      "scan",
      ...sv.scan.updates.map((u) => `${u.offset}:${u.update.updateId}`),
      ...sv.scan.verdictLog.map((v) => `${v.verdict.updateId}:${v.verdict.result}`)
    )
  })),
  packages: LedgerApi.knownPackageIds(network),
  parties: network.topology.allParties().length
})

export const DERIVED_KEY = "indexes"

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

// ---------------------------------------------------------------------------------------------
// Stored indexes (key-value rows for fast reads: the ACS of each node, the scan of each SV)
// ---------------------------------------------------------------------------------------------

/** The index rows a network's nodes `hostedHere` should have stored, by stream. */
export const indexRowsOf = (network: CoinNetwork, hostedHere: (node: { readonly name: string }) => boolean): Map<string, Map<string, unknown>> => {
  const migrationOf = (synchronizerId: string) => network.topology.synchronizer(synchronizerId as never)?.migrationId ?? 0
  const out = new Map<string, Map<string, unknown>>()
  for (const node of [...network.superValidators, ...network.validators]) {
    if (!hostedHere(node)) continue
    const acs = new Map<string, unknown>()
    for (const c of node.participant.logic.acs.all()) acs.set(c.created.contractId, c)
    out.set(Streams.acsIndex(node.name), acs)
    if (!network.superValidators.some((sv) => sv.name === node.name)) continue
    const scan = new Map<string, unknown>()
    for (const entry of node.participant.logic.log) {
      const row = scanRowOf(entry, migrationOf)
      if (row !== undefined) scan.set(entry.update.updateId, row)
    }
    out.set(Streams.scanIndex(node.name), scan)
  }
  return out
}

export interface IndexRowCheck {
  readonly stream: string
  readonly rows: number
  readonly missing: number
  readonly extra: number
  readonly differing: number
}

/**
 * Compares the stored index rows with `expected` (indexRowsOf) and, with `repair`, rewrites what
 * differs in one write. Returns one line of figures per stream.
 */
export const checkIndexRows = (store: EventStoreService, expected: ReadonlyMap<string, ReadonlyMap<string, unknown>>, repair: boolean) =>
  Effect.gen(function* () {
    const checks: Array<IndexRowCheck> = []
    const putSnapshots: Array<SnapshotEntry> = []
    const deleteSnapshots: Array<SnapshotRef> = []
    for (const [stream, rows] of expected) {
      const stored = new Map((yield* store.listSnapshots(stream)).map((r) => [r.key, r.body] as const))
      let missing = 0
      let differing = 0
      for (const [key, body] of rows) {
        const have = stored.get(key)
        if (have === undefined) missing++
        else if (JSON.stringify(have) !== JSON.stringify(body)) differing++
        else continue
        putSnapshots.push({ stream, key, body })
      }
      let extra = 0
      for (const key of stored.keys()) {
        if (rows.has(key)) continue
        extra++
        deleteSnapshots.push({ stream, key })
      }
      checks.push({ stream, rows: rows.size, missing, extra, differing })
    }
    if (repair && (putSnapshots.length > 0 || deleteSnapshots.length > 0)) yield* store.write({ putSnapshots, deleteSnapshots })
    return checks
  })
