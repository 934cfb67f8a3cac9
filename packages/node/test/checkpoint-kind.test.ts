/**
 * Which engine checkpoints a start takes (runtime/start.ts `checkpointMisfit`): a process of a
 * cluster only one that says how far it followed the other nodes' journals, at entries; a node
 * running its network alone only one that does not. Any other is given up (the journals are
 * replayed whole: checkpoint-restart.test.ts shows the fallback).
 */
import { describe, expect, it } from "vitest"
import type { EngineCheckpoint } from "../src/index.ts"
import { checkpointMisfit } from "../src/runtime/start.ts"

const checkpoint = (followed?: ReadonlyArray<readonly [string, number]>): EngineCheckpoint =>
  ({ version: 5, ordinal: 10, heads: [], topology: {}, participants: [], scans: [], wallets: [], ...(followed === undefined ? {} : { followed }) }) as unknown as EngineCheckpoint

describe("the kind of checkpoint a start takes", () => {
  it("takes none when there is none, and its own kind", () => {
    expect(checkpointMisfit(false, undefined)).toBeUndefined()
    expect(checkpointMisfit(true, undefined)).toBeUndefined()
    expect(checkpointMisfit(false, checkpoint())).toBeUndefined()
    expect(checkpointMisfit(true, checkpoint([["participant/sv1", 1], ["participant/validator1", 4087], ["scan/sv1", 12]]))).toBeUndefined()
    expect(checkpointMisfit(true, checkpoint([]))).toBeUndefined()
  })

  it("gives up the other kind's, and positions that are not entries, saying why", () => {
    expect(checkpointMisfit(false, checkpoint([["participant/sv1", 7]]))?.message).toBe("the engine checkpoint is a cluster process's")
    expect(checkpointMisfit(true, checkpoint())?.message).toBe("the engine checkpoint does not say how far the other nodes' journals were followed")
    for (const next of [0, -1, 2.5, Number.NaN, 2 ** 60]) {
      expect(checkpointMisfit(true, checkpoint([["participant/sv1", 3], ["scan/sv1", next]]))?.message, String(next)).toBe(`the engine checkpoint follows scan/sv1 from ${next}, which is not an entry`)
    }
  })
})
