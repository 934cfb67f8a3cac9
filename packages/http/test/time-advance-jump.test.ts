/**
 * A long time advance on a node with its wallets and automations (as `sandnet start` runs it,
 * manual clock): a 40-day jump answers with the new time while other requests are answered; the
 * rounds on scan are those of the new time; an offer and a transfer instruction (its lock with
 * it) that expired on the way are expired; a holding has paid the holding fee of every round
 * that turned, no more; and the same advance on two nodes leaves the same history. The jump catches up at one round per hour before its
 * last day (docs/economy.md, "Time advance").
 */
import { MICROS_PER_DAY, MICROS_PER_HOUR, amountOf, formatAmount, parseIso } from "@sandnet/core"
import { afterEach, describe, expect, it } from "vitest"
import { call } from "./support.ts"
import { hours, minutes, ok, onboard, startWalletNode, tapFor, tokenOf, wallet, type WalletTestNode } from "./wallet-support.ts"

interface SandnetTime {
  readonly now: string
  readonly microseconds: number
}
interface Balance {
  readonly round: number
  readonly effective_unlocked_qty: string
  readonly total_holding_fees: string
}
interface Holding {
  readonly contract: { readonly contract: { readonly payload: { readonly amount: { readonly initialAmount: string; readonly createdAt: { readonly number: string }; readonly ratePerRound: { readonly rate: string } } } } }
}
interface OpenRound {
  readonly contract: { readonly payload: { readonly round: { readonly number: string }; readonly opensAt: string; readonly targetClosesAt: string } }
}

const NO_CACHE = { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] }

const nodes: Array<WalletTestNode> = []
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close()
})

const advance = (node: WalletTestNode, duration: string) => call(`${node.url}/v2/sandnet/time/advance`, { token: node.admin, body: { duration } })

/** A node with alice (100 coin tapped) and bob. */
const aliceAndBob = async () => {
  const node = await startWalletNode()
  nodes.push(node)
  await onboard(node, "alice")
  const bob = await onboard(node, "bob")
  const aliceToken = await tokenOf("alice")
  await tapFor(node, aliceToken, "100")
  return { node, bob, aliceToken }
}

describe("a 40-day time advance of a node with its automations", () => {
  it("answers the new time, serving reads meanwhile; rounds, expiries and holding fees are those of the new time", async () => {
    const { node, bob, aliceToken } = await aliceAndBob()
    const before = await node.now()
    const expiresAt = before + 2 * MICROS_PER_DAY
    ok(await wallet(node, "POST", "/v0/wallet/transfer-offers", aliceToken, { receiver_party_id: bob, amount: "10", description: "rent", expires_at: expiresAt, tracking_id: "rent" }))
    // bob locks coin for a token-standard transfer to alice that nobody accepts
    const bobToken = await tokenOf("bob")
    await tapFor(node, bobToken, "50")
    const alice = ok<{ party_id: string }>(await wallet(node, "GET", "/v0/wallet/user-status", aliceToken)).party_id
    ok(await wallet(node, "POST", "/v0/wallet/token-standard/transfers", bobToken, { receiver_party_id: alice, amount: "3", description: "change", expires_at: expiresAt, tracking_id: "change" }))
    expect(Number(ok<{ effective_locked_qty: string }>(await wallet(node, "GET", "/v0/wallet/balance", bobToken)).effective_locked_qty)).toBeGreaterThan(3)
    const roundBefore = ok<Balance>(await wallet(node, "GET", "/v0/wallet/balance", aliceToken)).round

    let answered = false
    const advanced = advance(node, "40d").then((answer) => ((answered = true), answer))
    const version = await call(`${node.url}/v2/version`, { token: node.admin })
    expect(version.status).toBe(200)
    expect(answered).toBe(false)
    const answer = await advanced
    expect(answer.status).toBe(200)
    const now = (answer.json as SandnetTime).microseconds
    expect(now).toBe(before + 40 * MICROS_PER_DAY)

    // The open rounds are those of the new time: opened within the last hour, the newest within a tick.
    const rounds = ok<{ open_mining_rounds: Record<string, OpenRound> }>(await call(`${node.url}/api/scan/v0/open-and-issuing-mining-rounds`, { body: NO_CACHE }))
    const open = Object.values(rounds.open_mining_rounds).map((r) => r.contract.payload)
    expect(open.length).toBeGreaterThanOrEqual(2)
    for (const r of open) expect(parseIso(r.opensAt)!).toBeGreaterThan(now - MICROS_PER_HOUR)
    const newest = Math.max(...open.filter((r) => parseIso(r.opensAt)! <= now).map((r) => Number(r.round.number)))
    // One round per hour up to a day before the new time, then one per 10-minute tick.
    const balance = ok<Balance>(await wallet(node, "GET", "/v0/wallet/balance", aliceToken))
    expect(balance.round).toBe(newest)
    expect(balance.round - roundBefore).toBeGreaterThanOrEqual(39 * 24 + 140)
    expect(balance.round - roundBefore).toBeLessThanOrEqual(39 * 24 + 146)

    // The offer expired on the way; so did bob's transfer instruction, and its lock with it.
    expect(ok(await wallet(node, "POST", "/v0/wallet/transfer-offers/rent/status", aliceToken))).toEqual({ status: "failed", failure_kind: "expired" })
    expect(ok<{ transfers: ReadonlyArray<unknown> }>(await wallet(node, "GET", "/v0/wallet/token-standard/transfers", aliceToken)).transfers).toEqual([])
    const bobs = ok<{ effective_unlocked_qty: string; effective_locked_qty: string }>(await wallet(node, "GET", "/v0/wallet/balance", bobToken))
    expect(bobs.effective_locked_qty).toBe("0.0000000000")
    // his coin is back, less the holding fees of his holdings (the change and the unlocked coin: about 4.1 each)
    expect(Number(bobs.effective_unlocked_qty)).toBeGreaterThan(50 - 2 * 4.2)
    expect(Number(bobs.effective_unlocked_qty)).toBeLessThan(50 - 4)

    // Alice's holding paid the holding fee of each round that turned since it was created.
    const coins = ok<{ coins: ReadonlyArray<Holding> }>(await wallet(node, "GET", "/v0/wallet/coins", aliceToken)).coins
    expect(coins).toHaveLength(1)
    const amount = coins[0]!.contract.contract.payload.amount
    const fees = amountOf(amount.ratePerRound.rate) * BigInt(balance.round - Number(amount.createdAt.number))
    expect(balance.total_holding_fees).toBe(formatAmount(fees))
    expect(balance.effective_unlocked_qty).toBe(formatAmount(amountOf("100") - fees))
  }, 120_000)

  it("the same advance on two nodes leaves the same history", async () => {
    const histories = []
    for (let i = 0; i < 2; i++) {
      const { node, bob, aliceToken } = await aliceAndBob()
      ok(await wallet(node, "POST", "/v0/wallet/transfer-offers", aliceToken, { receiver_party_id: bob, amount: "10", description: "rent", expires_at: (await node.now()) + hours(30), tracking_id: "rent" }))
      expect((await advance(node, "3d")).status).toBe(200)
      await node.advance(minutes(1))
      histories.push(await updatesOf(node))
    }
    expect(histories[0]!.length).toBeGreaterThan(1000)
    expect(histories[1]).toEqual(histories[0])
  }, 120_000)
})

/** Every update on scan, in order: its id and record time. */
const updatesOf = async (node: WalletTestNode): Promise<ReadonlyArray<string>> => {
  const all: Array<string> = []
  let after: { after_migration_id: number; after_record_time: string } | undefined
  for (;;) {
    const page = ok<{ transactions: ReadonlyArray<{ update_id: string; migration_id: number; record_time: string }> }>(
      await call(`${node.url}/api/scan/v2/updates`, { body: { page_size: 1000, ...(after === undefined ? {} : { after }) } })
    ).transactions
    all.push(...page.map((t) => `${t.record_time} ${t.update_id}`))
    if (page.length < 1000) return all
    after = { after_migration_id: page.at(-1)!.migration_id, after_record_time: page.at(-1)!.record_time }
  }
}
