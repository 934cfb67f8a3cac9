/**
 * Issue 4's flow over real HTTP: onboard two users, tap, offer, accept, check balances and
 * history, and check that scan (S3 /v0/events/{update_id}) and the ledger stream (/v2/updates)
 * agree on the transfer's update.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { Coin } from "@sandnet/engine"
import { call } from "./support.ts"
import { hours, ok, startWalletNode, tokenOf, wallet, type WalletTestNode } from "./wallet-support.ts"

let node: WalletTestNode
beforeAll(async () => {
  node = await startWalletNode()
})
afterAll(() => node.close())

interface CreatedJson {
  readonly event_type: string
  readonly contract_id: string
  readonly template_id: string
  readonly create_arguments: unknown
  readonly signatories: ReadonlyArray<string>
  readonly observers: ReadonlyArray<string>
}

interface LedgerTransaction {
  readonly updateId: string
  readonly effectiveAt: string
  readonly recordTime: string
  readonly synchronizerId: string
  readonly events: ReadonlyArray<{ readonly CreatedEvent?: { contractId: string; templateId: string; createArgument: unknown; signatories: ReadonlyArray<string>; observers: ReadonlyArray<string> } }>
}

it("onboard, tap, offer, accept; balances, history; scan and the ledger stream agree on the transfer", async () => {
  // Two users onboarded by the validator operator (participant_admin here).
  const alice = ok<{ party_id: string }>(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "alice" })).party_id
  const bob = ok<{ party_id: string }>(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "bob" })).party_id
  const aliceToken = await tokenOf("alice")
  const bobToken = await tokenOf("bob")

  ok(await wallet(node, "POST", "/v0/wallet/tap", aliceToken, { amount: "100" }))
  const offer = ok<{ offer_contract_id: string }>(
    await wallet(node, "POST", "/v0/wallet/transfer-offers", aliceToken, {
      receiver_party_id: bob,
      amount: "30",
      description: "dinner",
      expires_at: (await node.now()) + hours(1),
      tracking_id: "flow-1"
    })
  )
  const incoming = ok<{ offers: Array<{ contract_id: string; payload: { sender: string; description: string } }> }>(await wallet(node, "GET", "/v0/wallet/transfer-offers", bobToken))
  expect(incoming.offers.map((o) => [o.contract_id, o.payload.sender, o.payload.description])).toEqual([[offer.offer_contract_id, alice, "dinner"]])
  ok(await wallet(node, "POST", "/v0/wallet/transfer-offers/accept", bobToken, { contract_id: offer.offer_contract_id }))

  // The sender's wallet automation pays the accepted offer.
  const completed = ok<{ status: string; transaction_id: string; contract_id: string }>(await wallet(node, "POST", "/v0/wallet/transfer-offers/flow-1/status", aliceToken))
  expect(completed.status).toBe("completed")
  const updateId = completed.transaction_id
  const engine = await node.engine()
  const round = engine.wallets[0]!.node.currentRound(engine.clock.now)
  expect(ok(await wallet(node, "GET", "/v0/wallet/balance", aliceToken))).toEqual({ round, effective_unlocked_qty: "70.0000000000", effective_locked_qty: "0.0000000000", total_holding_fees: "0.0000000000" })
  expect(ok(await wallet(node, "GET", "/v0/wallet/balance", bobToken))).toEqual({ round, effective_unlocked_qty: "30.0000000000", effective_locked_qty: "0.0000000000", total_holding_fees: "0.0000000000" })
  expect(ok(await wallet(node, "GET", "/v0/wallet/transfer-offers", bobToken))).toEqual({ offers: [] })

  // History: the transfer (newest first) in both wallets, alice's tap after it.
  const aliceHistory = ok<{ items: Array<{ transaction_type: string; event_id: string; sender?: unknown; receivers: unknown }> }>(
    await wallet(node, "POST", "/v0/wallet/transactions", aliceToken, { page_size: 10 })
  )
  expect(aliceHistory.items.map((i) => i.transaction_type)).toEqual(["transfer", "balance_change"])
  expect(aliceHistory.items[0]).toMatchObject({ event_id: expect.stringMatching(new RegExp(`^${updateId}:`)), sender: { party: alice, amount: "-30.0000000000" }, receivers: [{ party: bob, amount: "30.0000000000" }] })
  expect(aliceHistory.items[1]).toMatchObject({ receivers: [{ party: alice, amount: "100.0000000000" }] })
  const bobHistory = ok<{ items: Array<{ event_id: string; transaction_type: string }> }>(await wallet(node, "POST", "/v0/wallet/transactions", bobToken, { page_size: 10 }))
  expect(bobHistory.items.map((i) => [i.transaction_type, i.event_id.split(":")[0]])).toEqual([["transfer", updateId]])

  // Scan S3: the transfer's update (the DSO's view of it) with its accepted verdict.
  const event = ok<{
    update: { update_id: string; record_time: string; effective_at: string; synchronizer_id: string; events_by_id: Record<string, CreatedJson> }
    verdict: { update_id: string; verdict_result: string; record_time: string }
  }>(await call(`${node.url}/api/scan/v0/events/${updateId}`))
  expect(event.update.update_id).toBe(updateId)
  expect(event.verdict).toMatchObject({ update_id: updateId, verdict_result: "VERDICT_RESULT_ACCEPTED", record_time: event.update.record_time })
  const scanCoin = Object.values(event.update.events_by_id).find((e) => e.event_type === "created_event" && e.contract_id === completed.contract_id)
  expect(scanCoin).toMatchObject({ template_id: Coin.templateId, create_arguments: { owner: bob, amount: { initialAmount: "30.0000000000" } } })

  // The ledger stream (bob's ACS delta) has the same update: same id, times, synchronizer and bob's new coin.
  const stream = await call(`${node.url}/v2/updates`, {
    token: bobToken,
    body: { beginExclusive: 0, updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [bob]: {} } }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" } } }
  })
  expect(stream.status).toBe(200)
  const transactions = (stream.json as Array<{ update: { Transaction?: { value: LedgerTransaction } } }>).flatMap((i) => (i.update.Transaction === undefined ? [] : [i.update.Transaction.value]))
  const ledger = transactions.find((t) => t.updateId === updateId)
  expect(ledger).toBeDefined()
  expect({ recordTime: ledger!.recordTime, effectiveAt: ledger!.effectiveAt, synchronizerId: ledger!.synchronizerId }).toEqual({
    recordTime: event.update.record_time,
    effectiveAt: event.update.effective_at,
    synchronizerId: event.update.synchronizer_id
  })
  const ledgerCoin = ledger!.events.flatMap((e) => (e.CreatedEvent === undefined ? [] : [e.CreatedEvent])).find((c) => c.contractId === completed.contract_id)
  expect(ledgerCoin).toBeDefined()
  expect({ templateId: ledgerCoin!.templateId, createArgument: ledgerCoin!.createArgument, signatories: ledgerCoin!.signatories, observers: ledgerCoin!.observers }).toEqual({
    templateId: scanCoin!.template_id,
    createArgument: scanCoin!.create_arguments,
    signatories: scanCoin!.signatories,
    observers: scanCoin!.observers
  })
  // Bob's stream also shows the offer he received (created, then archived by his acceptance).
  const offerEvents = transactions.flatMap((t) => t.events.flatMap((e) => (e.CreatedEvent?.contractId === offer.offer_contract_id ? [t.updateId] : [])))
  expect(offerEvents).toHaveLength(1)
})
