/**
 * A baseline for the storage bench: how long this machine's disk takes to sync, as a commit of
 * PostgreSQL waits for it (`wal_sync_method` fdatasync, Linux's default: an 8 KB write of the
 * WAL, then `fdatasync`). Group commit shares that sync among the commit's offers and can gain no
 * more than it; what else a bare commit costs (its round trip, PostgreSQL's CPU) an offer's commit
 * only adds to. Where the sync is a small part of a commit, as on a VM whose disk caches writes,
 * a bare single-row loop is bound by CPU, not by the disk.
 */
import { closeSync, fdatasyncSync, fsyncSync, openSync, rmSync, writeSync } from "node:fs"
import { join } from "node:path"

/** The WAL's page: what PostgreSQL writes before the sync of a small commit. */
const PAGE_BYTES = 8192
/**
 * A WAL segment's size: PostgreSQL fills segments it allocated before, so a commit's sync writes
 * no file size (an append's fdatasync does, and took about twice as long here).
 */
const SEGMENT_BYTES = 16 * 2 ** 20
/** Syncs measured at most, and for how long at most. */
const MAX_SYNCS = 2000
const MAX_MILLIS = 500

export interface DiskSync {
  /** Microseconds per write-and-fdatasync, on average. */
  readonly microsPerSync: number
  readonly syncs: number
}

/**
 * Writes 8 KB pages one after the other into a segment allocated first, each synced, in a file of
 * its own in `dir` (removed after).
 */
export const measureDiskSync = (dir: string): DiskSync => {
  const path = join(dir, `sandnet-bench-sync-${process.pid}`)
  const page = Buffer.alloc(PAGE_BYTES, 1)
  const fd = openSync(path, "w")
  try {
    writeSync(fd, Buffer.alloc(SEGMENT_BYTES))
    fsyncSync(fd)
    const start = process.hrtime.bigint()
    let syncs = 0
    let elapsedNanos = 0n
    while (syncs < MAX_SYNCS && elapsedNanos < BigInt(MAX_MILLIS) * 1_000_000n) {
      writeSync(fd, page, 0, PAGE_BYTES, (syncs * PAGE_BYTES) % SEGMENT_BYTES)
      fdatasyncSync(fd)
      syncs++
      elapsedNanos = process.hrtime.bigint() - start
    }
    return { microsPerSync: Number(elapsedNanos) / 1000 / syncs, syncs }
  } finally {
    closeSync(fd)
    rmSync(path, { force: true })
  }
}
