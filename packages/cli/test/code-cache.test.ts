/**
 * The command line's script is compiled with V8's code cache (bin/script-cached.mjs): a start without
 * a usable cache writes one for its build once ready, any other command as it exits; a cache V8 rejects is replaced; a directory
 * that cannot be written costs nothing but the cache. Each case keeps its caches in a directory of
 * its own (SANDNET_CODE_CACHE=<dir>), so that other tests' starts do not touch them.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { bin, root, startNode, stop } from "./node-support.ts"

const dirs: Array<string> = []
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

const cacheDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-code-cache-"))
  dirs.push(dir)
  return dir
}

/** The build id on the start script's first line, as the loader reads it. */
const buildId = (): string => /^\/\/sandnet-build:([0-9a-f]{64})/.exec(fs.readFileSync(path.join(root, "packages/cli/dist/sandnet.cjs"), "utf8"))![1]!

/** Starts a node (in memory unless `args` say otherwise) with SANDNET_CODE_CACHE=`setting`, asks its health, stops it. */
const startAndStop = async (
  setting: string,
  args: ReadonlyArray<string> = ["--in-memory"],
  env: Record<string, string> = {}
): Promise<{ readonly health: number; readonly output: string }> => {
  const node = await startNode(args, root, { env: { ...process.env, ...env, SANDNET_CODE_CACHE: setting } })
  try {
    const health = (await fetch(`${node.url}/sandnet/health`)).status
    // the cache is written just after the ready lines
    await new Promise((r) => setTimeout(r, 300))
    return { health, output: node.output() }
  } finally {
    await stop(node, "SIGTERM")
  }
}

describe("the command line's code cache", () => {
  it("the script is ASCII, so the loader's Latin-1 read is its UTF-8 text", () => {
    const bytes = fs.readFileSync(path.join(root, "packages/cli/dist/sandnet.cjs"))
    expect(bytes.findIndex((byte) => byte > 0x7f)).toBe(-1)
    expect(bytes.toString("latin1")).toBe(bytes.toString("utf8"))
  })

  it("a start without a cache writes one for its build; the next start reads it", async () => {
    const dir = cacheDir()
    const first = await startAndStop(dir)
    expect(first.health).toBe(200)
    const cache = path.join(dir, `sandnet-start-${buildId()}.cjs-cache`)
    expect(fs.readdirSync(dir)).toEqual([path.basename(cache)])
    const written = fs.statSync(cache)
    expect(written.size).toBeGreaterThan(100_000)
    const second = await startAndStop(dir)
    expect(second.health).toBe(200)
    // accepted, so not written again
    expect(fs.statSync(cache).mtimeMs).toBe(written.mtimeMs)
  }, 120_000)

  it("a start on a data directory reads its cache too: PGlite's thread, setting a V8 flag as it compiles PostgreSQL, does not make V8 reject it", async () => {
    const dir = cacheDir()
    const dataDir = path.join(cacheDir(), "data")
    expect((await startAndStop(dir, ["--data-dir", dataDir])).health).toBe(200)
    const cache = path.join(dir, `sandnet-start-${buildId()}.cjs-cache`)
    const written = fs.statSync(cache)
    expect((await startAndStop(dir, ["--data-dir", dataDir])).health).toBe(200)
    expect(fs.statSync(cache).mtimeMs).toBe(written.mtimeMs)
  }, 120_000)

  it("a start given a young generation's size in NODE_OPTIONS keeps a cache of its own, and leaves the default's alone", async () => {
    const dir = cacheDir()
    const plain = path.join(dir, `sandnet-start-${buildId()}.cjs-cache`)
    const young = path.join(dir, `sandnet-start-youngheap-${buildId()}.cjs-cache`)
    expect((await startAndStop(dir)).health).toBe(200)
    const plainWritten = fs.statSync(plain).mtimeMs
    const withSize = { NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} --max-semi-space-size=64`.trim() }
    expect((await startAndStop(dir, ["--in-memory"], withSize)).health).toBe(200)
    const youngWritten = fs.statSync(young).mtimeMs
    // each kind of start reads its own: neither is rejected and written again
    expect((await startAndStop(dir, ["--in-memory"], withSize)).health).toBe(200)
    expect((await startAndStop(dir)).health).toBe(200)
    expect(fs.statSync(young).mtimeMs).toBe(youngWritten)
    expect(fs.statSync(plain).mtimeMs).toBe(plainWritten)
  }, 120_000)

  it("a cache V8 rejects is replaced by a good one, and the node starts as usual", async () => {
    const dir = cacheDir()
    const cache = path.join(dir, `sandnet-start-${buildId()}.cjs-cache`)
    fs.writeFileSync(cache, "not a code cache")
    const run = await startAndStop(dir)
    expect(run.health).toBe(200)
    expect(run.output).not.toMatch(/^\s+at /m)
    expect(fs.statSync(cache).size).toBeGreaterThan(100_000)
  }, 120_000)

  it("a cache directory that cannot be written (a read-only install): the node starts as usual, without a cache", async () => {
    const dir = path.join(cacheDir(), "a-file")
    fs.writeFileSync(dir, "")
    const run = await startAndStop(dir)
    expect(run.health).toBe(200)
    expect(run.output).not.toMatch(/^\s+at /m)
    expect(fs.statSync(dir).isFile()).toBe(true)
  }, 120_000)

  it("any other command writes its own cache as it exits, and runs the same with it: a simulation's history hash", async () => {
    const dir = cacheDir()
    const simulate = () =>
      // faults-crash (crashes, restarts, reassignments: 0.5 s) rather than smoke (3 s a run, twice)
      execFileSync(process.execPath, [bin, "simulate", "scenarios/faults-crash.yaml", "--seed", "3"], { cwd: root, env: { ...process.env, SANDNET_CODE_CACHE: dir }, encoding: "utf8" })
    const hash = (output: string) => /history-hash: ([0-9a-f]{64})/.exec(output)?.[1]
    const first = hash(simulate())
    expect(fs.readdirSync(dir)).toEqual([`sandnet-simulate-${buildId()}.cjs-cache`])
    expect(hash(simulate())).toBe(first)
    expect(first).toMatch(/^[0-9a-f]{64}$/)
    // a word that is no command makes no file of its own
    expect(() => execFileSync(process.execPath, [bin, "simulat"], { cwd: root, env: { ...process.env, SANDNET_CODE_CACHE: dir }, stdio: "ignore" })).toThrow()
    expect(fs.readdirSync(dir).sort()).toEqual([`sandnet-other-${buildId()}.cjs-cache`, `sandnet-simulate-${buildId()}.cjs-cache`])
  }, 120_000)
})
