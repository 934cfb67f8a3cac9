/** The storage bench's disk baseline: syncs really happen (each one costs time), and the bench leaves no file behind. */
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { measureDiskSync } from "../src/bench/disk-sync.ts"

describe("measureDiskSync", () => {
  it("times 8 KB writes, each synced, and removes its file", () => {
    const dir = mkdtempSync(join(tmpdir(), "sandnet-disk-sync-"))
    try {
      const sync = measureDiskSync(dir)
      expect(sync.syncs).toBeGreaterThan(0)
      expect(sync.syncs).toBeLessThanOrEqual(2000)
      expect(sync.microsPerSync).toBeGreaterThan(0)
      expect(readdirSync(dir)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("fails loudly where it cannot write", () => {
    expect(() => measureDiskSync(join(tmpdir(), "sandnet-no-such-dir", "deeper"))).toThrow(/ENOENT/)
  })
})
