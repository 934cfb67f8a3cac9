/**
 * A restart after kill -9 from the engine checkpoint: the node restores the checkpoint, replays
 * only the entries written after it, and answers and goes on as a node that replays its journals
 * whole (the same store, `fromCheckpoint: false`): wallet reads, every history log, the derived
 * indexes (ACS and scan digests), a new offer accepted on both.
 */
import { SIMULATION_EPOCH } from "@sandnet/core"
import { historyLogsOf, type WalletState } from "@sandnet/engine"
import { makeMemoryBacking, type MemoryBacking } from "@sandnet/store"
import { Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"
import { SEGMENT_KEY_PREFIX, segmentBytes, segmentRowKey } from "../src/checkpoint/segments.ts"
import { compressCheckpointNow, decodeCheckpoint, serializeCheckpoint, type StoredCheckpoint } from "../src/checkpoint/stored.ts"
import { crashCopy, startOnBacking } from "./memory-node.ts"

const SMALL_HISTORY = { hotEntries: 4, segmentEntries: 3, deferUpTo: 6 }

// Idle checkpoints off, but where a test turns them on: the tests below count on where the last busy one fell.
const startRuntime = (backing: MemoryBacking, fromCheckpoint = true, idleCheckpoints = false) =>
  startOnBacking(backing, { wallets: true, clock: { _tag: "manual", start: SIMULATION_EPOCH }, tickIntervalMillis: 5, historyLimits: SMALL_HISTORY, checkpointEvery: 60, idleCheckpoints }, { fromCheckpoint })

type Started = Awaited<ReturnType<typeof startRuntime>>

const initialOf = (node: Started) => Option.getOrThrow(node.runtime.storage).initial

const wallet = <A, E>(runtime: Node.NodeRuntimeService, f: (w: Node.EngineInstance["wallets"][number]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.either(runtime.run((engine) => f(engine.wallets[0]!))))

const offer = (receiver: string, i: number) => ({ receiver_party_id: receiver, amount: "1.0", description: `offer ${i}`, expires_at: SIMULATION_EPOCH + 3_600_000_000, tracking_id: `t${i}` })

/** The wallet's journaled state, as what its records and indexes hold (not where its logs' segments end). */
const walletStateOf = (state: WalletState) => ({
  // sorted: a start onboards the validator's own user after the replayed ones when the journal does
  // not hold it (it never does: it is not journaled), where a checkpoint keeps the live node's order
  users: [...state.users].sort(([a], [b]) => a.localeCompare(b)),
  books: [state.tracking, state.offers, state.instructions, state.buyTraffic].map((book) => [...book.records()]),
  indexes: [state.trackingByCommand, state.offerByContract, state.instructionByContract, state.buyTrafficByContract].map((index) => [...index]),
  delegations: [[...state.mergeDelegations], [...state.mintingDelegations]],
  lastTopup: [...state.lastTopup]
})

/** What users read and what the engine holds, as data. */
const stateOf = async (node: Started) => {
  const { runtime } = node
  const engine = await Effect.runPromise(runtime.engine)
  const users = ["alice", "bob"]
  return {
    reads: await Promise.all(
      users.map(async (user) => ({
        transactions: await wallet(runtime, (w) => w.listTransactions(user, { page_size: 500 })),
        offers: await wallet(runtime, (w) => w.listTransferOffers(user)),
        accepted: await wallet(runtime, (w) => w.listAcceptedTransferOffers(user)),
        balance: await wallet(runtime, (w) => w.getBalance(user)),
        statuses: await Promise.all([0, 5, 13, 29].map((i) => wallet(runtime, (w) => w.getTransferOfferStatus("alice", `t${i}`))))
      }))
    ),
    history: await Effect.runPromise(runtime.read((e) => Effect.sync(() => historyLogsOf(e.network).map((log) => JSON.stringify([...log]))))),
    derived: { ...Node.derivedIndexes(engine.network, 0) },
    walletHistory: [...engine.wallets[0]!.node.historyOffsets],
    walletState: walletStateOf(engine.wallets[0]!.node.state),
    ledgerEnds: [...engine.network.superValidators, ...engine.network.validators].map((n) => n.participant.logic.ledgerEnd)
  }
}

/** A node with two users, offers between them (some accepted, some withdrawn), checkpoints written along the way. */
const workload = async (node: Started) => {
  const { runtime } = node
  expect((await wallet(runtime, (w) => w.onboardUser({ name: "alice" })))._tag).toBe("Right")
  const bob = await wallet(runtime, (w) => w.onboardUser({ name: "bob" }))
  const bobParty = bob._tag === "Right" ? bob.right.party_id : ""
  expect((await wallet(runtime, (w) => w.tap("alice", { amount: "100.0" })))._tag).toBe("Right")
  const open: Array<string> = []
  for (let i = 0; i < 30; i++) {
    // a turn of the event loop between requests, as a served node has: a checkpoint compressed in the pool lands with a later batch
    await new Promise((resolve) => setImmediate(resolve))
    const created = await wallet(runtime, (w) => w.createTransferOffer("alice", offer(bobParty, i)))
    expect(created._tag).toBe("Right")
    const contractId = created._tag === "Right" ? created.right.offer_contract_id : ""
    if (i % 4 === 1) expect(await wallet(runtime, (w) => w.acceptTransferOffer("bob", contractId))).toMatchObject({ _tag: "Right" })
    if (i % 7 === 3 && i % 4 !== 1) expect(await wallet(runtime, (w) => w.withdrawTransferOffer("alice", contractId))).toMatchObject({ _tag: "Right" })
    if (i % 4 !== 1 && i % 7 !== 3) open.push(contractId)
  }
  // a transfer after the last checkpoint (every 60 entries): a history item the restart indexes from the log
  expect((await wallet(runtime, (w) => w.tap("bob", { amount: "7.0" })))._tag).toBe("Right")
  await Effect.runPromise(runtime.flush)
  return { bobParty, open }
}

/** The stored checkpoint's segment rows, by hash. */
const segmentRows = (backing: MemoryBacking): Map<string, string> =>
  new Map([...(backing.snapshots.get("checkpoint") ?? new Map<string, string>())].filter(([key]) => key.startsWith(SEGMENT_KEY_PREFIX)).map(([key, body]) => [key.slice(SEGMENT_KEY_PREFIX.length), body] as const))

/** The stored checkpoint's document. */
const storedDocument = (backing: MemoryBacking, body: StoredCheckpoint = JSON.parse(backing.snapshots.get("checkpoint")!.get("engine")!) as StoredCheckpoint) => {
  const rows = segmentRows(backing)
  return Either.getOrThrow(decodeCheckpoint(body, (hash) => segmentBytes(JSON.parse(rows.get(hash) ?? "null"))))
}

/** A checkpoint's document encoded again, naming the segment rows the store holds. */
const encodeOver = (backing: MemoryBacking, checkpoint: Node.EngineCheckpoint): StoredCheckpoint => {
  const taken = serializeCheckpoint(checkpoint, new Set(segmentRows(backing).keys()))
  expect(taken.fresh.size).toBe(0)
  return compressCheckpointNow(taken)
}

/** A store after the workload and a clean shutdown (which writes a checkpoint of everything). */
const afterCleanShutdown = async (): Promise<MemoryBacking> => {
  const backing = makeMemoryBacking()
  const first = await startRuntime(backing)
  await workload(first)
  await first.close()
  return backing
}

describe("a restart from the engine checkpoint", () => {
  it("replays only what followed the checkpoint and is the node a whole replay builds", async () => {
    const backing = makeMemoryBacking()
    const first = await startRuntime(backing)
    const { bobParty, open } = await workload(first)
    const killed = await crashCopy(first.store, backing)
    const total = (await Effect.runPromise(first.store.readAll())).get("wallet/validator1")?.length ?? 0
    expect(total).toBeGreaterThan(30)
    await first.close()

    const fromCheckpoint = await startRuntime(killed)
    const whole = await startRuntime(await crashCopy(fromCheckpoint.store, killed), false)
    try {
      const initial = initialOf(fromCheckpoint)
      expect(initial.checkpointOrdinal).toBeGreaterThan(0)
      expect(initial.replayCount).toBeGreaterThan(0)
      expect(initial.replayCount).toBeLessThan(initial.entryCount)
      const wholeInitial = initialOf(whole)
      expect(wholeInitial.checkpointOrdinal).toBeUndefined()
      expect(wholeInitial.replayCount).toBe(initial.entryCount)

      const expected = await stateOf(whole)
      expect(expected.reads[1]!.accepted._tag).toBe("Right")
      expect(await stateOf(fromCheckpoint)).toEqual(expected)
      // both go on alike: an offer made before the checkpoint accepted, one withdrawn, a new one, a used tracking id refused
      for (const node of [fromCheckpoint, whole]) {
        expect(await wallet(node.runtime, (w) => w.acceptTransferOffer("bob", open[0]!))).toMatchObject({ _tag: "Right" })
        expect(await wallet(node.runtime, (w) => w.withdrawTransferOffer("alice", open[1]!))).toMatchObject({ _tag: "Right" })
        expect((await wallet(node.runtime, (w) => w.createTransferOffer("alice", offer(bobParty, 30))))._tag).toBe("Right")
        expect((await wallet(node.runtime, (w) => w.createTransferOffer("alice", offer(bobParty, 5))))._tag).toBe("Left")
      }
      expect(await stateOf(fromCheckpoint)).toEqual(await stateOf(whole))
    } finally {
      await fromCheckpoint.close()
      await whole.close()
    }
  }, 120_000)

  it("a node that went idle writes a checkpoint of everything it journaled: a kill -9 then replays nothing", async () => {
    const storedOrdinal = (backing: MemoryBacking) => (JSON.parse(backing.snapshots.get("checkpoint")?.get("engine") ?? "{\"ordinal\":0}") as StoredCheckpoint).ordinal
    for (const idle of [true, false]) {
      const backing = makeMemoryBacking()
      const first = await startRuntime(backing, true, idle)
      await workload(first)
      const journaled = Option.getOrThrow(first.runtime.storage).engine.lastOrdinal
      // the manual clock stands still: the ticks change nothing, and 40 of them (5 ms each) make the node idle
      for (let waited = 0; waited < 100 && storedOrdinal(backing) < journaled; waited++) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(storedOrdinal(backing) === journaled).toBe(idle)
      const killed = await crashCopy(first.store, backing)
      const atKill = storedOrdinal(killed)
      await first.close()
      const second = await startRuntime(killed)
      try {
        const initial = initialOf(second)
        expect(initial.replayCount === 0).toBe(idle)
        expect(initial.checkpointOrdinal).toBe(atKill)
        expect((await wallet(second.runtime, (w) => w.getTransferOfferStatus("alice", "t29")))._tag).toBe("Right")
      } finally {
        await second.close()
      }
    }
  }, 120_000)

  it("a clean shutdown leaves a checkpoint of everything: the next start replays nothing", async () => {
    const second = await startRuntime(await afterCleanShutdown())
    try {
      const initial = initialOf(second)
      expect(initial.replayCount).toBe(0)
      expect(initial.checkpointOrdinal).toBe(initial.entryCount)
      expect((await wallet(second.runtime, (w) => w.getTransferOfferStatus("alice", "t13")))._tag).toBe("Right")
    } finally {
      await second.close()
    }
  }, 120_000)

  it("keeps the history's segments as rows of their own: each named by a checkpoint, none left that no checkpoint names", async () => {
    const backing = await afterCleanShutdown()
    const named = (b: MemoryBacking) => new Set((JSON.parse(b.snapshots.get("checkpoint")!.get("engine")!) as StoredCheckpoint).segments)
    const first = named(backing)
    expect(first.size).toBeGreaterThan(5)
    expect(new Set(segmentRows(backing).keys())).toEqual(first)
    // a row a lost batch could leave behind: the next checkpoint deletes it
    backing.snapshots.get("checkpoint")!.set(segmentRowKey("left-behind"), JSON.stringify({ bytes: "AAAA" }))
    const second = await startRuntime(backing)
    try {
      expect(initialOf(second).replayCount).toBe(0)
      expect((await wallet(second.runtime, (w) => w.tap("alice", { amount: "1.0", command_id: "after-the-restart" })))._tag).toBe("Right")
    } finally {
      await second.close()
    }
    const last = named(backing)
    expect(new Set(segmentRows(backing).keys())).toEqual(last)
    // the history only grows here: every segment of the first checkpoint is still named, but the last
    // blocks of the indexes, which grew (two a scan: its verdicts' ids and its event order's; two a
    // participant: its updates by id and its decided commands; four a wallet: its record books' finished places)
    const gone = [...first].filter((hash) => !last.has(hash))
    const document = storedDocument(backing)
    expect(gone.length).toBeLessThanOrEqual(2 * document.scans.length + 2 * document.participants.length + 4 * document.wallets.length)
    expect(first.size - gone.length).toBeGreaterThan(5)
  }, 120_000)

  it("a checkpoint that does not decode, or is stale, is ignored: the journals are replayed whole", async () => {
    const corruptions: ReadonlyArray<(stored: StoredCheckpoint, backing: MemoryBacking) => StoredCheckpoint> = [
      (stored) => ({ ...stored, bytes: stored.bytes.slice(0, 100) }),
      // a stream shorter than the checkpoint's head: it was reset since
      (stored, backing) => {
        const checkpoint = storedDocument(backing, stored)
        return encodeOver(backing, { ...checkpoint, heads: checkpoint.heads.map(([stream, seq]) => [stream, stream.startsWith("wallet/") ? seq + 1000 : seq] as const) })
      },
      // a segment row it names is missing
      (stored, backing) => {
        expect(stored.segments?.length).toBeGreaterThan(0)
        backing.snapshots.get("checkpoint")!.delete(segmentRowKey(stored.segments![0]!))
        return stored
      }
    ]
    for (const corrupt of corruptions) {
      const backing = await afterCleanShutdown()
      const rows = backing.snapshots.get("checkpoint")!
      rows.set("engine", JSON.stringify(corrupt(JSON.parse(rows.get("engine")!) as StoredCheckpoint, backing)))
      const second = await startRuntime(backing)
      try {
        const initial = initialOf(second)
        expect(initial.checkpointOrdinal).toBeUndefined()
        expect(initial.replayCount).toBe(initial.entryCount)
        expect(await wallet(second.runtime, (w) => w.getTransferOfferStatus("alice", "t0"))).toMatchObject({ _tag: "Right", right: { status: "created" } })
      } finally {
        await second.close()
      }
    }
  }, 120_000)

  it("a checkpoint that decodes but does not fit the network, a wallet or the kind of process, is given up for the journals, replayed whole", async () => {
    const misfits: ReadonlyArray<(checkpoint: Node.EngineCheckpoint) => Node.EngineCheckpoint> = [
      (checkpoint) => ({ ...checkpoint, participants: checkpoint.participants.slice(1) }),
      // a wallet's history index past its participant's log: the wallet's restore refuses it
      (checkpoint) => ({ ...checkpoint, wallets: checkpoint.wallets.map(([name, w]) => [name, { ...w, ledgerEnd: w.ledgerEnd + 100_000 }] as const) }),
      // a cluster process's (it says how far it followed the other nodes' journals), in a node that runs the network alone
      (checkpoint) => ({ ...checkpoint, followed: [["participant/sv1", 7]] })
    ]
    for (const misfit of misfits) {
      const backing = await afterCleanShutdown()
      const rows = backing.snapshots.get("checkpoint")!
      rows.set("engine", JSON.stringify(encodeOver(backing, misfit(storedDocument(backing)))))
      const whole = await startRuntime(backing)
      try {
        // what the ready line reports: the journals whole, not the checkpoint given up
        const from = Option.getOrThrow(whole.runtime.storage).startedFrom()
        expect(from).toEqual({ checkpointOrdinal: undefined, replayCount: initialOf(whole).entryCount })
        const engine = await Effect.runPromise(whole.runtime.engine)
        expect(engine.network.validators[0]!.participant.logic.ledgerEnd).toBeGreaterThan(40)
        expect(engine.wallets).toHaveLength(1)
        expect(await wallet(whole.runtime, (w) => w.getTransferOfferStatus("alice", "t0"))).toMatchObject({ _tag: "Right", right: { status: "created" } })
        expect(await wallet(whole.runtime, (w) => w.getTransferOfferStatus("alice", "t13"))).toMatchObject({ _tag: "Right", right: { status: "accepted" } })
        // the node goes on from the journals, and commits what it does
        // (its own command id: the manual clock never moves, and a tap's default id is the time and a counter a start begins again)
        expect((await wallet(whole.runtime, (w) => w.tap("alice", { amount: "1.0", command_id: "after-the-fallback" })))._tag).toBe("Right")
        expect(await Effect.runPromise(whole.runtime.flush)).toBeGreaterThan(initialOf(whole).entryCount)
      } finally {
        await whole.close()
      }
    }
  }, 120_000)

  it("arms the deadline of a command in flight at the checkpoint, as a whole replay does, where its node runs", async () => {
    const backing = makeMemoryBacking()
    const first = await startRuntime(backing)
    await workload(first)
    const streams = await Effect.runPromise(first.store.readAll())
    const config = (await Effect.runPromise(first.runtime.engine)).network.config
    await first.close()
    const entries = [...streams].filter(([stream]) => stream !== "admin").flatMap(([, list]) => list).sort((a, b) => (a.body as { n: number }).n - (b.body as { n: number }).n)
    // the journal as a kill right after a submission leaves it: up to the last command submitted
    const cut = entries.map((e) => e.kind).lastIndexOf("CommandSubmitted") + 1
    expect(cut).toBeGreaterThan(0)
    const prefix = entries.slice(0, cut)
    const fresh = () => Effect.runPromise(Node.replayNetwork(config, SIMULATION_EPOCH))
    const whole = await fresh()
    const replayedWhole = Either.getOrThrow(whole.replay(prefix))
    const checkpoint = structuredClone(Node.engineCheckpointOf(whole.network, [], new Map(), cut))
    const restored = await fresh()
    const replayedFromCheckpoint = Either.getOrThrow(Node.replayJournals(restored.network, [], new Map(), SIMULATION_EPOCH, checkpoint))
    expect(replayedWhole.timers.length).toBe(1)
    expect(replayedFromCheckpoint.timers).toEqual(replayedWhole.timers)
    // in a cluster process whose copy of that node it is, the command is another process's: its deadline is not armed here
    const owner = prefix[cut - 1]!.stream.slice("participant/".length)
    const inCluster = Either.getOrThrow(Node.replayJournals((await fresh()).network, [], new Map(), SIMULATION_EPOCH, checkpoint, (node) => node.name !== owner))
    expect(inCluster.timers).toEqual([])
  }, 120_000)
})
