/**
 * The node's engine runtime: the deterministic engine driven by the live clock. It owns one coin
 * network (super validators, validators, synchronizers on a zero-delay in-process network), a
 * ticker that delivers what falls due (mediator deadlines, automations, rounds) and a lock so that
 * every engine operation (an HTTP command, a tick) runs alone and runs to completion.
 *
 * Time: the engine reads a ManualClock that the runtime sets to the live time plus the developer's
 * time offset (`advanceTime` moves the offset forward so offers expire and rounds turn without
 * waiting). It never goes backwards, across restarts included (the offset and the last engine
 * time are stored).
 *
 * Storage (optional, `storage`): every journal event the engine produces during an operation is
 * collected, and when the operation (and everything it set in motion) is done, the whole batch is
 * enqueued for commit while the lock is still held, so batches are committed in the order of the
 * changes; the caller then waits for the commit after releasing the lock (batches of concurrent
 * requests go into one commit). A failed commit fails the request; the next operation first
 * rebuilds the engine from what the store holds. On start, stored journals are replayed into a
 * fresh engine instead of running genesis (see persistence.ts).
 */
import { Clock, Context, Deferred, Effect, Either, Fiber, Layer, Option, Queue, Ref, Schedule, Stream } from "effect"
import { invariant, micros, type Micros } from "@sandnet/core"
import {
  EventQueueNetwork,
  ManualClock,
  Network,
  Topology,
  TopologyState,
  authorizeGenesisParties,
  buildCoinNetwork,
  defaultCoinNetworkConfig,
  dsoReference,
  makeDriver,
  makeWallet,
  makeWalletApi,
  startDsoAutomation,
  submitGenesis,
  submitGenesisTransaction,
  type CoinNetwork,
  type CoinNetworkConfig,
  type Driver,
  type DsoAutomation,
  type WalletApi,
  type WalletConfig,
  type WalletEvent
} from "@sandnet/engine"
import {
  attachSinks,
  checkIndexRows,
  collectChanges,
  indexRowsOf,
  derivedIndexes,
  DERIVED_KEY,
  type CaptureState,
  type JournalCommitFailed,
  JournalReplayFailed,
  readSequencerSnapshots,
  replayJournals,
  type StoredJournals,
  Streams,
  walletSinkOf,
  isEngineStream
} from "./persistence.ts"
import { awaitCommit, NodeStorage, type NodeStorageService } from "./node-storage.ts"
import { makeClusterTransport, type JournalEntry, type OutgoingClusterMessage, type StorageError, type StoreConfigError } from "@sandnet/store"
import { ClusterLink, clusterNodeSchema, INBOX_KEY, type ClusterMembership, type InboxCursor } from "./cluster.ts"

export interface NodeRuntimeOptions {
  readonly network?: Partial<CoinNetworkConfig>
  /** How often due timers are delivered (the engine's own events need no faster ticking). */
  readonly tickIntervalMillis?: number
  /** Tests pin time: the clock then moves only through `advanceTime`. */
  readonly clock?: { readonly _tag: "live" } | { readonly _tag: "manual"; readonly start: Micros }
  /**
   * Durable storage: journals go to it, and a node whose store holds journals resumes from them
   * (its stored network config wins over `network`). Without it nothing is persisted.
   */
  readonly storage?: NodeStorageService | undefined
  /** Run a wallet per validator (its journal is persisted with the rest). Default false. */
  readonly wallets?: boolean
  /** Run the automations (DSO rounds, wallets' automations). Default false. */
  readonly automation?: boolean
  /** The wallets' configuration (docs/wallet-config.md); default `defaultWalletConfig`. */
  readonly walletConfig?: WalletConfig | undefined
  /**
   * A network spread over processes (cluster.ts): this process owns one node of it. Its wallet and
   * automations are the only ones it runs; genesis runs in the first super validator's process.
   */
  readonly cluster?: ClusterMembership | undefined
}

/** One engine instance; `reset` replaces it with a fresh one. */
export interface EngineInstance {
  readonly network: CoinNetwork
  readonly driver: Driver
  readonly clock: ManualClock
  readonly queue: EventQueueNetwork
  readonly topology: TopologyState
  readonly provide: <A, E>(effect: Effect.Effect<A, E, Network | Topology>) => Effect.Effect<A, E>
  /** The validators' wallets, in validator order (empty unless the runtime runs wallets). */
  readonly wallets: ReadonlyArray<WalletApi>
  readonly dsoAutomations: ReadonlyArray<DsoAutomation>
  /** This process's side of the cluster, when the network is spread over processes. */
  readonly cluster: ClusterLink | undefined
}

export interface NodeRuntimeService {
  /** The current engine instance (valid until the next reset). */
  readonly engine: Effect.Effect<EngineInstance>
  /**
   * Runs an engine operation alone, on the engine's clock and services, then delivers everything
   * that became due (with the zero-delay network, a submission is decided before this returns).
   * With storage, it returns once what the operation changed is committed.
   */
  readonly run: <A, E>(operation: (engine: EngineInstance) => Effect.Effect<A, E, Network | Topology>) => Effect.Effect<A, E>
  /** The engine's current time (live time plus the developer's offset). */
  readonly now: Effect.Effect<Micros>
  /** Moves ledger time forward and delivers everything that falls due. */
  readonly advanceTime: (by: Micros) => Effect.Effect<Micros>
  /** Throws the whole network away and starts a fresh one (genesis included); with storage, its journals go too. */
  readonly reset: Effect.Effect<void>
  /** The storage, when the node has one. */
  readonly storage: Option.Option<NodeStorageService>
  /**
   * Replaces the network by one rebuilt from `entries` (journal entries of the engine streams, as
   * a snapshot holds them): the store's engine streams are replaced, then replayed.
   */
  readonly restore: (entries: ReadonlyArray<JournalEntry>, snapshots: ReadonlyArray<{ readonly stream: string; readonly key: string; readonly body: unknown }>) => Effect.Effect<void, JournalReplayFailed>
  /**
   * Waits until everything journaled so far is committed (e.g. before a snapshot); returns the
   * ordinal of the last engine journal entry it covers (0 without storage).
   */
  readonly flush: Effect.Effect<number>
  /**
   * Waits until what the engine did before this call is committed (cheap: no delivery, no new
   * batch). For answers that an engine event settled outside `run`, e.g. a completion that came
   * with a tick in a network spread over processes.
   */
  readonly committed: Effect.Effect<void>
}

export class NodeRuntime extends Context.Tag("@sandnet/http/NodeRuntime")<NodeRuntime, NodeRuntimeService>() {}

const liveMicros: Effect.Effect<Micros> = Effect.map(Clock.currentTimeNanos, micros.fromNanos)

type EngineSource = { readonly _tag: "Genesis" } | { readonly _tag: "Replay"; readonly journals: StoredJournals }

interface Built {
  readonly engine: EngineInstance
  readonly capture: CaptureState | undefined
  /** Starts wallets and automations (done already unless the network is spread over processes). */
  readonly finish: Effect.Effect<void>
}

/** Key (in the `derived` stream) of the marker saying the stored index rows follow the journals. */
const INDEX_ROWS_KEY = "index-rows"

/** Write derived indexes every this many batches (and at shutdown). */
const DERIVED_EVERY = 256

export const makeNodeRuntime = (options: NodeRuntimeOptions = {}): Effect.Effect<NodeRuntimeService, JournalReplayFailed, import("effect/Scope").Scope> =>
  Effect.gen(function* () {
    const storage = options.storage
    const initial = storage?.initial
    const stored = initial !== undefined && initial.entries.length > 0
    const config: CoinNetworkConfig = (stored ? initial.config : undefined) ?? { ...defaultCoinNetworkConfig, ...options.network }
    const clockMode = options.clock ?? { _tag: "live" as const }
    const offset = yield* Ref.make(initial?.clock?.offset ?? 0)
    const lock = yield* Effect.makeSemaphore(1)
    const captures = new WeakMap<EngineInstance, CaptureState>()
    let batches = 0
    const membership = options.cluster
    /** What the processes of other nodes get: sent in order, each batch once its journal batch committed. */
    const outbound = yield* Queue.unbounded<{ readonly done: Deferred.Deferred<void, JournalCommitFailed> | undefined; readonly messages: ReadonlyArray<OutgoingClusterMessage> }>()
    if (membership !== undefined) {
      const sendOne = Effect.gen(function* () {
        const item = yield* Queue.take(outbound)
        if (item.done !== undefined && Either.isLeft(yield* Effect.either(Deferred.await(item.done)))) {
          // the state that produced them was not stored (the engine is rebuilt from the store)
          return yield* Effect.logWarning(`${item.messages.length} cluster messages dropped: their journal batch failed`)
        }
        // Sent they must be (their state is stored): retried until the server takes them, in order.
        yield* membership.transport.send(membership.node, item.messages).pipe(
          Effect.tapError((error) => Effect.logWarning(`${item.messages.length} cluster messages could not be sent yet; retrying`, error)),
          Effect.retry(Schedule.union(Schedule.exponential("50 millis"), Schedule.spaced("5 seconds"))),
          Effect.orDie
        )
      })
      yield* Effect.forkScoped(Effect.forever(sendOne))
    }

    const engineTime = (engine: EngineInstance | undefined): Effect.Effect<Micros> =>
      Effect.map(
        clockMode._tag === "manual" ? Effect.map(Ref.get(offset), (o) => clockMode.start + o) : Effect.map(Effect.zip(liveMicros, Ref.get(offset)), ([live, o]) => live + o),
        (t) => Math.max(t, engine?.clock.now ?? 0, initial?.clock?.now ?? 0)
      )

    /** Brings the engine up to now: delivers every due message and timer. */
    const catchUp = (engine: EngineInstance): Effect.Effect<void> => Effect.flatMap(engineTime(engine), (t) => Effect.asVoid(engine.driver.runUntil(t)))

    const createEngine = (start: Micros, source: EngineSource): Effect.Effect<Built, JournalReplayFailed> =>
      Effect.gen(function* () {
        const clock = new ManualClock(start)
        const queue = new EventQueueNetwork(() => clock.now)
        const topology = new TopologyState()
        const layer = Layer.merge(Layer.succeed(Network, queue), Layer.succeed(Topology, topology))
        const provide = <A, E>(effect: Effect.Effect<A, E, Network | Topology>) => Effect.withClock(Effect.provide(effect, layer), clock)
        const network = yield* provide(buildCoinNetwork(config))
        const driver = makeDriver(queue, clock)
        const inboxCursor = storage === undefined || membership === undefined ? Option.none() : yield* Effect.orDie(storage.store.getSnapshot(Streams.runtime, INBOX_KEY))
        const cluster = membership === undefined ? undefined : new ClusterLink(membership, network, Option.getOrUndefined(inboxCursor) as InboxCursor | undefined)
        cluster?.attach(queue)
        let capture: CaptureState | undefined
        let walletJournals: ReadonlyMap<string, ReadonlyArray<WalletEvent>> = new Map()
        if (source._tag === "Genesis") {
          // genesis is journaled like everything after it, index rows included
          if (storage !== undefined) {
            capture = attachSinks(network, storage.engine, (node) => cluster === undefined || cluster.isLocalNode(node.name))
            storage.engine.put(Streams.derived, INDEX_ROWS_KEY, { followsJournals: true })
          }
          // In a cluster only the synchronizers' process submits genesis; the others learn it.
          if (cluster === undefined) {
            yield* Effect.orDie(provide(submitGenesis(network)))
          } else if (cluster.hostsSynchronizers) {
            yield* Effect.orDie(provide(submitGenesis(network, (node) => cluster.isLocalNode(node.name))))
          } else {
            authorizeGenesisParties(network, clock.now, (node) => cluster.isLocalNode(node.name))
          }
          yield* driver.runUntil(clock.now)
        } else {
          const sequencers = storage === undefined ? new Map() : yield* Effect.orDie(readSequencerSnapshots(storage.store, network))
          const replayed = replayJournals(network, source.journals.entries, sequencers, clock.now)
          if (Either.isLeft(replayed)) return yield* replayed.left
          walletJournals = replayed.right.wallets
          // what replay restored is stored already: follow the state from here
          if (storage !== undefined) {
            capture = attachSinks(network, storage.engine, (node) => cluster === undefined || cluster.isLocalNode(node.name))
            capture.clock = source.journals.clock
            // The stored index rows follow every batch. A restore clears the `derived` stream and
            // with it the marker that says so (a store of an older version has none): only then
            // are the rows brought in line with the journals here.
            if (Option.isNone(yield* Effect.orDie(storage.store.getSnapshot(Streams.derived, INDEX_ROWS_KEY)))) {
              const hosted = (node: { readonly name: string }) => cluster === undefined || cluster.isLocalNode(node.name)
              const checks = yield* Effect.orDie(checkIndexRows(storage.store, indexRowsOf(network, hosted), true))
              const repaired = checks.reduce((n, c) => n + c.missing + c.extra + c.differing, 0)
              if (repaired > 0) yield* Effect.logInfo(`the stored ACS and scan indexes were behind the journals: ${repaired} rows rewritten`)
              storage.engine.put(Streams.derived, INDEX_ROWS_KEY, { followsJournals: true })
            }
          }
          yield* provide(Effect.flatMap(Network, (net) => net.sendAll(replayed.right.timers)))
        }
        const wallets: Array<WalletApi> = []
        const dsoAutomations: Array<DsoAutomation> = []
        const instance: EngineInstance = { network, driver, clock, queue, topology, provide, wallets, dsoAutomations, cluster }
        if (capture !== undefined) captures.set(instance, capture)
        /** Wallets and automations start from the ledger state, once genesis is there. */
        const finish = Effect.gen(function* () {
          invariant(dsoReference(network, clock.now) !== undefined, "the genesis transaction must be committed at start")
          if (options.wallets === true) {
            for (const v of network.validators.filter((v) => cluster === undefined || cluster.isLocalNode(v.name))) {
              const { node, automation } = yield* provide(makeWallet(network, v, {
                journal: walletJournals.get(v.name) ?? [],
                automation: options.automation === true,
                ...(options.walletConfig === undefined ? {} : { config: options.walletConfig })
              }))
              if (storage !== undefined) node.journalSink = walletSinkOf(storage.engine, v.name)
              wallets.push(makeWalletApi(node, catchUp(instance), automation))
            }
          }
          if (options.automation === true) {
            dsoAutomations.push(...(yield* provide(startDsoAutomation(network, {}, cluster === undefined ? undefined : (sv) => cluster.isLocalNode(sv.name)))))
          }
        })
        // One process, one network: genesis is done by now. In a cluster the runtime finishes the
        // engine once genesis arrived (it may need the other processes: see awaitClusterGenesis).
        if (cluster === undefined) yield* finish
        return { engine: instance, capture, finish }
      })

    /** The last batch enqueued: an operation that changed nothing still waits for it (it may have read its effects). */
    let lastCommit: Deferred.Deferred<void, JournalCommitFailed> | undefined

    /**
     * Under the lock: journals what the last operation changed and enqueues it; returns what to
     * await. An operation that changed nothing (a read) awaits the last batch instead, so that no
     * answer shows state that a crash could still take back.
     */
    const commitPoint = (engine: EngineInstance): Effect.Effect<Deferred.Deferred<void, JournalCommitFailed> | undefined> =>
      Effect.tap(journalPoint(engine), (done) => {
        // Messages for other processes leave once the state that sent them is stored.
        const messages = engine.cluster?.takeOutbox() ?? []
        return messages.length === 0 ? Effect.void : Queue.offer(outbound, { done, messages })
      })

    const journalPoint = (engine: EngineInstance): Effect.Effect<Deferred.Deferred<void, JournalCommitFailed> | undefined> =>
      Effect.gen(function* () {
        if (storage === undefined) return undefined
        const capture = captures.get(engine)
        if (capture === undefined) return undefined
        const inbox = engine.cluster?.takeInboxCursor()
        if (inbox !== undefined) storage.engine.put(Streams.runtime, INBOX_KEY, inbox)
        collectChanges(engine.network, storage.engine, capture, { offset: yield* Ref.get(offset), now: engine.clock.now })
        if (!storage.engine.pending) return lastCommit
        if (++batches % DERIVED_EVERY === 0) storage.engine.put(Streams.derived, DERIVED_KEY, derivedIndexes(engine.network, storage.engine.lastOrdinal))
        lastCommit = storage.committer.enqueue(storage.engine.drain())
        return lastCommit
      })

    const startTime = yield* engineTime(undefined)
    const first = yield* createEngine(startTime, stored ? { _tag: "Replay", journals: initial } : { _tag: "Genesis" })
    const current = yield* Ref.make(first.engine)
    if (storage !== undefined && !stored) storage.engine.put(Streams.runtime, "config", config)
    yield* awaitCommit(yield* lock.withPermits(1)(commitPoint(first.engine)))

    /** After a failed commit the engine is ahead of the store: rebuild it from the store. */
    const heal: Effect.Effect<void> =
      storage === undefined
        ? Effect.void
        : Effect.gen(function* () {
            if (!(yield* storage.committer.failed)) return
            const journals = yield* Effect.orDie(storage.reload)
            lastCommit = undefined
            const engine = yield* Ref.get(current)
            const rebuilt = yield* Effect.orDie(
              createEngine(yield* engineTime(engine), journals.entries.length > 0 ? { _tag: "Replay", journals } : { _tag: "Genesis" })
            )
            if (rebuilt.engine.cluster !== undefined) {
              yield* awaitGenesis(rebuilt.engine.cluster, rebuilt.engine.network, rebuilt.engine.clock, engineTime(rebuilt.engine))
              yield* rebuilt.finish
            }
            yield* Ref.set(current, rebuilt.engine)
            yield* Effect.logWarning(`the journal write failed; the engine was rebuilt from the store (${journals.entries.length} entries)`)
          })

    const locked = <A, E>(body: (engine: EngineInstance) => Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.flatMap(
        lock.withPermits(1)(
          Effect.uninterruptibleMask((restore) =>
            Effect.gen(function* () {
              yield* heal
              const engine = yield* Ref.get(current)
              const exit = yield* Effect.exit(restore(body(engine)))
              const done = yield* commitPoint(yield* Ref.get(current))
              return [exit, done] as const
            })
          )
        ),
        ([exit, done]) => Effect.zipRight(awaitCommit(done), exit)
      )

    const run = <A, E>(operation: (engine: EngineInstance) => Effect.Effect<A, E, Network | Topology>): Effect.Effect<A, E> =>
      locked((engine) =>
        Effect.gen(function* () {
          yield* catchUp(engine)
          const exit = yield* Effect.exit(engine.provide(operation(engine)))
          // Deliver what the operation set in motion, whether it succeeded or not.
          yield* catchUp(engine)
          return yield* exit
        })
      )

    // A tick never stops the ticker: while the store is down (a commit failed and the engine
    // cannot be rebuilt from the store yet) it says so once and tries again on the next tick.
    let tickFailing = false
    // In a cluster a tick first takes in what the other processes journaled and sent.
    const tick = (engine: EngineInstance): Effect.Effect<void> =>
      engine.cluster === undefined
        ? catchUp(engine)
        : Effect.zipRight(
            engine.cluster.pull(engine.queue).pipe(Effect.catchAll((error) => Effect.logWarning("the cluster transport could not be read; retrying", error))),
            catchUp(engine)
          )
    const ticker = locked(tick).pipe(
      Effect.tap(() => Effect.sync(() => void (tickFailing = false))),
      Effect.catchAllCause((cause) =>
        tickFailing ? Effect.void : Effect.zipRight(Effect.sync(() => void (tickFailing = true)), Effect.logWarning("the engine's tick failed; retrying", cause))
      )
    )
    const fiber = yield* Effect.forkScoped(Effect.repeat(ticker, Schedule.spaced(`${options.tickIntervalMillis ?? 50} millis`)))

    let waker: Fiber.RuntimeFiber<never> | undefined
    if (membership !== undefined) {
      // Messages for this node are taken in as soon as they are committed, not at the next tick;
      // wake-ups that come while a tick runs fold into one more tick.
      const wake = yield* Queue.sliding<void>(1)
      yield* Effect.forkScoped(
        Stream.runForEach(membership.transport.wakeups(membership.node), () => Queue.offer(wake, undefined)).pipe(
          Effect.tapError((error) => Effect.logWarning("the cluster's notifications stopped; listening again (ticks go on meanwhile)", error)),
          Effect.retry(Schedule.spaced("1 second")),
          Effect.ignore
        )
      )
      waker = yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Queue.take(wake), ticker)))
    }

    // A node of a cluster is ready once genesis is in its ledger state: the ticker brings it in
    // (and, in the first super validator's process, the other super validators' confirmations).
    if (first.engine.cluster !== undefined) {
      const cluster = first.engine.cluster
      let genesisCommand = "genesis"
      for (let attempt = 1; ; attempt++) {
        const state = yield* locked((engine) =>
          Effect.sync(() => {
            if (dsoReference(engine.network, engine.clock.now) !== undefined) return "ready" as const
            const sv1 = engine.network.superValidators[0]!
            return cluster.hostsSynchronizers && sv1.participant.logic.completionOf(genesisCommand, [engine.network.dso])?._tag === "Failed" ? ("rejected" as const) : ("waiting" as const)
          })
        )
        if (state === "ready") break
        if (state === "rejected") {
          yield* Effect.logWarning(`the genesis transaction (${genesisCommand}) was rejected: are the other super validators' processes up? Submitting it again`)
          genesisCommand = `genesis-${attempt}`
          const command = genesisCommand
          yield* run((engine) => Effect.orDie(submitGenesisTransaction(engine.network, command)))
        }
        if (attempt === GENESIS_WAIT.attempts) {
          return yield* Effect.dieMessage(`the network's genesis did not arrive in 120 s: start ${cluster.synchronizerHost}'s process and every super validator's`)
        }
        if (attempt % 50 === 0) yield* Effect.logInfo(cluster.hostsSynchronizers ? "waiting for the super validators to confirm the network's genesis" : `waiting for ${cluster.synchronizerHost}'s process to commit the network's genesis`)
        yield* Effect.sleep(GENESIS_WAIT.every)
      }
      yield* locked(() => first.finish)
    }
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Fiber.interrupt(fiber)
        if (waker !== undefined) yield* Fiber.interrupt(waker)
        if (storage === undefined) return
        // Derived indexes at a clean shutdown, so that `sandnet rebuild` can check them.
        yield* lock.withPermits(1)(
          Effect.gen(function* () {
            const engine = yield* Ref.get(current)
            const capture = captures.get(engine)
            if (capture !== undefined) collectChanges(engine.network, storage.engine, capture, { offset: yield* Ref.get(offset), now: engine.clock.now })
            storage.engine.put(Streams.derived, DERIVED_KEY, derivedIndexes(engine.network, storage.engine.lastOrdinal))
            yield* Effect.ignore(Deferred.await(storage.committer.enqueue(storage.engine.drain())))
          })
        )
      })
    )

    /** Replaces the engine streams of the store by `entries` + `snapshots` (nothing: a fresh network) and rebuilds the engine. */
    const replaceNetwork = (
      entries: ReadonlyArray<JournalEntry>,
      snapshots: ReadonlyArray<{ readonly stream: string; readonly key: string; readonly body: unknown }>
    ): Effect.Effect<void, JournalReplayFailed> =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const old = yield* Ref.get(current)
          if (old.cluster !== undefined) {
            return yield* new JournalReplayFailed({ message: "a node of a network spread over processes cannot replace the network on its own (reset or restore every node's schema while they are stopped)" })
          }
          const start = yield* engineTime(old)
          if (storage === undefined) {
            if (entries.length > 0) return yield* new JournalReplayFailed({ message: "restore needs a node with storage" })
            const fresh = yield* createEngine(start, { _tag: "Genesis" })
            yield* Ref.set(current, fresh.engine)
            return
          }
          yield* storage.committer.barrier
          const store = storage.store
          const streams = new Set(yield* Effect.orDie(store.streams()))
          for (const s of config.synchronizers) streams.add(Streams.sequencer(s.name))
          // the stored indexes live in streams of key-value rows only
          for (const node of [...old.network.superValidators, ...old.network.validators]) {
            streams.add(Streams.acsIndex(node.name))
            streams.add(Streams.scanIndex(node.name))
          }
          streams.add(Streams.derived)
          for (const stream of streams) if (isEngineStream(stream) && stream !== Streams.runtime) yield* Effect.orDie(store.resetStream(stream))
          if (entries.length > 0 || snapshots.length > 0) {
            for (let i = 0; i < entries.length; i += 2000) yield* Effect.orDie(store.append(entries.slice(i, i + 2000)))
            yield* Effect.orDie(store.write({ putSnapshots: snapshots.filter((s) => s.stream !== Streams.runtime) }))
          }
          const journals = yield* Effect.orDie(storage.reload)
          lastCommit = undefined
          const rebuilt = yield* createEngine(start, journals.entries.length > 0 ? { _tag: "Replay", journals } : { _tag: "Genesis" })
          yield* Ref.set(current, rebuilt.engine)
          yield* awaitCommit(yield* commitPoint(rebuilt.engine))
        })
      )

    return {
      engine: Ref.get(current),
      run,
      now: Effect.flatMap(Ref.get(current), engineTime),
      advanceTime: (by) =>
        locked((engine) =>
          Effect.gen(function* () {
            invariant(by >= 0, "time only moves forward")
            yield* Ref.update(offset, (o) => o + by)
            yield* catchUp(engine)
            return engine.clock.now
          })
        ),
      reset: Effect.orDie(replaceNetwork([], [])),
      storage: Option.fromNullable(storage),
      restore: replaceNetwork,
      committed: Effect.flatMap(lock.withPermits(1)(Effect.sync(() => lastCommit)), awaitCommit),
      flush:
        storage === undefined
          ? Effect.succeed(0)
          : lock.withPermits(1)(
              Effect.gen(function* () {
                const engine = yield* Ref.get(current)
                yield* awaitCommit(yield* commitPoint(engine))
                yield* storage.committer.barrier
                return storage.engine.lastOrdinal
              })
            )
    }
  })

/** How long a process of a cluster waits for the first super validator's process to commit genesis. */
const GENESIS_WAIT = { attempts: 1200, every: "100 millis" } as const

/**
 * Follows the other nodes' journals until this process's copy of the DSO's contracts holds genesis
 * with a round open by now (the engine's clock follows the live one meanwhile: genesis may be
 * younger than this process).
 */
const awaitGenesis = (cluster: ClusterLink, network: CoinNetwork, clock: ManualClock, now: Effect.Effect<Micros>): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (let attempt = 0; ; attempt++) {
      yield* Effect.catchAll(cluster.follow, (error) => Effect.logWarning("the cluster's journals could not be read; retrying", error))
      const time = yield* now
      if (time > clock.now) clock.advanceTo(time)
      if (dsoReference(network, clock.now) !== undefined) return
      if (attempt === GENESIS_WAIT.attempts) {
        return yield* Effect.dieMessage(`the network's genesis was not found in ${cluster.synchronizerHost}'s journal after 120 s: start that node's process`)
      }
      if (attempt % 50 === 49) yield* Effect.logInfo(`waiting for ${cluster.synchronizerHost}'s process to commit the network's genesis`)
      yield* Effect.sleep(GENESIS_WAIT.every)
    }
  })

/** A runtime without storage (tests, throwaway engines): nothing is persisted. */
export const nodeRuntimeLayer = (options: Omit<NodeRuntimeOptions, "storage"> = {}): Layer.Layer<NodeRuntime> =>
  Layer.scoped(NodeRuntime, Effect.orDie(makeNodeRuntime(options)))

/** A runtime on the NodeStorage in context: resumes from its journals and journals everything. */
export const persistentNodeRuntimeLayer = (
  options: Omit<NodeRuntimeOptions, "storage"> = {}
): Layer.Layer<NodeRuntime, JournalReplayFailed, NodeStorage> =>
  Layer.scoped(NodeRuntime, Effect.flatMap(NodeStorage, (storage) => makeNodeRuntime({ ...options, storage })))

export interface ClusterNodeOptions {
  /** The PostgreSQL server every process of the cluster uses. */
  readonly url: string
  /** The cluster's schema (its mailbox and agreed configuration); node schemas are `<cluster>_<node>`. */
  readonly cluster: string
  /** This process's node ("sv1", "validator2"). */
  readonly node: string
  /** The network's shape, proposed by the first process to start (later ones get the agreed one). */
  readonly superValidators: number
  readonly validators: number
}

/**
 * A runtime for one node of a network spread over processes (cluster.ts) on the NodeStorage in
 * context, which must be the node's own schema (`clusterNodeSchema(cluster, node)`) on the same server.
 */
export const clusterNodeRuntimeLayer = (
  options: Omit<NodeRuntimeOptions, "storage" | "cluster" | "network">,
  cluster: ClusterNodeOptions
): Layer.Layer<NodeRuntime, JournalReplayFailed | StorageError | StoreConfigError, NodeStorage> =>
  Layer.scoped(
    NodeRuntime,
    Effect.gen(function* () {
      const storage = yield* NodeStorage
      const transport = yield* makeClusterTransport({ url: cluster.url, schema: cluster.cluster })
      const proposal: CoinNetworkConfig = {
        ...defaultCoinNetworkConfig,
        name: cluster.cluster,
        superValidators: cluster.superValidators,
        validators: cluster.validators
      }
      const agreed = (yield* transport.agree("network", proposal)) as CoinNetworkConfig
      const stored = storage.initial.entries.length > 0 ? storage.initial.config : undefined
      if (stored !== undefined && JSON.stringify(stored) !== JSON.stringify(agreed)) {
        return yield* new JournalReplayFailed({ message: `the node's stored network configuration is not the cluster's (${cluster.cluster}): was the cluster's schema dropped?` })
      }
      return yield* makeNodeRuntime({
        ...options,
        storage,
        network: agreed,
        cluster: { transport, node: cluster.node, schemaOf: (node) => clusterNodeSchema(cluster.cluster, node) }
      })
    })
  )
