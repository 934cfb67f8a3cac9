/**
 * The embedded default database: PGlite (PostgreSQL compiled to WebAssembly, in this process)
 * served on a loopback TCP socket by pglite-socket, so that the very same `@effect/sql-pg` client
 * and SQL store used against a real PostgreSQL server work unchanged. One connection on both
 * sides: PGlite runs one query at a time anyway.
 *
 * Start-up: `PGlite.create` on an empty directory runs initdb (about 5-7 s here). Instead, the
 * first start on a machine creates a pristine, initialised data directory once, as a template under
 * `node_modules/.cache/sandnet-store/pglite-<version>-<variant>/`, and every new data directory is a plain
 * file copy of it (a few hundred ms) followed by a normal open (about 0.4 s). See docs/storage.md
 * for the measured figures.
 *
 * Layout of `dataDir` (default `./.sandnet`): `pgdata/` (PGlite's PGDATA) and `pglite.lock` (the
 * pid of the process that has it open; a second process gets a StoreConfigError).
 */
import type { PGlite } from "@electric-sql/pglite"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlClient } from "@effect/sql/SqlClient"
import { Context, Duration, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { PgliteStartupError, StoreConfigError } from "./errors.ts"
import { pglitePackage, precompilePglite, type PgliteWasmModule } from "./pglite-wasm.ts"

export interface PgliteOptions {
  /** Directory holding the database (default `./.sandnet`, relative to the working directory). */
  readonly dataDir?: string
  /**
   * Pre-initialised data directory copied into a new `dataDir`; created on first use. Default:
   * `<node_modules>/.cache/sandnet-store/pglite-<version>-<variant>`. `false`: run initdb in place (slow).
   */
  readonly template?: string | false
  /** Loopback address and port of the socket server (default 127.0.0.1, an ephemeral port). */
  readonly host?: string
  readonly port?: number
}

export type PgliteOrigin =
  /** the data directory existed */
  | "existing"
  /** copied from an existing template */
  | "template"
  /** the template was created first (initdb), then copied */
  | "template-created"
  /** initdb ran in the data directory (template disabled) */
  | "initdb"

/** What the embedded database is and how long it took to start. */
export interface EmbeddedPgliteInfo {
  readonly dataDir: string
  readonly pgdata: string
  readonly host: string
  readonly port: number
  /** Connection string of the socket server (one connection: taken by the store while it runs). */
  readonly url: string
  readonly origin: PgliteOrigin
  readonly timings: {
    /** preparing `pgdata` (template creation and/or copy), ms */
    readonly prepareMs: number
    /** `PGlite.create` on the prepared directory, ms */
    readonly openMs: number
    /** socket server and first client connection, ms */
    readonly connectMs: number
    readonly totalMs: number
  }
}

export class EmbeddedPglite extends Context.Tag("@sandnet/store/EmbeddedPglite")<EmbeddedPglite, EmbeddedPgliteInfo>() {}

export const DEFAULT_DATA_DIR = ".sandnet"

/**
 * PGlite and its socket server are imported when a store opens one: a node in memory or on a
 * PostgreSQL server never loads them (~30 ms of every start, --cpu-prof of `sandnet start --in-memory`).
 */
const loadPglite = () => import("@electric-sql/pglite").then((module) => module.PGlite)
const loadSocketServer = () => import("@electric-sql/pglite-socket").then((module) => module.PGLiteSocketServer)

const exists = (file: string) => fs.existsSync(file)
const tmpSuffix = () => `.tmp-${process.pid}-${randomBytes(4).toString("hex")}`

/**
 * initdb options for new data directories. 1 MB WAL segments instead of 16 MB make a fresh PGDATA
 * 23 MB instead of 39 MB, so copying the template is faster; the WAL size limits are set to what
 * initdb derives for 16 MB segments, so checkpoints happen exactly as with PGlite's defaults.
 */
const INITDB_PARAMS = ["--wal-segsize=1", "-c", "max_wal_size=1GB", "-c", "min_wal_size=80MB"]
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
const ensureTemplate = async (template: string): Promise<boolean> => {
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

const preparePgdata = async (dataDir: string, pgdata: string, template: string | false): Promise<PgliteOrigin> => {
  // Leftovers of an interrupted copy (we hold the data directory's lock, nobody else is copying).
  for (const name of await fsp.readdir(dataDir)) {
    if (name.startsWith(`${path.basename(pgdata)}.tmp-`)) await fsp.rm(path.join(dataDir, name), { recursive: true, force: true })
  }
  if (exists(path.join(pgdata, "PG_VERSION"))) return "existing"
  if (exists(pgdata)) {
    if ((await fsp.readdir(pgdata)).length > 0) throw new Error(`${pgdata} exists but is not a PGlite data directory`)
    await fsp.rmdir(pgdata)
  }
  if (template === false) return "initdb"
  const created = await ensureTemplate(template)
  const tmp = pgdata + tmpSuffix()
  await copyTree(template, tmp)
  await fsp.rename(tmp, pgdata)
  return created ? "template-created" : "template"
}

/**
 * Creates the template data directory if it does not exist yet (e.g. from a `prepare` step or a
 * test setup), so that no node start pays for initdb. Returns where it is and whether it was created.
 */
export const preparePgliteTemplate = (
  template: string = defaultTemplateDir(),
  onStep: (step: string) => void = () => {}
): Effect.Effect<{ readonly template: string; readonly created: boolean; readonly ms: number }, PgliteStartupError> =>
  Effect.tryPromise({
    try: async () => {
      const started = performance.now()
      if (!exists(path.join(template, "PG_VERSION"))) onStep(`creating the PGlite template: initdb (once per machine and PGlite version; 5 to 40 s) in ${template}`)
      const created = await ensureTemplate(template)
      return { template, created, ms: Math.round(performance.now() - started) }
    },
    catch: (cause) =>
      new PgliteStartupError({ dataDir: template, message: `cannot create the PGlite template: ${String(cause)}`, cause })
  })

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** One process per data directory: a lock file holding the owner's pid, taken over when that process is gone. */
const lockDataDir = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const lockFile = path.join(dataDir, "pglite.lock")
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          fs.writeFileSync(lockFile, String(process.pid), { flag: "wx" })
          return Effect.succeed(lockFile)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
            return Effect.fail(new StoreConfigError({ option: "dataDir", message: `cannot lock ${dataDir}: ${String(error)}` }))
          }
          let owner = Number.NaN
          let ageMs = Number.POSITIVE_INFINITY
          try {
            owner = Number.parseInt(fs.readFileSync(lockFile, "utf8"), 10)
            ageMs = Date.now() - fs.statSync(lockFile).mtimeMs
          } catch {
            continue // vanished meanwhile: try again
          }
          if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
            return Effect.fail(
              new StoreConfigError({ option: "dataDir", message: `${dataDir} is in use by process ${owner} (${lockFile})` })
            )
          }
          // No pid yet and very recent: another process is taking the lock right now.
          if (!Number.isInteger(owner) && ageMs < 10_000) {
            return Effect.fail(new StoreConfigError({ option: "dataDir", message: `${dataDir} is being opened by another process` }))
          }
          fs.rmSync(lockFile, { force: true })
        }
      }
      return Effect.fail(new StoreConfigError({ option: "dataDir", message: `cannot lock ${dataDir}` }))
    }),
    (lockFile) => Effect.sync(() => fs.rmSync(lockFile, { force: true }))
  )

/** Turns a start-up failure into a PgliteStartupError saying what did not work. */
type StartupFailure = (message: string) => (cause: unknown) => PgliteStartupError

/** Creates and locks the data directory and fills `pgdata` (from the template when new); says where it came from. */
const prepareDataDir = (dataDir: string, pgdata: string, template: string | false | undefined, fail: StartupFailure) =>
  Effect.gen(function*() {
    yield* Effect.try({ try: () => fs.mkdirSync(dataDir, { recursive: true }), catch: fail("cannot create the data directory") })
    yield* lockDataDir(dataDir)
    const chosen = template ?? (yield* Effect.try({ try: defaultTemplateDir, catch: fail("no template directory") }))
    return yield* Effect.tryPromise({
      try: () => preparePgdata(dataDir, pgdata, chosen),
      catch: fail("cannot prepare the data directory")
    })
  })

/** Opens PGlite on `pgdata` (with the precompiled WebAssembly module when there is one), closed with the scope. */
const openPglite = (pgdata: string, wasm: Promise<PgliteWasmModule | undefined>, fail: StartupFailure) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const pgliteWasmModule = await wasm
        const options = { dataDir: pgdata, initDbStartParams: INITDB_PARAMS }
        const PGlite = await loadPglite()
        return PGlite.create(pgliteWasmModule === undefined ? options : { ...options, pgliteWasmModule })
      },
      catch: fail("PGlite did not start")
    }),
    (db) => Effect.tryPromise(() => db.close()).pipe(Effect.ignore)
  )

/** Serves PGlite on a loopback socket (one connection), stopped with the scope; returns the port. */
const serveOverSocket = (db: PGlite, host: string, port: number, fail: StartupFailure) =>
  Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const PGLiteSocketServer = await loadSocketServer()
          const server = new PGLiteSocketServer({ db, host, port, maxConnections: 1 })
          await server.start()
          return server
        },
        catch: fail("the PGlite socket server did not start")
      }),
      (server) => Effect.tryPromise(() => server.stop()).pipe(Effect.ignore)
    )
    const conn = server.getServerConn()
    return Number(conn.slice(conn.lastIndexOf(":") + 1))
  })

/**
 * The embedded database as a `PgClient` / `SqlClient` (plus `EmbeddedPglite` info). Releasing the
 * layer closes, in order: the client pool, the socket server, PGlite, the lock.
 */
export const pgliteLayer = (
  options: PgliteOptions = {}
): Layer.Layer<EmbeddedPglite | PgClient.PgClient | SqlClient, PgliteStartupError | StoreConfigError> =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const started = performance.now()
      const dataDir = path.resolve(options.dataDir ?? DEFAULT_DATA_DIR)
      const pgdata = path.join(dataDir, "pgdata")
      const host = options.host ?? "127.0.0.1"
      const fail: StartupFailure = (message) => (cause) =>
        new PgliteStartupError({ dataDir, message: `${message}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })

      const wasm = precompilePglite().then(
        (module) => module,
        () => undefined
      )
      const origin = yield* prepareDataDir(dataDir, pgdata, options.template, fail)
      const prepared = performance.now()
      const db = yield* openPglite(pgdata, wasm, fail)
      const opened = performance.now()
      const port = yield* serveOverSocket(db, host, options.port ?? 0, fail)

      const client = yield* PgClient.make({
        host,
        port,
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        idleTimeout: Duration.zero,
        applicationName: "sandnet"
      }).pipe(Effect.mapError(fail("cannot connect to PGlite")))
      const done = performance.now()

      const info: EmbeddedPgliteInfo = {
        dataDir,
        pgdata,
        host,
        port,
        url: `postgres://postgres@${host}:${port}/postgres`,
        origin,
        timings: {
          prepareMs: Math.round(prepared - started),
          openMs: Math.round(opened - prepared),
          connectMs: Math.round(done - opened),
          totalMs: Math.round(done - started)
        }
      }
      return Context.make(EmbeddedPglite, info).pipe(
        Context.add(PgClient.PgClient, client),
        Context.add(SqlClient, client)
      )
    })
  ).pipe(Layer.provide(Reactivity.layer))
