/**
 * Reads under write load, over real HTTP, on a node as `sandnet start` wires it (journals committed
 * to a store, wallets and automations on) whose commits take a while, so that batches queue and
 * reads are served while writes are in flight:
 * - an acknowledged write is seen by the next read of the same client (read-your-writes);
 * - a read never sees a write half done: a user's balance only ever takes the values its taps can
 *   add up to, never going back, while other users write all the time;
 * - a read never shows a write that is not committed: while a commit is held back, a read that
 *   saw its change answers only once it is committed, and not at all with it when the commit fails.
 */
import { SIMULATION_EPOCH } from "@sandnet/core"
import { EventStore, StorageError, type EventStoreService } from "@sandnet/store"
import * as Node from "@sandnet/node"
import { Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import * as Http from "../src/index.ts"
import { adminToken, call, devToken } from "./support.ts"

/** How long each commit of the store takes: long enough that writes queue behind it. */
const COMMIT_MILLIS = 3

let url: string
let close: () => Promise<void>
let commits = 0
/** Set by a test: the store's next writes wait for `hold`, then fail when `fail` is set. */
const control: { hold: Promise<void> | undefined; fail: boolean; reached: () => void } = { hold: undefined, fail: false, reached: () => {} }

beforeAll(async () => {
  const scope = Effect.runSync(Scope.make())
  const slow = Layer.effect(
    EventStore,
    Effect.map(EventStore, (memory): EventStoreService => ({
      ...memory,
      write: (batch) =>
        Effect.suspend(() => {
          const { hold, fail } = control
          if (hold === undefined) return Effect.zipRight(Effect.sleep(`${COMMIT_MILLIS} millis`), Effect.tap(memory.write(batch), () => void commits++))
          control.reached()
          return Effect.zipRight(
            Effect.promise(() => hold),
            fail ? Effect.fail(new StorageError({ operation: "commit", message: "the disk is full" })) : memory.write(batch)
          )
        })
    }))
  ).pipe(Layer.provide(EventStore.memory))
  const storage = Node.nodeStorageLayer.pipe(Layer.provideMerge(slow))
  const runtime = Node.persistentNodeRuntimeLayer({ clock: { _tag: "manual", start: SIMULATION_EPOCH }, wallets: true, automation: true }).pipe(
    Layer.provideMerge(storage)
  )
  const users = Node.storedUserManagementLayer().pipe(Layer.provide(storage))
  const layer = Http.serve(Http.NodeRoutes, { http: { port: 0, logRequests: false } }).pipe(Layer.provideMerge(users), Layer.provideMerge(runtime))
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  url = Effect.runSync(Effect.provide(Http.baseUrl, context))
  close = () => Effect.runPromise(Scope.close(scope, Exit.void))
})
afterAll(() => close())

const walletCall = async (method: "GET" | "POST", path: string, token: string, body?: unknown): Promise<unknown> => {
  const reply = await call(`${url}/api/validator${path}`, { method, token, ...(body === undefined ? {} : { body }) })
  expect({ path, status: reply.status }).toEqual({ path, status: 200 })
  return reply.json
}

const onboard = async (name: string): Promise<{ readonly party: string; readonly token: string }> => {
  const { party_id } = (await walletCall("POST", "/v0/admin/users", await adminToken(), { name })) as { party_id: string }
  return { party: party_id, token: await devToken(name) }
}

/** The user's unlocked balance, in units of 10^-10. */
const balance = async (token: string): Promise<bigint> => {
  const { effective_unlocked_qty } = (await walletCall("GET", "/v0/wallet/balance", token)) as { effective_unlocked_qty: string }
  const [whole, fraction = ""] = effective_unlocked_qty.split(".")
  return BigInt(whole!) * 10_000_000_000n + BigInt(fraction.padEnd(10, "0"))
}

const offers = async (token: string): Promise<ReadonlyArray<string>> =>
  ((await walletCall("GET", "/v0/wallet/transfer-offers", token)) as { offers: ReadonlyArray<{ contract_id: string }> }).offers.map((o) => o.contract_id)

/** Other users writing all the time (offers to each other) until `until` settles. */
const background = async (name: string, until: Promise<unknown>): Promise<number> => {
  const writers = await Promise.all([0, 1, 2, 3].map((i) => onboard(`${name}-${i}`)))
  for (const w of writers) await walletCall("POST", "/v0/wallet/tap", w.token, { amount: "1000" })
  let done = false
  let written = 0
  void until.finally(() => void (done = true))
  await Promise.all(
    writers.map(async (w, i) => {
      for (let n = 0; !done; n++) {
        const receiver = writers[(i + 1) % writers.length]!.party
        await walletCall("POST", "/v0/wallet/transfer-offers", w.token, offer(receiver, `${name}-${i}-${n}`))
        written++
      }
    })
  )
  return written
}

const offer = (receiver: string, trackingId: string) => ({
  receiver_party_id: receiver,
  amount: "1",
  description: "read-your-writes",
  expires_at: SIMULATION_EPOCH + 24 * 3600 * 1_000_000,
  tracking_id: trackingId
})

it("an acknowledged write is seen by the next read, while other users write", async () => {
  const alice = await onboard("ryw-alice")
  const bob = await onboard("ryw-bob")
  await walletCall("POST", "/v0/wallet/tap", alice.token, { amount: "100" })
  const commitsBefore = commits
  const checks = (async () => {
    for (let i = 0; i < 8; i++) {
      const before = await balance(alice.token)
      await walletCall("POST", "/v0/wallet/tap", alice.token, { amount: "3" })
      expect(await balance(alice.token)).toBe(before + 30_000_000_000n)
      const { offer_contract_id } = (await walletCall("POST", "/v0/wallet/transfer-offers", alice.token, offer(bob.party, `ryw-${i}`))) as {
        offer_contract_id: string
      }
      expect(await offers(alice.token)).toContain(offer_contract_id)
      expect(await offers(bob.token)).toContain(offer_contract_id)
    }
  })()
  const written = await background("ryw-bg", checks)
  await checks
  // The reads above ran while other writes were committed (batched) around them.
  expect(written).toBeGreaterThan(0)
  expect(commits).toBeGreaterThan(commitsBefore)
})

it("reads never see a write half done: a balance takes only the values its taps add up to", async () => {
  const carol = await onboard("torn-carol")
  await walletCall("POST", "/v0/wallet/tap", carol.token, { amount: "10" })
  const start = await balance(carol.token)
  const TAP = 70_000_000_000n // 7
  const taps = (async () => {
    for (let i = 0; i < 20; i++) await walletCall("POST", "/v0/wallet/tap", carol.token, { amount: "7" })
  })()
  const seen: Array<bigint> = []
  const readers = Promise.all(
    [0, 1, 2].map(async () => {
      let last = start
      let done = false
      void taps.finally(() => void (done = true))
      while (!done) {
        const now = await balance(carol.token)
        seen.push(now)
        // Every answer is a state after a whole number of taps, and never older than one answered before.
        expect((now - start) % TAP).toBe(0n)
        expect(now >= last).toBe(true)
        last = now
      }
    })
  )
  await Promise.all([taps, readers, background("torn-bg", taps)])
  expect(await balance(carol.token)).toBe(start + 20n * TAP)
  expect(seen.length).toBeGreaterThan(0)
})

/** A promise and the function that settles it. */
const gate = () => {
  let open = () => {}
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

it("a read that saw a change answers once it is committed, and without it when the commit fails", async () => {
  const dave = await onboard("held-dave")
  await walletCall("POST", "/v0/wallet/tap", dave.token, { amount: "10" })
  let committed = await balance(dave.token)
  for (const fail of [false, true]) {
    const held = gate()
    const reached = gate()
    Object.assign(control, { hold: held.promise, fail, reached: reached.open })
    const tap = call(`${url}/api/validator/v0/wallet/tap`, { method: "POST", token: dave.token, body: { amount: "5" } })
    // The tap is applied to the engine; its commit waits in the store.
    await reached.promise
    let released = false
    const read = balance(dave.token).then((seen) => ({ seen, released }))
    await new Promise((resolve) => setTimeout(resolve, 50))
    released = true
    Object.assign(control, { hold: undefined, fail: false, reached: () => {} })
    held.open()
    const answer = await read
    // Answered only after the commit was let through: never ahead of the store.
    expect(answer.released).toBe(true)
    expect({ fail, status: (await tap).status >= 500 }).toEqual({ fail, status: fail })
    if (!fail) committed += 50_000_000_000n
    expect(answer.seen).toBe(committed)
    expect(await balance(dave.token)).toBe(answer.seen)
  }
})
