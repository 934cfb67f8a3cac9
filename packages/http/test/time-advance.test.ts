/**
 * POST /v2/sandnet/time/advance on a stored node (in-memory store, manual clock): other requests
 * are answered while a long advance runs (it goes in steps of at most an hour), its answer is the
 * new time, a retry with the same advanceId does not move time again, and a failed step (the
 * store refuses a write: a test layer, no hook in the engine) leaves time where it was, also on
 * a node with wallets and automations whose advance was catching up.
 */
import { MICROS_PER_DAY } from "@sandnet/core"
import { EventStore, makeMemoryBacking, StorageError } from "@sandnet/store"
import { Effect, Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { allocateParty } from "./ledger-support.ts"
import { call, devToken, type Call } from "./support.ts"
import { ok } from "./wallet-support.ts"
import { startStoredNode, type StoredTestNode } from "./persistence-support.ts"

interface SandnetTime {
  readonly now: string
  readonly microseconds: number
}

const nodes: Array<StoredTestNode> = []
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close()
})

const advance = (node: StoredTestNode, body: unknown): Promise<Call> => call(`${node.url}/v2/sandnet/time/advance`, { token: node.admin, body })
const timeOf = async (node: StoredTestNode): Promise<number> =>
  ((await call(`${node.url}/v2/sandnet/time`, { token: node.admin })).json as SandnetTime).microseconds

/** A store whose writes fail while `failAfter` counts down to zero (then exactly one write fails). */
const flakyStore = () => {
  const control = { failAfter: -1 }
  const backing = makeMemoryBacking()
  const layer = Layer.effect(
    EventStore,
    Effect.map(EventStore, (store) => ({
      ...store,
      write: (batch: Parameters<typeof store.write>[0]) =>
        Effect.suspend(() => (control.failAfter >= 0 && control.failAfter-- === 0 ? Effect.fail(new StorageError({ operation: "commit", message: "disk on fire" })) : store.write(batch)))
    }))
  ).pipe(Layer.provide(EventStore.memoryWith(backing)))
  return { control, layer, backing }
}

describe("time advance", () => {
  it("other requests are answered while a 10-day advance runs; the answer is the new time", async () => {
    const node = await startStoredNode(EventStore.memory)
    nodes.push(node)
    const before = await timeOf(node)
    let answered = false
    const advanced = advance(node, { duration: "10d" }).then((answer) => ((answered = true), answer))
    // the advance goes in 240 steps of an hour: requests get in between them
    const version = await call(`${node.url}/v2/version`, { token: node.admin })
    expect(version.status).toBe(200)
    const during = await timeOf(node)
    expect(answered).toBe(false)
    expect(during).toBeGreaterThanOrEqual(before)
    expect(during).toBeLessThan(before + 10 * MICROS_PER_DAY)
    const answer = await advanced
    expect(answer.status).toBe(200)
    const after = answer.json as SandnetTime
    expect(after.microseconds).toBe(before + 10 * MICROS_PER_DAY)
    expect(after.now).toBe(new Date(after.microseconds / 1000).toISOString().replace("Z", "000Z"))
    expect(await timeOf(node)).toBe(after.microseconds)
  })

  it("a retry with the same advanceId answers the same time without moving it; another amount under that id is 409", async () => {
    const node = await startStoredNode(EventStore.memory)
    nodes.push(node)
    const before = await timeOf(node)
    const first = await advance(node, { duration: "2d", advanceId: "a-1" })
    expect(first.status).toBe(200)
    const retried = await advance(node, { duration: "2d", advanceId: "a-1" })
    expect(retried.status).toBe(200)
    expect(retried.json).toEqual(first.json)
    expect(await timeOf(node)).toBe(before + 2 * MICROS_PER_DAY)
    const reused = await advance(node, { duration: "1d", advanceId: "a-1" })
    expect(reused.status).toBe(409)
    expect((reused.json as { code: string }).code).toBe("ADVANCE_ID_REUSED")
    // without an id, each request moves time
    await advance(node, { duration: "1h" })
    await advance(node, { duration: "1h" })
    expect(await timeOf(node)).toBe(before + 2 * MICROS_PER_DAY + 2 * 3_600_000_000)
  })

  it("a step that fails rolls the advance back: time is where it was, and a retry moves it exactly once", async () => {
    const flaky = flakyStore()
    const node = await startStoredNode(flaky.layer)
    nodes.push(node)
    const before = await timeOf(node)
    flaky.control.failAfter = 5 // five batches are written, the next (a step of the advance) fails
    const failed = await advance(node, { duration: "1d", advanceId: "b-1" })
    expect(failed.status).toBe(500)
    expect(failed.json).toMatchObject({ code: "TIME_ADVANCE_FAILED", context: { rolledBack: "true" } })
    expect(await timeOf(node)).toBe(before)
    // the store was rolled back too: the node reopens at the time before the advance
    await nodes.pop()!.close()
    const reopened = await startStoredNode(EventStore.memoryWith(flaky.backing))
    nodes.push(reopened)
    expect(await timeOf(reopened)).toBe(before)
    await reopened.close()
    nodes.pop()
    const node2 = await startStoredNode(flaky.layer)
    nodes.push(node2)
    const retried = await advance(node2, { duration: "1d", advanceId: "b-1" })
    expect(retried.status).toBe(200)
    expect((retried.json as SandnetTime).microseconds).toBe(before + MICROS_PER_DAY)
    const again = await advance(node2, { duration: "1d", advanceId: "b-1" })
    expect(again.json).toEqual(retried.json)
    expect(await timeOf(node2)).toBe(before + MICROS_PER_DAY)
  })

  it("with wallets and automations, a step that fails while the advance catches up rolls it all back: time, round and balance where they were; the retry reaches the target", async () => {
    const flaky = flakyStore()
    const node = await startStoredNode(flaky.layer, { wallets: true, automation: true })
    nodes.push(node)
    ok(await call(`${node.url}/api/validator/v0/admin/users`, { token: node.admin, body: { name: "alice" } }))
    const aliceToken = await devToken("alice")
    ok(await call(`${node.url}/api/validator/v0/wallet/tap`, { token: aliceToken, body: { amount: "100" } }))
    const balance = async () => ok<{ round: number; effective_unlocked_qty: string }>(await call(`${node.url}/api/validator/v0/wallet/balance`, { token: aliceToken }))
    const before = { time: await timeOf(node), balance: await balance() }
    flaky.control.failAfter = 20 // a write of the advance's first day (catching up) fails
    const failed = await advance(node, { duration: "3d", advanceId: "d-1" })
    expect(failed.status).toBe(500)
    expect(failed.json).toMatchObject({ code: "TIME_ADVANCE_FAILED", context: { rolledBack: "true" } })
    expect({ time: await timeOf(node), balance: await balance() }).toEqual(before)
    const retried = await advance(node, { duration: "3d", advanceId: "d-1" })
    expect(retried.status).toBe(200)
    expect(await timeOf(node)).toBe(before.time + 3 * MICROS_PER_DAY)
    const after = await balance()
    // two days caught up at a round an hour, the last day at a round a tick
    expect(after.round - before.balance.round).toBeGreaterThanOrEqual(2 * 24 + 140)
    expect(after.round - before.balance.round).toBeLessThanOrEqual(2 * 24 + 146)
  })

  it("when a client wrote between the steps, a failed step keeps the steps (its write stays) and a retry with the advanceId goes on to the same target", async () => {
    const flaky = flakyStore()
    const node = await startStoredNode(flaky.layer)
    nodes.push(node)
    const before = await timeOf(node)
    const advanced = advance(node, { duration: "40d", advanceId: "c-1" })
    // a party allocated while the advance runs, acknowledged between two steps
    const party = await allocateParty(node, "between")
    flaky.control.failAfter = 0 // the next write (a step's) fails
    const failed = await advanced
    expect(failed.status).toBe(500)
    expect(failed.json).toMatchObject({ code: "TIME_ADVANCE_FAILED", context: { rolledBack: "false" } })
    const kept = await timeOf(node)
    expect(kept).toBeGreaterThan(before)
    expect(kept).toBeLessThan(before + 40 * MICROS_PER_DAY)
    const parties = await call(`${node.url}/v2/parties`, { token: node.admin })
    expect((parties.json as { partyDetails: Array<{ party: string }> }).partyDetails.map((p) => p.party)).toContain(party)
    const retried = await advance(node, { duration: "40d", advanceId: "c-1" })
    expect(retried.status).toBe(200)
    expect((retried.json as SandnetTime).microseconds).toBe(before + 40 * MICROS_PER_DAY)
    expect(await timeOf(node)).toBe(before + 40 * MICROS_PER_DAY)
  })
})

describe("shutting down", () => {
  it("a running advance stops after its step and answers 503 NODE_SHUTTING_DOWN; every request is 503 in its surface's shape", async () => {
    const node = await startStoredNode(EventStore.memory)
    nodes.push(node)
    const before = await timeOf(node)
    const advanced = advance(node, { duration: "40d" })
    // steps are being taken: the time moves
    while ((await timeOf(node)) === before) await new Promise((resolve) => setTimeout(resolve, 5))
    await Effect.runPromise(node.runtime.beginShutdown)
    const stopped = await advanced
    expect(stopped.status).toBe(503)
    expect(stopped.json).toMatchObject({ code: "NODE_SHUTTING_DOWN", errorCategory: 1 })
    const ledger = await call(`${node.url}/v2/version`, { token: node.admin })
    expect(ledger.status).toBe(503)
    expect(ledger.json).toMatchObject({ code: "NODE_SHUTTING_DOWN", cause: "the node is shutting down (NODE_SHUTTING_DOWN)" })
    const scan = await call(`${node.url}/api/scan/v0/dso`)
    expect(scan.status).toBe(503)
    expect(scan.json).toEqual({ error: "the node is shutting down (NODE_SHUTTING_DOWN)" })
    const wallet = await call(`${node.url}/api/validator/v0/wallet/balance`, { token: node.admin })
    expect(wallet.status).toBe(503)
    expect(wallet.json).toEqual({ error: "the node is shutting down (NODE_SHUTTING_DOWN)" })
    // the steps it took are kept: time moved, but not by 40 days
    const now = await Effect.runPromise(node.runtime.now)
    expect(now).toBeGreaterThan(before)
    expect(now).toBeLessThan(before + 40 * MICROS_PER_DAY)
  })
})
