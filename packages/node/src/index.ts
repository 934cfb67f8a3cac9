/**
 * @sandnet/node: the running node without its HTTP surfaces. The engine runtime (lock, ticker,
 * commit pipeline, healing after a failed commit), the journals that make it durable (recorder,
 * committer, capture, replay), the indexes derived from them, the storage it runs on, network
 * snapshots, and this process's side of a network spread over processes. See docs/storage.md.
 */

// The runtime
export { NodeRuntime, type EngineInstance, type NodeRuntimeOptions, type NodeRuntimeService, type ReadNow } from "./runtime/service.ts"
export { makeNodeRuntime } from "./runtime/runtime.ts"
export { LOCALNET_TRAFFIC_TOPUP, servingWalletConfig } from "./runtime/wallet-config.ts"
export { ADVANCE_NORMAL_PACE_MICROS, ADVANCE_STEP_MICROS } from "./runtime/advance.ts"
export { AdvanceFailed, AdvanceIdReused, NodeShuttingDown, type AdvanceError, type AdvanceOptions, type AdvanceResult } from "./runtime/advance-errors.ts"
export { ENGINE_OPERATION_PRIORITY, NODE_SCHEDULER_MAX_QUEUED_TASKS, NODE_SCHEDULER_SLICE_MILLIS, nodeScheduler, TimeSlicedScheduler } from "./runtime/scheduler.ts"
export { clusterNodeRuntimeLayer, nodeRuntimeLayer, persistentNodeRuntimeLayer, type ClusterNodeOptions } from "./runtime/layers.ts"

// The journals
export { isEngineStream, Streams, type JournalBody } from "./journal/streams.ts"
export { JournalCommitFailed, JournalReplayFailed } from "./journal/errors.ts"
export { decodeBinary, encodeBinary, type ExternalPartyRegistered, type LedgerEvent, type PackagesUploaded } from "./journal/ledger-events.ts"
export type { ClockState, SequencerSnapshot } from "./journal/runtime-state.ts"
export { JournalRecorder } from "./journal/recorder.ts"
export { makeJournalCommitter, mergeBatches, type JournalCommitter } from "./journal/committer.ts"
export { attachSinks, collectChanges, walletSinkOf, type CaptureState } from "./journal/capture.ts"
export { readJournals, readSequencerSnapshots, type StoredJournals } from "./journal/read.ts"
export { replayJournals, replayNetwork, type ReplayResult } from "./journal/replay.ts"
export { engineCheckpointOf, ENGINE_CHECKPOINT_VERSION, restoreEngineCheckpoint, type EngineCheckpoint } from "./checkpoint/engine-checkpoint.ts"
export { CHECKPOINT_EVERY } from "./checkpoint/record.ts"

// Indexes
export { DERIVED_KEY, derivedIndexes, type DerivedIndexes } from "./indexes/derived.ts"
export { checkIndexRows, indexRowsOf, type IndexRowCheck, type ScanIndexRow } from "./indexes/rows.ts"

// Storage
export { type InitialJournals, makeNodeStorage, NodeStorage, nodeStorageLayer, nodeStorageLayerWith, type NodeStorageOptions, type NodeStorageService } from "./storage/node-storage.ts"
export { storedUserManagementLayer } from "./storage/users.ts"
export { historySpillDirOf, schemaForNode, StorageInfo, storageLayer, type StorageChoice, type StorageDescription } from "./storage/choice.ts"
export { SpilledSegments } from "./runtime/history-spill.ts"

// Network snapshots
export { decodeArchive, encodeArchive, InvalidSnapshotArchive, SNAPSHOT_FORMAT, snapshotIdOf, type NetworkSnapshot } from "./snapshots/archive.ts"
export { exportNetwork } from "./snapshots/export.ts"
export { importNetwork } from "./snapshots/import.ts"
export { storedArchive, storedSnapshots, storeSnapshot, type StoredSnapshotInfo } from "./snapshots/stored.ts"

// A network spread over processes
export { ClusterLink } from "./cluster/link.ts"
export { clusterNodeSchema, type ClusterMembership } from "./cluster/membership.ts"
export { ClusterShapeMismatch, SHAPE_DECIDER } from "./cluster/shape.ts"
