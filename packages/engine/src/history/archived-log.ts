/**
 * An append-only log of history (a participant's committed updates and completions, a scan's
 * updates and verdicts) whose older entries are kept compressed. The newest entries stay objects;
 * once `hotEntries + segmentEntries` of them are held, the oldest `segmentEntries` are due: each
 * is written as JSON, the texts are joined, and the bytes compressed with Brotli at quality 1 into
 * a segment that remembers where each entry's text starts.
 *
 * Why: history is most of what a serving node keeps. A heap snapshot diff of the soak (`sandnet
 * bench --only memory`) charged 3.8 KB per transaction to the participants' update logs alone,
 * against issue 13's 2 KB for the whole node; a segment is about 10 times smaller than its JSON
 * (about 180 bytes an update entry: the hex of ids and hashes does not shrink much).
 *
 * A read of an archived entry inflates its segment and parses that entry alone; the last two
 * segments inflated and the last 64 entries parsed are kept, so that reading in order (a stream of
 * updates, a replaying reader) inflates each segment once and an old event looked up again is not
 * parsed again. An archived entry reads back as an equal copy of the one pushed (entries are JSON:
 * what the journal stores of them), never that object: nothing may hold history entries by
 * identity.
 *
 * Where the compressed segments live is the owner's choice (`SegmentKeeper`): in memory by
 * default; a node with a database spills them to a file (node runtime/history-spill.ts), so its
 * memory keeps only where each segment is. How they are compressed is its choice too
 * (`SegmentCompressor`): here, at once; a serving node compresses in zlib's thread pool (node
 * runtime/segment-compressor.ts), and a log's oldest segment is then archived when its compression
 * is done. Until then its entries stay objects and read as before; one segment of a log is
 * compressed at a time, and a `push` past the log's bound compresses a waiting one at once. A
 * serving node also writes a segment's JSON a few entries per turn (`archiveStep`), so that no
 * turn of its event loop holds a whole segment's JSON (3 to 10 ms under load).
 *
 * A simulation keeps everything as objects (`NEVER_ARCHIVE`, the default): its invariant checks
 * and history hash read every log whole and look updates up across logs, and a run is short (with
 * the serving limits smoke took 15 s instead of 2 to 4). A serving node, which lives long and
 * reads its history rarely, archives (`SERVING_ARCHIVE_LIMITS`), step by step beside its ticks (`archiveStep`).
 */
import * as zlib from "node:zlib"
import { invariant } from "@sandnet/core"

export interface ArchivedLogLimits {
  /** The newest entries kept as objects. */
  readonly hotEntries: number
  /** Entries compressed together into one segment. */
  readonly segmentEntries: number
  /**
   * When set, `push` leaves archiving to `archiveDue` until this many entries beyond `hotEntries`
   * are held: a serving node archives beside its ticks, off the path of the operation that pushed,
   * and past this bound `push` archives anyway (a restart's replay holds the log instead: `hold`).
   */
  readonly deferUpTo?: number
  /** Where compressed segments are kept (default: in memory, `keepSegmentsInMemory`). */
  readonly keeper?: SegmentKeeper
  /** How segments are compressed (default: at once, on this thread, `compressAtOnce`). */
  readonly compressor?: SegmentCompressor
}

/**
 * Compresses a segment's bytes with Brotli at quality 1 (`SEGMENT_BROTLI`) and calls `done` with
 * them, at once or later; a compression that fails must still call `done` (compressing at once).
 */
export type SegmentCompressor = (bytes: Buffer, done: (compressed: Buffer) => void) => void

/**
 * Keeps the compressed segments of archived logs. `keep` is called in an archiving turn (a tick of
 * a serving node), `read` when an archived entry is read.
 */
export interface SegmentKeeper {
  keep(compressed: Buffer): KeptSegment
}

export interface KeptSegment {
  /** The compressed bytes given to `keep`. */
  read(): Buffer
}

export const keepSegmentsInMemory: SegmentKeeper = {
  keep: (compressed) => {
    // a copy of the exact size: zlib's result is a view of a 16 KB chunk, about twice a segment's
    const kept = Buffer.from(compressed)
    return { read: () => kept }
  }
}

/**
 * A segment of 128 update entries is about 230 KB of JSON, written and compressed in a few
 * milliseconds; the newest 256 entries are what live readers mostly ask for.
 */
export const SERVING_ARCHIVE_LIMITS: ArchivedLogLimits = { hotEntries: 256, segmentEntries: 128, deferUpTo: 64 * 128 }

/** Keeps everything as objects. */
export const NEVER_ARCHIVE: ArchivedLogLimits = { hotEntries: Number.MAX_SAFE_INTEGER, segmentEntries: 1 }

/** Whether logs with these limits keep everything as objects (a simulation's). */
export const neverArchives = (limits: ArchivedLogLimits): boolean => limits.hotEntries === NEVER_ARCHIVE.hotEntries

/** Brotli at quality 1: about 10 times smaller than the JSON, a few milliseconds a segment. */
export const SEGMENT_BROTLI: zlib.BrotliOptions = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }

export const compressAtOnce: SegmentCompressor = (bytes, done) => done(zlib.brotliCompressSync(bytes, SEGMENT_BROTLI))

/** Inflated segments kept (each up to about 1 MB, outside the heap): a lookup beside a page in order inflates each once. */
const INFLATED_KEPT = 2

/** Archived entries kept parsed (an explorer's page of old events, looked up again and again). */
const PARSED_KEPT = 64

interface Segment {
  readonly compressed: KeptSegment
  /** Where each entry's JSON starts in the inflated bytes, and where the last ends (entries + 1 numbers). */
  readonly starts: Uint32Array
}

/**
 * The oldest segment's worth of hot entries on their way into a segment (`hot[0, entries)`): written
 * as JSON a few at a time (`archiveStep`), then compressed.
 */
interface Sealing {
  readonly entries: number
  readonly texts: Array<string>
  /** Once every entry is written: the bytes being compressed and where each entry starts in them. */
  written: { readonly starts: Uint32Array; readonly bytes: Buffer } | undefined
}

interface Inflated {
  readonly segment: Segment
  readonly bytes: Buffer
}

/**
 * What a log holds, as data (an engine checkpoint's part, engine checkpoint/): its archived
 * segments as their compressed bytes and entry starts, then its newest entries as objects. A
 * segment being compressed is not in it: its entries are among the objects still.
 */
export interface ArchivedLogImage<T> {
  readonly segmentEntries: number
  readonly segments: ReadonlyArray<{ readonly compressed: Uint8Array; readonly starts: Uint32Array }>
  readonly hot: ReadonlyArray<T>
  /**
   * The hot entries the log tolerated before archiving on a push (after a hold: `tolerated`), so
   * that the restored log archives where the live one would have. Absent in images written before
   * it was kept: the restored log then tolerates its hot entries.
   */
  readonly tolerated?: number
}

export class ArchivedLog<T> implements Iterable<T> {
  private readonly segments: Array<Segment> = []
  private hot: Array<T> = []
  /** Entries in segments: the index of `hot[0]`. */
  private archived = 0
  private recent: Array<Inflated> = []
  /** Archived entries read lately, by index (oldest first): the same old event looked up again is not parsed again. */
  private readonly parsed = new Map<number, T>()
  /** The segment being compressed, if one is. */
  private sealing: Sealing | undefined = undefined
  /** While held, `push` archives nothing (`hold`). */
  private held = false
  /**
   * After a hold, the hot entries `push` tolerates before it archives itself while the owner's
   * steps take the backlog: those held at `release` plus the log's allowance, until the backlog is
   * archived (then the usual bound again). Without it every push after a restart compressed a
   * segment on the request's path.
   */
  private tolerated = 0

  constructor(readonly limits: ArchivedLogLimits = NEVER_ARCHIVE) {
    invariant(limits.hotEntries >= 0 && limits.segmentEntries >= 1, "an archived log needs segments of at least one entry")
  }

  get length(): number {
    return this.archived + this.hot.length
  }

  /** The log as data: its segments' bytes (no entry of them parsed) and its objects. */
  image(): ArchivedLogImage<T> {
    return {
      segmentEntries: this.limits.segmentEntries,
      segments: this.segments.map((s) => ({ compressed: s.compressed.read(), starts: s.starts })),
      hot: this.hot.slice(),
      tolerated: this.tolerated
    }
  }

  /**
   * Takes an image into this empty log: its segments kept by this log's keeper, its objects as
   * its newest entries (archived later by this log's own bounds). The segments must be of this
   * log's size: an entry's index names its segment.
   */
  restore(image: ArchivedLogImage<T>): void {
    invariant(this.length === 0 && this.sealing === undefined, "a log takes an image only when empty")
    invariant(image.segments.length === 0 || image.segmentEntries === this.limits.segmentEntries, () => `an image of segments of ${image.segmentEntries} entries, not ${this.limits.segmentEntries}`)
    const keeper = this.limits.keeper ?? keepSegmentsInMemory
    for (const { compressed, starts } of image.segments) {
      invariant(starts.length === image.segmentEntries + 1, "an image's segment has a start per entry and its end")
      this.segments.push({ compressed: keeper.keep(Buffer.from(compressed.buffer, compressed.byteOffset, compressed.byteLength)), starts })
    }
    this.archived = image.segments.length * image.segmentEntries
    this.hot = image.hot.slice()
    if (!this.held) this.tolerated = image.tolerated ?? this.hot.length + this.allowance()
  }

  /** Entries held as compressed segments (the rest are objects). */
  get archivedLength(): number {
    return this.archived
  }

  push(entry: T): void {
    this.hot.push(entry)
    if (this.held || this.hot.length < Math.max(this.limits.hotEntries + this.allowance(), this.tolerated)) return
    this.archiveOldestNow()
  }

  /**
   * Archives now, on this thread, every segment due (what the owner's steps would archive over
   * their next turns), unless the log is held: before an engine checkpoint takes the log's image,
   * so that the image holds its backlog as compressed bytes, not as objects to serialize and parse.
   */
  archiveBacklogNow(): void {
    while (!this.held && this.due()) this.archiveOldestNow()
  }

  /** The oldest segment is archived now, whatever its owner's turns had done of it. */
  private archiveOldestNow(): void {
    const sealing = this.sealing ?? this.beginSealing()
    this.install(sealing, zlib.brotliCompressSync((sealing.written ?? this.finishWriting(sealing)).bytes, SEGMENT_BROTLI))
  }

  /**
   * Until `release`, `push` keeps every entry as an object, past the log's bound too; archiving
   * steps (`archiveDue`, `archiveStep`) still work. For a restart: the entries it replays are in
   * memory anyway (the parsed journal), and archiving them during the replay compressed segments
   * that the wallets, built right after, inflated and parsed again to walk the history; the
   * owner's archiving steps take the backlog once the node serves.
   */
  hold(): void {
    this.held = true
  }

  /** Ends `hold`: `push` archives again past the bound, the backlog held meanwhile tolerated until archived. */
  release(): void {
    this.held = false
    this.tolerated = this.hot.length + this.allowance()
  }

  /** Entries beyond the hot ones that `push` leaves to the archiving steps. */
  private allowance(): number {
    return Math.max(this.limits.deferUpTo ?? 0, this.limits.segmentEntries)
  }

  /**
   * Archives the oldest segment's worth of entries if more than the hot ones are held and no
   * segment of this log is being compressed: writes them (what `archiveStep` has not written yet)
   * and hands them to the compressor; whether it did.
   */
  archiveDue(): boolean {
    return this.archiveStep(this.limits.segmentEntries)
  }

  /**
   * A step of the same work for an owner that spreads it over many turns: writes at most
   * `maxEntries` entries of the oldest segment due as JSON, and once all are written hands them to
   * the compressor. Whether there was work (false while a segment is compressed or none is due).
   */
  archiveStep(maxEntries: number): boolean {
    invariant(maxEntries >= 1, "an archiving step writes at least one entry")
    if (this.compressing || (this.sealing === undefined && !this.due())) return false
    const sealing = this.sealing ?? this.beginSealing()
    const end = Math.min(sealing.entries, sealing.texts.length + maxEntries)
    for (let i = sealing.texts.length; i < end; i++) sealing.texts.push(JSON.stringify(this.hot[i]))
    if (sealing.texts.length === sealing.entries) this.compress(sealing, this.finishWriting(sealing))
    return true
  }

  /** Whether a segment of this log is being compressed (its entries still objects). */
  get compressing(): boolean {
    return this.sealing?.written !== undefined
  }

  at(index: number): T | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined
    if (index >= this.archived) return this.hot[index - this.archived]
    const size = this.limits.segmentEntries
    const known = this.parsed.get(index)
    if (known !== undefined) return known
    const { segment, bytes } = this.inflate(Math.floor(index / size))
    const i = index % size
    const entry = JSON.parse(bytes.toString("utf8", segment.starts[i]!, segment.starts[i + 1]!)) as T
    if (this.parsed.size >= PARSED_KEPT) this.parsed.delete(this.parsed.keys().next().value!)
    this.parsed.set(index, entry)
    return entry
  }

  last(): T | undefined {
    return this.at(this.length - 1)
  }

  /** Entries [from, to), as `Array.prototype.slice` takes them (no negative indexes). */
  slice(from: number, to: number = this.length): Array<T> {
    const out: Array<T> = []
    const end = Math.min(to, this.length)
    for (let i = Math.max(0, from); i < end; i++) out.push(this.at(i)!)
    return out
  }

  map<U>(f: (entry: T, index: number) => U): Array<U> {
    const out: Array<U> = []
    for (let i = 0; i < this.length; i++) out.push(f(this.at(i)!, i))
    return out
  }

  [Symbol.iterator](): Iterator<T> {
    // A log that never archives is its array (a simulation's): the array's own iterator, which
    // V8 runs without an object per step. The end-of-run checks of the large scenario walk a
    // million entries several times; the generator's steps were 0.25 GB of its allocations.
    return neverArchives(this.limits) ? this.hot[Symbol.iterator]() : this.entries()
  }

  private *entries(): Generator<T> {
    for (let i = 0; i < this.length; i++) yield this.at(i)!
  }

  /** Whether more than the hot entries and a segment are held as objects. */
  private due(): boolean {
    return this.hot.length >= this.limits.hotEntries + this.limits.segmentEntries
  }

  private beginSealing(): Sealing {
    invariant(this.sealing === undefined, "one segment of a log is archived at a time")
    invariant(this.hot.length >= this.limits.segmentEntries, "a segment is archived whole")
    this.sealing = { entries: this.limits.segmentEntries, texts: [], written: undefined }
    return this.sealing
  }

  /** Writes the entries not written yet and joins them into the segment's bytes. */
  private finishWriting(sealing: Sealing): NonNullable<Sealing["written"]> {
    invariant(sealing.written === undefined, "a segment's entries are written once")
    for (let i = sealing.texts.length; i < sealing.entries; i++) sealing.texts.push(JSON.stringify(this.hot[i]))
    const starts = new Uint32Array(sealing.entries + 1)
    for (let i = 0; i < sealing.entries; i++) starts[i + 1] = starts[i]! + Buffer.byteLength(sealing.texts[i]!, "utf8")
    sealing.written = { starts, bytes: Buffer.from(sealing.texts.join(""), "utf8") }
    sealing.texts.length = 0
    return sealing.written
  }

  private compress(sealing: Sealing, written: NonNullable<Sealing["written"]>): void {
    const compressor = this.limits.compressor ?? compressAtOnce
    // A compression finished after the log archived the segment itself (a push past its bound) is dropped.
    compressor(written.bytes, (compressed) => {
      if (this.sealing === sealing) this.install(sealing, compressed)
    })
  }

  /** The segment being compressed becomes archived: its entries leave the hot ones. */
  private install(sealing: Sealing, compressed: Buffer): void {
    const written = sealing.written
    invariant(this.sealing === sealing && written !== undefined && this.hot.length >= sealing.entries, "the segment archived is the one written and compressed")
    const keeper = this.limits.keeper ?? keepSegmentsInMemory
    this.segments.push({ compressed: keeper.keep(compressed), starts: written.starts })
    this.hot = this.hot.slice(sealing.entries)
    this.archived += sealing.entries
    this.sealing = undefined
    if (this.hot.length < this.limits.hotEntries + this.allowance()) this.tolerated = 0
  }

  private inflate(n: number): Inflated {
    const segment = this.segments[n]!
    const kept = this.recent.find((r) => r.segment === segment)
    if (kept !== undefined) return kept
    const bytes = zlib.brotliDecompressSync(segment.compressed.read())
    const size = segment.starts[segment.starts.length - 1]!
    invariant(bytes.length === size, () => `an archived segment inflated to ${bytes.length} bytes, not ${size}`)
    const inflated = { segment, bytes }
    this.recent = [inflated, ...this.recent.slice(0, INFLATED_KEPT - 1)]
    return inflated
  }
}
