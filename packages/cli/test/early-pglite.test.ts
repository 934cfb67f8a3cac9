/**
 * A start on the embedded database starts PGlite's thread before it loads the rest of the program
 * (src/early-pglite.ts), and the store adopts that thread instead of starting a second one: the
 * ready lines say so. Both ways a start runs: bin/sandnet.js (the code-cached script) and the ES
 * module bundle (dist/sandnet.mjs).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { bin, root, startNode, stop } from "./node-support.ts"

const dirs: Array<string> = []
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

/** The storage line of a start of `entry` on a new data directory, then the node is stopped. */
const storageLineOf = async (entry: string): Promise<string> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-early-"))
  dirs.push(dataDir)
  const node = await startNode(["--data-dir", dataDir], root, { entry })
  await stop(node, "SIGTERM")
  return /^\s+storage\s+(.*)$/m.exec(node.output())?.[1] ?? `no storage line in:\n${node.output()}`
}

describe("PGlite's thread started with the process", () => {
  it("is adopted by the store when the command runs from its code-cached script", async () => {
    expect(await storageLineOf(bin)).toMatch(/^PGlite in .* \(new, from the template(?:'s spare copy)?, [\d.]+ s; its thread started with the process\)$/)
  }, 120_000)

  it("is adopted by the store when the command runs from the ES module bundle", async () => {
    expect(await storageLineOf(path.join(root, "packages/cli/dist/sandnet.mjs"))).toMatch(/its thread started with the process\)$/)
  }, 120_000)
})
