/**
 * @sandnet/store: the durable store of a Sandnet node. Streams of JSON events (append-only,
 * contiguous seq per stream) and a key-value area for snapshots, behind one `EventStore` service
 * with an in-memory layer and a PostgreSQL layer (embedded PGlite by default). See docs/storage.md.
 */
export { EventStore, migratedTemplateDir, newDataDirTemplate, prepareMigratedTemplate, type EmbeddedOptions, type PostgresOptions } from "./EventStore.ts"
export type { EventStoreService } from "./service.ts"
export {
  type JournalEntry,
  MAX_NAME_BYTES,
  type SnapshotEntry,
  type SnapshotRef,
  type StoreStats,
  type WriteBatch,
  compareCodePoints
} from "./model.ts"
export {
  type AppendError,
  DuplicateSequence,
  InvalidEntry,
  PgliteStartupError,
  SequenceGap,
  StorageError,
  StoreClosed,
  StoreConfigError
} from "./errors.ts"
export { makeMemoryBacking, type MemoryBacking } from "./memory.ts"
export { writeNowOf, type WriteNow } from "./sync-write.ts"
export {
  DEFAULT_SCHEMA,
  dropSchema,
  LARGE_BODY_CHARS,
  migrate,
  MIGRATIONS_TABLE,
  type SqlStoreOptions,
  validateSchema
} from "./sql.ts"
export {
  DEFAULT_DATA_DIR,
  defaultTemplateDir,
  EmbeddedPglite,
  type EmbeddedPgliteInfo,
  makeTemplateSpare,
  type PgliteOptions,
  type PgliteOrigin,
  pgliteLayer,
  preparePgliteTemplate,
  templateSpareDir
} from "./pglite.ts"
export { ClusterTransport, dropClusterSchema, makeClusterTransport, type ClusterMessage, type ClusterTransportService, type JournalRead, type OutgoingClusterMessage } from "./cluster.ts"
export { precompilePglite } from "./pglite-wasm.ts"
export {
  type AppendRate,
  benchAppends,
  benchMemory,
  benchPglite,
  benchPostgres,
  benchStore,
  measurePgliteStartup,
  type PgliteStartupResult,
  type PgliteStartupSample,
  type Rate,
  type StoreBenchOptions,
  type StoreBenchResult
} from "./bench.ts"
