/**
 * SIGTERM during heavy work: a node in the middle of a 40-day time advance stops the advance after
 * its current step, answers it 503 NODE_SHUTTING_DOWN, flushes and exits 0, and its data directory
 * reopens with what was acknowledged; a swarm of simulations exits 0 and its worker processes go
 * with it.
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { bin, eventually, request, root, sandnet, startNode, stop, type RunningNode } from "./node-support.ts"

const dirs: Array<string> = []
const running: Array<RunningNode> = []
afterAll(async () => {
  for (const node of running) await stop(node, "SIGKILL")
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-shutdown-"))
  dirs.push(dir)
  return dir
}

const exitOf = (child: RunningNode["child"]): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode })
    child.once("exit", (code, signal) => resolve({ code, signal }))
  })

const timeOf = async (url: string, token: string): Promise<number> => ((await request(`${url}/v2/sandnet/time`, token, "GET")).json as { microseconds: number }).microseconds

describe("SIGTERM", () => {
  it("during a 40-day advance: the advance stops (503 NODE_SHUTTING_DOWN), the node exits 0, the data directory reopens with the acknowledged state", async () => {
    const dir = tempDir()
    const dataDir = path.join(dir, "data")
    const token = sandnet(["token", "--user", "participant_admin"], dir).output.trim()
    const node = await startNode(["--data-dir", dataDir], dir)
    running.push(node)
    const acknowledged = await request(`${node.url}/v2/sandnet/time/advance`, token, "POST", { duration: "1h" })
    expect(acknowledged.status).toBe(200)
    const acknowledgedTime = (acknowledged.json as { microseconds: number }).microseconds
    const long = request(`${node.url}/v2/sandnet/time/advance`, token, "POST", { duration: "40d" }).catch((error: unknown) => ({ status: 0, json: String(error) }))
    // its steps are committed one by one: the time moves while it runs
    await eventually("the ledger time during the advance", () => timeOf(node.url, token), (t) => t > acknowledgedTime + 3_600_000_000, 60)
    const exited = exitOf(node.child)
    node.child.kill("SIGTERM")
    expect(await exited).toEqual({ code: 0, signal: null })
    const answer = await long
    // the advance is answered 503 when the answer gets out before the listener closes
    if (answer.status !== 0) expect(answer).toMatchObject({ status: 503, json: { code: "NODE_SHUTTING_DOWN" } })
    const again = await startNode(["--data-dir", dataDir], dir)
    running.push(again)
    expect(again.output()).toContain("resumed")
    const reopened = await timeOf(again.url, token)
    expect(reopened).toBeGreaterThanOrEqual(acknowledgedTime)
    expect(reopened).toBeLessThan(acknowledgedTime + 40 * 86_400_000_000)
    const exitedAgain = exitOf(again.child)
    again.child.kill("SIGTERM")
    expect(await exitedAgain).toEqual({ code: 0, signal: null })
  })

  it("during a swarm: the command exits 0 and no worker process is left", async () => {
    const dir = tempDir()
    const child = spawn(process.execPath, [bin, "simulate", path.join(root, "scenarios", "faults-mixed.yaml"), "--seeds", "1..6", "--jobs", "2"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
    const exited = exitOf(child)
    const workersOf = (pid: number): Array<number> => {
      try {
        return execFileSync("ps", ["--ppid", String(pid), "-o", "pid="], { encoding: "utf8" }).split("\n").map((l) => Number(l.trim())).filter((n) => n > 0)
      } catch {
        return []
      }
    }
    const workers = await eventually("the swarm's workers", async () => workersOf(child.pid!), (w) => w.length === 2, 60)
    child.kill("SIGTERM")
    expect(await exited).toEqual({ code: 0, signal: null })
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    await eventually("the workers after the swarm exited", async () => workers.filter(alive), (left) => left.length === 0, 10)
  })
})
