/**
 * Archived history spilled to a file. A serving node keeps its older history compressed (engine
 * history/archived-log.ts); a node with a database keeps those segments in a file instead of its
 * memory, so that what its memory keeps per transaction is bounded by its live state, not by its
 * history (issue 13's memory row: the compressed segments were 1.1 to 1.4 KB of every
 * transaction of a 5-minute soak).
 *
 * The file is a cache of what the journals hold: each process makes its own (a start replays the
 * journals and archives again) and unlinks it as soon as it is open, so that nothing is left
 * behind, even by kill -9. It is opened when the first segment is archived: a node whose history
 * stays short (a test's) never makes one. If the file cannot be written (a full disk), segments
 * are kept in memory from then on and the node says so once.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { keepSegmentsInMemory, type KeptSegment, type SegmentKeeper } from "@sandnet/engine"

/** Spill files this process opened (two runtimes of one process may open theirs in the same millisecond). */
let spillFiles = 0

export class SpilledSegments implements SegmentKeeper {
  private fd: number | undefined = undefined
  /** Bytes written so far: where the next segment goes. */
  private size = 0
  /** Why the file is no longer written (segments then stay in memory). */
  private failure: string | undefined = undefined
  private failureTold = false
  /** Segments written to the file and kept in memory (after a failure). */
  readonly counts = { spilled: 0, inMemory: 0 }

  constructor(readonly dir: string) {}

  keep(compressed: Buffer): KeptSegment {
    if (this.failure === undefined) {
      try {
        return this.write(compressed)
      } catch (error) {
        this.failure = error instanceof Error ? error.message : String(error)
      }
    }
    this.counts.inMemory++
    return keepSegmentsInMemory.keep(compressed)
  }

  /** Why segments stopped going to the file, the first time it is asked after it happened. */
  takeFailure(): string | undefined {
    if (this.failure === undefined || this.failureTold) return undefined
    this.failureTold = true
    return this.failure
  }

  /** Closes the file (the runtime's end): nothing reads the history after it. */
  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd)
    this.fd = undefined
    this.failure ??= "closed"
    this.failureTold = true
  }

  private write(compressed: Buffer): KeptSegment {
    const fd = this.open()
    const at = this.size
    for (let written = 0; written < compressed.length; ) written += fs.writeSync(fd, compressed, written, compressed.length - written, at + written)
    this.size += compressed.length
    this.counts.spilled++
    const length = compressed.length
    return { read: () => this.read(fd, at, length) }
  }

  private read(fd: number, at: number, length: number): Buffer {
    const bytes = Buffer.allocUnsafe(length)
    for (let read = 0; read < length; ) {
      const n = fs.readSync(fd, bytes, read, length - read, at + read)
      if (n === 0) throw new Error(`the history spill file ended at ${at + read} bytes, before its segment's ${at + length}`)
      read += n
    }
    return bytes
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd
    const file = path.join(this.dir, `.sandnet-history-${process.pid}-${Date.now().toString(36)}-${++spillFiles}`)
    this.fd = fs.openSync(file, "wx+", 0o600)
    // open and unlinked: the file lives as long as the process and needs no cleaning up
    fs.unlinkSync(file)
    return this.fd
  }
}
