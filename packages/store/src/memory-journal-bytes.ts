/**
 * The memory store's journal bytes, kept compressed. Each write's entries are UTF-8 JSON in one
 * buffer of their own; once the writes not yet compressed reach SEGMENT_BYTES, they are joined into
 * one segment and compressed with Brotli at quality 1. Why: a serving `--in-memory` node keeps its
 * whole journal (snapshots and restores are made of it), and in a 5-minute soak of the mixed wallet
 * load (`sandnet bench --only memory`) that was 19.8 KB of external memory per transaction, two
 * thirds of the RSS it grew by. Measured on 14.2 MB of a node's journal: 17.9x smaller in 1 MB
 * segments, at 6 µs of CPU per 7.4 KB (one W1 offer's entries); per write (20 KB) only 7.1x.
 *
 * Reads are rare (a snapshot, a reload after a reset): a read of a compressed write inflates its
 * segment, and the last segment inflated is kept, so reading a stream in order inflates each
 * segment about once.
 */
import * as zlib from "node:zlib"

/** Uncompressed bytes gathered before they are compressed as one segment. */
export const SEGMENT_BYTES = 1 << 20

interface Segment {
  readonly compressed: Buffer
  readonly size: number
}

/** One write's bytes: its own buffer until compressed, then a range of a segment. */
export interface WriteBytes {
  buffer: Buffer | undefined
  segment: Segment | undefined
  /** Where this write's bytes start in its segment's uncompressed bytes. */
  offset: number
}

const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }

export class JournalBytes {
  private pending: Array<WriteBytes> = []
  private pendingSize = 0
  private inflated: { readonly segment: Segment; readonly bytes: Buffer } | undefined = undefined

  /** Keeps a write's buffer (its entries' JSON); the entries read their text through the returned handle. */
  add(buffer: Buffer): WriteBytes {
    const write: WriteBytes = { buffer, segment: undefined, offset: 0 }
    this.pending.push(write)
    this.pendingSize += buffer.length
    if (this.pendingSize >= SEGMENT_BYTES) this.seal()
    return write
  }

  /** The text at [start, end) of a write's bytes. */
  text(write: WriteBytes, start: number, end: number): string {
    if (write.buffer !== undefined) return write.buffer.toString("utf8", start, end)
    const bytes = this.inflate(write.segment!)
    return bytes.toString("utf8", write.offset + start, write.offset + end)
  }

  private seal(): void {
    const buffers = this.pending.map((w) => w.buffer!)
    const bytes = Buffer.concat(buffers, this.pendingSize)
    const segment: Segment = { compressed: zlib.brotliCompressSync(bytes, BROTLI), size: bytes.length }
    let offset = 0
    for (const write of this.pending) {
      const length = write.buffer!.length
      write.segment = segment
      write.offset = offset
      write.buffer = undefined
      offset += length
    }
    this.pending = []
    this.pendingSize = 0
  }

  private inflate(segment: Segment): Buffer {
    if (this.inflated?.segment === segment) return this.inflated.bytes
    const bytes = zlib.brotliDecompressSync(segment.compressed)
    if (bytes.length !== segment.size) throw new Error(`a journal segment inflated to ${bytes.length} bytes, not ${segment.size}`)
    this.inflated = { segment, bytes }
    return bytes
  }
}
