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
    /** Each stream's mirrored entries, seq 1..n without a gap. */
    readonly streams: ReadonlyMap<string, ReadonlyArray<JournalEntry>>
    /** The body text of each stream's last mirrored entry (checked against the database's). */
    readonly lastBodies: ReadonlyMap<string, string>
    /** Bytes of complete lines: what is kept when the file is extended. */
    readonly completeBytes: number
  }

const lineOf = (e: EncodedEntry): string => `[${JSON.stringify(e.stream)},${e.seq},${JSON.stringify(e.kind)},${e.json}]\n`

/** The body text inside a line (the line as `lineOf` wrote it, without its newline). */
const bodyTextOf = (line: string, stream: string, seq: number, kind: string): string =>
  line.slice(`[${JSON.stringify(stream)},${seq},${JSON.stringify(kind)},`.length, -1)

const isLineShape = (value: unknown): value is readonly [string, number, string, unknown] =>
  Array.isArray(value) && value.length === 4 && typeof value[0] === "string" && Number.isSafeInteger(value[1]) && typeof value[2] === "string"

/**
 * Parses the mirror's complete lines (`bytes` up to `completeBytes`), each decoded on its own: the
 * file may be larger than the longest string V8 can hold (about 512 MB), which a node with a long
 * history reaches. Any line out of shape or out of order makes the whole file unusable.
 */
const parseMirror = (bytes: Buffer, completeBytes: number): MirrorContents => {
  const format = Buffer.from(`${FORMAT_LINE}\n`, "utf8")
  if (completeBytes < format.length || !bytes.subarray(0, format.length).equals(format)) return { _tag: "Unusable", reason: "not a journal mirror of this format" }
  const streams = new Map<string, Array<JournalEntry>>()
  const lastLines = new Map<string, { line: string; seq: number; kind: string }>()
  for (let pos = format.length; pos < completeBytes;) {
    const end = bytes.indexOf(10, pos)
    const line = bytes.toString("utf8", pos, end)
    pos = end + 1
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      return { _tag: "Unusable", reason: "a line is not JSON" }
    }
    if (!isLineShape(value)) return { _tag: "Unusable", reason: "a line is not [stream, seq, kind, body]" }
    const [stream, seq, kind, body] = value
    let entries = streams.get(stream)
    if (entries === undefined) streams.set(stream, (entries = []))
    if (seq !== entries.length + 1) return { _tag: "Unusable", reason: `${stream}: seq ${seq} after ${entries.length}` }
    entries.push({ stream, seq, kind, body })
    lastLines.set(stream, { line, seq, kind })
  }
  const lastBodies = new Map([...lastLines].map(([stream, last]) => [stream, bodyTextOf(last.line, stream, last.seq, last.kind)] as const))
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
