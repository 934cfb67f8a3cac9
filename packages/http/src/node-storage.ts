/**
 * `NodeStorage`: a node's durable storage as the runtime and user management use it: the
 * EventStore, what it held when the node started, the recorders that turn journal sinks into
 * entries (one for the engine, one for user management) and the committer that writes them in
 * order with group commit. `sandnet start` builds it over the EventStore layer it picked (PGlite,
 * PostgreSQL or memory); the runtime then replays `initial` instead of running genesis.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Admin } from "@sandnet/engine"
import {
  EmbeddedPglite,
  EventStore,
  type EventStoreService,
  type PgliteStartupError,
  StorageError,
  StoreConfigError,
  validateSchema
} from "@sandnet/store"
import { Context, Deferred, Effect, Layer, Redacted, Schema } from "effect"
import {
  type JournalCommitFailed,
  type JournalCommitter,
  JournalRecorder,
  type JournalReplayFailed,
  makeJournalCommitter,
  readJournals,
  type StoredJournals,
  Streams
} from "./persistence.ts"

export interface NodeStorageService {
  readonly store: EventStoreService
  /** The journals as they were when the node started. */
  readonly initial: StoredJournals
  /** Entries of the engine's streams (collected during an engine operation, drained after it). */
  readonly engine: JournalRecorder
  /** Entries of user management (`admin`). */
  readonly admin: JournalRecorder
  readonly committer: JournalCommitter
  /**
   * After a failed commit or a reset: waits for the commits in flight, reads the journals again
   * and points both recorders at the store's heads. Returns what the store holds.
   */
  readonly reload: Effect.Effect<StoredJournals, StorageError | JournalReplayFailed>
}

export class NodeStorage extends Context.Tag("@sandnet/http/NodeStorage")<NodeStorage, NodeStorageService>() {}

const withoutAdmin = (heads: ReadonlyMap<string, number>) => new Map([...heads].filter(([s]) => s !== Streams.admin))
const onlyAdmin = (heads: ReadonlyMap<string, number>) => new Map([...heads].filter(([s]) => s === Streams.admin))

export const makeNodeStorage = (store: EventStoreService) =>
  Effect.gen(function* () {
    const initial = yield* readJournals(store)
    const engine = new JournalRecorder(withoutAdmin(initial.heads), initial.lastOrdinal)
    const admin = new JournalRecorder(onlyAdmin(initial.heads), 0)
    const committer = yield* makeJournalCommitter(store)
    const reload = Effect.gen(function* () {
      yield* committer.barrier
      const stored = yield* readJournals(store)
      engine.reload(withoutAdmin(stored.heads), stored.lastOrdinal)
      admin.reload(onlyAdmin(stored.heads), 0)
      yield* committer.healed
      return stored
    })
    const service: NodeStorageService = { store, initial, engine, admin, committer, reload }
    return service
  })

/** NodeStorage over the EventStore in context. */
export const nodeStorageLayer: Layer.Layer<NodeStorage, StorageError | JournalReplayFailed, EventStore> = Layer.scoped(
  NodeStorage,
  Effect.flatMap(EventStore, makeNodeStorage)
)

/** Waits for a commit; a failed one fails the caller as a defect (the request answers 500). */
export const awaitCommit = (done: Deferred.Deferred<void, JournalCommitFailed> | undefined): Effect.Effect<void> =>
  done === undefined ? Effect.void : Effect.orDie(Deferred.await(done))

/** User management's journal in the store: each change is committed before it takes effect. */
export const adminJournalLayer: Layer.Layer<Admin.AdminJournal, never, NodeStorage> = Layer.effect(
  Admin.AdminJournal,
  Effect.map(NodeStorage, (storage) => ({
    append: (events: ReadonlyArray<Admin.AdminEvent>) =>
      Effect.suspend(() => {
        for (const event of events) storage.admin.record(Streams.admin, event._tag, Schema.encodeSync(Admin.AdminEvent)(event))
        return awaitCommit(storage.committer.enqueue(storage.admin.drain()))
      })
  }))
)

/** User management restored from the stored `admin` journal, journaling to it. */
export const storedUserManagementLayer = (
  options?: Admin.UserManagementOptions
): Layer.Layer<Admin.UserManagement, never, NodeStorage> =>
  Layer.unwrapEffect(
    Effect.map(NodeStorage, (storage) =>
      Admin.UserManagement.layerFrom(storage.initial.admin, options).pipe(Layer.provide(adminJournalLayer))
    )
  )

// ---------------------------------------------------------------------------------------------
// Which store a node runs on
// ---------------------------------------------------------------------------------------------

export type StorageChoice =
  /** A throwaway node: everything is lost when the process ends. */
  | { readonly _tag: "memory" }
  /** The embedded default: PGlite in `dataDir`. */
  | { readonly _tag: "pglite"; readonly dataDir: string }
  /** A PostgreSQL server, in the node's own schema. */
  | { readonly _tag: "postgres"; readonly url: string; readonly schema: string }

/** What the node says about its storage when ready. */
export interface StorageDescription {
  readonly text: string
}

export class StorageInfo extends Context.Tag("@sandnet/http/StorageInfo")<StorageInfo, StorageDescription>() {}

/** A schema name from a node name: lowercase letters, digits and `_` (e.g. "SV-1" -> "sv_1"). */
export const schemaForNode = (nodeName: string): string => {
  const cleaned = nodeName.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 63)
  if (cleaned === "") return "sandnet"
  return /^[0-9]/.test(cleaned) ? `n_${cleaned}`.slice(0, 63) : cleaned
}

const redactUrl = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@")

/** The advisory lock key of a node schema (one process per schema). */
const lockKey = (schema: string) => `sandnet-node:${schema}`

/**
 * Holds a PostgreSQL session-level advisory lock on the schema for as long as the scope lives, on
 * a connection of its own: a second node process on the same schema is refused at start.
 */
export const lockPostgresSchema = (url: string, schema: string): Effect.Effect<void, StoreConfigError | StorageError, import("effect/Scope").Scope> =>
  Effect.gen(function* () {
    const client = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1, applicationName: `sandnet-lock-${schema}` }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError((e) => new StorageError({ operation: "connect", message: `${e.message}${e.cause instanceof Error ? `: ${e.cause.message}` : ""}` }))
    )
    const connection = yield* client.reserve.pipe(Effect.mapError((e) => new StorageError({ operation: "lock", message: e.message })))
    const rows = yield* connection
      .executeValues(`SELECT pg_try_advisory_lock(hashtext($1)::bigint)`, [lockKey(schema)])
      .pipe(Effect.mapError((e) => new StorageError({ operation: "lock", message: e.message })))
    const locked = rows[0]?.[0] === true
    if (!locked) {
      return yield* new StoreConfigError({
        option: "schema",
        message: `schema "${schema}" is in use by another Sandnet node process on this PostgreSQL server (choose another --schema or --node-name)`
      })
    }
  })

/** The EventStore (and what to print about it) for a storage choice. */
export const storageLayer = (
  choice: StorageChoice
): Layer.Layer<EventStore | StorageInfo, StorageError | StoreConfigError | PgliteStartupError> => {
  switch (choice._tag) {
    case "memory":
      return Layer.merge(EventStore.memory, Layer.succeed(StorageInfo, { text: "in memory (nothing is kept when the process ends)" }))
    case "pglite": {
      const store = EventStore.pglite({ dataDir: choice.dataDir })
      return Layer.merge(
        store,
        Layer.effect(
          StorageInfo,
          Effect.map(EmbeddedPglite, (info) => ({
            text: `PGlite in ${info.dataDir} (${info.origin === "existing" ? "reopened" : info.origin === "initdb" ? "initialised" : "new, from the template"}, ${(info.timings.totalMs / 1000).toFixed(2)} s)`
          }))
        ).pipe(Layer.provide(store))
      )
    }
    case "postgres": {
      const lock = Layer.scopedDiscard(Effect.flatMap(validateSchema(choice.schema), (schema) => lockPostgresSchema(choice.url, schema)))
      const store = EventStore.postgres({ url: choice.url, schema: choice.schema })
      return Layer.merge(store, Layer.succeed(StorageInfo, { text: `PostgreSQL ${redactUrl(choice.url)}, schema ${choice.schema}` })).pipe(
        Layer.provide(lock)
      )
    }
  }
}
