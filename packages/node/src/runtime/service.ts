/**
 * The node's engine runtime as a service: the deterministic engine driven by the live clock. It
 * owns one coin network (super validators, validators, synchronizers on a zero-delay in-process
 * network), a ticker that delivers what falls due (mediator deadlines, automations, rounds) and a
 * lock so that every engine operation (an HTTP command, a tick) runs alone and runs to completion.
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
 * rebuilds the engine from what the store holds. Reads (`read`) take no lock: they wait only for
 * the operation running, if any, and for the commit of what they saw (read.ts). On start, stored journals are replayed into a
 * fresh engine instead of running genesis (journal/replay.ts). The implementation: runtime.ts.
 */
import type { Micros } from "@sandnet/core"
import type {
  ArchivedLogLimits,
  CoinNetwork,
  CoinNetworkConfig,
  Driver,
  DsoAutomation,
  EventQueueNetwork,
  ManualClock,
  Network,
  Topology,
  TopologyState,
  WalletApi,
  WalletConfig
} from "@sandnet/engine"
import type { JournalEntry } from "@sandnet/store"
import { Context, type Effect, type Option } from "effect"
import type { ClusterLink } from "../cluster/link.ts"
import type { ClusterMembership } from "../cluster/membership.ts"
import type { JournalReplayFailed } from "../journal/errors.ts"
import type { NodeStorageService } from "../storage/node-storage.ts"
import type { AdvanceError, AdvanceOptions, AdvanceResult } from "./advance-errors.ts"

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
  /**
   * Ledger time per step of a time advance (default and at most in use: ADVANCE_STEP_MICROS, an
   * hour). `sandnet bench` sets it to the whole jump to measure the one-shot advance as a baseline.
   */
  readonly advanceStepMicros?: Micros | undefined
  /** Run the automations (DSO rounds, wallets' automations). Default false. */
  readonly automation?: boolean
  /** The wallets' configuration (docs/wallet-config.md); default `defaultWalletConfig`. */
  readonly walletConfig?: WalletConfig | undefined
  /**
   * A network spread over processes (cluster/link.ts): this process owns one node of it. Its wallet and
   * automations are the only ones it runs; genesis runs in the first super validator's process.
   */
  readonly cluster?: ClusterMembership | undefined
  /**
   * A directory where the node spills its archived history (history-spill.ts): a node with a
   * database sets it (storage/choice.ts, `historySpillDirOf`). Without it, archived history stays
   * compressed in memory.
   */
  readonly historySpillDir?: string | undefined
  /** How much history stays as objects (default `SERVING_ARCHIVE_LIMITS`; tests archive sooner). */
  readonly historyLimits?: Omit<ArchivedLogLimits, "keeper"> | undefined
  /** Journal entries between two engine checkpoints, at least (default `CHECKPOINT_EVERY`; 0: none; checkpoint/record.ts). */
  readonly checkpointEvery?: number | undefined
  /** Whether a node that went idle writes a checkpoint sooner (default true; checkpoint/record.ts `CheckpointSchedule`). */
  readonly idleCheckpoints?: boolean | undefined
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
  /**
   * Runs an operation that changes nothing (a read) on the engine as the last operation left it,
   * without the lock: it never waits for queued operations, only for the one running, and it
   * answers once what it saw is committed (read.ts). Nothing falling due is delivered first (the
   * ticker does that).
   */
  readonly read: <A, E>(operation: (engine: EngineInstance) => Effect.Effect<A, E, Network | Topology>) => Effect.Effect<A, E>
  /**
   * `read` as a plain function, without a fiber (the HTTP node's read routes): `read` runs on the
   * engine as the last operation left it (at once, or when the running operation ends) and `answer`
   * gets its result once what it saw is committed. When the node cannot answer that way (shutting
   * down, a failed commit to heal first, `read` threw) `otherwise` is called instead: take `read`.
   */
  readonly readNow: ReadNow
  /** The engine's current time (live time plus the developer's offset). */
  readonly now: Effect.Effect<Micros>
  /**
   * Moves ledger time forward and delivers everything that falls due, in steps of at most an hour
   * of ledger time with the event loop running between them; all or nothing, idempotent with an
   * `advanceId` (advance.ts).
   */
  readonly advanceTime: (by: Micros, options?: AdvanceOptions) => Effect.Effect<AdvanceResult, AdvanceError>
  /** From now on the node is shutting down: a running advance stops after its step, requests are refused (503). */
  readonly beginShutdown: Effect.Effect<void>
  readonly shuttingDown: Effect.Effect<boolean>
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

/** Runs `read` on the engine and hands its result to `answer` once committed, or calls `otherwise` (read-now.ts). */
export type ReadNow = <A>(read: (engine: EngineInstance) => A, answer: (value: A) => void, otherwise: () => void) => void

export class NodeRuntime extends Context.Tag("@sandnet/node/NodeRuntime")<NodeRuntime, NodeRuntimeService>() {}
