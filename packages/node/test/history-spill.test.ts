/**
 * A serving node archives its older history in its ticks and, with a spill directory, keeps the
 * compressed segments in a file (runtime/history-spill.ts): what it serves afterwards is what it
 * served before, the file leaves nothing behind, and a file that cannot be written leaves the
 * segments in memory instead of failing the node.
 */
import { SIMULATION_EPOCH } from "@sandnet/core"
import { historyLogsOf } from "@sandnet/engine"
import { EventStore } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"

/** Archives after a few entries: segments of 2, 2 kept as objects. */
const SMALL_HISTORY = { hotEntries: 2, segmentEntries: 2, deferUpTo: 64 }

const startRuntime = async (historySpillDir: string | undefined) => {
  const scope = Effect.runSync(Scope.make())
  const runtime = await Effect.runPromise(
    Effect.gen(function* () {
      const store = Context.get(yield* Layer.buildWithScope(EventStore.memory, scope), EventStore)
      const storage = yield* Node.makeNodeStorage(store)
      return yield* Node.makeNodeRuntime({
        storage,
        wallets: true,
        clock: { _tag: "manual", start: SIMULATION_EPOCH },
        tickIntervalMillis: 5,
        historySpillDir,
        historyLimits: SMALL_HISTORY
      })
    }).pipe(Scope.extend(scope))
  )
  return { runtime, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const wallet = <A, E>(runtime: Node.NodeRuntimeService, f: (w: Node.EngineInstance["wallets"][number]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.either(runtime.run((engine) => f(engine.wallets[0]!))))

/** Everything the node's history logs hold, as the JSON its readers render. */
const historyText = async (runtime: Node.NodeRuntimeService): Promise<ReadonlyArray<string>> =>
  Effect.runPromise(runtime.read((engine) => Effect.sync(() => historyLogsOf(engine.network).map((log) => JSON.stringify([...log])))))

const archivedEntries = async (runtime: Node.NodeRuntimeService): Promise<number> =>
  Effect.runPromise(runtime.read((engine) => Effect.sync(() => historyLogsOf(engine.network).reduce((sum, log) => sum + log.archivedLength, 0))))

/** Taps and offers: a few dozen entries in each log. */
const makeHistory = async (runtime: Node.NodeRuntimeService) => {
  expect((await wallet(runtime, (w) => w.onboardUser({ name: "alice" })))._tag).toBe("Right")
  for (let i = 0; i < 12; i++) expect((await wallet(runtime, (w) => w.tap("alice", { amount: `${i + 1}.0` })))._tag).toBe("Right")
  return {
    history: await wallet(runtime, (w) => w.listTransactions("alice", { page_size: 100 })),
    balance: await wallet(runtime, (w) => w.getBalance("alice"))
  }
}

/** This process's open files that were made in `directory` and unlinked (Linux's /proc). */
const spillFilesOpenIn = (directory: string): ReadonlyArray<number> =>
  fs.readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(path.join(directory, ".sandnet-history-")) ? [Number(fd)] : []
    } catch {
      return []
    }
  })

const waitFor = async (condition: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 400 && !(await condition()); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(await condition()).toBe(true)
}

let dir = ""
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-spill-test-"))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("archived history on a serving node", () => {
  it("the ticks archive the older history into the spill file; reads answer as before; no file is left", async () => {
    const node = await startRuntime(dir)
    try {
      const before = await makeHistory(node.runtime)
      expect(before.history._tag).toBe("Right")
      const logs = await historyText(node.runtime)
      // the ticks archive every due segment: each log keeps at most its hot entries plus one segment
      await waitFor(async () => (await archivedEntries(node.runtime)) >= 20)
      expect(await historyText(node.runtime)).toEqual(logs)
      expect(await wallet(node.runtime, (w) => w.listTransactions("alice", { page_size: 100 }))).toEqual(before.history)
      expect(await wallet(node.runtime, (w) => w.getBalance("alice"))).toEqual(before.balance)
      // open and unlinked: nothing in the directory, one file open in it, holding the segments
      expect(fs.readdirSync(dir)).toEqual([])
      const open = spillFilesOpenIn(dir)
      expect(open.length).toBe(1)
      expect(fs.fstatSync(open[0]!).size).toBeGreaterThan(0)
    } finally {
      await node.close()
    }
    // closed with the runtime
    expect(spillFilesOpenIn(dir)).toEqual([])
  })

  it("the ticks archive the wallet's finished records too; statuses and a reused tracking id answer as before", async () => {
    const node = await startRuntime(dir)
    try {
      expect((await wallet(node.runtime, (w) => w.onboardUser({ name: "alice" })))._tag).toBe("Right")
      const bob = await wallet(node.runtime, (w) => w.onboardUser({ name: "bob" }))
      expect(bob._tag).toBe("Right")
      const receiver = bob._tag === "Right" ? bob.right.party_id : ""
      expect((await wallet(node.runtime, (w) => w.tap("alice", { amount: "100.0" })))._tag).toBe("Right")
      const offer = (trackingId: string) => ({ receiver_party_id: receiver, amount: "1.0", description: "", expires_at: SIMULATION_EPOCH + 3_600_000_000, tracking_id: trackingId })
      const created = []
      for (let i = 0; i < 8; i++) created.push(await wallet(node.runtime, (w) => w.createTransferOffer("alice", offer(`t${i}`))))
      expect(created.every((c) => c._tag === "Right")).toBe(true)
      const statuses = () => Promise.all([0, 1, 7].map((i) => wallet(node.runtime, (w) => w.getTransferOfferStatus("alice", `t${i}`))))
      const before = await statuses()
      // eight finished tracking ids: with two kept as objects and segments of two, the ticks archive at least four
      const trackingArchived = () =>
        Effect.runPromise(node.runtime.read((engine) => Effect.sync(() => engine.network.attachedHistory.reduce((sum, log) => sum + log.archivedLength, 0))))
      await waitFor(async () => (await trackingArchived()) >= 4)
      expect(await statuses()).toEqual(before)
      const reused = await wallet(node.runtime, (w) => w.createTransferOffer("alice", offer("t0")))
      const first = created[0]!
      expect(reused._tag === "Left" && reused.left).toMatchObject({ _tag: "TrackingIdAlreadyUsed", contractId: first._tag === "Right" ? first.right.offer_contract_id : "?" })
      expect(fs.fstatSync(spillFilesOpenIn(dir)[0]!).size).toBeGreaterThan(0)
    } finally {
      await node.close()
    }
  })

  it("a spill directory that cannot be written keeps the segments in memory; the node goes on", async () => {
    const node = await startRuntime(path.join(dir, "missing", "deeper"))
    try {
      const before = await makeHistory(node.runtime)
      const logs = await historyText(node.runtime)
      await waitFor(async () => (await archivedEntries(node.runtime)) >= 20)
      expect(await historyText(node.runtime)).toEqual(logs)
      expect(await wallet(node.runtime, (w) => w.listTransactions("alice", { page_size: 100 }))).toEqual(before.history)
      // a command after the failure commits as usual
      expect((await wallet(node.runtime, (w) => w.tap("alice", { amount: "1.0" })))._tag).toBe("Right")
    } finally {
      await node.close()
    }
  })
})

describe("SpilledSegments", () => {
  it("reads back every segment it kept, from the file; counts them", () => {
    const spill = new Node.SpilledSegments(dir)
    const segments = Array.from({ length: 50 }, (_, i) => Buffer.from(`segment ${i} `.repeat(i * 37 + 1)))
    const kept = segments.map((bytes) => spill.keep(bytes))
    expect(kept.every((k, i) => k.read().equals(segments[i]!))).toBe(true)
    expect(spill.counts).toEqual({ spilled: 50, inMemory: 0 })
    expect(spill.takeFailure()).toBeUndefined()
    expect(fs.readdirSync(dir)).toEqual([])
    spill.close()
  })

  it("after a failure keeps segments in memory and tells the failure once", () => {
    const spill = new Node.SpilledSegments(path.join(dir, "missing"))
    const kept = spill.keep(Buffer.from("abc"))
    expect(kept.read().toString()).toBe("abc")
    expect(spill.counts).toEqual({ spilled: 0, inMemory: 1 })
    expect(spill.takeFailure()).toMatch(/ENOENT/)
    expect(spill.takeFailure()).toBeUndefined()
    spill.close()
  })
})
