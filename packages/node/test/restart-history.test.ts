/**
 * A restart replays more history than its logs keep as objects: the replay holds the logs (engine
 * ArchivedLog.hold), the archiver takes the backlog once the node serves, and what the node reads
 * and serves is the same before the restart, right after it and once the backlog is archived.
 */
import { SIMULATION_EPOCH } from "@sandnet/core"
import { historyLogsOf } from "@sandnet/engine"
import { makeMemoryBacking, type MemoryBacking } from "@sandnet/store"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"
import { startOnBacking } from "./memory-node.ts"

/** Archives after a few entries: segments of 2, 2 kept as objects, 4 more left to the archiver. */
const SMALL_HISTORY = { hotEntries: 2, segmentEntries: 2, deferUpTo: 4 }

const startRuntime = (backing: MemoryBacking) =>
  startOnBacking(backing, { wallets: true, clock: { _tag: "manual", start: SIMULATION_EPOCH }, tickIntervalMillis: 5, historyLimits: SMALL_HISTORY })

const wallet = <A, E>(runtime: Node.NodeRuntimeService, f: (w: Node.EngineInstance["wallets"][number]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.either(runtime.run((engine) => f(engine.wallets[0]!))))

/** Every history log's entries as JSON, and the most any log holds as objects. */
const history = (runtime: Node.NodeRuntimeService) =>
  Effect.runPromise(
    runtime.read((engine) =>
      Effect.sync(() => {
        const logs = historyLogsOf(engine.network)
        return { text: logs.map((log) => JSON.stringify([...log])), mostUnarchived: Math.max(...logs.map((log) => log.length - log.archivedLength)) }
      })
    )
  )

/** What a wallet user reads. */
const reads = async (runtime: Node.NodeRuntimeService) => ({
  transactions: await wallet(runtime, (w) => w.listTransactions("alice", { page_size: 200 })),
  offers: await wallet(runtime, (w) => w.listTransferOffers("alice")),
  balance: await wallet(runtime, (w) => w.getBalance("alice")),
  statuses: await Promise.all([0, 11, 23].map((i) => wallet(runtime, (w) => w.getTransferOfferStatus("alice", `t${i}`))))
})

const waitFor = async (condition: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 400 && !(await condition()); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(await condition()).toBe(true)
}

describe("a restart with more history than its logs keep as objects", () => {
  it("serves the same history and wallet reads before, right after and once the archiver took the backlog", async () => {
    const backing = makeMemoryBacking()
    const first = await startRuntime(backing)
    const operator = (await Effect.runPromise(first.runtime.engine)).network.validators[0]!.operator
    expect((await wallet(first.runtime, (w) => w.onboardUser({ name: "alice" })))._tag).toBe("Right")
    expect((await wallet(first.runtime, (w) => w.tap("alice", { amount: "100.0" })))._tag).toBe("Right")
    const offer = (i: number) => ({ receiver_party_id: operator, amount: "1.0", description: `offer ${i}`, expires_at: SIMULATION_EPOCH + 3_600_000_000, tracking_id: `t${i}` })
    for (let i = 0; i < 24; i++) expect((await wallet(first.runtime, (w) => w.createTransferOffer("alice", offer(i))))._tag).toBe("Right")
    await waitFor(async () => (await history(first.runtime)).mostUnarchived < SMALL_HISTORY.hotEntries + SMALL_HISTORY.segmentEntries)
    const before = { history: (await history(first.runtime)).text, reads: await reads(first.runtime) }
    expect(before.reads.transactions._tag).toBe("Right")
    await Effect.runPromise(first.runtime.flush)
    await first.close()

    const second = await startRuntime(backing)
    try {
      // right after the start, whatever the archiver has taken of the backlog yet
      expect((await history(second.runtime)).text).toEqual(before.history)
      expect(await reads(second.runtime)).toEqual(before.reads)
      // the archiver takes the backlog: every log back to its hot entries and at most a segment
      await waitFor(async () => (await history(second.runtime)).mostUnarchived < SMALL_HISTORY.hotEntries + SMALL_HISTORY.segmentEntries)
      expect((await history(second.runtime)).text).toEqual(before.history)
      expect(await reads(second.runtime)).toEqual(before.reads)
      // and the node goes on: a new offer, its tracking id, the earlier ones still taken
      expect((await wallet(second.runtime, (w) => w.createTransferOffer("alice", offer(24))))._tag).toBe("Right")
      expect((await wallet(second.runtime, (w) => w.createTransferOffer("alice", offer(3))))._tag).toBe("Left")
      const after = await history(second.runtime)
      expect(after.text.some((log, i) => log.length > before.history[i]!.length)).toBe(true)
    } finally {
      await second.close()
    }
  })
})
