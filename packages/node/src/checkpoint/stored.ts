/**
 * The engine checkpoint in the store: one key-value row (`checkpoint/engine`) whose body names
 * what it covers (ordinal, heads) and holds the document as V8's serialization (`node:v8`: Maps,
 * typed arrays and the segments' bytes as they are, where JSON would need a pass over every value
 * to encode them) compressed with Brotli at quality 1 (as the history's segments), in base64.
 *
 * V8's format is versioned and reads older versions; a body that does not decode (another
 * Sandnet's document, a truncated row) is ignored with a warning: the journals are replayed whole.
 */
import * as v8 from "node:v8"
import * as zlib from "node:zlib"
import { SEGMENT_BROTLI } from "@sandnet/engine"
import { Either } from "effect"
import { ENGINE_CHECKPOINT_VERSION, type EngineCheckpoint } from "./engine-checkpoint.ts"

export const CHECKPOINT_KEY = "engine"

const ENCODING = "v8+brotli1+base64"

/** The stored row's body. */
export interface StoredCheckpoint {
  readonly version: number
  readonly encoding: string
  readonly ordinal: number
  readonly heads: ReadonlyArray<readonly [string, number]>
  readonly bytes: string
}

/** A checkpoint taken (serialized: it no longer follows the engine) and not compressed yet. */
export interface SerializedCheckpoint {
  readonly version: number
  readonly ordinal: number
  readonly heads: ReadonlyArray<readonly [string, number]>
  readonly serialized: Buffer
}

/** The synchronous part of a checkpoint's encoding: what must happen between two operations. */
export const serializeCheckpoint = (checkpoint: EngineCheckpoint): SerializedCheckpoint => ({
  version: checkpoint.version,
  ordinal: checkpoint.ordinal,
  heads: checkpoint.heads,
  serialized: v8.serialize(checkpoint)
})

/** The stored body of a serialized checkpoint, given its serialization compressed. */
const storedOf = (taken: SerializedCheckpoint, compressed: Buffer): StoredCheckpoint => ({
  version: taken.version,
  encoding: ENCODING,
  ordinal: taken.ordinal,
  heads: taken.heads,
  bytes: compressed.toString("base64")
})

/** The stored body of a checkpoint, compressed in the call (a clean shutdown, the tests). */
export const encodeCheckpoint = (checkpoint: EngineCheckpoint): StoredCheckpoint => {
  const taken = serializeCheckpoint(checkpoint)
  return storedOf(taken, zlib.brotliCompressSync(taken.serialized, SEGMENT_BROTLI))
}

/**
 * The stored body of a serialized checkpoint, compressed in zlib's thread pool: `done` is called on
 * the event loop with the body, or with nothing if the compression failed (the checkpoint is
 * skipped; the next one is due as scheduled). The compression was half of a checkpoint's time on the
 * event loop (docs/benchmarks.md, 2026-11-30 late afternoon).
 */
export const compressCheckpoint = (taken: SerializedCheckpoint, done: (stored: StoredCheckpoint | undefined) => void): void =>
  zlib.brotliCompress(taken.serialized, SEGMENT_BROTLI, (error, compressed) => done(error === null ? storedOf(taken, compressed) : undefined))

/** The document of a stored body, or why it cannot be used. */
export const decodeCheckpoint = (body: unknown): Either.Either<EngineCheckpoint, string> => {
  if (typeof body !== "object" || body === null) return Either.left("the stored checkpoint is not an object")
  const stored = body as Partial<StoredCheckpoint>
  if (stored.version !== ENGINE_CHECKPOINT_VERSION) return Either.left(`a checkpoint of version ${String(stored.version)} (this node reads ${ENGINE_CHECKPOINT_VERSION})`)
  if (stored.encoding !== ENCODING || typeof stored.bytes !== "string") return Either.left(`a checkpoint encoded as ${String(stored.encoding)}`)
  try {
    const checkpoint = v8.deserialize(zlib.brotliDecompressSync(Buffer.from(stored.bytes, "base64"))) as EngineCheckpoint
    if (checkpoint.version !== ENGINE_CHECKPOINT_VERSION || checkpoint.ordinal !== stored.ordinal) return Either.left("the checkpoint's document does not match its row")
    return Either.right(checkpoint)
  } catch (error) {
    return Either.left(`the checkpoint does not decode: ${error instanceof Error ? error.message : String(error)}`)
  }
}
