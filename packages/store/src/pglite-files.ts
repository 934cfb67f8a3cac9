/**
 * The embedded database's files: the data directory's lock, its `pgdata` (copied from a template
 * when new) and the templates themselves. Plain promises and Node built-ins only (no Effect): this
 * runs in PGlite's own thread (pglite-thread.ts), which loads nothing it does not need.
 *
 * Layout of a data directory: `pgdata/` (PGlite's PGDATA) and `pglite.lock` (the pid of the process
 * that has it open; a second process is refused).
 *
 * Beside a template waits its spare copy (`<template>.spare`, a complete PGDATA): a new data
 * directory takes it with one rename instead of copying the template's files on the start's critical
 * path (393 files, 16 MB: 100 to 220 ms of a 1.1 s start on a 2-core VM, the thread's timeline of
 * 2026-11-29), and the start that took it copies the next one a second after it is ready.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { pglitePackage } from "./pglite-wasm.ts"

export type PgliteOrigin =
  /** the data directory existed */
  | "existing"
  /** copied from an existing template */
  | "template"
  /** the template's spare copy, made beforehand, moved into place */
  | "template-spare"
  /** the template was created first (initdb), then copied */
  | "template-created"
  /** initdb ran in the data directory (template disabled) */
  | "initdb"

/**
 * PGlite is imported when a database is opened: a node in memory or on a PostgreSQL server never
 * loads it (~30 ms of every start, --cpu-prof of `sandnet start --in-memory`).
 */
export const loadPglite = () => import("@electric-sql/pglite").then((module) => module.PGlite)

const exists = (file: string) => fs.existsSync(file)
export const tmpSuffix = () => `.tmp-${process.pid}-${randomBytes(4).toString("hex")}`

/**
 * initdb options for new data directories. 1 MB WAL segments instead of 16 MB make a fresh PGDATA
 * 23 MB instead of 39 MB, so copying the template is faster; the WAL size limits are set to what
 * initdb derives for 16 MB segments, so checkpoints happen exactly as with PGlite's defaults.
 */
/**
 * PostgreSQL's settings at each start. shared_buffers: PostgreSQL zeroes its whole shared memory at
 * every start (Emscripten's anonymous `mmap` is a `memset`, which runs once, in WebAssembly's baseline
 * code: about 5 ms per MB). PostgreSQL's default of 128 MB cost about 350 ms of a reopen's CPU; 32 MB
 * (42 MB of shared memory) still 150 to 230 ms; 8 MB (15 MB) about 80 ms. A node's working set is
 * small (the newest pages of the journal and of its indexes), and the operating system's page cache
 * holds the rest; W1 and the restart after 2,000 or 20,000 offers measured the same with 8 and 32 MB.
 *
 * full_page_writes: off. Full-page images guard against pages torn by an operating-system crash or a
 * power cut, which PGlite's `fsync=off` does not survive anyway; a killed process tears no page (its
 * writes are in the page cache). With them on, the first change of each page after a checkpoint wrote
 * the whole page to the WAL, and so did the first read of a page after a crash (the data checksums
 * make setting its hint bits a logged change): a restart after 2,000 offers wrote its journals' 16 MB
 * again while reading them (the PGlite thread's profile of the cold read: a third of its time in writes).
 */
export const START_PARAMS = ["-c", "shared_buffers=8MB", "-c", "full_page_writes=off"]

export const INITDB_PARAMS = ["--wal-segsize=1", "-c", "max_wal_size=1GB", "-c", "min_wal_size=80MB"]
/** Names the template's initdb options, so that changing them never reuses an old template. */
const TEMPLATE_VARIANT = "wal1"

/** Where the template lives by default: next to the installed PGlite, keyed by its version. */
export const defaultTemplateDir = (): string => {
  const { root, version } = pglitePackage()
  // root = <node_modules>/@electric-sql/pglite
  const nodeModules = path.dirname(path.dirname(root))
  return path.join(nodeModules, ".cache", "sandnet-store", `pglite-${version}-${TEMPLATE_VARIANT}`)
}

/** Copies a directory tree; files are copied concurrently (far quicker than one by one for PGDATA's ~1000 small files). */
const copyTree = async (from: string, to: string): Promise<void> => {
  const files: Array<string> = []
  const walk = async (rel: string): Promise<void> => {
    await fsp.mkdir(path.join(to, rel), { recursive: true })
    for (const entry of await fsp.readdir(path.join(from, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name)
      if (entry.isDirectory()) await walk(child)
      else if (entry.isFile()) files.push(child)
    }
  }
  await walk("")
  await Promise.all(files.map((file) => fsp.copyFile(path.join(from, file), path.join(to, file))))
}

/** Creates the template (initdb in a temporary directory, clean close, atomic rename). Returns whether it had to. */
export const ensureTemplate = async (template: string): Promise<boolean> => {
  if (exists(path.join(template, "PG_VERSION"))) return false
  await fsp.mkdir(path.dirname(template), { recursive: true })
  const tmp = template + tmpSuffix()
  try {
    const db = await (await loadPglite()).create({ dataDir: tmp, initDbStartParams: INITDB_PARAMS })
    await db.close()
  } catch (error) {
    await fsp.rm(tmp, { recursive: true, force: true })
    throw error
  }
  try {
    await fsp.rename(tmp, template)
  } catch (error) {
    // Another process won the race: use its template.
    await fsp.rm(tmp, { recursive: true, force: true })
    if (!exists(path.join(template, "PG_VERSION"))) throw error
  }
  return true
}

/**
 * Removes the leftovers of an interrupted copy (the caller holds the data directory's lock, nobody
 * else is copying) and says whether `pgdata` is a data directory already.
 */
export const pgdataExists = async (dataDir: string, pgdata: string): Promise<boolean> => {
  for (const name of await fsp.readdir(dataDir)) {
    if (name.startsWith(`${path.basename(pgdata)}.tmp-`)) await fsp.rm(path.join(dataDir, name), { recursive: true, force: true })
  }
  if (exists(path.join(pgdata, "PG_VERSION"))) return true
  if (exists(pgdata)) {
    if ((await fsp.readdir(pgdata)).length > 0) throw new Error(`${pgdata} exists but is not a PGlite data directory`)
    await fsp.rmdir(pgdata)
  }
  return false
}

/**
 * Fills a new `pgdata` from the template (created first if missing): its spare copy when there is
 * one, else a copy made now; `false`: initdb in place, when PGlite opens it.
 */
export const fillPgdata = async (pgdata: string, template: string | false): Promise<PgliteOrigin> => {
  if (template === false) return "initdb"
  const created = await ensureTemplate(template)
  if (await takeTemplateSpare(template, pgdata)) return "template-spare"
  const tmp = pgdata + tmpSuffix()
  await copyTree(template, tmp)
  await fsp.rename(tmp, pgdata)
  return created ? "template-created" : "template"
}

/** Where a template's spare copy waits: a complete PGDATA, only ever put there by a rename. */
export const templateSpareDir = (template: string): string => `${template}.spare`

/**
 * Moves the template's spare copy to `pgdata` (one rename: another process taking it at the same
 * moment gets nothing). False when there is none, or when it is on another filesystem than `pgdata`:
 * the caller copies the template then.
 */
const takeTemplateSpare = async (template: string, pgdata: string): Promise<boolean> => {
  try {
    await fsp.rename(templateSpareDir(template), pgdata)
  } catch {
    return false
  }
  if (exists(path.join(pgdata, "PG_VERSION"))) return true
  // not a data directory after all (made by hand?): away with it, copy the template instead
  await fsp.rm(pgdata, { recursive: true, force: true })
  return false
}

/**
 * Makes the template's spare copy if it has none: copied under a temporary name, renamed into place,
 * so that no start ever takes a partial one. Copies left by processes that died while making one are
 * removed first. Returns whether it made one (false: there was one, or another process made it meanwhile).
 */
export const makeTemplateSpare = async (template: string): Promise<boolean> => {
  const spare = templateSpareDir(template)
  if (exists(path.join(spare, "PG_VERSION"))) return false
  // Something that is no data directory stands in the way: moved aside before it is removed, so that
  // a spare another process put there meanwhile, and a start may be taking, is never removed file by file.
  if (exists(spare)) {
    const aside = spare + tmpSuffix()
    await fsp.rename(spare, aside).then(() => fsp.rm(aside, { recursive: true, force: true }), () => {})
  }
  await removeDeadCopies(spare)
  const tmp = spare + tmpSuffix()
  try {
    await copyTree(template, tmp)
    await fsp.rename(tmp, spare)
    return true
  } catch (error) {
    await fsp.rm(tmp, { recursive: true, force: true })
    if (exists(path.join(spare, "PG_VERSION"))) return false
    throw error
  }
}

/** Removes `<dir>.tmp-<pid>-<random>` copies whose process is gone (cut short by a kill). */
const removeDeadCopies = async (dir: string): Promise<void> => {
  const prefix = `${path.basename(dir)}.tmp-`
  for (const name of await fsp.readdir(path.dirname(dir))) {
    if (!name.startsWith(prefix)) continue
    const pid = Number.parseInt(name.slice(prefix.length), 10)
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) await fsp.rm(path.join(path.dirname(dir), name), { recursive: true, force: true })
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * `mkdir -p`, a directory at a time. Node's own `{ recursive: true }` never returns on some paths: on
 * Node 20, `fs.mkdirSync("/proc/1/x", { recursive: true })` spins at full CPU, deaf to signals (mkdir
 * answers ENOENT although the parent exists, and it tries again), and so did `sandnet start --data-dir
 * /proc/1/x` after printing its error, in PGlite's thread started early. This fails with that ENOENT.
 */
export const makeDirectories = (dir: string): void => {
  const missing: Array<string> = []
  for (let current = path.resolve(dir); !fs.existsSync(current); current = path.dirname(current)) {
    missing.push(current)
    if (path.dirname(current) === current) break
  }
  for (const each of missing.reverse()) {
    try {
      fs.mkdirSync(each)
    } catch (error) {
      // made meanwhile by another process: fine
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
  }
}

/** The data directory cannot be locked: in use by another process, or the lock file cannot be written. */
export class DataDirLockError extends Error {}

/**
 * One process per data directory: a lock file holding the owner's pid, taken over when that process
 * is gone. Returns the lock file; throws a DataDirLockError saying why it cannot be taken.
 */
export const lockDataDir = (dataDir: string): string => {
  const lockFile = path.join(dataDir, "pglite.lock")
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: "wx" })
      return lockFile
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new DataDirLockError(`cannot lock ${dataDir}: ${String(error)}`)
      let owner = Number.NaN
      let ageMs = Number.POSITIVE_INFINITY
      try {
        owner = Number.parseInt(fs.readFileSync(lockFile, "utf8"), 10)
        ageMs = Date.now() - fs.statSync(lockFile).mtimeMs
      } catch {
        continue // vanished meanwhile: try again
      }
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) throw new DataDirLockError(`${dataDir} is in use by process ${owner} (${lockFile})`)
      // No pid yet and very recent: another process is taking the lock right now.
      if (!Number.isInteger(owner) && ageMs < 10_000) throw new DataDirLockError(`${dataDir} is being opened by another process`)
      fs.rmSync(lockFile, { force: true })
    }
  }
  throw new DataDirLockError(`cannot lock ${dataDir}`)
}

export const unlockDataDir = (lockFile: string): void => fs.rmSync(lockFile, { force: true })
