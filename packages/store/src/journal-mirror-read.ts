/**
 * Reading every journal of an embedded store with its mirror (journal-mirror.ts): the mirrored
 * entries are used when the file matches the database, and the database gives only what the file
 * lacks; otherwise everything comes from the database and the file is written again from it.
 *
 * The file matches when, for every stream it holds, the database has at least as many entries
 * and the body of the file's last entry is the very text the database holds at that seq. That
 * catches a database replaced under the file (a restore, a copied `pgdata/`, a reset by another
 * tool): entries carry node-wide ordinals and tracking ids, so two histories do not share a last
 * entry by chance. It does not guard against the file being edited by hand, no more than
 * `pgdata/` is.
 */
import { Effect } from "effect"
import type { StorageError } from "./errors.ts"
import type { JournalMirror, MirrorContents } from "./journal-mirror.ts"
import { compareCodePoints, type EncodedEntry, type JournalEntry } from "./model.ts"
import { readPages } from "./pages.ts"

/** What the read needs from the database, bodies as the text it holds. */
export interface MirrorReadBackend {
  /** Last seq of every stream that has one. */
  readonly heads: Effect.Effect<ReadonlyMap<string, number>, StorageError>
  /** The body text of each `(stream, seq)`, by stream. */
  readonly bodyTexts: (at: ReadonlyArray<{ readonly stream: string; readonly seq: number }>) => Effect.Effect<ReadonlyMap<string, string>, StorageError>
  /** Entries of `stream` from `fromSeq`, at most `limit`, bodies as text. */
  readonly readTexts: (stream: string, fromSeq: number, limit: number) => Effect.Effect<ReadonlyArray<EncodedEntry>, StorageError>
}

type Loaded = Extract<MirrorContents, { readonly _tag: "Loaded" }>

const matches = (contents: Loaded, heads: ReadonlyMap<string, number>, backend: MirrorReadBackend) =>
  Effect.gen(function*() {
    for (const [stream, lines] of contents.streams) {
      if ((heads.get(stream) ?? 0) < lines.length) return false
    }
    const texts = yield* backend.bodyTexts([...contents.streams].map(([stream, lines]) => ({ stream, seq: lines.length })))
    for (const [stream, text] of contents.lastBodies) if (texts.get(stream) !== text) return false
    return true
  })

const decoded = (e: EncodedEntry): JournalEntry => ({ stream: e.stream, seq: e.seq, kind: e.kind, body: JSON.parse(e.json) })

/** The mirrored entries of each stream after `after` (all without it); undefined when a body is not JSON (the file is unusable). */
const mirroredAfter = (contents: Loaded, after: ReadonlyMap<string, number> | undefined): Map<string, Array<JournalEntry>> | undefined => {
  const out = new Map<string, Array<JournalEntry>>()
  try {
    for (const [stream, lines] of contents.streams) out.set(stream, lines.entriesFrom((after?.get(stream) ?? 0) + 1))
  } catch {
    return undefined
  }
  return out
}

/**
 * Every stream's entries (streams in code point order), or with `after` only those after its
 * seq for each stream it names, the mirror brought in line with the database either way.
 */
export const readAllMirrored = (mirror: JournalMirror, backend: MirrorReadBackend, after?: ReadonlyMap<string, number>) =>
  Effect.gen(function*() {
    const wasSynced = mirror.synced()
    const contents = mirror.takeContents()
    const heads = yield* backend.heads
    const loaded = contents._tag === "Loaded" && (yield* matches(contents, heads, backend)) ? contents : undefined
    const mirrored = loaded === undefined ? undefined : mirroredAfter(loaded, after)
    const usable = mirrored === undefined ? undefined : loaded
    const out = new Map<string, ReadonlyArray<JournalEntry>>()
    const fromDatabase: Array<EncodedEntry> = []
    for (const stream of [...heads.keys()].sort(compareCodePoints)) {
      const inFile = usable?.streams.get(stream)?.length ?? 0
      const from = (after?.get(stream) ?? 0) + 1
      // without a usable file the whole stream is read, to write the file again
      const tail = yield* readPages((at, limit) => backend.readTexts(stream, at, limit), inFile + 1, heads.get(stream)!)
      for (const e of tail) fromDatabase.push(e)
      const fromTail = tail.filter((e) => e.seq >= from).map(decoded)
      const fromFile = mirrored?.get(stream) ?? []
      out.set(stream, fromTail.length === 0 ? fromFile : [...fromFile, ...fromTail])
    }
    // A mirror in line already (a second read while commits are appended) is left as it is.
    if (usable !== undefined) mirror.extend(usable.completeBytes, fromDatabase)
    else if (!wasSynced) mirror.replace(fromDatabase)
    return out as ReadonlyMap<string, ReadonlyArray<JournalEntry>>
  })
