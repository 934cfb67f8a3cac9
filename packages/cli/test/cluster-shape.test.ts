/**
 * The processes of a cluster started at the same moment agree on the network's shape: sv1 (the
 * node that runs the synchronizers) decides it from its flags, the others wait for its decision.
 * Before, the first process to reach the database stored its own (default) shape, sv1's
 * `--validators 2` was ignored and validator2 died with a stack trace. A process whose flags
 * contradict the decided shape, or whose node is not in it, refuses to start with one line.
 */
import { dropClusterSchema } from "@sandnet/store"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runChild } from "./child-run.ts"
import { bin, postgresUrl, startAll, stop, type RunningNode } from "./node-support.ts"

const cluster = `shape_${randomBytes(4).toString("hex")}`
const nodes = ["validator1", "validator2", "sv1"] as const
type NodeName = (typeof nodes)[number]
const base = (node: string) => ["--database-url", postgresUrl, "--cluster", cluster, "--node-name", node]
// only sv1 says what the network looks like; the validators start first, with no shape flags
const args = (node: NodeName) => (node === "sv1" ? [...base(node), "--validators", "2"] : base(node))

let cwd = ""
const running = new Map<NodeName, RunningNode>()

/** A start that is expected to fail: its exit code and output (bounded, in case it does not). */
const failingStart = async (extra: ReadonlyArray<string>) => {
  const run = await runChild(process.execPath, [bin, "start", "--port", "0", ...extra], { cwd, timeoutMillis: 60_000 })
  return { code: run.status, output: `${run.stdout}${run.stderr}`.trim() }
}

beforeAll(async () => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-cluster-shape-"))
  await startAll(nodes, args, cwd, running)
}, 150_000)

afterAll(async () => {
  for (const node of running.values()) await stop(node, "SIGTERM")
  await Effect.runPromise(Effect.ignore(dropClusterSchema(postgresUrl, cluster)))
  for (const n of [...nodes, "validator3"]) await Effect.runPromise(Effect.ignore(dropClusterSchema(postgresUrl, `${cluster}_${n}`)))
  fs.rmSync(cwd, { recursive: true, force: true })
}, 60_000)

describe("a cluster's processes started at the same moment", () => {
  it("all come up with sv1's shape (1 super validator, 2 validators)", () => {
    for (const n of nodes) {
      expect(running.get(n)!.output()).toContain(`node ${n} of the network in schema ${cluster}`)
      expect(running.get(n)!.output()).toContain("1 super validator, 2 validator")
    }
  })

  it("a process whose flags contradict the decided shape refuses to start, saying why", async () => {
    await stop(running.get("validator1")!, "SIGTERM")
    running.delete("validator1")
    const run = await failingStart([...base("validator1"), "--validators", "3"])
    expect(run.code).not.toBe(0)
    expect(run.output).toContain(`cluster ${cluster} has 1 super validator and 2 validators (decided by sv1), but validator1 was started with --validators 3`)
  }, 90_000)

  it("a process whose node is not in the shape refuses to start, saying why", async () => {
    const run = await failingStart(base("validator3"))
    expect(run.code).not.toBe(0)
    expect(run.output).toContain("there is no node validator3")
  }, 90_000)
})
