/**
 * The wallet's internal API over real HTTP: user status, balance, holdings (coins and the upstream
 * amulets), history with paging, offers accept / reject / withdraw in both forms, tap, featured
 * app right, preapprovals and one-step transfers, token-standard transfers, reward coupons,
 * minting delegations, self-registration and the public validator user.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toIso } from "@sandnet/core"
import {
  AppRewardCoupon,
  Coin,
  CoinTransferInstruction,
  Commands,
  MintingDelegationProposal,
  ValidatorLivenessActivityRecord,
  ValidatorRewardCoupon
} from "@sandnet/engine"
import { call, devToken } from "./support.ts"
import {
  balanceOf,
  expectError,
  hours,
  minutes,
  ok,
  okEmpty,
  onboard,
  startWalletNode,
  tapFor,
  tokenOf,
  wallet,
  type WalletTestNode
} from "./wallet-support.ts"

let node: WalletTestNode
let alice: string
let bob: string
let operator: string
let synchronizerId: string
let aliceToken: string
let bobToken: string
let operatorToken: string

const Z = "0.0000000000"

beforeAll(async () => {
  node = await startWalletNode()
  alice = await onboard(node, "alice")
  bob = await onboard(node, "bob")
  aliceToken = await tokenOf("alice")
  bobToken = await tokenOf("bob")
  operatorToken = await tokenOf("operator")
  const engine = await node.engine()
  operator = engine.network.validators[0]!.operator
  synchronizerId = engine.network.synchronizers[0]!.info.synchronizerId
})
afterAll(() => node.close())

const currentRound = async () => {
  const engine = await node.engine()
  return engine.wallets[0]!.node.currentRound(engine.clock.now)
}

const offerTo = async (receiver: string, trackingId: string, amount = "5") =>
  ok<{ offer_contract_id: string }>(
    await wallet(node, "POST", "/v0/wallet/transfer-offers", aliceToken, {
      receiver_party_id: receiver,
      amount,
      description: "",
      expires_at: (await node.now()) + hours(1),
      tracking_id: trackingId
    })
  ).offer_contract_id

describe("user status, balance, holdings", () => {
  it("user-status: onboarded users and users that are not", async () => {
    expect(ok(await wallet(node, "GET", "/v0/wallet/user-status", aliceToken))).toEqual({
      party_id: alice,
      user_onboarded: true,
      user_wallet_installed: true,
      has_featured_app_right: false
    })
    expect(ok(await wallet(node, "GET", "/v0/wallet/user-status", await tokenOf("nobody")))).toEqual({
      party_id: "",
      user_onboarded: false,
      user_wallet_installed: false,
      has_featured_app_right: false
    })
    expectError(await wallet(node, "GET", "/v0/wallet/user-status", undefined), 401)
  })

  it("tap, balance, coins and amulets", async () => {
    const carolToken = await tokenOf("carol")
    const carol = await onboard(node, "carol")
    expect(ok(await wallet(node, "GET", "/v0/wallet/balance", carolToken))).toEqual({
      round: await currentRound(),
      effective_unlocked_qty: Z,
      effective_locked_qty: Z,
      total_holding_fees: Z
    })
    const tapped = ok<{ contract_id: string }>(await wallet(node, "POST", "/v0/wallet/tap", carolToken, { amount: "100.5" }))
    expect(tapped).toEqual({ contract_id: expect.stringMatching(/^00[0-9a-f]+$/) })
    expect(ok(await wallet(node, "GET", "/v0/wallet/balance", carolToken))).toEqual({
      round: await currentRound(),
      effective_unlocked_qty: "100.5000000000",
      effective_locked_qty: Z,
      total_holding_fees: Z
    })
    const position = {
      contract: {
        contract: {
          template_id: Coin.templateId,
          contract_id: tapped.contract_id,
          payload: { dso: expect.any(String), owner: carol, amount: { initialAmount: "100.5000000000", createdAt: { number: expect.any(String) }, ratePerRound: { rate: expect.any(String) } } },
          created_event_blob: expect.any(String),
          created_at: expect.stringMatching(/^2026-01-01T/)
        },
        domain_id: synchronizerId
      },
      round: await currentRound(),
      accrued_holding_fee: Z,
      effective_amount: "100.5000000000"
    }
    expect(ok(await wallet(node, "GET", "/v0/wallet/coins", carolToken))).toEqual({ coins: [position], locked_coins: [] })
    expect(ok(await wallet(node, "GET", "/v0/wallet/amulets", carolToken))).toEqual({ amulets: [position], locked_amulets: [] })
    // Tap validation: 400 for a bad amount, 404 for a user without a wallet.
    expect(expectError(await wallet(node, "POST", "/v0/wallet/tap", carolToken, { amount: "lots" }), 400)).toContain("amount")
    expectError(await wallet(node, "POST", "/v0/wallet/tap", carolToken, {}), 400)
    expectError(await wallet(node, "POST", "/v0/wallet/tap", await tokenOf("nobody"), { amount: "1" }), 404)
  })

  it("every per-user read is 404 for a user without a wallet and 401 without a token", async () => {
    const nobody = await tokenOf("nobody")
    const reads = [
      "/v0/wallet/balance",
      "/v0/wallet/coins",
      "/v0/wallet/amulets",
      "/v0/wallet/transfer-offers",
      "/v0/wallet/accepted-transfer-offers",
      "/v0/wallet/token-standard/transfers",
      "/v0/wallet/app-reward-coupons",
      "/v0/wallet/validator-reward-coupons",
      "/v0/wallet/validator-liveness-activity-records",
      "/v0/wallet/minting-delegation-proposals",
      "/v0/wallet/minting-delegations"
    ]
    for (const path of reads) {
      expect(expectError(await wallet(node, "GET", path, nobody), 404), path).toMatch(/^wallet not found/)
      expectError(await wallet(node, "GET", path, undefined), 401)
    }
    expectError(await wallet(node, "POST", "/v0/wallet/transactions", nobody, { page_size: 1 }), 404)
  })
})

describe("history: POST /v0/wallet/transactions", () => {
  it("newest first, paged with begin_after_id; 400 for a bad page or cursor", async () => {
    const daveToken = await tokenOf("dave")
    const dave = await onboard(node, "dave")
    await tapFor(node, daveToken, "50")
    const offer = ok<{ offer_contract_id: string }>(
      await wallet(node, "POST", "/v0/wallet/transfer-offers", daveToken, {
        receiver_party_id: bob,
        amount: "20",
        description: "books",
        expires_at: (await node.now()) + hours(1),
        tracking_id: "hist-1"
      })
    )
    ok(await wallet(node, "POST", "/v0/wallet/transfer-offers/accept", bobToken, { contract_id: offer.offer_contract_id }))
    const all = ok<{ items: Array<Record<string, unknown>> }>(await wallet(node, "POST", "/v0/wallet/transactions", daveToken, { page_size: 10 }))
    expect(all.items).toEqual([
      {
        transaction_type: "transfer",
        transaction_subtype: { template_id: expect.stringContaining(":Splice.Wallet.TransferOffer:AcceptedTransferOffer"), choice: "AcceptedTransferOffer_Complete" },
        event_id: expect.stringMatching(/^1220[0-9a-f]{64}:\d+$/),
        date: expect.stringMatching(/^2026-01-01T/),
        sender: { party: dave, amount: "-20.0000000000" },
        receivers: [{ party: bob, amount: "20.0000000000" }],
        holding_fees: Z,
        app_rewards_used: Z,
        validator_rewards_used: Z,
        sv_rewards_used: Z,
        development_fund_coupons_used: Z
      },
      {
        transaction_type: "balance_change",
        transaction_subtype: { template_id: expect.stringContaining(":Splice.CoinRules:CoinRules"), choice: "CoinRules_DevNet_Tap", coin_operation: "tap" },
        event_id: expect.stringMatching(/^1220[0-9a-f]{64}:\d+$/),
        date: expect.stringMatching(/^2026-01-01T/),
        receivers: [{ party: dave, amount: "50.0000000000" }]
      }
    ])
    const first = ok<{ items: Array<{ event_id: string }> }>(await wallet(node, "POST", "/v0/wallet/transactions", daveToken, { page_size: 1 }))
    expect(first.items.map((i) => i.event_id)).toEqual([all.items[0]!["event_id"]])
    const second = ok<{ items: Array<{ event_id: string }> }>(
      await wallet(node, "POST", "/v0/wallet/transactions", daveToken, { page_size: 1, begin_after_id: first.items[0]!.event_id })
    )
    expect(second.items.map((i) => i.event_id)).toEqual([all.items[1]!["event_id"]])
    const end = ok<{ items: Array<unknown> }>(await wallet(node, "POST", "/v0/wallet/transactions", daveToken, { page_size: 1, begin_after_id: second.items[0]!.event_id }))
    expect(end.items).toEqual([])
    expect(expectError(await wallet(node, "POST", "/v0/wallet/transactions", daveToken, { page_size: 0 }), 400)).toContain("page_size")
    expect(expectError(await wallet(node, "POST", "/v0/wallet/transactions", daveToken, { page_size: 2, begin_after_id: "nope" }), 400)).toContain("begin_after_id")
    expectError(await wallet(node, "POST", "/v0/wallet/transactions", daveToken, {}), 400)
  })
})

describe("transfer offers: accept / reject / withdraw in both forms", () => {
  it("the spec's form (contract id in the body) and upstream's (in the path); 404 for unknown offers and the wrong party", async () => {
    await tapFor(node, aliceToken, "200")
    const first = await offerTo(bob, "aw-1")
    const accepted = ok<{ accepted_offer_contract_id: string }>(await wallet(node, "POST", "/v0/wallet/transfer-offers/accept", bobToken, { contract_id: first }))
    expect(accepted).toEqual({ accepted_offer_contract_id: expect.stringMatching(/^00/) })
    const second = await offerTo(bob, "aw-2")
    expect(ok(await wallet(node, "POST", `/v0/wallet/transfer-offers/${second}/accept`, bobToken))).toEqual({ accepted_offer_contract_id: expect.stringMatching(/^00/) })

    const third = await offerTo(bob, "aw-3")
    // Only the receiver accepts or rejects, only the sender withdraws.
    expectError(await wallet(node, "POST", "/v0/wallet/transfer-offers/accept", aliceToken, { contract_id: third }), 404)
    expectError(await wallet(node, "POST", "/v0/wallet/transfer-offers/withdraw", bobToken, { contract_id: third }), 404)
    okEmpty(await wallet(node, "POST", `/v0/wallet/transfer-offers/${third}/reject`, bobToken))
    const fourth = await offerTo(bob, "aw-4")
    okEmpty(await wallet(node, "POST", "/v0/wallet/transfer-offers/withdraw", aliceToken, { contract_id: fourth }))
    // Gone: 404 in either form.
    expect(expectError(await wallet(node, "POST", "/v0/wallet/transfer-offers/reject", bobToken, { contract_id: third }), 404)).toContain(third)
    expectError(await wallet(node, "POST", `/v0/wallet/transfer-offers/${fourth}/withdraw`, aliceToken), 404)
    expectError(await wallet(node, "POST", "/v0/wallet/transfer-offers/accept", bobToken, { contract_id: "00ff" }), 404)
    expectError(await wallet(node, "POST", "/v0/wallet/transfer-offers/accept", bobToken, {}), 400)
    expect(ok<{ offers: Array<{ contract_id: string }> }>(await wallet(node, "GET", "/v0/wallet/transfer-offers", bobToken)).offers.map((o) => o.contract_id)).not.toContain(third)
  })
})

describe("preapprovals, featured app rights, one-step transfers", () => {
  it("create (409 again), send (404 without a preapproval, 400 without funds), featured through the provider's right", async () => {
    const erin = await onboard(node, "erin")
    const erinToken = await tokenOf("erin")
    const created = ok<{ transfer_preapproval_contract_id: string }>(await wallet(node, "POST", "/v0/wallet/transfer-preapproval", erinToken))
    expect(created).toEqual({ transfer_preapproval_contract_id: expect.stringMatching(/^00/) })
    const again = await wallet(node, "POST", "/v0/wallet/transfer-preapproval", erinToken)
    // Splice's 409 is a CreateTransferPreapprovalResponse: the existing preapproval's id (next to the {error} message)
    expect({ status: again.status, body: again.json }).toEqual({
      status: 409,
      body: { error: expect.stringContaining(created.transfer_preapproval_contract_id), transfer_preapproval_contract_id: created.transfer_preapproval_contract_id }
    })

    await tapFor(node, aliceToken, "100")
    const sent = ok(await wallet(node, "POST", "/v0/wallet/transfer-preapproval/send", aliceToken, { receiver_party_id: erin, amount: "12", deduplication_id: "pre-1" }))
    expect(sent).toEqual({ update_id: expect.stringMatching(/^1220/), featured: false })
    expect(await balanceOf(node, erinToken)).toBe("12.0000000000")
    // The same deduplication id again is refused (the ledger deduplicates the command).
    expectError(await wallet(node, "POST", "/v0/wallet/transfer-preapproval/send", aliceToken, { receiver_party_id: erin, amount: "12", deduplication_id: "pre-1" }), 409)
    expect(expectError(await wallet(node, "POST", "/v0/wallet/transfer-preapproval/send", aliceToken, { receiver_party_id: bob, amount: "1", deduplication_id: "pre-2" }), 404)).toContain(bob)
    ok(await wallet(node, "POST", "/v0/wallet/transfer-preapproval", aliceToken))
    expect(expectError(await wallet(node, "POST", "/v0/wallet/transfer-preapproval/send", erinToken, { receiver_party_id: alice, amount: "1000000", deduplication_id: "pre-3" }), 400)).toMatch(
      /insufficient funds/
    )

    // The operator (the preapproval's provider) features itself: the next transfer is featured and earns it an app reward coupon.
    const right = ok<{ contract_id: string }>(await wallet(node, "POST", "/v0/wallet/self-grant-feature-app-right", operatorToken))
    expect(right).toEqual({ contract_id: expect.stringMatching(/^00/) })
    expect(ok(await wallet(node, "POST", "/v0/wallet/self-grant-feature-app-right", operatorToken))).toEqual(right)
    expect((ok(await wallet(node, "GET", "/v0/wallet/user-status", operatorToken)) as { has_featured_app_right: boolean }).has_featured_app_right).toBe(true)
    expect(ok(await wallet(node, "GET", "/v0/validator-user", undefined))).toEqual({ party_id: operator, user_name: "operator", featured: true })
    const featured = ok(await wallet(node, "POST", "/v0/wallet/transfer-preapproval/send", aliceToken, { receiver_party_id: erin, amount: "1", deduplication_id: "pre-4", description: "tip" }))
    expect(featured).toEqual({ update_id: expect.stringMatching(/^1220/), featured: true })
    const appCoupons = ok<{ app_reward_coupons: Array<{ template_id: string; payload: { provider: string; featured: boolean } }> }>(
      await wallet(node, "GET", "/v0/wallet/app-reward-coupons", operatorToken)
    )
    expect(appCoupons.app_reward_coupons.map((c) => [c.template_id, c.payload.provider, c.payload.featured])).toContainEqual([AppRewardCoupon.templateId, operator, true])
    // Alice's transfers registered validator reward coupons with her as the user.
    const validatorCoupons = ok<{ validator_reward_coupons: Array<{ template_id: string; payload: { user: string } }> }>(
      await wallet(node, "GET", "/v0/wallet/validator-reward-coupons", aliceToken)
    )
    expect(validatorCoupons.validator_reward_coupons.length).toBeGreaterThan(0)
    expect(new Set(validatorCoupons.validator_reward_coupons.map((c) => `${c.template_id}|${c.payload.user}`))).toEqual(new Set([`${ValidatorRewardCoupon.templateId}|${alice}`]))
  })

  it("liveness activity records of the operator", async () => {
    // The operator's automation records liveness once per open round (it wakes every minute).
    await node.advance(minutes(2))
    const records = ok<{ validator_liveness_activity_records: Array<{ template_id: string }> }>(
      await wallet(node, "GET", "/v0/wallet/validator-liveness-activity-records", operatorToken)
    )
    expect(records.validator_liveness_activity_records.length).toBeGreaterThan(0)
    expect(new Set(records.validator_liveness_activity_records.map((r) => r.template_id))).toEqual(new Set([ValidatorLivenessActivityRecord.templateId]))
    expect(ok(await wallet(node, "GET", "/v0/wallet/validator-liveness-activity-records", aliceToken))).toEqual({ validator_liveness_activity_records: [] })
  })
})

describe("token-standard transfers", () => {
  it("create (coin locked), list, accept, reject, withdraw; 404 for unknown or foreign instructions; 409 for a used tracking id", async () => {
    await tapFor(node, aliceToken, "100")
    const create = async (trackingId: string) =>
      wallet(node, "POST", "/v0/wallet/token-standard/transfers", aliceToken, {
        receiver_party_id: bob,
        amount: "3",
        description: "rent",
        expires_at: (await node.now()) + hours(1),
        tracking_id: trackingId
      })
    const first = ok<{ output: { transfer_instruction_cid: string } }>(await create("ts-1"))
    expect(first).toEqual({ output: { transfer_instruction_cid: expect.stringMatching(/^00/) }, sender_change_cids: expect.any(Array), meta: {} })
    expect(expectError(await create("ts-1"), 409)).toContain(first.output.transfer_instruction_cid)
    const listed = ok<{ transfers: Array<{ contract_id: string; template_id: string }> }>(await wallet(node, "GET", "/v0/wallet/token-standard/transfers", bobToken))
    expect(listed.transfers).toContainEqual(expect.objectContaining({ contract_id: first.output.transfer_instruction_cid, template_id: CoinTransferInstruction.templateId }))
    expect(Number(((await wallet(node, "GET", "/v0/wallet/balance", aliceToken)).json as { effective_locked_qty: string }).effective_locked_qty)).toBeGreaterThan(3)

    const cid = first.output.transfer_instruction_cid
    expectError(await wallet(node, "POST", `/v0/wallet/token-standard/transfers/${cid}/accept`, aliceToken), 404)
    const accepted = ok(await wallet(node, "POST", `/v0/wallet/token-standard/transfers/${cid}/accept`, bobToken))
    expect(accepted).toEqual({ output: { receiver_holding_cids: [expect.stringMatching(/^00/)] }, sender_change_cids: expect.any(Array), meta: {} })
    expectError(await wallet(node, "POST", `/v0/wallet/token-standard/transfers/${cid}/accept`, bobToken), 404)

    const second = ok<{ output: { transfer_instruction_cid: string } }>(await create("ts-2"))
    expect(ok(await wallet(node, "POST", `/v0/wallet/token-standard/transfers/${second.output.transfer_instruction_cid}/reject`, bobToken))).toEqual({
      output: {},
      sender_change_cids: expect.any(Array),
      meta: {}
    })
    const third = ok<{ output: { transfer_instruction_cid: string } }>(await create("ts-3"))
    expectError(await wallet(node, "POST", `/v0/wallet/token-standard/transfers/${third.output.transfer_instruction_cid}/withdraw`, bobToken), 404)
    expect(ok(await wallet(node, "POST", `/v0/wallet/token-standard/transfers/${third.output.transfer_instruction_cid}/withdraw`, aliceToken))).toEqual({
      output: {},
      sender_change_cids: expect.any(Array),
      meta: {}
    })
    expect(((await wallet(node, "GET", "/v0/wallet/balance", aliceToken)).json as { effective_locked_qty: string }).effective_locked_qty).toBe(Z)
  })
})

describe("minting delegations", () => {
  it("lists proposals (paged, beneficiary_hosted), accepts, rejects; lists and rejects delegations", async () => {
    const engine = await node.engine()
    const beneficiary = await Effect.runPromise(node.runtime.run((e) => Effect.orDie(e.network.validators[0]!.participant.allocateParty("beneficiary-1"))))
    const propose = async (n: number): Promise<string> =>
      Effect.runPromise(
        node.runtime.run((e) =>
          Effect.map(
            Effect.orDie(
              e.network.validators[0]!.participant.submit({
                actAs: [beneficiary],
                commandId: `propose-${n}`,
                commands: [
                  Commands.create(MintingDelegationProposal, {
                    delegation: { beneficiary, delegate: alice, dso: engine.network.dso, expiresAt: toIso(e.clock.now + hours(24 * 30)), coinMergeLimit: "10" }
                  })
                ]
              })
            ),
            ({ transaction }) => transaction.createdContractIds[0]!
          )
        )
      )
    const p1 = await propose(1)
    const p2 = await propose(2)
    const all = ok<{ proposals: Array<{ contract: { contract_id: string; template_id: string }; beneficiary_hosted: boolean }> }>(
      await wallet(node, "GET", "/v0/wallet/minting-delegation-proposals", aliceToken)
    )
    expect(all).toEqual({
      proposals: [
        { contract: expect.objectContaining({ contract_id: p1, template_id: MintingDelegationProposal.templateId }), beneficiary_hosted: true },
        { contract: expect.objectContaining({ contract_id: p2, template_id: MintingDelegationProposal.templateId }), beneficiary_hosted: true }
      ]
    })
    const page = ok(await wallet(node, "GET", "/v0/wallet/minting-delegation-proposals?limit=1", aliceToken))
    expect(page).toEqual({ proposals: [all.proposals[0]], next_page_token: 1 })
    expect(ok(await wallet(node, "GET", "/v0/wallet/minting-delegation-proposals?after=1&limit=1", aliceToken))).toEqual({ proposals: [all.proposals[1]] })
    expect(expectError(await wallet(node, "GET", "/v0/wallet/minting-delegation-proposals?limit=0", aliceToken), 400)).toContain("limit")
    expectError(await wallet(node, "GET", "/v0/wallet/minting-delegation-proposals?after=x", aliceToken), 400)

    const accepted = ok<{ contract_id: string }>(await wallet(node, "POST", `/v0/wallet/minting-delegation-proposals/${p1}/accept`, aliceToken))
    expect(accepted).toEqual({ contract_id: expect.stringMatching(/^00/) })
    okEmpty(await wallet(node, "POST", `/v0/wallet/minting-delegation-proposals/${p2}/reject`, aliceToken))
    expect(ok(await wallet(node, "GET", "/v0/wallet/minting-delegation-proposals", aliceToken))).toEqual({ proposals: [] })
    const delegations = ok<{ delegations: Array<{ contract: { contract_id: string }; beneficiary_hosted: boolean }> }>(
      await wallet(node, "GET", "/v0/wallet/minting-delegations", aliceToken)
    )
    expect(delegations).toEqual({ delegations: [{ contract: expect.objectContaining({ contract_id: accepted.contract_id }), beneficiary_hosted: true }] })
    expectError(await wallet(node, "POST", `/v0/wallet/minting-delegation-proposals/${p2}/accept`, aliceToken), 404)
    expectError(await wallet(node, "POST", `/v0/wallet/minting-delegations/${accepted.contract_id}/reject`, bobToken), 404)
    okEmpty(await wallet(node, "POST", `/v0/wallet/minting-delegations/${accepted.contract_id}/reject`, aliceToken))
    expect(ok(await wallet(node, "GET", "/v0/wallet/minting-delegations", aliceToken))).toEqual({ delegations: [] })
  })
})

describe("POST /v0/register and GET /v0/validator-user", () => {
  it("a user onboards itself (and gets its ledger user); again answers the same party", async () => {
    const token = await tokenOf("frank")
    const registered = ok<{ party_id: string }>(await wallet(node, "POST", "/v0/register", token))
    expect(registered).toEqual({ party_id: expect.stringMatching(/^frank::1220/) })
    expect(ok(await wallet(node, "POST", "/v0/register", token, {}))).toEqual(registered)
    expect(ok(await wallet(node, "GET", "/v0/wallet/user-status", token))).toEqual({
      party_id: registered.party_id,
      user_onboarded: true,
      user_wallet_installed: true,
      has_featured_app_right: false
    })
    const ledgerUser = await call(`${node.url}/v2/users/frank`, { token: node.admin })
    expect(ledgerUser.json).toMatchObject({ user: { id: "frank", primaryParty: registered.party_id } })
    // The ledger user may now read its party's updates through the ledger API.
    expect((await call(`${node.url}/v2/authenticated-user`, { token })).json).toMatchObject({ user: { id: "frank" } })
    expectError(await wallet(node, "POST", "/v0/register", undefined), 401)
    expect(expectError(await wallet(node, "POST", "/v0/register", await devToken("not a user id")), 400)).toContain("ledger user id")
  })

  it("the validator user is public", async () => {
    expect(ok(await wallet(node, "GET", "/v0/validator-user", undefined))).toEqual({ party_id: operator, user_name: "operator", featured: expect.any(Boolean) })
  })
})
