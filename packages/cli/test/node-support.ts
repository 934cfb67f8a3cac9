/**
 * Helpers of the CLI's process tests: `sandnet start` as a child process on a free port, HTTP calls
 * with a bearer token, the operator's facts, and a TransferOffer create command.
 */
import { TransferOffer } from "@sandnet/engine"
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("../../../", import.meta.url))
export const bin = path.join(root, "packages", "cli", "bin", "sandnet.js")
export const postgresUrl = process.env["SANDNET_TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

export type Json = Record<string, unknown>

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

export interface RunningNode {
  readonly child: ChildProcess
  readonly url: string
  readonly output: () => string
}

/** `sandnet start` on a free port, once ready; `entry` runs another build of the command (the ES module bundle), `env` its environment. */
export const startNode = async (
  args: ReadonlyArray<string>,
  cwd: string,
  options: { readonly env?: NodeJS.ProcessEnv; readonly entry?: string } = {}
): Promise<RunningNode> => {
  const port = await freePort()
  const child = spawn(process.execPath, [options.entry ?? bin, "start", "--port", String(port), ...args], { cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the node did not start:\n${output}`)), 90_000)
    const check = () => {
      if (output.includes("Sandnet node ready")) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on("data", check)
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`the node exited (${code}):\n${output}`))
    })
  })
  child.removeAllListeners("exit")
  return { child, url: `http://127.0.0.1:${port}`, output: () => output }
}

export const stop = (node: RunningNode, signal: NodeJS.Signals): Promise<void> =>
  new Promise((resolve) => {
    if (node.child.exitCode !== null || node.child.signalCode !== null) return resolve()
    node.child.once("exit", () => resolve())
    node.child.kill(signal)
  })

export const request = async (url: string, token: string, method: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: response.status, json }
}

export interface Facts {
  readonly operator: string
  readonly dso: string
}

export const factsOf = async (url: string, token: string): Promise<Facts> => {
  const user = await request(`${url}/v2/users/operator`, token, "GET")
  const operator = (user.json as { user: { primaryParty: string } }).user.primaryParty
  const parties = await request(`${url}/v2/parties`, token, "GET")
  const dso = (parties.json as { partyDetails: Array<{ party: string }> }).partyDetails.map((p) => p.party).find((p) => p.startsWith("DSO::"))
  if (dso === undefined) throw new Error("no DSO party")
  return { operator, dso }
}

export const offerCommand = (facts: Facts, commandId: string) => ({
  commands: [
    {
      CreateCommand: {
        templateId: TransferOffer.nameReference,
        createArguments: {
          sender: facts.operator,
          receiver: facts.operator,
          dso: facts.dso,
          amount: { amount: "1.0000000000", unit: "CoinUnit" },
          description: "crash test",
          expiresAt: "2099-01-01T00:00:00.000000Z",
          trackingId: commandId
        }
      }
    }
  ],
  commandId,
  actAs: [facts.operator]
})


/** Runs a `sandnet` command to completion: its exit code and output. */
export const sandnet = (args: ReadonlyArray<string>, cwd: string): { readonly code: number; readonly output: string } => {
  try {
    return { code: 0, output: execFileSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) }
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string }
    return { code: e.status ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` }
  }
}

/** Polls until `check` holds (another process picks a message up on its next tick), else fails saying what it saw. */
export const eventually = async <A>(what: string, read: () => Promise<A>, check: (a: A) => boolean, seconds = 20): Promise<A> => {
  const until = Date.now() + seconds * 1000
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > until) throw new Error(`${what}: still ${value instanceof Map ? `${value.size} entries` : JSON.stringify(value)} after ${seconds} s`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Starts several nodes at once (e.g. the processes of a cluster); fails with every output when one does not start. */
export const startAll = async <N extends string>(nodes: ReadonlyArray<N>, args: (node: N) => ReadonlyArray<string>, cwd: string, into: Map<N, RunningNode>): Promise<void> => {
  const started = await Promise.allSettled(nodes.map((n) => startNode(args(n), cwd)))
  nodes.forEach((n, i) => {
    const s = started[i]!
    if (s.status === "fulfilled") into.set(n, s.value)
  })
  const failed = started.flatMap((s, i) => (s.status === "rejected" ? [`${nodes[i]}: ${String(s.reason)}`] : []))
  if (failed.length > 0) throw new Error(`${failed.join("\n")}\n${[...into].map(([n, r]) => `${n}:\n${r.output()}`).join("\n")}`)
}
