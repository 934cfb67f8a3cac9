/**
 * A large or long scenario's single run starts the command again with a larger young generation
 * (simulation-heap.ts): the child runs the same run (same summary, same history hash as the run
 * started with the flag by hand), the command ends as the child does, and a SIGTERM to the command
 * leaves no run behind. Smaller and shorter scenarios, and runs given a size of their own, run in the
 * command; a swarm's workers are started with the flag when the scenario is large or long.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Either } from "effect"
import { parseScenario } from "@sandnet/sim"
import { execArgvFor, LARGE_SCENARIO_PARTIES, LARGE_YOUNG_GENERATION, LONG_SCENARIO_DURATION, wantsLargeYoungGeneration } from "../src/simulation-heap.ts"
import { bin, root, sandnet } from "./node-support.ts"

const scenario = (parties: number, duration: string) => `
name: parties-${parties}
seed: 1
duration: ${duration}
topology: { superValidators: 1, validators: 2, synchronizers: [global-synchronizer], parties: ${parties} }
workload:
  initialTap: 10
  transfers: { perMinute: 60, minAmount: 1, maxAmount: 5 }
settle: 5s
`

const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), "sandnet-heap-")), "scenario.yaml")
  writeFileSync(path, text)
  return path
}

const childrenOf = (pid: number): Array<string> => {
  try {
    return execFileSync("ps", ["--ppid", String(pid), "-o", "pid=,args="], { encoding: "utf8" }).split("\n").map((l) => l.trim()).filter((l) => l.length > 0)
  } catch {
    return []
  }
}

describe("a large or long scenario's young generation", () => {
  it("is asked for by scenarios of 2,000 parties or more, run by the command, without a size of their own", () => {
    const of = (parties: number) => Either.getOrThrow(parseScenario(scenario(parties, "5s")))
    const argv = ["node", "sandnet.js", "simulate", "x.yaml"]
    expect(LARGE_SCENARIO_PARTIES).toBe(2_000)
    expect(wantsLargeYoungGeneration(of(2_000), argv, [])).toBe(true)
    expect(wantsLargeYoungGeneration(of(1_999), argv, [])).toBe(false)
    expect(wantsLargeYoungGeneration(of(10_000), argv, [LARGE_YOUNG_GENERATION])).toBe(false)
    expect(wantsLargeYoungGeneration(of(10_000), argv, ["--max-semi-space-size=8"])).toBe(false)
    // not the command's own process (a test calling the command in vitest, say)
    expect(wantsLargeYoungGeneration(of(10_000), ["node", "vitest.mjs", "run"], [])).toBe(false)
    // a swarm's workers and the large bench's run are started with it when the scenario is large
    expect(execArgvFor(of(2_000), ["--enable-source-maps"])).toEqual([LARGE_YOUNG_GENERATION, "--enable-source-maps"])
    expect(execArgvFor(of(1_999), ["--enable-source-maps"])).toEqual(["--enable-source-maps"])
    expect(execArgvFor(of(2_000), ["--max-semi-space-size=8"])).toEqual(["--max-semi-space-size=8"])
  })

  it("is asked for by scenarios of a simulated day or more, whatever their size", () => {
    const of = (duration: string) => Either.getOrThrow(parseScenario(scenario(60, duration)))
    const argv = ["node", "sandnet.js", "simulate", "x.yaml"]
    expect(LONG_SCENARIO_DURATION).toBe(24 * 3_600 * 1_000_000)
    expect(wantsLargeYoungGeneration(of("1d"), argv, [])).toBe(true)
    expect(wantsLargeYoungGeneration(of("2d"), argv, [])).toBe(true)
    expect(wantsLargeYoungGeneration(of("23h"), argv, [])).toBe(false)
    expect(wantsLargeYoungGeneration(of("1h"), argv, [])).toBe(false)
    expect(wantsLargeYoungGeneration(of("2d"), argv, ["--max-semi-space-size=64"])).toBe(false)
    // a size given in NODE_OPTIONS is kept too
    expect(wantsLargeYoungGeneration(of("2d"), argv, [], "--max-semi-space-size=32")).toBe(false)
    expect(wantsLargeYoungGeneration(of("2d"), argv, [], "--enable-source-maps")).toBe(true)
    expect(execArgvFor(of("1d"), [])).toEqual([LARGE_YOUNG_GENERATION])
    expect(execArgvFor(of("1h"), [])).toEqual([])
  })

  it("runs the same run in a child with the flag, and ends as it does", () => {
    const path = file(scenario(2_000, "5s"))
    const rerun = sandnet(["simulate", path, "--quiet"], root)
    expect(rerun.code).toBe(0)
    const byHand = execFileSync(process.execPath, [LARGE_YOUNG_GENERATION, bin, "simulate", path, "--quiet"], { cwd: root, encoding: "utf8" })
    const hashOf = (output: string) => /history-hash: ([0-9a-f]{64})/.exec(output)?.[1]
    expect(hashOf(rerun.output)).toBeDefined()
    expect(hashOf(rerun.output)).toBe(hashOf(byHand))
    expect(rerun.output).toMatch(/parties +2000 onboarded/)
    expect(rerun.output).toMatch(/invariants +11 checked, all held/)
  }, 120_000)

  it("passes a SIGTERM on: the command and its run both end", async () => {
    const command = spawn(process.execPath, [bin, "simulate", file(scenario(2_000, "2h")), "--quiet"], { cwd: root, stdio: "ignore" })
    const exited = new Promise<number | null>((resolve) => command.once("exit", (code) => resolve(code)))
    let run: Array<string> = []
    for (let i = 0; i < 200 && run.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      run = childrenOf(command.pid!)
    }
    expect(run).toHaveLength(1)
    expect(run[0]).toContain(LARGE_YOUNG_GENERATION)
    const runPid = Number(run[0]!.split(" ")[0])
    command.kill("SIGTERM")
    expect(await exited).toBe(0)
    const alive = () => {
      try {
        process.kill(runPid, 0)
        return true
      } catch {
        return false
      }
    }
    expect(alive()).toBe(false)
  }, 120_000)
})
