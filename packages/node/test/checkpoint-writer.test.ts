/**
 * A running node's checkpoints are compressed off the event loop and put with a later batch
 * (`CheckpointWriter`): only the newest of those compressed meanwhile, never one taken before the
 * engine was rebuilt from the store, never one after a clean shutdown's own.
 */
import { makeMemoryBacking } from "@sandnet/store"
import { SIMULATION_EPOCH } from "@sandnet/core"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import type { EngineInstance } from "../src/index.ts"
import { CheckpointWriter } from "../src/checkpoint/record.ts"
import { segmentBytes, segmentRowKey } from "../src/checkpoint/segments.ts"
import { decodeCheckpoint, type SerializedCheckpoint, type StoredCheckpoint } from "../src/checkpoint/stored.ts"
import { startOnBacking } from "./memory-node.ts"

/** A compressor that holds each compression until the test releases it, in any order. */
const heldCompressor = () => {
  const held: Array<() => void> = []
  const compress = (taken: SerializedCheckpoint, done: (stored: StoredCheckpoint | undefined) => void) =>
    void held.push(() => done({ version: taken.version, encoding: "test", ordinal: taken.ordinal, heads: taken.heads, segments: taken.segments, bytes: taken.serialized.toString("base64") }))
  return { compress, release: (i: number) => held[i]!() }
}

const taken = (ordinal: number, segments: ReadonlyArray<string> = [], fresh: ReadonlyArray<string> = []): SerializedCheckpoint => ({
  version: 1,
  ordinal,
  heads: [["participant/sv1", ordinal]],
  serialized: Buffer.from(`state at ${ordinal}`),
  segments,
  fresh: new Map(fresh.map((hash) => [hash, Buffer.from(`segment ${hash}`)]))
})

/** What a batch's recorder was given: the checkpoints' ordinals, and every row put or deleted. */
const recorder = () => {
  const puts: Array<number> = []
  const rows: Array<string> = []
  return {
    puts,
    rows,
    put: (_stream: string, key: string, body: unknown) => {
      rows.push(`put ${key}`)
      if (key === "engine") puts.push((body as StoredCheckpoint).ordinal)
    },
    delete: (_stream: string, key: string) => void rows.push(`delete ${key}`)
  }
}

describe("CheckpointWriter", () => {
  it("puts a compressed checkpoint once, with the next batch, and takes no other while one compresses", () => {
    const { compress, release } = heldCompressor()
    const writer = new CheckpointWriter(new Set(), compress)
    const batch = recorder()
    expect(writer.start(taken(100))).toBe(Buffer.from("state at 100").length)
    expect(writer.canTake).toBe(false)
    expect(() => writer.start(taken(150))).toThrow(/while another one compresses/)
    writer.putReady(batch)
    expect(batch.puts).toEqual([]) // still compressing
    release(0)
    expect(writer.canTake).toBe(true)
    writer.putReady(batch)
    writer.putReady(batch)
    expect(batch.puts).toEqual([100])
    // two compressed between two batches: the newer is put
    writer.start(taken(200))
    release(1)
    writer.start(taken(300))
    release(2)
    writer.putReady(batch)
    writer.putReady(batch)
    expect(batch.puts).toEqual([100, 300])
  })

  it("drops what was taken before the engine was rebuilt from the store, and everything after a clean shutdown's own", () => {
    const { compress, release } = heldCompressor()
    const writer = new CheckpointWriter(new Set(), compress)
    const batch = recorder()
    writer.start(taken(100))
    writer.forget() // a reset
    release(0)
    writer.putReady(batch)
    expect(batch.puts).toEqual([])
    // after the reset the journal's ordinals may start lower: a checkpoint of ordinal 50 is put
    writer.start(taken(50))
    release(1)
    writer.putReady(batch)
    expect(batch.puts).toEqual([50])
    // an older ordinal than the one put (in one generation) is not put over it
    writer.start(taken(40))
    release(2)
    writer.putReady(batch)
    expect(batch.puts).toEqual([50])
    writer.start(taken(80))
    writer.stop()
    release(3)
    writer.start(taken(90))
    release(4)
    writer.putReady(batch)
    expect(batch.puts).toEqual([50])
  })
})

describe("CheckpointWriter's segment rows", () => {
  it("puts each segment once, deletes in the same batch those no checkpoint names any more, and forgets what the store holds at a reset", () => {
    const { compress, release } = heldCompressor()
    // the store holds a and b (a start lists them)
    const writer = new CheckpointWriter(new Set(["a", "b"]), compress)
    const batch = recorder()
    writer.start(taken(100, ["b", "c"], ["c"]))
    release(0)
    writer.putReady(batch)
    expect(batch.rows).toEqual(["put segment/c", "delete segment/a", "put engine"])
    writer.start(taken(200, ["b", "c", "d"], ["d"]))
    release(1)
    batch.rows.length = 0
    writer.putReady(batch)
    expect(batch.rows).toEqual(["put segment/d", "put engine"])
    // a checkpoint naming a segment the store does not hold, without its bytes, is a bug: it fails loudly
    writer.start(taken(300, ["b", "e"]))
    release(2)
    expect(() => writer.putReady(batch)).toThrow(/neither stored nor taken with it/)
    // a reset empties the checkpoint stream: the next checkpoint puts all it names
    writer.forget()
    writer.start(taken(50, ["b"], ["b"]))
    release(3)
    batch.rows.length = 0
    writer.putReady(batch)
    expect(batch.rows).toEqual(["put segment/b", "put engine"])
  })
})

const storedCheckpoint = (backing: ReturnType<typeof makeMemoryBacking>) => {
  const rows = backing.snapshots.get("checkpoint")
  const row = rows?.get("engine")
  return row === undefined ? undefined : Either.getOrThrow(decodeCheckpoint(JSON.parse(row), (hash) => segmentBytes(JSON.parse(rows?.get(segmentRowKey(hash)) ?? "null"))))
}

describe("a running node's checkpoint", () => {
  it("lands in the store with no operation after the one that took it, covering what was committed", async () => {
    const backing = makeMemoryBacking()
    // ticks every 5 ms: what puts a checkpoint compressed after the last operation
    const node = await startOnBacking(backing, { wallets: true, clock: { _tag: "manual", start: SIMULATION_EPOCH }, tickIntervalMillis: 5, checkpointEvery: 20 })
    try {
      const wallet = <A, E>(f: (w: EngineInstance["wallets"][number]) => Effect.Effect<A, E>) =>
        Effect.runPromise(Effect.either(node.runtime.run((engine) => f(engine.wallets[0]!))))
      expect((await wallet((w) => w.onboardUser({ name: "alice" })))._tag).toBe("Right")
      // operations until one crosses the 20th entry: that one takes the checkpoint, and none follows it
      let ordinal = await Effect.runPromise(node.runtime.flush)
      while (ordinal < 20) {
        expect((await wallet((w) => w.tap("alice", { amount: "1.0" })))._tag).toBe("Right")
        ordinal = await Effect.runPromise(node.runtime.flush)
      }
      let checkpoint = storedCheckpoint(backing)
      for (let i = 0; i < 200 && checkpoint?.ordinal !== ordinal; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10))
        checkpoint = storedCheckpoint(backing)
      }
      expect(checkpoint?.ordinal).toBe(ordinal)
      // its heads are entries the store holds
      const streams = await Effect.runPromise(node.store.readAll())
      for (const [stream, seq] of checkpoint!.heads) expect(streams.get(stream)?.length ?? 0).toBeGreaterThanOrEqual(seq)
    } finally {
      await node.close()
    }
  }, 60_000)
})
