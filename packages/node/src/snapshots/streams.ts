/** Which streams of a node's store a network snapshot holds, and where the node keeps its snapshots. */
import { isEngineStream, Streams } from "../journal/streams.ts"

/** Stream whose key-value area keeps the stored snapshot archives (base64); never reset. */
export const SNAPSHOT_STREAM = "sandnet-snapshots"

/** The engine's streams but the stored archives and the derived indexes (recomputed from the journals). */
export const isSnapshotStream = (stream: string) => isEngineStream(stream) && stream !== SNAPSHOT_STREAM && stream !== Streams.derived
