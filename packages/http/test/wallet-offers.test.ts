/**
 * The wallet's external API over real HTTP (W1, W2 external): transfer offers with exactly-once
 * tracking ids (200, 400, 401, 404, 409, 429, free again after a failure), offer status through
 * the lifecycle, listing, expiry, and buy-traffic requests.
 */
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TransferOffer, type LinkModel } from "@sandnet/engine"
import { call, devToken } from "./support.ts"
import {
  balanceOf,
  expectError,
  hours,
  minutes,
  ok,
  okEmpty,
  onboard,
  seconds,
  startWalletNode,
  tapFor,
  tokenOf,
  wallet,
  type WalletTestNode
} from "./wallet-support.ts"

let node: WalletTestNode
let alice: string
let bob: string
let aliceToken: string
let bobToken: string

beforeAll(async () => {
  node = await startWalletNode()
  alice = await onboard(node, "alice")
  bob = await onboard(node, "bob")
  aliceToken = await tokenOf("alice")
  bobToken = await tokenOf("bob")
  await tapFor(node, aliceToken, "1000")
})
afterAll(() => node.close())

const offer = async (trackingId: string, overrides: Record<string, unknown> = {}) => ({
  receiver_party_id: bob,
  amount: "10",
  description: "lunch",
  expires_at: (await node.now()) + hours(1),
  tracking_id: trackingId,
  ...overrides
})

const createOffer = async (token: string, body: unknown) => wallet(node, "POST", "/v0/wallet/transfer-offers", token, body)
const status = (token: string, trackingId: string) => wallet(node, "POST", `/v0/wallet/transfer-offers/${encodeURIComponent(trackingId)}/status`, token)

/** The tracking id's lifecycle state in the wallet (free, inProgress, created). */
const trackingState = async (user: string, trackingId: string) => {
  const engine = await node.engine()
  const w = engine.wallets[0]!.node
  return w.trackingState(Either.getOrThrow(w.partyOf(user)), "transferOffer", trackingId)
}

const waitFor = async (condition: () => Promise<boolean>) => {
  for (let i = 0; i < 500 && !(await condition()); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(await condition()).toBe(true)
}

/** Holds every message to a sequencer for `delay` (the submission stays in flight until time moves). */
const delayedSequencer = (delay: number): LinkModel => ({ route: (_from, to, _message, now) => [to.startsWith("SEQ::") ? now + delay : now] })
const droppingSequencer: LinkModel = { route: (_from, to, _message, now) => (to.startsWith("SEQ::") ? [] : [now]) }
const zeroDelay: LinkModel = { route: (_from, _to, _message, now) => [now] }

describe("W1 POST /v0/wallet/transfer-offers", () => {
  it("creates the offer: 200 {offer_contract_id}, the offer is listed with its payload", async () => {
    const body = await offer("w1-ok")
    const reply = await createOffer(aliceToken, body)
    expect(reply.status).toBe(200)
    expect(reply.json).toEqual({ offer_contract_id: expect.stringMatching(/^00[0-9a-f]{64,}$/) })
    const { offer_contract_id } = reply.json as { offer_contract_id: string }
    const listed = ok<{ offers: Array<{ contract_id: string; template_id: string; payload: unknown }> }>(await wallet(node, "GET", "/v0/wallet/transfer-offers", bobToken))
    const found = listed.offers.find((o) => o.contract_id === offer_contract_id)
    expect(found).toEqual({
      template_id: TransferOffer.templateId,
      contract_id: offer_contract_id,
      payload: {
        sender: alice,
        receiver: bob,
        dso: expect.any(String),
        amount: { amount: "10.0000000000", unit: "CoinUnit" },
        description: "lunch",
        expiresAt: expect.stringMatching(/^2026-01-01T11:30:00/),
        trackingId: "w1-ok"
      },
      created_event_blob: expect.any(String),
      created_at: expect.stringMatching(/^2026-01-01T/)
    })
    // The sender sees it too; the status is "created" with the creating transaction.
    expect(ok<{ offers: Array<{ contract_id: string }> }>(await wallet(node, "GET", "/v0/wallet/transfer-offers", aliceToken)).offers.map((o) => o.contract_id)).toContain(
      offer_contract_id
    )
    expect(ok(await status(aliceToken, "w1-ok"))).toEqual({ status: "created", transaction_id: expect.stringMatching(/^1220[0-9a-f]{64}$/), contract_id: offer_contract_id })
  })

  it("401 without a token or with a bad one", async () => {
    expect(expectError(await createOffer(undefined as unknown as string, await offer("w1-401")), 401)).toMatch(/JWT/)
    expectError(await wallet(node, "POST", "/v0/wallet/transfer-offers", "not-a-jwt", await offer("w1-401")), 401)
    expectError(await wallet(node, "POST", "/v0/wallet/transfer-offers", await devToken("alice", { secret: "wrong" }), await offer("w1-401")), 401)
  })

  it("400 for an invalid request, naming the field; nothing is created and the tracking id stays free", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ amount: "1e3" }, "amount"],
      [{ amount: "-5" }, "amount"],
      [{ amount: "0" }, "amount"],
      [{ amount: "1.12345678901" }, "amount"],
      [{ amount: 10 }, "amount"],
      [{ receiver_party_id: "bob" }, "receiver_party_id"],
      [{ receiver_party_id: alice }, "receiver_party_id"],
      [{ receiver_party_id: `ghost::1220${"ab".repeat(32)}` }, "receiver_party_id"],
      [{ expires_at: START_PAST }, "expires_at"],
      [{ expires_at: "tomorrow" }, "expires_at"],
      [{ tracking_id: "" }, "tracking_id"],
      [{ description: "x".repeat(300) }, "description"]
    ]
    for (const [overrides, field] of cases) {
      const message = expectError(await createOffer(aliceToken, await offer("w1-400", overrides)), 400)
      expect(message).toContain(field)
    }
    const { tracking_id: _omit, ...missing } = await offer("w1-400")
    expect(expectError(await createOffer(aliceToken, missing), 400)).toContain("tracking_id")
    expect(expectError(await wallet(node, "POST", "/v0/wallet/transfer-offers", aliceToken, undefined), 400)).toMatch(/empty/)
    expect(expectError(await call(`${node.url}/api/validator/v0/wallet/transfer-offers`, { token: aliceToken, rawBody: "{nope" }), 400)).toMatch(/malformed JSON/)
    expect(await trackingState("alice", "w1-400")).toBeUndefined()
    // The first valid request with that tracking id proceeds.
    expect((await createOffer(aliceToken, await offer("w1-400"))).status).toBe(200)
  })

  it("404 wallet not found for a user that is not onboarded", async () => {
    expect(expectError(await createOffer(await tokenOf("mallory"), await offer("w1-404")), 404)).toMatch(/^wallet not found/)
  })

  it("409 once an offer with this tracking id was created (check the status), whatever the body", async () => {
    const first = ok<{ offer_contract_id: string }>(await createOffer(aliceToken, await offer("w1-409")))
    const again = expectError(await createOffer(aliceToken, await offer("w1-409", { amount: "3" })), 409)
    expect(again).toContain(first.offer_contract_id)
    expect(again).toMatch(/status/)
    // Tracking ids are per user: bob may use the same one.
    expect((await createOffer(bobToken, await offer("w1-409", { receiver_party_id: alice }))).status).toBe(200)
  })

  it("429 while a submission with this tracking id is in flight; then 200 for the first, 409 for later ones", async () => {
    await node.setLink(delayedSequencer(seconds(1)))
    try {
      const body = await offer("w1-429")
      const first = createOffer(aliceToken, body)
      await waitFor(async () => (await trackingState("alice", "w1-429")) === "inProgress")
      expect(expectError(await createOffer(aliceToken, body), 429)).toMatch(/being processed/)
      await node.advance(seconds(5))
      const created = await first
      expect(created.status).toBe(200)
      expect(expectError(await createOffer(aliceToken, body), 409)).toContain((created.json as { offer_contract_id: string }).offer_contract_id)
    } finally {
      await node.setLink(zeroDelay)
    }
  })

  it("a submission that fails without creating the offer frees the tracking id; the retry creates it once", async () => {
    const body = await offer("w1-free")
    await node.setLink(droppingSequencer)
    let first: Promise<Awaited<ReturnType<typeof createOffer>>>
    try {
      first = createOffer(aliceToken, body)
      await waitFor(async () => (await trackingState("alice", "w1-free")) === "inProgress")
      // The validator cannot reach its sequencer past the submission's max sequencing time (60 s)...
      await node.advance(seconds(70))
      expect(await trackingState("alice", "w1-free")).toBe("inProgress")
    } finally {
      await node.setLink(zeroDelay)
    }
    // ...and once it can, the sequencer's time shows the submission will never be sequenced: it failed.
    await node.advance(seconds(10))
    const failed = await first
    expect(failed.status).toBe(503)
    expect(failed.json).toEqual({ error: expect.stringContaining("NOT_SEQUENCED_TIMEOUT") })
    expect(await trackingState("alice", "w1-free")).toBe("free")
    expectError(await status(aliceToken, "w1-free"), 404)
    const retried = ok<{ offer_contract_id: string }>(await createOffer(aliceToken, { ...body, expires_at: (await node.now()) + hours(1) }))
    expect(await trackingState("alice", "w1-free")).toBe("created")
    const offers = ok<{ offers: Array<{ contract_id: string; payload: { trackingId: string } }> }>(await wallet(node, "GET", "/v0/wallet/transfer-offers", aliceToken))
    expect(offers.offers.filter((o) => o.payload.trackingId === "w1-free").map((o) => o.contract_id)).toEqual([retried.offer_contract_id])
  })
})

const START_PAST = 1_000_000

describe("POST /v0/wallet/transfer-offers/{tracking_id}/status through the lifecycle", () => {
  it("created, accepted, completed; the receiver's coin arrives", async () => {
    const created = ok<{ offer_contract_id: string }>(await createOffer(aliceToken, await offer("st-complete", { amount: "7.5" })))
    const before = await balanceOf(node, bobToken)
    const accepted = ok<{ accepted_offer_contract_id: string }>(await wallet(node, "POST", `/v0/wallet/transfer-offers/${created.offer_contract_id}/accept`, bobToken))
    expect(accepted).toEqual({ accepted_offer_contract_id: expect.stringMatching(/^00/) })
    // The sender's automation completes the accepted offer at once.
    const completed = ok<{ status: string; transaction_id: string; contract_id: string }>(await status(aliceToken, "st-complete"))
    expect(completed).toEqual({ status: "completed", transaction_id: expect.stringMatching(/^1220/), contract_id: expect.stringMatching(/^00/) })
    const coins = ok<{ coins: Array<{ contract: { contract: { contract_id: string } } }> }>(await wallet(node, "GET", "/v0/wallet/coins", bobToken))
    expect(coins.coins.map((c) => c.contract.contract.contract_id)).toContain(completed.contract_id)
    expect(Number(await balanceOf(node, bobToken)) - Number(before)).toBeCloseTo(7.5, 10)
  })

  it("accepted: the receiver accepted and the sender's wallet has not paid yet", async () => {
    const created = ok<{ offer_contract_id: string }>(await createOffer(aliceToken, await offer("st-accepted")))
    const engine = await node.engine()
    const w = engine.wallets[0]!.node
    await node.setLink(delayedSequencer(seconds(1)))
    try {
      const accepting = wallet(node, "POST", "/v0/wallet/transfer-offers/accept", bobToken, { contract_id: created.offer_contract_id })
      await waitFor(async () => w.participant.logic.isInFlight(`wallet:accept:${created.offer_contract_id}`, [bob]))
      // Each hop through the sequencer takes a second: step until the acceptance commits (the payment needs another hop).
      for (let i = 0; i < 40 && w.offerState(alice, "st-accepted") !== "accepted"; i++) await node.advance(seconds(0.25))
      const accepted = ok<{ accepted_offer_contract_id: string }>(await accepting)
      expect(ok(await status(aliceToken, "st-accepted"))).toEqual({
        status: "accepted",
        transaction_id: expect.stringMatching(/^1220/),
        contract_id: accepted.accepted_offer_contract_id
      })
      expect(ok<{ accepted_offers: Array<{ contract_id: string }> }>(await wallet(node, "GET", "/v0/wallet/accepted-transfer-offers", bobToken)).accepted_offers.map((o) => o.contract_id)).toContain(
        accepted.accepted_offer_contract_id
      )
      await node.advance(seconds(10))
      expect((ok(await status(aliceToken, "st-accepted")) as { status: string }).status).toBe("completed")
    } finally {
      await node.setLink(zeroDelay)
    }
  })

  it("failed: rejected by the receiver, withdrawn by the sender, expired", async () => {
    const rejected = ok<{ offer_contract_id: string }>(await createOffer(aliceToken, await offer("st-reject")))
    okEmpty(await wallet(node, "POST", "/v0/wallet/transfer-offers/reject", bobToken, { contract_id: rejected.offer_contract_id }))
    expect(ok(await status(aliceToken, "st-reject"))).toEqual({ status: "failed", failure_kind: "rejected" })

    const withdrawn = ok<{ offer_contract_id: string }>(await createOffer(aliceToken, await offer("st-withdraw")))
    okEmpty(await wallet(node, "POST", `/v0/wallet/transfer-offers/${withdrawn.offer_contract_id}/withdraw`, aliceToken))
    expect(ok(await status(aliceToken, "st-withdraw"))).toEqual({ status: "failed", failure_kind: "withdrawn", withdrawn_reason: "withdrawn by the sender" })

    const expiring = ok<{ offer_contract_id: string }>(await createOffer(aliceToken, await offer("st-expire", { expires_at: (await node.now()) + minutes(1) })))
    // The sender's automation expires it once ledger time passes expires_at (it wakes every minute).
    await node.advance(minutes(3))
    expect(ok(await status(aliceToken, "st-expire"))).toEqual({ status: "failed", failure_kind: "expired" })
    expect(expectError(await wallet(node, "POST", "/v0/wallet/transfer-offers/accept", bobToken, { contract_id: expiring.offer_contract_id }), 404)).toContain(expiring.offer_contract_id)
  })

  it("404 for a tracking id nobody used; 401 without a token", async () => {
    expect(expectError(await status(aliceToken, "never-used"), 404)).toContain("never-used")
    expectError(await status(undefined as unknown as string, "never-used"), 401)
    expectError(await status(await tokenOf("mallory"), "never-used"), 404)
  })
})

describe("expired offers", () => {
  it("an offer past its expiry is not acceptable: 409, in both forms (before the automation expires it)", async () => {
    // A wallet whose automation does not expire offers, so that the expired offer is still there.
    const other = await startWalletNode({ walletConfig: { expireOffers: false } })
    try {
      await onboard(other, "alice")
      const receiver = await onboard(other, "bob")
      const expiresAt = (await other.now()) + seconds(30)
      const created = ok<{ offer_contract_id: string }>(
        await wallet(other, "POST", "/v0/wallet/transfer-offers", aliceToken, { receiver_party_id: receiver, amount: "1", description: "", expires_at: expiresAt, tracking_id: "e" })
      )
      await other.advance(seconds(30))
      const cid = created.offer_contract_id
      expect(expectError(await wallet(other, "POST", "/v0/wallet/transfer-offers/accept", bobToken, { contract_id: cid }), 409)).toBe(
        `transfer offer ${cid} expired at 2026-01-01T10:30:30.000000Z`
      )
      expect(expectError(await wallet(other, "POST", `/v0/wallet/transfer-offers/${cid}/accept`, bobToken), 409)).toMatch(/expired/)
      // It stays listed (not accepted) and its status is still "created".
      expect(ok<{ status: string }>(await wallet(other, "POST", "/v0/wallet/transfer-offers/e/status", aliceToken)).status).toBe("created")
    } finally {
      await other.close()
    }
  })
})

describe("POST /v0/wallet/buy-traffic-requests", () => {
  it("creates a request the wallet pays (completed), or rejects when the user cannot pay; 409, 429, 400, 404", async () => {
    const engine = await node.engine()
    const domain = engine.network.synchronizers[0]!.info.synchronizerId
    const operator = engine.network.validators[0]!.operator
    const body = async (trackingId: string, overrides: Record<string, unknown> = {}) => ({
      receiving_validator_party_id: operator,
      domain_id: domain,
      traffic_amount: 200_000,
      tracking_id: trackingId,
      expires_at: (await node.now()) + hours(1),
      ...overrides
    })
    const created = await wallet(node, "POST", "/v0/wallet/buy-traffic-requests", aliceToken, await body("bt-1"))
    expect(created.status).toBe(200)
    expect(created.json).toEqual({ request_contract_id: expect.stringMatching(/^00/) })
    // The automation pays it at once (alice holds enough coin).
    expect(ok(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests/bt-1/status", aliceToken))).toEqual({
      status: "completed",
      transaction_id: expect.stringMatching(/^1220/)
    })
    expect(expectError(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests", aliceToken, await body("bt-1")), 409)).toContain(
      (created.json as { request_contract_id: string }).request_contract_id
    )
    expect(expectError(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests", aliceToken, await body("bt-2", { traffic_amount: 10 })), 400)).toContain("traffic_amount")
    expect(expectError(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests", aliceToken, await body("bt-2", { domain_id: "nowhere::1220" })), 400)).toContain("domain_id")
    expect(expectError(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests", aliceToken, await body("bt-2", { receiving_validator_party_id: "ghost::1220ab" })), 400)).toContain(
      "receiving_validator_party_id"
    )
    expectError(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests", await tokenOf("mallory"), await body("bt-2")), 404)
    expectError(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests/unknown/status", aliceToken), 404)
    // A user who cannot pay: the automation rejects the request.
    const carol = await onboard(node, "carol-traffic")
    void carol
    const carolToken = await tokenOf("carol-traffic")
    ok(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests", carolToken, await body("bt-poor")))
    expect(ok(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests/bt-poor/status", carolToken))).toEqual({
      status: "failed",
      failure_reason: "rejected",
      rejection_reason: expect.any(String)
    })
    // 429 while the creation is in flight.
    await node.setLink(delayedSequencer(seconds(1)))
    try {
      const request = await body("bt-429")
      const first = wallet(node, "POST", "/v0/wallet/buy-traffic-requests", aliceToken, request)
      await waitFor(async () => {
        const e = await node.engine()
        const w = e.wallets[0]!.node
        return w.trackingState(alice, "buyTraffic", "bt-429") === "inProgress"
      })
      expectError(await wallet(node, "POST", "/v0/wallet/buy-traffic-requests", aliceToken, request), 429)
      await node.advance(seconds(5))
      expect((await first).status).toBe(200)
    } finally {
      await node.setLink(zeroDelay)
    }
  })
})
