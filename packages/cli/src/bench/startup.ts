/**
 * The `startup` section of `sandnet bench`: from spawning `sandnet start` to its first HTTP answer
 * (in memory, a fresh data directory, the same directory reopened) and the whole `sandnet token`
 * command, each beside a bare Node process doing the least of the same in the same run (an
 * http server's first answer; `node -e 0`). Wall time depends on the machine's load, so the CPU
 * time the process used up to that moment is reported too (from /proc, where there is one).
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { makeTemplateSpare, newDataDirTemplate, templateSpareDir } from "@sandnet/store"
import { bestOf, heapFlags } from "./machine.ts"

export interface StartupRow {
  readonly name: string
  readonly wallMs: number
  /** CPU time (user + system) of the process until the answer, when /proc tells it. */
  readonly cpuMs: number | undefined
  /** The same for the process's main thread alone (PGlite runs in a thread of its own). */
  readonly mainThreadCpuMs: number | undefined
  readonly baselineWallMs: number
  readonly baselineCpuMs: number | undefined
  readonly targetMs: number
}

export interface StartupBench {
  readonly rows: ReadonlyArray<StartupRow>
}

interface Timing {
  readonly wallMs: number
  readonly cpuMs: number | undefined
  readonly mainThreadCpuMs?: number | undefined
}

/** User + system CPU time of a running process (or of its main thread), in ms (Linux /proc; clock ticks of 10 ms). */
export const cpuOf = (pid: number | undefined, mainThreadOnly = false): number | undefined => {
  try {
    const fields = fs.readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
  }
}

export const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
    setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
  })

/** SIGKILL, resolved once the process is gone. */
export const kill9 = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

/** Spawns the command and polls the port until the first HTTP answer (any status). */
const untilFirstAnswer = (command: ReadonlyArray<string>, port: number, env: NodeJS.ProcessEnv = process.env, timeoutMs = 300_000): Promise<Timing> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...heapFlags(), ...command], { stdio: ["ignore", "ignore", "pipe"], env })
    let stderr = ""
    child.stderr!.on("data", (chunk) => (stderr += String(chunk)))
    let done = false
    const finish = (result: Timing | Error) => {
      if (done) return
      done = true
      void stop(child).then(() => (result instanceof Error ? reject(result) : resolve(result)))
    }
    child.once("exit", (code) => finish(new Error(`${command.join(" ")} exited (${code}) before answering: ${stderr.trim().split("\n")[0] ?? ""}`)))
    const poll = () => {
      if (done) return
      if (performance.now() - started > timeoutMs) return finish(new Error(`${command.join(" ")}: no answer in ${timeoutMs / 1000} s`))
      const request = http.get({ host: "127.0.0.1", port, path: "/sandnet/health" }, (response) => {
        const cpuMs = cpuOf(child.pid)
        const mainThreadCpuMs = cpuOf(child.pid, true)
        const wallMs = performance.now() - started
        response.resume()
        finish({ wallMs, cpuMs, mainThreadCpuMs })
      })
      request.on("error", () => setTimeout(poll, 5))
    }
    poll()
  })

/** Total CPU time of this process's waited-for children, in ms (/proc/self/stat: cutime + cstime). */
const childrenCpu = (): number | undefined => {
  try {
    const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return undefined
  }
}

/** Spawns the command and waits for it to exit (status 0); runs one at a time, so the children's CPU is its. */
const untilExit = (command: ReadonlyArray<string>): Promise<Timing> =>
  new Promise((resolve, reject) => {
    const cpuBefore = childrenCpu()
    const started = performance.now()
    const child = spawn(process.execPath, [...heapFlags(), ...command], { stdio: ["ignore", "ignore", "inherit"] })
    child.once("exit", (code) => {
      const wallMs = performance.now() - started
      const cpuAfter = childrenCpu()
      if (code !== 0) reject(new Error(`${command.join(" ")} exited with ${code}`))
      else resolve({ wallMs, cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore })
    })
  })

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = http.createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

const best = (n: number, run: () => Promise<Timing>) => bestOf(n, run, (a, b) => a.wallMs < b.wallMs)

const BARE_SERVER = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.argv[1]), '127.0.0.1')"

export const benchStartup = async (runs = 3): Promise<StartupBench> => {
  const bin = process.argv[1] ?? "packages/cli/bin/sandnet.js"
  const port = await freePort()
  const bareServer = await best(runs, () => untilFirstAnswer(["-e", BARE_SERVER, String(port)], port))
  const start = (...args: Array<string>) => [bin, "start", "--port", String(port), ...args]
  const inMemory = await best(runs, () => untilFirstAnswer(start("--in-memory"), port))
  // as the first start after a build: the script compiled without V8's code cache (bin/script-cached.mjs)
  const uncached = await best(runs, () => untilFirstAnswer(start("--in-memory"), port, { ...process.env, SANDNET_CODE_CACHE: "off" }))
  // a new data directory takes the template's spare copy (made at install, then by each such start
  // once it serves); without one (two new directories within a second) it copies the template
  const template = newDataDirTemplate()
  const fresh: Array<Timing> = []
  const freshCopying: Array<Timing> = []
  const reopened: Array<Timing> = []
  for (let i = 0; i < runs; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-startup-"))
    const copying = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-startup-"))
    try {
      await makeTemplateSpare(template)
      fresh.push(await untilFirstAnswer(start("--data-dir", dir), port))
      reopened.push(await untilFirstAnswer(start("--data-dir", dir), port))
      fs.rmSync(templateSpareDir(template), { recursive: true, force: true })
      freshCopying.push(await untilFirstAnswer(start("--data-dir", copying), port))
    } finally {
      for (const d of [dir, copying]) fs.rmSync(d, { recursive: true, force: true })
    }
  }
  await makeTemplateSpare(template)
  const fastest = (timings: ReadonlyArray<Timing>) => timings.reduce((a, b) => (b.wallMs < a.wallMs ? b : a))
  const bareExit = await best(runs, () => untilExit(["-e", "0"]))
  const token = await best(runs, () => untilExit([bin, "token", "--user", "alice"]))
  const row = (name: string, t: Timing, baseline: Timing, targetMs: number): StartupRow => ({
    name,
    wallMs: t.wallMs,
    cpuMs: t.cpuMs,
    mainThreadCpuMs: t.mainThreadCpuMs,
    baselineWallMs: baseline.wallMs,
    baselineCpuMs: baseline.cpuMs,
    targetMs
  })
  return {
    rows: [
      row("`sandnet start --in-memory`, spawn to first answer", inMemory, bareServer, 500),
      row("`sandnet start --in-memory` without the code cache (`SANDNET_CODE_CACHE=off`: a first start after a build)", uncached, bareServer, 500),
      row("`sandnet start --data-dir <new dir>`, spawn to first answer (the template's spare copy ready, as after an install or an earlier start)", fastest(fresh), bareServer, 1000),
      row("`sandnet start --data-dir <new dir>` with no spare copy ready (it copies the template's files)", fastest(freshCopying), bareServer, 1000),
      row("`sandnet start --data-dir <same dir>` (reopen), spawn to first answer", fastest(reopened), bareServer, 1000),
      row("`sandnet token --user alice`, spawn to exit", token, bareExit, 200)
    ]
  }
}

const ms = (n: number | undefined): string => (n === undefined ? "n/a" : `${Math.round(n).toLocaleString("en-US")} ms`)

export const renderStartup = (s: StartupBench): ReadonlyArray<string> => [
  "## Start-up",
  "",
  "From spawning the command to its first HTTP answer (`GET /sandnet/health`), or to its exit for `token`; best of three.",
  "The baselines are a bare Node process in the same run: `node -e` starting an `http` server and answering, and `node -e 0`.",
  "CPU is the process's user + system time until then (the machine is shared: wall time includes waiting for a core);",
  "main thread: the same for the thread that loads the program and serves (PGlite runs in a thread of its own).",
  "",
  "| what | wall | CPU | main thread CPU | baseline wall | baseline CPU | wall / baseline | target (wall) |",
  "|---|---|---|---|---|---|---|---|",
  ...s.rows.map(
    (r) =>
      `| ${r.name} | **${ms(r.wallMs)}** | ${ms(r.cpuMs)} | ${ms(r.mainThreadCpuMs)} | ${ms(r.baselineWallMs)} | ${ms(r.baselineCpuMs)} | ${(r.wallMs / r.baselineWallMs).toFixed(1)}x | ≤ ${ms(r.targetMs)} ${r.wallMs <= r.targetMs ? "(met)" : "(not met)"} |`
  ),
  ""
]
