/**
 * The in-memory store, for simulations and property tests. Each write is checked and applied in
 * one synchronous step, so it is atomic and needs no group commit. Bodies are kept as JSON text and
 * parsed on every read, exactly like the SQL layer, so a body that would not survive PostgreSQL does
 * not survive here either and callers can never mutate stored values.
 *
 * The text is kept as UTF-8 bytes outside V8's heap: a serving `--in-memory` node keeps every
 * journal entry, and as JavaScript strings they were copied by each young-generation collection
 * they survived (`node --trace-gc` of `sandnet bench --only load`: scavenges took 1.8 s of a run,
 * 1.4 s with the bytes outside). The entries of one write share one exact-size buffer (no pool
 * slack), and the buffers are compressed a megabyte at a time (memory-journal-bytes.ts). Snapshot
 * bodies, which later writes replace or delete, stay strings: a buffer each cost more to allocate
 * than the collections it saved.
 *
 * A `MemoryBacking` outlives the layers built on it: releasing a layer and building another one on
 * the same backing is a "restart" that keeps everything (a simulated node crash and recovery).
 */
import { Effect, Either, Option, type Scope } from "effect"
import { type DuplicateSequence, type SequenceGap, StoreClosed } from "./errors.ts"
import { checkHeads, compareCodePoints, type JournalEntry, type PreparedWrite, type SnapshotEntry, type StoreStats } from "./model.ts"
import { type EventStoreService, makeService, type StoreCore } from "./service.ts"
import { invariant } from "@sandnet/core"
import { JournalBytes } from "./memory-journal-bytes.ts"
import { offerWriteNow } from "./sync-write.ts"

/**
 * A stream's entries as columns: entry i's kind (a code into the stream's few kinds), and its
 * body's JSON at [start, start + length) of the journal's bytes. Typed arrays that double: an
 * object per entry cost about 64 bytes (eight entries a W1 offer), and three plain arrays 24 bytes
 * an entry (0.16 KB per transaction of the 5-minute soak of an `--in-memory` node); these are 14.
 */
class StoredStream {
  private readonly kindNames: Array<string> = []
  private readonly kindCodes = new Map<string, number>()
  private codes = new Uint16Array(INITIAL_COLUMN)
  /** Byte offsets can pass 4 GiB in a long run: doubles. */
  private starts = new Float64Array(INITIAL_COLUMN)
  private lengths = new Uint32Array(INITIAL_COLUMN)
  length = 0

  push(kind: string, start: number, end: number): void {
    if (this.length === this.codes.length) this.grow()
    let code = this.kindCodes.get(kind)
    if (code === undefined) {
      code = this.kindNames.length
      invariant(code < MAX_KINDS, () => `a stream has at most ${MAX_KINDS} kinds of entry`)
      this.kindNames.push(kind)
      this.kindCodes.set(kind, code)
    }
    invariant(end >= start && end - start < 2 ** 32, "a journal entry's body is less than 4 GiB")
    this.codes[this.length] = code
    this.starts[this.length] = start
    this.lengths[this.length] = end - start
    this.length += 1
  }

  kindAt(i: number): string {
    return this.kindNames[this.codes[i]!]!
  }

  startAt(i: number): number {
    return this.starts[i]!
  }

  endAt(i: number): number {
    return this.starts[i]! + this.lengths[i]!
  }

  private grow(): void {
    const size = this.codes.length * 2
    const codes = new Uint16Array(size)
    codes.set(this.codes)
    const starts = new Float64Array(size)
    starts.set(this.starts)
    const lengths = new Uint32Array(size)
    lengths.set(this.lengths)
    this.codes = codes
    this.starts = starts
    this.lengths = lengths
  }
}

const INITIAL_COLUMN = 16
const MAX_KINDS = 2 ** 16

/** The data of an in-memory store, shareable between successive layers. */
export interface MemoryBacking {
  readonly streams: Map<string, StoredStream>
  readonly snapshots: Map<string, Map<string, string>>
  /** The journal entries' bytes (compressed a megabyte at a time). */
  readonly journal: JournalBytes
}

export const makeMemoryBacking = (): MemoryBacking => ({ streams: new Map(), snapshots: new Map(), journal: new JournalBytes() })

const headOf = (backing: MemoryBacking, stream: string) => backing.streams.get(stream)?.length ?? 0

/** Appends a write's entries, their text in one buffer. */
const appendEntries = (backing: MemoryBacking, entries: PreparedWrite["entries"]): void => {
  let size = 0
  for (const entry of entries) size += Buffer.byteLength(entry.json, "utf8")
  const buffer = Buffer.allocUnsafeSlow(size)
  const ends: Array<number> = []
  let at = 0
  for (const entry of entries) ends.push((at += buffer.write(entry.json, at, "utf8")))
  // handed over once filled: adding it may compress it at once
  const start = backing.journal.add(buffer)
  entries.forEach((entry, i) => {
    let stored = backing.streams.get(entry.stream)
    if (stored === undefined) {
      stored = new StoredStream()
      backing.streams.set(entry.stream, stored)
    }
    stored.push(entry.kind, start + (i === 0 ? 0 : ends[i - 1]!), start + ends[i]!)
  })
}

/** Applies a checked write in one synchronous step: its entries appended, its snapshot ops applied. */
const applyWrite = (backing: MemoryBacking, prepared: PreparedWrite): void => {
  if (prepared.entries.length > 0) appendEntries(backing, prepared.entries)
  for (const op of prepared.snapshotOps) {
    let area = backing.snapshots.get(op.stream)
    if (op.json === null) {
      area?.delete(op.key)
      if (area?.size === 0) backing.snapshots.delete(op.stream)
    } else {
      if (area === undefined) {
        area = new Map()
        backing.snapshots.set(op.stream, area)
      }
      area.set(op.key, op.json)
    }
  }
}

/** @internal */
export const makeMemoryStore = (backing: MemoryBacking): Effect.Effect<EventStoreService, never, Scope.Scope> =>
  Effect.gen(function*() {
    let closed = false
    yield* Effect.addFinalizer(() => Effect.sync(() => void (closed = true)))
    const counters = { commits: 0, writes: 0, entries: 0, snapshotOps: 0 }
    /** A write, checked and applied in the call (also offered as the store's synchronous write, sync-write.ts). */
    const writeNow = (prepared: PreparedWrite): Either.Either<void, StoreClosed | SequenceGap | DuplicateSequence> => {
      if (closed) return Either.left(new StoreClosed())
      const rejected = checkHeads(prepared, (stream) => headOf(backing, stream))
      if (rejected !== undefined) return Either.left(rejected)
      applyWrite(backing, prepared)
      counters.commits += 1
      counters.writes += 1
      counters.entries += prepared.entries.length
      counters.snapshotOps += prepared.snapshotOps.length
      return Either.void
    }

    const service = makeService({
      write: (prepared) => Effect.suspend(() => writeNow(prepared)),
      reset: (stream) =>
        Effect.suspend(() => {
          if (closed) return Effect.fail(new StoreClosed())
          if (stream === undefined) {
            backing.streams.clear()
            backing.snapshots.clear()
          } else {
            backing.streams.delete(stream)
            backing.snapshots.delete(stream)
          }
          return Effect.void
        }),
      ...memoryReads(backing),
      stats: Effect.sync((): StoreStats => ({ ...counters }))
    })
    return offerWriteNow(service, writeNow)
  })

/** The store's reads; bodies parsed from their JSON text on every read. */
const memoryReads = (backing: MemoryBacking): Pick<StoreCore, "readStream" | "streams" | "lastSeq" | "getSnapshot" | "listSnapshots"> => ({
  readStream: (stream, fromSeq, limit) =>
    Effect.sync(() => {
      const stored = backing.streams.get(stream)
      const length = stored?.length ?? 0
      const end = limit === undefined ? length : Math.min(length, fromSeq - 1 + limit)
      const out: Array<JournalEntry> = []
      for (let i = fromSeq - 1; i < end; i++) {
        out.push({ stream, seq: i + 1, kind: stored!.kindAt(i), body: JSON.parse(backing.journal.text(stored!.startAt(i), stored!.endAt(i))) })
      }
      return out
    }),
  streams: Effect.sync(() => [...backing.streams.keys()].sort(compareCodePoints)),
  lastSeq: (stream) => Effect.sync(() => headOf(backing, stream)),
  getSnapshot: (stream, key) =>
    Effect.sync(() => {
      const json = backing.snapshots.get(stream)?.get(key)
      return json === undefined ? Option.none() : Option.some<unknown>(JSON.parse(json))
    }),
  listSnapshots: (stream, prefix) =>
    Effect.sync(() => {
      const area = backing.snapshots.get(stream)
      if (area === undefined) return []
      const keys = [...area.keys()].filter((key) => key.startsWith(prefix)).sort(compareCodePoints)
      return keys.map((key): SnapshotEntry => ({ stream, key, body: JSON.parse(area.get(key)!) }))
    })
})
