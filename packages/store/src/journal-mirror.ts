/**
 * The journal mirror of an embedded (PGlite) store: a plain file beside `pgdata/` holding every
 * committed journal entry, one line each, appended in commit order right after its commit. A
 * start reads the journals from it, parsed while PGlite's thread opens the database, and reads from
 * the database only what the file lacks. Why: reading 16,024 entries (14.2 MB of JSON, a node
 * after 2,000 W1 offers) through PGlite took 0.44 s of a 1.2 s restart (`node --cpu-prof`, both
 * threads: PGlite's thread producing the rows), while the main thread sat idle waiting for PGlite
 * to open. The database stays the record: the file is a cache of it, checked against it at
 * every start (journal-mirror-read.ts) and rebuilt from it when it does not match.
 *
 * File: `<dataDir>/journal-mirror.<schema>.jsonl`. First line: the format line; then one line per
 * entry, `[stream, seq, kind, body]` as JSON, the body as the very text the database holds. A kill
 * -9 can leave a last line without its newline: it is ignored and cut off. Not fsynced: after a
 * power loss the file may lose its tail, which the start then reads from the database.
 *
 * States: `synced` means the file holds exactly the committed entries (so a commit may append to
 * it). A failed commit (it may have reached the database) or a reset ends that until the next
 * full read brings the file in line again.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { EncodedEntry, JournalEntry } from "./model.ts"

const FORMAT_LINE = "{\"sandnet-journal-mirror\":1}"

/** Where the mirror of `schema`'s journals lives in a data directory. */
export const mirrorFile = (dataDir: string, schema: string): string => path.join(dataDir, `journal-mirror.${schema}.jsonl`)

/** What a start found in the file. */
export type MirrorContents =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Unusable"; readonly reason: string }
  | {
    readonly _tag: "Loaded"
    /** Each stream's mirrored entries, seq 1..n without a gap, decoded when asked. */
    readonly streams: ReadonlyMap<string, MirroredStream>
    /** The body text of each stream's last mirrored entry (checked against the database's). */
    readonly lastBodies: ReadonlyMap<string, string>
    /** Bytes of complete lines: what is kept when the file is extended. */
    readonly completeBytes: number
  }

/**
 * A stream's lines in the file, found but not parsed: a start from an engine checkpoint needs only
 * the entries after its heads, and parsing every body of a long history was most of the time of
 * reading the file (a restart after 20,000 W1 offers: 139 MB).
 */
export interface MirroredStream {
  readonly length: number
  /** The entries from `seq` on, each body parsed now; throws when a body is not JSON (the file is then unusable). */
  readonly entriesFrom: (seq: number) => Array<JournalEntry>
}

const lineOf = (e: EncodedEntry): string => `[${JSON.stringify(e.stream)},${e.seq},${JSON.stringify(e.kind)},${e.json}]\n`

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c

/** Where the JSON string token starting at `start` (its opening quote) ends: the index after its closing quote, or -1. */
const stringTokenEnd = (bytes: Buffer, start: number, end: number): number => {
  if (bytes[start] !== QUOTE) return -1
  for (let i = start + 1; i < end; i++) {
    if (bytes[i] === BACKSLASH) i++
    else if (bytes[i] === QUOTE) return i + 1
  }
  return -1
}

/** The fields before a line's body, `[stream,seq,kind,` read from the bytes; undefined when the line is out of shape. */
const headOf = (bytes: Buffer, start: number, end: number, tokens: Map<string, string>) => {
  if (bytes[start] !== 0x5b) return undefined
  const streamEnd = stringTokenEnd(bytes, start + 1, end)
  if (streamEnd < 0 || bytes[streamEnd] !== COMMA) return undefined
  const seqEnd = bytes.indexOf(COMMA, streamEnd + 1)
  if (seqEnd < 0 || seqEnd >= end) return undefined
  const kindEnd = stringTokenEnd(bytes, seqEnd + 1, end)
  if (kindEnd < 0 || bytes[kindEnd] !== COMMA || bytes[end - 1] !== 0x5d) return undefined
  const seq = Number(bytes.toString("latin1", streamEnd + 1, seqEnd))
  const stream = tokenOf(bytes, start + 1, streamEnd, tokens)
  const kind = tokenOf(bytes, seqEnd + 1, kindEnd, tokens)
  if (stream === undefined || kind === undefined || !Number.isSafeInteger(seq)) return undefined
  return { stream, seq, kind, bodyStart: kindEnd + 1 }
}

/** A string token's value, parsed once per distinct token (streams and kinds are few). */
const tokenOf = (bytes: Buffer, start: number, end: number, tokens: Map<string, string>): string | undefined => {
  const raw = bytes.toString("utf8", start, end)
  let value = tokens.get(raw)
  if (value === undefined) {
    try {
      value = JSON.parse(raw) as string
    } catch {
      return undefined
    }
    tokens.set(raw, value)
  }
  return value
}

/** A stream's lines as where each body starts and ends in `bytes`. */
class LinesOfStream implements MirroredStream {
  readonly bodyStarts: Array<number> = []
  readonly bodyEnds: Array<number> = []
  readonly kinds: Array<string> = []

  constructor(
    private readonly bytes: Buffer,
    private readonly stream: string
  ) {}

  get length(): number {
    return this.kinds.length
  }

  entriesFrom(seq: number): Array<JournalEntry> {
    const out: Array<JournalEntry> = []
    for (let i = Math.max(0, seq - 1); i < this.kinds.length; i++) {
      out.push({ stream: this.stream, seq: i + 1, kind: this.kinds[i]!, body: JSON.parse(this.bytes.toString("utf8", this.bodyStarts[i]!, this.bodyEnds[i]!)) })
    }
    return out
  }

  bodyText(i: number): string {
    return this.bytes.toString("utf8", this.bodyStarts[i]!, this.bodyEnds[i]!)
  }
}

/**
 * Finds the mirror's complete lines (`bytes` up to `completeBytes`) and the fields before each
 * body; the bodies are parsed when read (`MirroredStream`). The file may be larger than the
 * longest string V8 can hold (about 512 MB), which a node with a long history reaches: it is never
 * one string. A line out of shape or out of order makes the whole file unusable.
 */
const parseMirror = (bytes: Buffer, completeBytes: number): MirrorContents => {
  const format = Buffer.from(`${FORMAT_LINE}\n`, "utf8")
  if (completeBytes < format.length || !bytes.subarray(0, format.length).equals(format)) return { _tag: "Unusable", reason: "not a journal mirror of this format" }
  const streams = new Map<string, LinesOfStream>()
  const tokens = new Map<string, string>()
  for (let pos = format.length; pos < completeBytes;) {
    const end = bytes.indexOf(10, pos)
    const head = headOf(bytes, pos, end, tokens)
    if (head === undefined) return { _tag: "Unusable", reason: "a line is not [stream, seq, kind, body]" }
    let lines = streams.get(head.stream)
    if (lines === undefined) streams.set(head.stream, (lines = new LinesOfStream(bytes, head.stream)))
    if (head.seq !== lines.length + 1) return { _tag: "Unusable", reason: `${head.stream}: seq ${head.seq} after ${lines.length}` }
    lines.bodyStarts.push(head.bodyStart)
    lines.bodyEnds.push(end - 1)
    lines.kinds.push(head.kind)
    pos = end + 1
  }
  const lastBodies = new Map([...streams].map(([stream, lines]) => [stream, lines.bodyText(lines.length - 1)] as const))
  return { _tag: "Loaded", streams, lastBodies, completeBytes }
}

/** Reads and parses the file (complete lines only); a file that cannot be read or parsed is reported, never thrown. */
export const readMirror = (file: string): MirrorContents => {
  let bytes: Buffer
  try {
    bytes = fs.readFileSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === "ENOENT" ? { _tag: "Absent" } : { _tag: "Unusable", reason: `cannot read it: ${code ?? String(error)}` }
  }
  try {
    return parseMirror(bytes, bytes.lastIndexOf(10) + 1)
  } catch (error) {
    return { _tag: "Unusable", reason: error instanceof Error ? error.message : String(error) }
  }
}

export interface JournalMirror {
  /** What the file held at the start (read once, ahead of time when `prefetch` ran); later calls get Absent. */
  readonly takeContents: () => MirrorContents
  /** Whether commits are appended (the file holds exactly the committed entries). */
  readonly synced: () => boolean
  /** After a commit: its entries appended, when synced. A failed append stops the mirror until the next full read. */
  readonly committed: (entries: ReadonlyArray<EncodedEntry>) => void
  /** A commit failed (it may have reached the database) or the store was reset: stop appending. */
  readonly unsync: () => void
  /** The file kept up to `completeBytes` and `tail` appended: synced again. */
  readonly extend: (completeBytes: number, tail: ReadonlyArray<EncodedEntry>) => void
  /** The file replaced by exactly `entries`: synced again. */
  readonly replace: (entries: ReadonlyArray<EncodedEntry>) => void
  readonly close: () => void
}

/** Most bytes of lines gathered before one write (bounds the memory of a rewrite). */
const WRITE_CHUNK = 1 << 20

/** Writes the entries' lines to `fd`, in writes of about WRITE_CHUNK bytes. */
const writeLines = (fd: number, entries: ReadonlyArray<EncodedEntry>): void => {
  let chunk = ""
  for (const e of entries) {
    chunk += lineOf(e)
    if (chunk.length >= WRITE_CHUNK) {
      fs.writeSync(fd, chunk)
      chunk = ""
    }
  }
  if (chunk.length > 0) fs.writeSync(fd, chunk)
}

/** Runs each step, whatever the ones before did (a cleanup that must not throw). */
const quietly = (...steps: ReadonlyArray<() => void>): void => {
  for (const step of steps) {
    try {
      step()
    } catch {
      // nothing more to do: see `guarded` below
    }
  }
}

/**
 * The mirror of `file`. Its contents are read on the event loop's next turn: the mirror is made
 * beside PGlite's thread, whose opening of the database the main thread would otherwise only wait
 * for. Nothing is written until a full read has brought the file in line (`extend` or `replace`),
 * so a process that only opens the store, or loses the race for the data directory's lock, leaves
 * the file as it was.
 */
export const makeJournalMirror = (file: string): JournalMirror => {
  let contents: MirrorContents | undefined
  const prefetch = setImmediate(() => {
    contents ??= readMirror(file)
  })
  let fd: number | undefined
  const closeFd = () => {
    const open = fd
    fd = undefined
    if (open !== undefined) fs.closeSync(open)
  }
  /**
   * A failure to write the mirror never fails the store (its commit is in the database already):
   * the file is dropped, and the next start reads the database; if even that fails, the file is
   * left as it is, and that start finds it behind or unusable and reads the database all the same.
   */
  const guarded = (write: () => void) => {
    try {
      write()
    } catch {
      quietly(closeFd, () => fs.rmSync(file, { force: true }))
    }
  }
  return {
    takeContents: () => {
      clearImmediate(prefetch)
      const taken = contents ?? readMirror(file)
      contents = { _tag: "Absent" }
      return taken
    },
    synced: () => fd !== undefined,
    committed: (entries) => {
      const open = fd
      if (open !== undefined && entries.length > 0) guarded(() => writeLines(open, entries))
    },
    unsync: () => guarded(() => {
      closeFd()
      fs.rmSync(file, { force: true })
    }),
    extend: (completeBytes, tail) =>
      guarded(() => {
        closeFd()
        fs.truncateSync(file, completeBytes)
        fd = fs.openSync(file, "a")
        writeLines(fd, tail)
      }),
    replace: (entries) =>
      guarded(() => {
        closeFd()
        const temporary = `${file}.tmp`
        fd = fs.openSync(temporary, "w")
        fs.writeSync(fd, `${FORMAT_LINE}\n`)
        writeLines(fd, entries)
        fs.renameSync(temporary, file)
      }),
    close: closeFd
  }
}
