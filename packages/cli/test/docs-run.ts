/**
 * Runs the shell commands that README.md and docs/*.md give (see docs-commands.test.ts), as written,
 * in a fresh directory that looks like a checkout (scenarios/, simulations/, package.json): `npx` and
 * `sandnet` are this checkout's, `curl` fails on an HTTP error status, and the documented ports
 * (7575.., LocalNet's) are moved to free ones so that test runs do not collide. A command that
 * starts a node runs in the background until the next block that starts nodes; the blocks after it
 * talk to it. Each command must exit 0 without a stack trace, and some must print what the docs say
 * they print.
 */
import { localNetPorts } from "@sandnet/http/serve"
import { dropClusterSchema } from "@sandnet/store"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { runChild } from "./child-run.ts"
import { docBlocksOf, projectDocs, type DocBlock, isStarter } from "./doc-commands.ts"
import { bin, freePort, postgresUrl, root } from "./node-support.ts"

/** Commands the docs give that this test does not run, and why. */
export const NOT_RUN: Record<string, string> = {
  "npm install": "installs this checkout: the suite runs inside an installed one",
  "npm test": "runs the suite this test is part of",
  "npx tsx packages/store/scripts/startup.ts 5": "a measurement of minutes (15 PGlite starts in fresh processes); its figures are in docs/storage.md",
  "npx tsx packages/store/scripts/measure.ts postgres://postgres@127.0.0.1:5432/test": "a measurement of minutes; `npm run bench` runs the same functions"
}

/** What a command prints, where the docs say what it prints. */
const PRINTS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^npx sandnet token --user/, /eyJ[\w-]+\.[\w-]+\.[\w-]+/],
  [/wallet\/balance/, /"effective_unlocked_qty":"100\.0000000000"/],
  [/\/v2\/updates/, /"updateId":"[0-9a-f]+"/],
  [/time advance 10m/, /ledger time is now \d{4}-/],
  [/sandnet reset/, /started a fresh network/],
  [/simulate scenarios\/\S+ --seed \d+$/, /history-hash: [0-9a-f]{64}/],
  [/--seeds /, /runs of [\w-]+: (\d+) ok, 0 FAILED/],
  [/--keep-trace/, /trace {13}\.sandnet\/traces\/[\w-]+\.json/],
  [/--replay /, /reproduced: the run passed again/],
  [/--report out\.html/, /report {12}out\.html/],
  [/--until \d+/, /deliveries #\d+\.\.#\d+ of [\w-]+, seed \d+/],
  [/double-spend-race/, /exactly one commits[\s\S]*checks +all held/],
  [/reassignment-round-trips/, /reassignment-round-trips[\s\S]*checks +all held/]
]

const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m
/** Schemas the docs' PostgreSQL examples use (node names and the cluster `net`), dropped before and after. */
const DOC_SCHEMAS = ["alice", "bob", "net", "net_sv1", "net_sv2", "net_validator1", "net_validator2"]

interface Started {
  readonly pid: number
  readonly port: number
  readonly log: string
  readonly command: string
}

/** A directory that looks like a checkout, with `npx`/`sandnet` of this checkout first on PATH. */
const makeSandbox = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-docs-"))
  for (const name of ["scenarios", "simulations", "packages", "node_modules", "package.json", "tsconfig.json"]) fs.symlinkSync(path.join(root, name), path.join(dir, name))
  const binDir = path.join(dir, ".bin")
  fs.mkdirSync(binDir)
  fs.writeFileSync(path.join(binDir, "npx"), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 })
  fs.writeFileSync(path.join(binDir, "sandnet"), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`, { mode: 0o755 })
  return { dir, binDir }
}

const isFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/**
 * An offset (20,000..28,999, below the ephemeral range) whose five LocalNet ports are free now: the
 * documents run in parallel test files, next to other files' nodes and other checkouts' test runs.
 */
const freeLocalNetOffset = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const offset = 20_000 + ((process.pid * 7 + Date.now() + attempt * 1_337) % 9_000)
    if ((await Promise.all(Object.values(localNetPorts(offset)).map(isFree))).every(Boolean)) return offset
  }
  throw new Error("no port offset with LocalNet's five ports free")
}

/** Ports 7575.. -> free ones; LocalNet's layout shifted by a free offset. */
const makePorts = async () => {
  const mapped = new Map<string, number>()
  for (const documented of ["7575", "7576", "7577", "7578", "7579"]) mapped.set(documented, await freePort())
  return { mapped, localnetOffset: await freeLocalNetOffset() }
}

type Ports = Awaited<ReturnType<typeof makePorts>>

const placed = (command: string, ports: Ports): string => {
  const moved = command.replace(/\b757[5-9]\b/g, (p) => String(ports.mapped.get(p)))
  return /--localnet\b/.test(moved) && !/--port-offset\b/.test(moved) ? `${moved} --port-offset ${ports.localnetOffset}` : moved
}

const portOf = (command: string, ports: Ports): number => {
  if (/--localnet\b/.test(command)) return 2975 + ports.localnetOffset
  const explicit = /--port (\d+)/.exec(command)
  return explicit !== null ? Number(explicit[1]) : ports.mapped.get("7575")!
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/** The block as one script: starters in the background (each its own process group), the rest in order. */
const scriptOf = (block: DocBlock, ports: Ports, logDir: string): { script: string; starters: Array<{ command: string; log: string; pidFile: string }> } => {
  const starters: Array<{ command: string; log: string; pidFile: string }> = []
  const lines = ["set -eo pipefail", 'curl() { command curl --fail-with-body --max-time 60 "$@"; }']
  for (const raw of block.commands) {
    const command = placed(raw, ports)
    if (isStarter(command)) {
      const n = fs.readdirSync(logDir).length
      const log = path.join(logDir, `node-${n}.log`)
      const pidFile = path.join(logDir, `node-${n}.pid`)
      fs.writeFileSync(log, "")
      starters.push({ command, log, pidFile })
      lines.push(`setsid bash -c ${quote(command)} > ${quote(log)} 2>&1 < /dev/null & echo $! > ${quote(pidFile)}`)
    } else lines.push(command)
  }
  return { script: lines.join("\n") + "\n", starters }
}

const answers = async (port: number): Promise<boolean> => {
  try {
    // any answer of the ledger surface (401 without a token) says the node is up
    return (await fetch(`http://127.0.0.1:${port}/v2/version`, { signal: AbortSignal.timeout(2_000) })).status < 500
  } catch {
    return false
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Waits until the started node answers on its port (cluster members wait for their synchronizer's node). */
const ready = async (node: Started): Promise<void> => {
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    if (await answers(node.port)) return
    if (!alive(node.pid)) throw new Error(`\`${node.command}\` exited:\n${fs.readFileSync(node.log, "utf8")}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`\`${node.command}\` did not answer on ${node.port}:\n${fs.readFileSync(node.log, "utf8")}`)
}

const stopAll = async (nodes: Array<Started>): Promise<void> => {
  for (const node of nodes) if (alive(node.pid)) process.kill(-node.pid, "SIGTERM")
  const deadline = Date.now() + 30_000
  while (nodes.some((n) => alive(n.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  for (const node of nodes) if (alive(node.pid)) process.kill(-node.pid, "SIGKILL")
  nodes.length = 0
}

const dropDocSchemas = () => Promise.all(DOC_SCHEMAS.map((schema) => Effect.runPromise(Effect.ignore(dropClusterSchema(postgresUrl, schema)))))

/** A command that runs on its own, without a node (a simulation): the nodes of earlier blocks are stopped before it (each ticks every 50 ms). */
const isOffline = (command: string): boolean => /^npx (sandnet simulate|tsx simulations\/)/.test(command)

/** Runs one document's commands in order, in a fresh sandbox, and checks each block. */
export const runDocument = async (blocks: ReadonlyArray<DocBlock>): Promise<void> => {
  const { dir, binDir } = makeSandbox()
  const logDir = path.join(dir, ".logs")
  fs.mkdirSync(logDir)
  const ports = await makePorts()
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${binDir}:${path.join(root, "node_modules", ".bin")}:${process.env["PATH"]}`, SANDNET_PORT: String(ports.mapped.get("7575")), SANDNET_URL: `http://127.0.0.1:${ports.mapped.get("7575")}` }
  delete env["DATABASE_URL"]
  const running: Array<Started> = []
  // only a document that uses PostgreSQL touches its schemas: documents run in parallel test files
  const usesPostgres = blocks.some((b) => b.commands.some((c) => /postgres(ql)?:\/\/|DATABASE_URL/.test(c)))
  if (usesPostgres) await dropDocSchemas()
  try {
    for (const block of blocks) {
      const runnable = block.commands.filter((c) => NOT_RUN[c] === undefined)
      if (runnable.length === 0) continue
      const { script, starters } = scriptOf({ ...block, commands: runnable }, ports, logDir)
      // nodes keep running for the blocks that talk to them; a block of simulations talks to none
      if (starters.length > 0 || runnable.every(isOffline)) await stopAll(running)
      const where = `${block.file}:${block.line}: ${runnable.join(" ; ")}`
      const run = await runChild("bash", ["-c", script], { cwd: dir, env, timeoutMillis: 600_000 })
      const output = `${run.stdout}${run.stderr}`
      expect(run.status, `${where}\n${output}`).toBe(0)
      expect(output, where).not.toMatch(STACK_FRAME)
      for (const [command, printed] of PRINTS) if (runnable.some((c) => command.test(c))) expect(output, where).toMatch(printed)
      if (runnable.some((c) => /--report out\.html/.test(c))) expect(fs.readFileSync(path.join(dir, "out.html"), "utf8")).toMatch(/^<!doctype html>/i)
      for (const s of starters) {
        const node = { pid: Number(fs.readFileSync(s.pidFile, "utf8")), port: portOf(s.command, ports), log: s.log, command: s.command }
        running.push(node)
      }
      for (const node of running) await ready(node)
      for (const node of running) expect(fs.readFileSync(node.log, "utf8"), node.command).not.toMatch(STACK_FRAME)
    }
  } finally {
    await stopAll(running)
    if (usesPostgres) await dropDocSchemas()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

export const documents = projectDocs(root).map(({ file, text }) => ({ file, blocks: docBlocksOf(file, text) })).filter((d) => d.blocks.length > 0)


/**
 * Documents whose commands run in a test file of their own (docs-commands-NAME.test.ts): the longest
 * ones, so that they run in parallel with the rest. None of them uses PostgreSQL.
 */
export const OWN_FILE: ReadonlyArray<string> = ["docs/economy.md", "docs/scenarios.md"]

/** The one document `file`, to run in its own test file. */
export const documentOf = (file: string) => {
  const document = documents.find((d) => d.file === file)
  if (document === undefined) throw new Error(`${file} has no commands`)
  return document
}
