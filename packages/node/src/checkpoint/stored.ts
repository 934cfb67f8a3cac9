/**
 * The engine checkpoint in the store: one key-value row (`checkpoint/engine`) whose body names
 * what it covers (ordinal, heads) and the segment rows it needs (segments.ts), and holds the
 * document as V8's serialization (`node:v8`: Maps, typed arrays as they are, where JSON would need
 * a pass over every value to encode them) compressed with Brotli at quality 1 (as the history's
 * segments), in base64. The history's compressed segments are not in it: they are rows of their
 * own, each put once.
 *
 * V8's format is versioned and reads older versions; a body that does not decode (another
 * Sandnet's document, a truncated row, a segment row missing) is ignored with a warning: the
 * journals are replayed whole.
 */
import * as zlib from "node:zlib"
import { SEGMENT_BROTLI } from "@sandnet/engine"
import { Either } from "effect"
import { ENGINE_CHECKPOINT_VERSION, type EngineCheckpoint } from "./engine-checkpoint.ts"
import { deserializeWithSegments, serializeWithSegments } from "./segments.ts"

export const CHECKPOINT_KEY = "engine"

const ENCODING = "v8+segments+brotli1+base64"

/** The stored row's body. */
export interface StoredCheckpoint {
  readonly version: number
  readonly encoding: string
  readonly ordinal: number
  readonly heads: ReadonlyArray<readonly [string, number]>
  /** The hashes of the segment rows it needs, in the order its serialization names them. */
  readonly segments: ReadonlyArray<string>
  readonly bytes: string
}

/** A checkpoint taken (serialized: it no longer follows the engine) and not compressed yet. */
export interface SerializedCheckpoint {
  readonly version: number
  readonly ordinal: number
  readonly heads: ReadonlyArray<readonly [string, number]>
  readonly serialized: Buffer
  /** The segment rows it needs (`StoredCheckpoint.segments`). */
  readonly segments: ReadonlyArray<string>
  /** The bytes of those of its segments that were not stored when it was taken. */
  readonly fresh: ReadonlyMap<string, Buffer>
}

/**
 * The synchronous part of a checkpoint's encoding: what must happen between two operations.
 * `stored` are the hashes of the segment rows the store holds (or will, with the batches enqueued).
 */
export const serializeCheckpoint = (checkpoint: EngineCheckpoint, stored: ReadonlySet<string>): SerializedCheckpoint => ({
  version: checkpoint.version,
  ordinal: checkpoint.ordinal,
  heads: checkpoint.heads,
  ...serializeWithSegments(checkpoint, stored)
})

/** The stored body of a serialized checkpoint, given its serialization compressed. */
const storedOf = (taken: SerializedCheckpoint, compressed: Buffer): StoredCheckpoint => ({
  version: taken.version,
  encoding: ENCODING,
  ordinal: taken.ordinal,
  heads: taken.heads,
  segments: taken.segments,
  bytes: compressed.toString("base64")
})

/** The stored body of a serialized checkpoint, compressed in the call (a clean shutdown, the tests). */
export const compressCheckpointNow = (taken: SerializedCheckpoint): StoredCheckpoint => storedOf(taken, zlib.brotliCompressSync(taken.serialized, SEGMENT_BROTLI))

/**
 * The stored body of a serialized checkpoint, compressed in zlib's thread pool: `done` is called on
 * the event loop with the body, or with nothing if the compression failed (the checkpoint is
 * skipped; the next one is due as scheduled). The compression was half of a checkpoint's time on the
 * event loop (docs/benchmarks.md, 2026-11-30 late afternoon).
 */
export const compressCheckpoint = (taken: SerializedCheckpoint, done: (stored: StoredCheckpoint | undefined) => void): void =>
  zlib.brotliCompress(taken.serialized, SEGMENT_BROTLI, (error, compressed) => done(error === null ? storedOf(taken, compressed) : undefined))

/**
 * The document of a stored body, or why it cannot be used. `segment` gives the bytes of a segment
 * row by hash, if the store holds it.
 */
export const decodeCheckpoint = (body: unknown, segment: (hash: string) => Buffer | undefined): Either.Either<EngineCheckpoint, string> => {
  if (typeof body !== "object" || body === null) return Either.left("the stored checkpoint is not an object")
  const stored = body as Partial<StoredCheckpoint>
  if (stored.version !== ENGINE_CHECKPOINT_VERSION) return Either.left(`a checkpoint of version ${String(stored.version)} (this node reads ${ENGINE_CHECKPOINT_VERSION})`)
  if (stored.encoding !== ENCODING || typeof stored.bytes !== "string" || !Array.isArray(stored.segments)) return Either.left(`a checkpoint encoded as ${String(stored.encoding)}`)
  const segments: Array<Buffer> = []
  for (const hash of stored.segments) {
    const bytes = segment(hash)
    if (bytes === undefined) return Either.left(`its segment row ${hash} is missing`)
    segments.push(bytes)
  }
  try {
    const serialized = zlib.brotliDecompressSync(Buffer.from(stored.bytes, "base64"))
    const checkpoint = deserializeWithSegments(serialized, segments) as EngineCheckpoint
    if (checkpoint.version !== ENGINE_CHECKPOINT_VERSION || checkpoint.ordinal !== stored.ordinal) return Either.left("the checkpoint's document does not match its row")
    return Either.right(checkpoint)
  } catch (error) {
    return Either.left(`the checkpoint does not decode: ${error instanceof Error ? error.message : String(error)}`)
  }
}
