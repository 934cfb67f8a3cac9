/**
 * The offline storage commands on a node's PGlite data directory, as a user runs them: `sandnet
 * rebuild` after a clean stop finds the stored indexes equal to the recomputed ones; `sandnet
 * snapshot` writes an archive; `sandnet restore` puts the network back to it (the offers made
 * after the snapshot are gone, the users stay); and they refuse a data directory a node has open.
 */
import { makeDevToken } from "@sandnet/http"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bin, factsOf, offerCommand, request, root, sandnet, startNode, stop } from "./node-support.ts"

const dirs: Array<string> = []

beforeAll(() => {
  execFileSync(process.execPath, [bin, "--version"], { cwd: root, stdio: "ignore" })
}, 120_000)

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

describe("sandnet rebuild, snapshot and restore", () => {
  it("rebuild checks the stored indexes; snapshot and restore bring the network back", async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-storage-cli-"))
    dirs.push(cwd)
    const data = ["--data-dir", path.join(cwd, "data")]
    const token = await Effect.runPromise(makeDevToken({ user: "operator", secret: "unsafe" }))
    const submit = (url: string, id: string, facts: Awaited<ReturnType<typeof factsOf>>) =>
      request(`${url}/v2/commands/submit-and-wait`, token, "POST", offerCommand(facts, id))
    const ledgerEnd = async (url: string) => ((await request(`${url}/v2/state/ledger-end`, token, "GET")).json as { offset: number }).offset

    const first = await startNode(data, cwd)
    const facts = await factsOf(first.url, token)
    for (const id of ["cli-1", "cli-2", "cli-3"]) expect((await submit(first.url, id, facts)).status).toBe(200)
    const atSnapshot = await ledgerEnd(first.url)
    // a node has the directory open: the offline commands refuse it
    const busy = sandnet(["rebuild", ...data], cwd)
    expect(busy.code).not.toBe(0)
    expect(busy.output).toContain("in use by process")
    await stop(first, "SIGTERM")

    const rebuilt = sandnet(["rebuild", ...data], cwd)
    expect(rebuilt.code, rebuilt.output).toBe(0)
    expect(rebuilt.output).toContain(`validator1   ledger end ${atSnapshot}`)
    expect(rebuilt.output).toContain("equal the recomputed ones")
    // the stored index rows (every node's ACS, the SV's scan) match the replayed journals
    expect(rebuilt.output).toMatch(/index\/acs\/validator1: \d+ rows, equal to the recomputed ones/)
    expect(rebuilt.output).toMatch(/index\/scan\/sv1: \d+ rows, equal to the recomputed ones/)

    const archive = path.join(cwd, "network.json.gz")
    const written = sandnet(["snapshot", ...data, "--out", archive], cwd)
    expect(written.code, written.output).toBe(0)
    expect(fs.existsSync(archive)).toBe(true)

    const second = await startNode(data, cwd)
    expect((await submit(second.url, "cli-4", facts)).status).toBe(200)
    expect(await ledgerEnd(second.url)).toBe(atSnapshot + 1)
    await stop(second, "SIGTERM")

    const restored = sandnet(["restore", ...data, "--in", archive], cwd)
    expect(restored.code, restored.output).toBe(0)
    const third = await startNode(data, cwd)
    try {
      expect(await ledgerEnd(third.url)).toBe(atSnapshot)
      // cli-4 went with the restore, cli-1 did not
      expect((await submit(third.url, "cli-4", facts)).status).toBe(200)
      expect((await submit(third.url, "cli-1", facts)).status).toBe(409)
    } finally {
      await stop(third, "SIGTERM")
    }
  }, 240_000)

  it("rebuild after kill -9 (no stored digest yet) says what it compares instead of contradicting itself", async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-storage-cli-"))
    dirs.push(cwd)
    const data = ["--data-dir", path.join(cwd, "data")]
    const token = await Effect.runPromise(makeDevToken({ user: "operator", secret: "unsafe" }))
    const node = await startNode(data, cwd)
    const facts = await factsOf(node.url, token)
    expect((await request(`${node.url}/v2/commands/submit-and-wait`, token, "POST", offerCommand(facts, "k-1"))).status).toBe(200)
    await stop(node, "SIGKILL")
    const rebuilt = sandnet(["rebuild", ...data], cwd)
    expect(rebuilt.code, rebuilt.output).toBe(0)
    expect(rebuilt.output).not.toContain("no stored indexes to compare with")
    expect(rebuilt.output).toContain("no stored digest of the indexes yet")
    expect(rebuilt.output).toMatch(/index\/acs\/validator1: \d+ rows, equal to the recomputed ones/)
  }, 120_000)
})
