/**
 * The embedded database runs in a thread of its own (pglite-thread.ts): PGlite, its socket server
 * and the data directory's files (lock, template copy). The store talks to it over the loopback
 * socket, as to any PostgreSQL server, so nothing of PostgreSQL's start or of its query execution
 * runs on the thread that serves the node, and a `sandnet start` can start it before it loads the
 * rest of the program (`startPgliteEarly`): PostgreSQL starts on the second core while the program
 * loads. Node built-ins only, so that a driver can import this first.
 */
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import type { PgliteOrigin } from "./pglite-files.ts"

/** The embedded database's directory when none is given (relative to the working directory). */
export const DEFAULT_DATA_DIR = ".sandnet"

/** What the thread opens: `template` undefined means the store says it later (only a new data directory needs one). */
export interface PgliteThreadData {
  readonly dataDir: string
  readonly pgdata: string
  readonly host: string
  readonly port: number
  readonly template?: string | false
}

export type ToPgliteThread = { readonly type: "template"; readonly template: string | false } | { readonly type: "close" }

export interface PgliteThreadReady {
  readonly type: "ready"
  readonly port: number
  readonly origin: PgliteOrigin
  /** ms: preparing pgdata (lock, template copy), PGlite.create, the socket server's start */
  readonly timings: { readonly prepareMs: number; readonly openMs: number; readonly serveMs: number }
}

export type FromPgliteThread =
  | PgliteThreadReady
  | { readonly type: "failed"; readonly kind: "config" | "startup"; readonly message: string }
  | { readonly type: "closed" }

/** The thread could not open the database: `config` for an unusable data directory (in use, lock not writable). */
export class PgliteThreadFailure extends Error {
  constructor(readonly kind: "config" | "startup", message: string) {
    super(message)
  }
}

export interface PgliteThread {
  readonly data: PgliteThreadData
  /** The socket server's port once PGlite is open; rejects with a PgliteThreadFailure. */
  readonly ready: Promise<PgliteThreadReady>
  /** The template for a new data directory (ignored when it exists, or when given at the start). */
  readonly useTemplate: (template: string | false) => void
  /** Closes the socket server, PGlite (a clean shutdown) and the lock, then ends the thread. */
  readonly close: () => Promise<void>
}

/**
 * The thread's module: in the bundle (packages/cli/dist) `pglite-thread.mjs` beside this code's chunk;
 * from the sources (tests, tsx scripts) the TypeScript module bundled by esbuild, once per version of
 * its sources, into `node_modules/.cache/sandnet-store/`. A thread that loaded the sources through
 * tsx's loader started a loader thread of its own and compiled its modules again: 400 to 500 ms of
 * CPU and 200 to 300 ms of wall time of every PGlite a test opened (`node --cpu-prof` of five opens
 * from the sources: the loader thread busy 350 to 450 ms, PGlite's thread waiting on it 100 ms).
 * Without esbuild installed, through tsx's loader still. The command never gets here: it runs the bundle.
 */
const threadModule = (): URL => {
  if (!import.meta.url.endsWith(".ts")) return new URL("./pglite-thread.mjs", import.meta.url)
  sourceThreadModule ??= bundledThreadSources() ?? threadSourcesThroughTsx()
  return sourceThreadModule
}

let sourceThreadModule: URL | undefined

/** The thread's modules that the bundle holds (pglite-host.ts for its types). */
const THREAD_SOURCES = ["pglite-thread.ts", "pglite-files.ts", "pglite-wasm.ts", "pglite-host.ts"]

const bundledThreadSources = (): URL | undefined => {
  try {
    const require = createRequire(import.meta.url)
    const here = path.dirname(fileURLToPath(import.meta.url))
    const hash = createHash("sha256")
    for (const file of THREAD_SOURCES) hash.update(fs.readFileSync(path.join(here, file)))
    // beside the installed esbuild, so that the bundle resolves PGlite from the same node_modules
    const nodeModules = path.dirname(path.dirname(require.resolve("esbuild/package.json")))
    const outfile = path.join(nodeModules, ".cache", "sandnet-store", `pglite-thread-${hash.digest("hex").slice(0, 16)}.mjs`)
    if (!fs.existsSync(outfile)) {
      const esbuild = require("esbuild") as typeof import("esbuild")
      const tmp = `${outfile}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`
      esbuild.buildSync({ entryPoints: [path.join(here, "pglite-thread.ts")], bundle: true, platform: "node", format: "esm", packages: "external", target: "node20", outfile: tmp, logLevel: "silent" })
      fs.renameSync(tmp, outfile) // whole or not at all: other test processes may be reading it
    }
    return pathToFileURL(outfile)
  } catch {
    return undefined
  }
}

const threadSourcesThroughTsx = (): URL => {
  const tsx = path.dirname(createRequire(import.meta.url).resolve("tsx/package.json"))
  const entry = new URL("./pglite-thread.ts", import.meta.url).href
  const api = pathToFileURL(path.join(tsx, "dist", "esm", "api", "index.mjs")).href
  const code = `import { register } from ${JSON.stringify(api)}\nregister()\nawait import(${JSON.stringify(entry)})\n`
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`)
}

/** Starts PGlite's thread; the thread does not keep the process alive until `keepAlive` says so. */
export const startPgliteThread = (data: PgliteThreadData, keepAlive = true): PgliteThread & { readonly keepProcessAlive: () => void } => {
  const worker = new Worker(threadModule(), { workerData: data, stdout: false, stderr: false })
  let exited = false
  const gone = new Promise<void>((resolve) => worker.once("exit", () => ((exited = true), resolve())))
  const ready = new Promise<PgliteThreadReady>((resolve, reject) => {
    worker.on("message", (message: FromPgliteThread) => {
      if (message.type === "ready") resolve(message)
      else if (message.type === "failed") {
        reject(new PgliteThreadFailure(message.kind, message.message))
        // it closed what it had opened before saying so
        void worker.terminate()
      } else void worker.terminate()
    })
    worker.once("error", (error) => reject(new PgliteThreadFailure("startup", `PGlite's thread failed: ${error.message}`)))
    worker.once("exit", (code) => reject(new PgliteThreadFailure("startup", `PGlite's thread ended (${code})`)))
  })
  ready.catch(() => {}) // a thread started early may fail with nobody waiting (its data directory refused first)
  // after the listeners: adding a 'message' listener refs the worker's port again
  if (!keepAlive) worker.unref()
  let closing: Promise<void> | undefined
  return {
    data,
    ready,
    useTemplate: (template) => void (exited || worker.postMessage({ type: "template", template } satisfies ToPgliteThread)),
    keepProcessAlive: () => worker.ref(),
    close: () =>
      (closing ??= exited
        ? gone
        : (worker.ref(), worker.postMessage({ type: "close" } satisfies ToPgliteThread), gone))
  }
}

type EarlyThread = PgliteThread & { readonly keepProcessAlive: () => void }

/**
 * The thread started early, in a slot of the process rather than of this module: `sandnet start`
 * starts it from one copy of this module (bin/script-cached.mjs, through dist/early-pglite.mjs) and
 * opens the store from another (the start script's own), which must find it.
 */
const EARLY_SLOT = Symbol.for("@sandnet/store/pglite-host/early")
const earlySlot = globalThis as { [EARLY_SLOT]?: EarlyThread | undefined }

/**
 * Starts PGlite on `dataDir` (relative to the working directory; default `.sandnet`) before the program is loaded;
 * the store's layer adopts it when it opens the same directory. Not adopted by the time the process
 * would exit (the start failed earlier), it is closed cleanly.
 */
export const startPgliteEarly = (dataDir: string | undefined): void => {
  // started already: bin/script-cached.mjs starts it before the command line's script, which asks again
  if (earlySlot[EARLY_SLOT] !== undefined) return
  const resolved = path.resolve(dataDir ?? DEFAULT_DATA_DIR)
  const thread = startPgliteThread({ dataDir: resolved, pgdata: path.join(resolved, "pgdata"), host: "127.0.0.1", port: 0 }, false)
  earlySlot[EARLY_SLOT] = thread
  process.once("beforeExit", () => {
    if (earlySlot[EARLY_SLOT] !== thread) return
    earlySlot[EARLY_SLOT] = undefined
    void thread.close()
  })
}

/** PGlite's thread for `data`: the one started early when it opened the same (`startedEarly`), else a new one. */
export const openPgliteThread = async (data: PgliteThreadData): Promise<PgliteThread & { readonly startedEarly: boolean }> => {
  const started = earlySlot[EARLY_SLOT]
  earlySlot[EARLY_SLOT] = undefined
  if (started !== undefined) {
    if (started.data.dataDir === data.dataDir && started.data.host === data.host && started.data.port === data.port) {
      started.keepProcessAlive()
      if (data.template !== undefined) started.useTemplate(data.template)
      return { ...started, startedEarly: true }
    }
    await started.close()
  }
  return { ...startPgliteThread(data), startedEarly: false }
}
