/**
 * The store's data model and the pure rules every layer shares: what a valid entry is, how a
 * write is checked against the stream heads, and the one string order used for listings.
 */
import { Either } from "effect"
import { DuplicateSequence, InvalidEntry, SequenceGap } from "./errors.ts"

/** One journal event. `seq` starts at 1 in every stream and grows by exactly 1. */
export interface JournalEntry {
  readonly stream: string
  readonly seq: number
  readonly kind: string
  /** A JSON value (already encoded by the engine). Stored as JSON text; read back with JSON.parse. */
  readonly body: unknown
}

/** One entry of the key-value area for snapshots and derived state, scoped by stream. */
export interface SnapshotEntry {
  readonly stream: string
  readonly key: string
  readonly body: unknown
}

export interface SnapshotRef {
  readonly stream: string
  readonly key: string
}

/**
 * An atomic write: journal entries plus snapshot upserts and deletions, committed together or not
 * at all. Puts apply before deletes, so a key both put and deleted in one write ends up deleted.
 */
export interface WriteBatch {
  readonly entries?: ReadonlyArray<JournalEntry>
  readonly putSnapshots?: ReadonlyArray<SnapshotEntry>
  readonly deleteSnapshots?: ReadonlyArray<SnapshotRef>
}

/** Counters since the layer started: commits (transactions), writes (calls) and rows they carried. */
export interface StoreStats {
  readonly commits: number
  readonly writes: number
  readonly entries: number
  readonly snapshotOps: number
}

/** Longest stream name, kind or snapshot key, in UTF-8 bytes (keeps every b-tree key well under PostgreSQL's limit). */
export const MAX_NAME_BYTES = 1024

/** @internal an entry with its body already serialised to JSON text. */
export interface EncodedEntry {
  readonly stream: string
  readonly seq: number
  readonly kind: string
  readonly json: string
}

/** @internal a snapshot upsert (`json` is the body) or deletion (`json` is null). */
export interface EncodedSnapshotOp {
  readonly stream: string
  readonly key: string
  readonly json: string | null
}

/** @internal the first and last seq a write appends to one stream. */
export interface StreamSpan {
  readonly first: number
  readonly last: number
}

/** @internal a write whose shape has been checked, bodies encoded, per-stream spans computed. */
export interface PreparedWrite {
  readonly entries: ReadonlyArray<EncodedEntry>
  readonly snapshotOps: ReadonlyArray<EncodedSnapshotOp>
  /** Streams in order of first appearance in the write. */
  readonly spans: ReadonlyMap<string, StreamSpan>
}

const loneSurrogate = /\p{Cs}/u

const checkName = (what: string, value: unknown, allowEmpty: boolean): string | undefined => {
  if (typeof value !== "string") return `${what} must be a string`
  if (!allowEmpty && value.length === 0) return `${what} must not be empty`
  if (value.includes("\u0000")) return `${what} must not contain NUL`
  if (loneSurrogate.test(value)) return `${what} must be well-formed UTF-16 (lone surrogate)`
  if (Buffer.byteLength(value, "utf8") > MAX_NAME_BYTES) return `${what} is longer than ${MAX_NAME_BYTES} UTF-8 bytes`
  return undefined
}

/** JSON text of a body, or the reason it is not JSON. */
export const encodeJson = (body: unknown): Either.Either<string, string> => {
  try {
    const json = JSON.stringify(body)
    if (json === undefined) return Either.left("body is not a JSON value")
    return Either.right(json)
  } catch (error) {
    return Either.left(`body is not JSON-serialisable: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/**
 * Checks the shape of a write and that, inside it, each stream's entries are consecutive
 * (seq n, n+1, ...; other streams may interleave). Does not look at the stored heads.
 */
export const prepareWrite = (
  batch: WriteBatch
): Either.Either<PreparedWrite, InvalidEntry | SequenceGap | DuplicateSequence> => {
  const entries: Array<EncodedEntry> = []
  const spans = new Map<string, { first: number; last: number }>()
  for (const entry of batch.entries ?? []) {
    const stream: unknown = entry.stream
    const streamName = typeof stream === "string" ? stream : String(stream)
    const bad = checkName("stream", stream, false) ?? checkName("kind", entry.kind, false)
    if (bad !== undefined) return Either.left(new InvalidEntry({ stream: streamName, reason: bad }))
    const seq: unknown = entry.seq
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) {
      return Either.left(new InvalidEntry({ stream: streamName, reason: `seq must be a safe integer >= 1, got ${String(seq)}` }))
    }
    const json = encodeJson(entry.body)
    if (Either.isLeft(json)) return Either.left(new InvalidEntry({ stream: streamName, reason: json.left }))
    const span = spans.get(streamName)
    if (span === undefined) {
      spans.set(streamName, { first: seq, last: seq })
    } else {
      if (seq <= span.last) return Either.left(new DuplicateSequence({ stream: streamName, seq, lastSeq: span.last }))
      if (seq > span.last + 1) return Either.left(new SequenceGap({ stream: streamName, expected: span.last + 1, actual: seq }))
      span.last = seq
    }
    entries.push({ stream: streamName, seq, kind: entry.kind, json: json.right })
  }
  const snapshotOps: Array<EncodedSnapshotOp> = []
  for (const snap of batch.putSnapshots ?? []) {
    const bad = checkName("stream", snap.stream, false) ?? checkName("snapshot key", snap.key, true)
    if (bad !== undefined) return Either.left(new InvalidEntry({ stream: String(snap.stream), reason: bad }))
    const json = encodeJson(snap.body)
    if (Either.isLeft(json)) return Either.left(new InvalidEntry({ stream: snap.stream, reason: json.left }))
    snapshotOps.push({ stream: snap.stream, key: snap.key, json: json.right })
  }
  for (const ref of batch.deleteSnapshots ?? []) {
    const bad = checkName("stream", ref.stream, false) ?? checkName("snapshot key", ref.key, true)
    if (bad !== undefined) return Either.left(new InvalidEntry({ stream: String(ref.stream), reason: bad }))
    snapshotOps.push({ stream: ref.stream, key: ref.key, json: null })
  }
  return Either.right({ entries, snapshotOps, spans })
}

/**
 * Checks a prepared write against the current heads (last committed seq per stream, 0 if none):
 * each stream's first seq must be exactly head + 1.
 */
export const checkHeads = (
  write: PreparedWrite,
  headOf: (stream: string) => number
): SequenceGap | DuplicateSequence | undefined => {
  for (const [stream, span] of write.spans) {
    const head = headOf(stream)
    if (span.first <= head) return new DuplicateSequence({ stream, seq: span.first, lastSeq: head })
    if (span.first > head + 1) return new SequenceGap({ stream, expected: head + 1, actual: span.first })
  }
  return undefined
}

/**
 * Collapses snapshot operations to the final operation per (stream, key), keeping the order in
 * which each key was first touched.
 */
export const collapseSnapshotOps = (ops: ReadonlyArray<EncodedSnapshotOp>): Array<EncodedSnapshotOp> => {
  const last = new Map<string, EncodedSnapshotOp>()
  for (const op of ops) {
    const id = `${op.stream}\u0000${op.key}`
    last.delete(id)
    last.set(id, op)
  }
  return [...last.values()]
}

/**
 * Unicode code point order (the order of UTF-8 bytes, i.e. PostgreSQL's `COLLATE "C"` on UTF-8).
 * JavaScript's default `<` compares UTF-16 code units, which differs for astral characters.
 */
export const compareCodePoints = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    // Surrogates (D800-DFFF) encode code points above FFFF: move them above E000-FFFF.
    if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800
    if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800
    return x - y
  }
  return a.length - b.length
}
