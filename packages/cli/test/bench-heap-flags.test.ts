/**
 * A bench run under V8 heap flags (`node --max-semi-space-size=64 packages/cli/bin/sandnet.js bench`,
 * to measure nodes under them) passes those flags, and only those, on to the `sandnet` processes
 * it spawns: a loader's `--import` or a profiler's flags stay in the bench's process.
 */
import { describe, expect, it } from "@effect/vitest"
import { heapFlags } from "../src/bench/machine.ts"

describe("the heap flags a bench passes on", () => {
  it("are the heap's sizes among its own flags, and nothing else", () => {
    expect(heapFlags(["--import", "tsx", "--max-semi-space-size=64", "--cpu-prof", "--max-old-space-size=4096", "--enable-source-maps"])).toEqual([
      "--max-semi-space-size=64",
      "--max-old-space-size=4096"
    ])
    expect(heapFlags(["--min-semi-space-size=8"])).toEqual(["--min-semi-space-size=8"])
    expect(heapFlags(["--max-semi-space-size", "--max-semi-space-size=x"])).toEqual([])
    expect(heapFlags([])).toEqual([])
  })
})
