/**
 * The checkpoint's segments: the history's compressed segments are half of a checkpoint's bytes
 * (docs/benchmarks.md, 2026-11-30 late afternoon) and never change once archived, so each is
 * stored once, as a row of its own named by its content's hash (`segment/<sha256>` in the
 * `checkpoint` stream), and a checkpoint names the rows it needs instead of holding their bytes.
 * A checkpoint then serializes and compresses the live state only, and puts only the segments
 * archived since the last one.
 *
 * It is done in V8's serialization itself: `node:v8`'s default serializer hands every typed array
 * to `_writeHostObject`, and a byte array of `MIN_SEGMENT_BYTES` or more is written as an index
 * into the checkpoint's list of segment rows. The engine's images stay plain data and know nothing
 * of this; any byte array that large is stored the same way, and the engine makes the parts of its
 * images that grow with the history and do not change into byte arrays for it (engine
 * history/id-blocks.ts: the scans' update ids, the participants' and wallets' indexes).
 */
import { invariant } from "@sandnet/core"
import { createHash } from "node:crypto"
import * as v8 from "node:v8"

/** Byte arrays of this size or more go to rows of their own: a served node's segments are 10 to 40 KB (a test's small ones 0.7 to 3 KB), a full block of a scan's update ids 64 KB, of an index 40 KB (engine history/id-blocks.ts); the checkpoint's other typed arrays are the segments' entry starts (Uint32Array). */
export const MIN_SEGMENT_BYTES = 512

/** The prefix of the segment rows' keys in the `checkpoint` stream. */
export const SEGMENT_KEY_PREFIX = "segment/"

export const segmentRowKey = (hash: string): string => `${SEGMENT_KEY_PREFIX}${hash}`

/** A segment row's body. */
export interface StoredSegment {
  readonly bytes: string
}

export const storedSegment = (bytes: Buffer): StoredSegment => ({ bytes: bytes.toString("base64") })

/** The bytes of a segment row's body, if it is one. */
export const segmentBytes = (body: unknown): Buffer | undefined =>
  typeof body === "object" && body !== null && typeof (body as Partial<StoredSegment>).bytes === "string" ? Buffer.from((body as StoredSegment).bytes, "base64") : undefined

// the hooks node:v8 documents for subclasses, which @types/node does not declare
declare module "node:v8" {
  interface Serializer {
    _writeHostObject(object: object): void
  }
  interface Deserializer {
    _readHostObject(): unknown
  }
}

const INLINE = 0
const SEGMENT = 1

/** A checkpoint serialized: its bytes, the segment rows it names (in its indexes' order), and the bytes of those not stored yet. */
export interface SerializedWithSegments {
  readonly serialized: Buffer
  readonly segments: ReadonlyArray<string>
  readonly fresh: ReadonlyMap<string, Buffer>
}

class SegmentSerializer extends v8.DefaultSerializer {
  readonly segments: Array<string> = []
  readonly fresh = new Map<string, Buffer>()
  private readonly indexes = new Map<string, number>()

  constructor(private readonly stored: ReadonlySet<string>) {
    super()
  }

  override _writeHostObject(object: object): void {
    if (!(object instanceof Uint8Array) || object.byteLength < MIN_SEGMENT_BYTES) {
      this.writeUint32(INLINE)
      return super._writeHostObject(object)
    }
    const hash = createHash("sha256").update(object).digest("base64url")
    let index = this.indexes.get(hash)
    if (index === undefined) {
      index = this.segments.push(hash) - 1
      this.indexes.set(hash, index)
      if (!this.stored.has(hash)) this.fresh.set(hash, Buffer.from(object.buffer, object.byteOffset, object.byteLength))
    }
    this.writeUint32(SEGMENT)
    this.writeUint32(index)
  }
}

class SegmentDeserializer extends v8.DefaultDeserializer {
  constructor(
    bytes: Buffer,
    private readonly segments: ReadonlyArray<Buffer>
  ) {
    super(bytes)
  }

  override _readHostObject(): unknown {
    if (this.readUint32() === INLINE) return super._readHostObject()
    const index = this.readUint32()
    const segment = this.segments[index]
    invariant(segment !== undefined, () => `the checkpoint names segment ${index} of ${this.segments.length}`)
    return segment
  }
}

/** Serializes `value`, its large byte arrays as segment rows; `stored` are the hashes whose rows the store holds. */
export const serializeWithSegments = (value: unknown, stored: ReadonlySet<string>): SerializedWithSegments => {
  const serializer = new SegmentSerializer(stored)
  serializer.writeHeader()
  serializer.writeValue(value)
  return { serialized: serializer.releaseBuffer(), segments: serializer.segments, fresh: serializer.fresh }
}

/** Reads what `serializeWithSegments` wrote, given the bytes of the segments it names, in order. */
export const deserializeWithSegments = (bytes: Buffer, segments: ReadonlyArray<Buffer>): unknown => {
  const deserializer = new SegmentDeserializer(bytes, segments)
  deserializer.readHeader()
  return deserializer.readValue()
}
