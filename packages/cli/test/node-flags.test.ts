/**
 * The node flags the checkout's scripts run `sandnet` with (package.json): `npm start`, `npm run
 * sandnet` and `npm run bench` give the same V8 heap flags, so that the bench measures a node as
 * `npm start` runs it, and the benches pass those flags (and only those) on to the nodes they spawn.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { heapFlags } from "../src/bench/machine.ts"
import { root } from "./node-support.ts"

const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts

/** The words between `node` and the command line's path in a script. */
const nodeFlagsOf = (script: string): Array<string> => {
  const words = script.split(/\s+/)
  expect(words[0], script).toBe("node")
  const bin = words.indexOf("packages/cli/bin/sandnet.js")
  expect(bin, script).toBeGreaterThan(0)
  return words.slice(1, bin)
}

describe("the node flags of the checkout's scripts", () => {
  it("npm start, npm run sandnet and npm run bench run the command line with the larger young generation, all three alike", () => {
    const flags = ["start", "sandnet", "bench"].map((name) => nodeFlagsOf(scripts[name]!))
    expect(flags[0]).toEqual(["--max-semi-space-size=64"])
    expect(flags[1]).toEqual(flags[0])
    expect(flags[2]).toEqual(flags[0])
  })

  it("the benches pass on the heap's sizes and nothing else of their own flags", () => {
    expect(heapFlags(nodeFlagsOf(scripts["bench"]!))).toEqual(["--max-semi-space-size=64"])
    expect(heapFlags(["--import", "tsx", "--max-semi-space-size=64", "--cpu-prof", "--max-old-space-size=4096", "--enable-source-maps"])).toEqual([
      "--max-semi-space-size=64",
      "--max-old-space-size=4096"
    ])
    expect(heapFlags(["--max-semi-space-size"])).toEqual([])
    expect(heapFlags([])).toEqual([])
  })
})
