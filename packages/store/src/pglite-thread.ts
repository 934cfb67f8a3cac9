/**
 * PGlite's own thread (started by pglite-host.ts): creates and locks the data directory, fills a
 * new `pgdata` from the template, opens PGlite (PostgreSQL in WebAssembly, compiled here from the
 * thread's first milliseconds) and serves it on a loopback socket; says `ready` with the port, or
 * `failed` with a one-line reason after closing what it had opened. A start that took the
 * template's spare copy (or copied the template) makes the next spare copy a second after it is
 * ready. On `close`: stops the socket server, closes PGlite (PostgreSQL's clean shutdown) and
 * releases the lock, then says `closed`. Loads Node built-ins and PGlite only.
 */
import type { PGlite } from "@electric-sql/pglite"
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { parentPort, workerData } from "node:worker_threads"
import type { FromPgliteThread, PgliteThreadData, PgliteThreadReady, ToPgliteThread } from "./pglite-host.ts"
import { DataDirLockError, fillPgdata, INITDB_PARAMS, loadPglite, makeDirectories, makeTemplateSpare, START_PARAMS, lockDataDir, pgdataExists, unlockDataDir } from "./pglite-files.ts"
import { precompilePglite } from "./pglite-wasm.ts"

const port = parentPort!
const data = workerData as PgliteThreadData
const post = (message: FromPgliteThread) => port.postMessage(message)

// Start compiling PostgreSQL's WebAssembly and loading PGlite at once, beside the data directory's preparation.
const wasm = precompilePglite().then(
  (module) => module,
  () => undefined // PGlite then compiles its own copy and reports the real error
)
const modules = Promise.all([loadPglite(), import("@electric-sql/pglite-socket").then((module) => module.PGLiteSocketServer)])
modules.catch(() => {})

const CLOSING = Symbol("closing")
let giveTemplate: (template: string | false | typeof CLOSING) => void = () => {}
const template = new Promise<string | false | typeof CLOSING>((resolve) => (giveTemplate = resolve))
if (data.template !== undefined) giveTemplate(data.template)
let requestClose: () => void = () => {}
const closeRequested = new Promise<void>((resolve) => (requestClose = resolve))
port.on("message", (message: ToPgliteThread) => {
  if (message.type === "template") giveTemplate(message.template)
  else {
    giveTemplate(CLOSING)
    requestClose()
  }
})

class Failure extends Error {
  constructor(readonly kind: "config" | "startup", message: string) {
    super(message)
  }
}

/** Runs a step; its failure becomes a Failure saying which step failed and why. */
const step = async <A>(message: string, run: () => Promise<A> | A): Promise<A> => {
  try {
    return await run()
  } catch (cause) {
    throw cause instanceof Failure ? cause : new Failure("startup", `${message}: ${cause instanceof Error ? cause.message : String(cause)}`)
  }
}

const opened: { lockFile?: string; db?: PGlite; server?: PGLiteSocketServer } = {}

/**
 * How long after it says `ready` a start that filled a new data directory from a template waits
 * before it copies the template's next spare copy: the node's own start (its schema check, journal
 * and first answer, through this thread) goes first. Copying at once made the first answer later
 * (a new directory with a spare ready, alternated: 1,259 to 1,841 ms against 950 to 1,215 ms).
 */
const SPARE_DELAY_MS = 1_000
const spare: { template?: string; timer?: ReturnType<typeof setTimeout>; making?: Promise<unknown> } = {}

/** Makes the template's next spare copy a moment after `ready` (nothing when the directory existed). */
const makeSpareLater = (): void => {
  const template = spare.template
  if (template === undefined) return
  spare.timer = setTimeout(() => {
    // a failure costs the next start only its copy (it copies the template itself)
    spare.making = makeTemplateSpare(template).catch(() => false)
  }, SPARE_DELAY_MS)
}

const open = async (): Promise<PgliteThreadReady> => {
  const started = performance.now()
  await step("cannot create the data directory", () => makeDirectories(data.dataDir))
  try {
    opened.lockFile = lockDataDir(data.dataDir)
  } catch (error) {
    throw error instanceof DataDirLockError ? new Failure("config", error.message) : error
  }
  const origin = await step("cannot prepare the data directory", async () => {
    if (await pgdataExists(data.dataDir, data.pgdata)) return "existing"
    const chosen = await template
    if (chosen === CLOSING) throw new Error("closed before it was opened")
    if (chosen !== false) spare.template = chosen
    return fillPgdata(data.pgdata, chosen)
  })
  const prepared = performance.now()
  const [PGlite, SocketServer] = await step("PGlite did not start", () => modules)
  opened.db = await step("PGlite did not start", async () => {
    const pgliteWasmModule = await wasm
    const options = { dataDir: data.pgdata, initDbStartParams: INITDB_PARAMS, startParams: [...PGlite.defaultStartParams, ...START_PARAMS] }
    return PGlite.create(pgliteWasmModule === undefined ? options : { ...options, pgliteWasmModule })
  })
  const openedAt = performance.now()
  const server = await step("the PGlite socket server did not start", async () => {
    const server = new SocketServer({ db: opened.db!, host: data.host, port: data.port, maxConnections: 1 })
    await server.start()
    return server
  })
  opened.server = server
  const conn = server.getServerConn()
  return {
    type: "ready",
    port: Number(conn.slice(conn.lastIndexOf(":") + 1)),
    origin,
    timings: {
      prepareMs: Math.round(prepared - started),
      openMs: Math.round(openedAt - prepared),
      serveMs: Math.round(performance.now() - openedAt)
    }
  }
}

/** Closes what was opened, in order: the socket server, PGlite, the lock. */
const shutdown = async (): Promise<void> => {
  clearTimeout(spare.timer)
  await spare.making
  await opened.server?.stop().catch(() => {})
  await opened.db?.close().catch(() => {})
  if (opened.lockFile !== undefined) unlockDataDir(opened.lockFile)
}

const started = open().then(
  (ready) => {
    post(ready)
    makeSpareLater()
  },
  async (error: unknown) => {
    await shutdown()
    const failure = error instanceof Failure ? error : new Failure("startup", `PGlite did not start: ${String(error)}`)
    post({ type: "failed", kind: failure.kind, message: failure.message })
  }
)

await closeRequested
await started
await shutdown()
post({ type: "closed" })
