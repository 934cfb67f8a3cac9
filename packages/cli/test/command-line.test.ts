/**
 * The command line as a user meets it (issue 15): each mistake is answered with one line on stderr
 * that says what is wrong and what to do, and a non-zero exit code, never a stack trace; every
 * command has a help page. Runs the built CLI (bin/sandnet.js) as a child process.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { LOCALNET_PORTS } from "@sandnet/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bin, freePort, postgresUrl, root } from "./node-support.ts"

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
    // a command that hangs is a failure too: killed, its code is null
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("exit", (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })))
  })

/** The run failed with exactly one line on stderr, no stack trace, and that line matches. */
const expectOneLine = (ran: Ran, code: number, line: RegExp) => {
  const lines = ran.stderr.split("\n").filter((l) => l.trim() !== "")
  expect(ran.code, ran.stderr).toBe(code)
  expect(lines, ran.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(line)
  expect(ran.stderr).not.toMatch(/^\s+at /m)
}

let dir: string

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-cli-"))
  fs.writeFileSync(path.join(dir, "a-file"), "not a directory")
})

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("mistakes in the command line", () => {
  it("an unknown flag names the nearest one", async () => {
    expectOneLine(await run(["start", "--prot", "7575"]), 2, /^sandnet start: unknown flag --prot \(did you mean --port\?\); see sandnet start --help$/)
    expectOneLine(await run(["token", "--usr", "alice"]), 2, /unknown flag --usr \(did you mean --user\?\)/)
  })

  it("an unknown command names the nearest one", async () => {
    expectOneLine(await run(["strat"]), 2, /^sandnet: unknown command strat \(did you mean start\?\); see sandnet --help$/)
  })

  it("a port out of range, from the flag or from SANDNET_PORT", async () => {
    expectOneLine(await run(["start", "--in-memory", "--port", "99999"]), 2, /--port 99999 is not a port: give a number from 1 to 65535/)
    expectOneLine(await run(["start", "--in-memory"], { SANDNET_PORT: "abc" }), 2, /SANDNET_PORT abc is not a port/)
  })

  it("a negative number of journal entries between checkpoints, or not a number", async () => {
    expectOneLine(await run(["start", "--in-memory", "--checkpoint-every", "-5"]), 2, /--checkpoint-every takes a whole number of journal entries \(0: no checkpoints\), got -5/)
    expectOneLine(await run(["start", "--in-memory", "--checkpoint-every", "many"]), 2, /--checkpoint-every takes a whole number of journal entries \(0: no checkpoints\), got many/)
  })

  it("a missing scenario, trace or archive file", async () => {
    expectOneLine(await run(["simulate", "scenarios/no-such.yaml"]), 2, /^sandnet simulate: scenarios\/no-such\.yaml: no such file \(a scenario is a YAML file, e\.g\. scenarios\/smoke\.yaml\)$/)
    expectOneLine(await run(["simulate", "--replay", "no-such-trace.json"]), 2, /no-such-trace\.json: no such file \(a failed run leaves its trace in --trace-dir/)
    expectOneLine(await run(["restore", "--in", "no-such.json.gz"]), 2, /^sandnet restore: no-such\.json\.gz: no such file/)
  })

  it("storage flags that pick different stores, or a schema for a store without one", async () => {
    const kept = path.join(dir, "kept")
    expectOneLine(await run(["start", "--in-memory", "--data-dir", kept]), 2, /^sandnet start: --in-memory and --data-dir pick different stores: give one of them$/)
    expectOneLine(await run(["start", "--data-dir", kept, "--database-url", "postgres://127.0.0.1:1/x"]), 2, /--data-dir and --database-url pick different stores/)
    expectOneLine(await run(["start", "--in-memory", "--schema", "s"]), 2, /--schema names the node's PostgreSQL schema: it goes with --database-url/)
    // a name PostgreSQL would refuse, refused before the server is asked (none listens at port 1)
    for (const schema of ["Bad", "pg_reserved", "1st"]) {
      expectOneLine(await run(["start", "--database-url", "postgres://127.0.0.1:1/x", "--schema", schema]), 1, new RegExp(`^sandnet start: schema must match .* and not start with pg_ \\(PostgreSQL reserves those names\\), got "${schema}"$`))
    }
    // the storage commands too
    expectOneLine(await run(["rebuild", "--data-dir", kept, "--database-url", "postgres://127.0.0.1:1/x"]), 2, /^sandnet rebuild: --data-dir and --database-url pick different stores/)
    expectOneLine(await run(["snapshot", "--out", path.join(dir, "out.gz"), "--data-dir", kept, "--schema", "s"]), 2, /^sandnet snapshot: --schema names the node's PostgreSQL schema/)
    expect(fs.existsSync(kept)).toBe(false)
  })

  it("a --data-dir beats DATABASE_URL from the environment", async () => {
    // the embedded store is chosen: its directory is checked (a file here), the server never asked
    const env = { DATABASE_URL: "postgres://nobody@127.0.0.1:1/x" }
    expectOneLine(await run(["start", "--data-dir", path.join(dir, "a-file")], env), 2, /the data directory .*a-file is a file/)
    expectOneLine(await run(["start"], env), 1, /cannot reach the PostgreSQL server at 127\.0\.0\.1:1/)
  })

  it("a file that is not a scenario says what a scenario is, without quoting the file", async () => {
    expectOneLine(await run(["simulate", path.join(dir, "a-file")]), 2, /a-file: not a scenario: it is a YAML string, and a scenario is a YAML mapping \(name, seed, topology, \.\.\.; e\.g\. scenarios\/smoke\.yaml\)$/)
  })

  it("a missing required flag says what to give", async () => {
    expectOneLine(await run(["token"]), 2, /^sandnet token: --user USER is required: .*e\.g\. sandnet token --user operator$/)
    expectOneLine(await run(["snapshot"]), 2, /--out FILE is required/)
  })
})

describe("what the environment refuses", () => {
  it("a data directory that is a file, or under a file", async () => {
    const file = path.join(dir, "a-file")
    expectOneLine(await run(["start", "--data-dir", file]), 2, /the data directory .*a-file is a file: choose another with --data-dir/)
    expectOneLine(await run(["start", "--data-dir", path.join(file, "node")]), 2, /the data directory .*a-file\/node is under a file \(.*a-file\): choose another with --data-dir/)
  })

  it("a data directory the system will not make (under /proc) is refused, and the start exits", async () => {
    // Node's recursive mkdir spun forever on this path in PGlite's thread, after the error was printed
    expectOneLine(await run(["start", "--data-dir", "/proc/1/sandnet"]), 2, /the data directory \/proc\/1\/sandnet is not writable \(\/proc\/1\)/)
  }, 90_000)

  it("a start refused on a data directory exits and leaves the directory unlocked (PGlite's thread, started early, is closed)", async () => {
    const dataDir = path.join(dir, "refused")
    expectOneLine(await run(["start", "--data-dir", dataDir, "--port", "99999"]), 2, /--port 99999 is not a port: give a number from 1 to 65535/)
    expect(fs.existsSync(path.join(dataDir, "pglite.lock"))).toBe(false)
    // refused by the full command line instead of start's own parse
    expectOneLine(await run(["start", "--data-dir", dataDir, "--port", "abc"]), 2, /^sandnet start: --port abc is not a port: give a number from 1 to 65535/)
    expect(fs.existsSync(path.join(dataDir, "pglite.lock"))).toBe(false)
  }, 120_000)

  it("a port in use", async () => {
    const server = net.createServer()
    const port = await freePort()
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
    try {
      expectOneLine(await run(["start", "--in-memory", "--port", String(port)]), 1, new RegExp(`^sandnet start: port ${port} is already in use .*--port or SANDNET_PORT$`))
    } finally {
      server.close()
    }
  }, 180_000)

  it("a port of LocalNet's layout in use is named before anything starts", async () => {
    // The scan port (4000 + offset) is taken; the offset puts the layout's other ports near it.
    const scan = await freePort()
    const offset = scan - LOCALNET_PORTS.scan
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(scan, "127.0.0.1", resolve))
    try {
      const dataDir = path.join(dir, "localnet-port")
      // Ours is the scan port; under a parallel test run another of the layout's ports may be taken too, and named first.
      const layout = Object.values(LOCALNET_PORTS).map((port) => port + offset)
      expectOneLine(await run(["start", "--localnet", "--port-offset", String(offset), "--data-dir", dataDir]), 1, new RegExp(`^sandnet start: port (${layout.join("|")}) is already in use`))
      // Refused before the store was opened: nothing was written into the data directory.
      expect(fs.existsSync(dataDir) ? fs.readdirSync(dataDir) : []).toEqual([])
    } finally {
      server.close()
    }
  }, 180_000)

  it("a PostgreSQL server that does not answer", async () => {
    const port = await freePort()
    expectOneLine(await run(["start", "--port", "0", "--database-url", `postgres://127.0.0.1:${port}/sandnet`]), 1, /cannot reach the PostgreSQL server at 127\.0\.0\.1:\d+ \(ECONNREFUSED\): start it or correct --database-url \(or DATABASE_URL\)/)
  }, 180_000)

  it("a PostgreSQL database that does not exist", async () => {
    const url = new URL(postgresUrl)
    url.pathname = "/sandnet_no_such_database"
    expectOneLine(await run(["start", "--port", "0", "--database-url", url.toString()]), 1, /the PostgreSQL database "sandnet_no_such_database" does not exist: create it/)
  }, 180_000)

  it("a node that is not running (SANDNET_URL)", async () => {
    const port = await freePort()
    expectOneLine(await run(["time"], { SANDNET_URL: `http://127.0.0.1:${port}` }), 1, new RegExp(`cannot reach a node at http://127\\.0\\.0\\.1:${port} .*start one with sandnet start`))
  })
})

describe("help", () => {
  const commands = ["start", "simulate", "token", "bench", "time", "time advance", "reset", "rebuild", "snapshot", "restore"]

  it("every command has a page: usage from sandnet, defaults, an example, no internal flag", async () => {
    for (const command of commands) {
      const ran = await run([...command.split(" "), "--help"])
      expect(ran.code, command).toBe(0)
      expect(ran.stdout.startsWith(`Usage: sandnet ${command}`), ran.stdout).toBe(true)
      expect(ran.stdout).toMatch(/\nExamples?:\n {2}(\S+=\S+ )?sandnet /)
      expect(ran.stdout).not.toMatch(/A user-defined piece of text|This setting is optional|--worker/)
    }
    const start = await run(["start", "--help"])
    expect(start.stdout).toMatch(/--port PORT +the port of all four surfaces \(default: 7575; env SANDNET_PORT\)/)
    expect(start.stdout).toMatch(/env DATABASE_URL/)
  }, 300_000)

  it("sandnet --help lists the commands", async () => {
    const ran = await run(["--help"])
    expect(ran.code).toBe(0)
    for (const command of commands) expect(ran.stdout).toMatch(new RegExp(`\\n {2}${command} +\\S`))
  })
})

describe("token", () => {
  it("prints a token for the user", async () => {
    const ran = await run(["token", "--user", "alice", "--expires-in", "60"])
    expect(ran.code, ran.stderr).toBe(0)
    const [, payload] = ran.stdout.trim().split(".")
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as { sub: string; exp: number; iat: number; scope: string }
    expect(claims).toMatchObject({ sub: "alice", scope: "daml_ledger_api" })
    expect(claims.exp - claims.iat).toBe(60)
  })
})
