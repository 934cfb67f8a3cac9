import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { root, sandnet } from "./node-support.ts"

const SCENARIO = `
name: tiny-faults
seed: 3
duration: 2m
topology: { superValidators: 2, validators: 2, synchronizers: [sync-1], parties: 4 }
workload:
  initialTap: 100
  transfers: { perMinute: 20, minAmount: 1, maxAmount: 10 }
faults:
  links:
    submissions: { drop: 0.05, duplicate: 0.05 }
  crashes:
    - { nodes: [validators], between: [30s, 90s], downtime: { min: 5s, max: 20s } }
  retries: { probability: 0.2 }
settle: 2m
`

const setup = () => {
  const dir = mkdtempSync(join(tmpdir(), "sandnet-simulate-"))
  const file = join(dir, "tiny.yaml")
  writeFileSync(file, SCENARIO)
  return { dir, file }
}

describe("sandnet simulate", () => {
  it("runs a swarm in two worker processes: a line per seed and a summary, the same hashes as single runs", () => {
    const { file } = setup()
    const swarm = sandnet(["simulate", file, "--seeds", "1..3", "--jobs", "2", "--quiet"], root)
    expect(swarm.code).toBe(0)
    for (const seed of [1, 2, 3]) expect(swarm.output).toMatch(new RegExp(`seed ${seed} +ok `))
    expect(swarm.output).toMatch(/3 runs of tiny-faults: 3 ok, 0 FAILED; .* 3 distinct histories/)
    const single = sandnet(["simulate", file, "--seed", "2", "--quiet"], root)
    expect(single.code).toBe(0)
    const hash = /history-hash: ([0-9a-f]{64})/.exec(single.output)![1]!
    expect(swarm.output).toMatch(new RegExp(`seed 2 +ok .* hash ${hash.slice(0, 12)}`))
    expect(single.output).toMatch(/invariants +11 checked, all held/)
    expect(single.output).toMatch(/crashes +1: validator\d down/)
  }, 180_000)

  it("prints the deliveries around a step, and says when a trace does not replay", () => {
    const { dir, file } = setup()
    // Pick a step inside the run, whatever its length: the workload may grow, the window must not fall off.
    const whole = sandnet(["simulate", file, "--seed", "2", "--quiet"], root)
    const deliveries = Number(/deliveries +(\d+) messages/.exec(whole.output)![1])
    expect(deliveries).toBeGreaterThan(100)
    const step = Math.floor(deliveries / 2)
    const around = sandnet(["simulate", file, "--seed", "2", "--until", String(step), "--quiet"], root)
    expect(around.code).toBe(0)
    expect(around.output).toContain(`deliveries #${step - 10}..#${step + 10} of tiny-faults, seed 2 (>> marks #${step}):`)
    expect(around.output).toMatch(new RegExp(`>> #${step} \\d:\\d\\d:\\d\\d\\.\\d{6} `))
    // A step past the end is refused with the run's length, not silently ignored.
    const past = sandnet(["simulate", file, "--seed", "2", "--until", String(deliveries + 50), "--quiet"], root)
    expect(past.output).toContain(`the run has only ${deliveries} deliveries`)
    // A trace claiming a failure this run does not have.
    const trace = join(dir, "trace.json")
    writeFileSync(
      trace,
      JSON.stringify({
        sandnetTrace: 1,
        scenario: { file, name: "tiny-faults", text: SCENARIO },
        seed: 2,
        failure: { invariant: "no-double-spend", message: "made up", delivery: 400, simulatedTime: "0:00:40.000000", phase: "during", historyHash: "0".repeat(64) },
        violations: [],
        deliveries: [],
        faults: []
      })
    )
    const replay = sandnet(["simulate", "--replay", trace, "--quiet"], root)
    expect(replay.code).toBe(3)
    expect(replay.output).toContain("NOT reproduced: no invariant broke")
    const bad = sandnet(["simulate", file, "--seeds", "oops"], root)
    expect(bad.code).toBe(2)
  }, 180_000)

  it("keeps the trace of a run that passed (--keep-trace); its replay passes again on the same history hash", () => {
    const { dir, file } = setup()
    const traceDir = join(dir, "traces")
    const run = sandnet(["simulate", file, "--seed", "5", "--keep-trace", "--trace-dir", traceDir, "--quiet"], root)
    expect(run.code).toBe(0)
    const hash = /history-hash: ([0-9a-f]{64})/.exec(run.output)![1]!
    const trace = join(traceDir, "tiny-faults-seed-5.json")
    expect(run.output).toContain(`trace             ${trace} (replay: sandnet simulate --replay ${trace})`)
    const again = sandnet(["simulate", "--replay", trace, "--quiet"], root)
    expect(again.code).toBe(0)
    expect(again.output).toContain(`reproduced: the run passed again, history hash ${hash.slice(0, 16)}… as recorded`)
    // A kept trace whose hash the rerun does not reach is not reproduced.
    const tampered = join(dir, "tampered.json")
    writeFileSync(tampered, readFileSync(trace, "utf8").replace(hash, "0".repeat(64)))
    const other = sandnet(["simulate", "--replay", tampered, "--quiet"], root)
    expect(other.code).toBe(3)
    expect(other.output).toContain(`NOT reproduced: history hash ${hash.slice(0, 16)}…, the trace says 0000000000000000…`)
    // Without --keep-trace a run that passed leaves none.
    const plain = sandnet(["simulate", file, "--seed", "6", "--trace-dir", traceDir, "--quiet"], root)
    expect(plain.output).not.toContain("trace  ")
  }, 180_000)
})
