/**
 * The wallets' journals survive a restart: users, balances, offers and their tracking ids (a
 * created tracking id stays created, its resubmission is refused), with the automations (DSO
 * rounds, wallet automations) running and re-armed after the restart.
 */
import { SIMULATION_EPOCH, micros } from "@sandnet/core"
import { makeMemoryBacking, type MemoryBacking } from "@sandnet/store"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"
import { startOnBacking } from "./memory-node.ts"

const startRuntime = (backing: MemoryBacking) => startOnBacking(backing, { wallets: true, automation: true, clock: { _tag: "manual", start: SIMULATION_EPOCH } })

/**
 * The stored index rows (every node's ACS, the SV's scan) are exactly what the engine holds, after
 * creations and archives (taps, offers, rounds turning under the automations).
 */
const expectStoredIndexes = async (node: Awaited<ReturnType<typeof startRuntime>>) => {
  await Effect.runPromise(node.runtime.flush)
  const engine = await Effect.runPromise(node.runtime.engine)
  const expected = Node.indexRowsOf(engine.network, () => true)
  const checks = await Effect.runPromise(Node.checkIndexRows(node.store, expected, false))
  expect(checks.length).toBe(3)
  for (const check of checks) expect(check, check.stream).toMatchObject({ missing: 0, extra: 0, differing: 0 })
  expect(checks.every((c) => c.rows > 0)).toBe(true)
}

const wallet = <A, E>(runtime: Node.NodeRuntimeService, f: (w: Node.EngineInstance["wallets"][number]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.either(runtime.run((engine) => f(engine.wallets[0]!))))

describe("wallet journals", () => {
  it("users, balances, offers and tracking ids survive a restart; automations go on", async () => {
    const backing = makeMemoryBacking()
    const first = await startRuntime(backing)
    const alice = await wallet(first.runtime, (w) => w.onboardUser({ name: "alice" }))
    expect(alice._tag).toBe("Right")
    expect((await wallet(first.runtime, (w) => w.tap("alice", { amount: "100.0" })))._tag).toBe("Right")
    const operator = (await Effect.runPromise(first.runtime.engine)).network.validators[0]!.operator
    const now = await Effect.runPromise(first.runtime.now)
    const request = { receiver_party_id: operator, amount: "10.0", description: "lunch", expires_at: now + micros.hours(1), tracking_id: "t-1" }
    const created = await wallet(first.runtime, (w) => w.createTransferOffer("alice", request))
    expect(created._tag).toBe("Right")
    await Effect.runPromise(first.runtime.advanceTime(micros.minutes(25)))
    const before = {
      users: await wallet(first.runtime, (w) => w.listUsers()),
      balance: await wallet(first.runtime, (w) => w.getBalance("alice")),
      status: await wallet(first.runtime, (w) => w.getTransferOfferStatus("alice", "t-1")),
      offers: await wallet(first.runtime, (w) => w.listTransferOffers("alice"))
    }
    expect(before.status).toMatchObject({ _tag: "Right", right: { status: "created" } })
    await expectStoredIndexes(first)
    await first.close()

    const second = await startRuntime(backing)
    const after = {
      users: await wallet(second.runtime, (w) => w.listUsers()),
      balance: await wallet(second.runtime, (w) => w.getBalance("alice")),
      status: await wallet(second.runtime, (w) => w.getTransferOfferStatus("alice", "t-1")),
      offers: await wallet(second.runtime, (w) => w.listTransferOffers("alice"))
    }
    expect(after).toEqual(before)
    // the tracking id is taken
    const again = await wallet(second.runtime, (w) => w.createTransferOffer("alice", request))
    expect(again._tag).toBe("Left")
    // automations were re-armed: time passing still works, rounds move on
    await Effect.runPromise(second.runtime.advanceTime(micros.minutes(25)))
    const engine = await Effect.runPromise(second.runtime.engine)
    expect(engine.dsoAutomations.length).toBe(1)
    const another = await wallet(second.runtime, (w) => w.createTransferOffer("alice", { ...request, tracking_id: "t-2", expires_at: request.expires_at + micros.hours(1) }))
    expect(another._tag).toBe("Right")
    await expectStoredIndexes(second)
    await second.close()
  })
})
