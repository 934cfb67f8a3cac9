/**
 * The tests' child runs: past its timeout a run is killed with everything it started, so that
 * nothing a timed-out command began outlives it.
 */
import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import { runChild } from "./child-run.ts"

/** Whether `pid` still runs (a killed process waiting to be reaped, a zombie, does not). */
const running = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

describe("runChild", () => {
  it("kills a timed-out command's whole process group: the shell and what it started", async () => {
    // the shell starts a long sleep (away from the shell's output, so that the run ends with the
    // shell), prints its pid and waits for it: killing the shell alone leaves the sleep running
    const run = await runChild("bash", ["-c", "sleep 30 >/dev/null 2>&1 & echo $!; wait"], { cwd: os.tmpdir(), timeoutMillis: 500 })
    const sleeper = Number(run.stdout.trim())
    try {
      expect(run.signal).toBe("SIGKILL")
      expect(sleeper).toBeGreaterThan(0)
      // the group's SIGKILL is delivered at once, but the sleep's exit may trail the shell's: wait for it (it would run 30 s)
      for (let i = 0; i < 200 && running(sleeper); i++) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(running(sleeper)).toBe(false)
    } finally {
      if (sleeper > 0 && running(sleeper)) process.kill(sleeper, "SIGKILL")
    }
  })

  it("runs a command to its end and gives its status and output", async () => {
    const run = await runChild("bash", ["-c", "echo out; echo err >&2; exit 3"], { cwd: os.tmpdir(), timeoutMillis: 10_000 })
    expect(run).toMatchObject({ status: 3, signal: null, stdout: "out\n", stderr: "err\n" })
  })
})
