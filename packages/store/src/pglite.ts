/**
 * The embedded default database: PGlite (PostgreSQL compiled to WebAssembly, in this process, in a
 * thread of its own: pglite-host.ts, pglite-thread.ts) served on a loopback TCP socket by
 * pglite-socket, so that the very same `@effect/sql-pg` client and SQL store used against a real
 * PostgreSQL server work unchanged. One connection on both sides: PGlite runs one query at a time anyway.
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
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlClient } from "@effect/sql/SqlClient"
import { Context, Duration, Effect, Layer } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { PgliteStartupError, StoreConfigError } from "./errors.ts"
import { defaultTemplateDir, ensureTemplate, type PgliteOrigin } from "./pglite-files.ts"

export { defaultTemplateDir, makeTemplateSpare, type PgliteOrigin, templateSpareDir } from "./pglite-files.ts"
import { DEFAULT_DATA_DIR, openPgliteThread, type PgliteThreadData, PgliteThreadFailure } from "./pglite-host.ts"

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

/** What the embedded database is and how long it took to start. */
export interface EmbeddedPgliteInfo {
  readonly dataDir: string
  readonly pgdata: string
  readonly host: string
  readonly port: number
  /** Connection string of the socket server (one connection: taken by the store while it runs). */
  readonly url: string
  readonly origin: PgliteOrigin
  /** Its thread was started with the process (`startPgliteEarly`) and adopted here. */
  readonly startedEarly: boolean
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

export { DEFAULT_DATA_DIR } from "./pglite-host.ts"

/** The data directory's PGlite thread, closed (socket server, PGlite, lock) with the scope. */
const pgliteThread = (data: PgliteThreadData, dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => openPgliteThread(data),
      catch: (cause) => new PgliteStartupError({ dataDir, message: `PGlite's thread did not start: ${String(cause)}`, cause })
    }),
    (thread) => Effect.promise(() => thread.close())
  ).pipe(
    Effect.flatMap((thread) =>
      Effect.tryPromise({
        try: () => thread.ready.then((ready) => ({ ...ready, startedEarly: thread.startedEarly })),
        catch: (cause) =>
          cause instanceof PgliteThreadFailure && cause.kind === "config"
            ? new StoreConfigError({ option: "dataDir", message: cause.message })
            : new PgliteStartupError({ dataDir, message: cause instanceof Error ? cause.message : String(cause), cause })
      })
    )
  )

/**
 * Loads the PostgreSQL driver (node-postgres, which sandnet's bundle loads at its first use) on the
 * event loop's next turn: this thread waits for PGlite's to open the database, so the 80 to 100 ms
 * the driver takes to load (its modules, and Node's fetch internals that its runtime check touches)
 * come off the start's critical path (`node --cpu-prof` of a restart: the main thread idle 400 ms
 * for PGlite, then loading the driver before it could connect). Node's module cache makes the
 * bundle's own later require instant. A failure here is left to that require, which reports it.
 */
const preloadPgDriver = (): void => {
  setImmediate(() => {
    try {
      createRequire(import.meta.url)("pg")
    } catch {
      // reported by the connection's own require
    }
  })
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
      if (!fs.existsSync(path.join(template, "PG_VERSION"))) onStep(`creating the PGlite template: initdb (once per machine and PGlite version; 5 to 40 s) in ${template}`)
      const created = await ensureTemplate(template)
      return { template, created, ms: Math.round(performance.now() - started) }
    },
    catch: (cause) =>
      new PgliteStartupError({ dataDir: template, message: `cannot create the PGlite template: ${String(cause)}`, cause })
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
      const fail = (message: string) => (cause: unknown) =>
        new PgliteStartupError({ dataDir, message: `${message}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })

      const template = options.template ?? (yield* Effect.try({ try: defaultTemplateDir, catch: fail("no template directory") }))
      preloadPgDriver()
      const ready = yield* pgliteThread({ dataDir, pgdata, host, port: options.port ?? 0, template }, dataDir)
      const { port, origin, startedEarly } = ready
      const served = performance.now()

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
        startedEarly,
        timings: {
          prepareMs: ready.timings.prepareMs,
          openMs: ready.timings.openMs,
          connectMs: ready.timings.serveMs + Math.round(done - served),
          totalMs: Math.round(done - started)
        }
      }
      return Context.make(EmbeddedPglite, info).pipe(
        Context.add(PgClient.PgClient, client),
        Context.add(SqlClient, client)
      )
    })
  ).pipe(Layer.provide(Reactivity.layer))
