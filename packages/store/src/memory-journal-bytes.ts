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
 *
 * A segment is compressed in zlib's thread pool, not on the event loop: a megabyte took 4 to 5 ms,
 * and every request waiting behind the write that sealed it waited that long (the load bench's
 * reads p99; `node --cpu-prof` of `sandnet bench --only load`). Until its compression is done a
 * segment keeps its bytes as they are and is read from them.
 */
import * as zlib from "node:zlib"
import { partitionPoint } from "@sandnet/core"

/** Uncompressed bytes gathered before they are compressed as one segment. */
export const SEGMENT_BYTES = 1 << 20

interface Segment {
  /** The segment's bytes while their compression runs; then undefined. */
  plain: Buffer | undefined
  /** The compressed bytes, once compressed. */
  compressed: Buffer | undefined
  readonly size: number
}

const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }

/**
 * The journal's bytes as one sequence: a write's bytes are the range `add` returns the start of,
 * and a text is read by its range. No object per write or per entry: a 5-minute soak's heap diff
 * charged 1 KB per transaction to the objects that pointed at the bytes.
 */
export class JournalBytes {
  private readonly segments: Array<Segment> = []
  /** Where each segment's bytes start in the journal. */
  private readonly segmentStarts: Array<number> = []
  /** The writes not yet compressed, and where each starts in the journal. */
  private pending: Array<Buffer> = []
  private pendingStarts: Array<number> = []
  /** The journal's length in bytes. */
  private size = 0
  private inflated: { readonly segment: Segment; readonly bytes: Buffer } | undefined = undefined

  /** Keeps a write's buffer (its entries' JSON); returns where its bytes start in the journal. */
  add(buffer: Buffer): number {
    const start = this.size
    this.pending.push(buffer)
    this.pendingStarts.push(start)
    this.size += buffer.length
    if (this.pendingSize() >= SEGMENT_BYTES) this.seal()
    return start
  }

  /** The text at [start, end) of the journal (within one write's bytes). */
  text(start: number, end: number): string {
    const pendingFrom = this.pendingStarts[0] ?? this.size
    if (start >= pendingFrom) {
      const i = lastAtOrBefore(this.pendingStarts, start)
      const at = this.pendingStarts[i]!
      return this.pending[i]!.toString("utf8", start - at, end - at)
    }
    const n = lastAtOrBefore(this.segmentStarts, start)
    const from = this.segmentStarts[n]!
    return this.inflate(this.segments[n]!).toString("utf8", start - from, end - from)
  }

  /** Bytes of the writes not yet compressed. */
  private pendingSize(): number {
    return this.size - (this.pendingStarts[0] ?? this.size)
  }

  private seal(): void {
    const bytes = Buffer.concat(this.pending, this.pendingSize())
    const segment: Segment = { plain: bytes, compressed: undefined, size: bytes.length }
    this.segments.push(segment)
    this.segmentStarts.push(this.pendingStarts[0]!)
    this.pending = []
    this.pendingStarts = []
    // A segment whose compression fails keeps its bytes as they are (only memory is lost).
    zlib.brotliCompress(bytes, BROTLI, (error, compressed) => {
      if (error !== null) return
      segment.compressed = compressed
      segment.plain = undefined
    })
  }

  /** Segments still being compressed (their bytes held as they are). */
  get compressing(): number {
    return this.segments.reduce((n, segment) => (segment.plain === undefined ? n : n + 1), 0)
  }

  private inflate(segment: Segment): Buffer {
    if (segment.plain !== undefined) return segment.plain
    if (this.inflated?.segment === segment) return this.inflated.bytes
    const bytes = zlib.brotliDecompressSync(segment.compressed!)
    if (bytes.length !== segment.size) throw new Error(`a journal segment inflated to ${bytes.length} bytes, not ${segment.size}`)
    this.inflated = { segment, bytes }
    return bytes
  }
}

/** The index of the last of the increasing `starts` that is at most `at` (there is one). */
const lastAtOrBefore = (starts: ReadonlyArray<number>, at: number): number => partitionPoint(starts.length, (i) => starts[i]! <= at) - 1
