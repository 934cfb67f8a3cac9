/**
 * Decisions on transfer offers that race (W1's offers, then the receiver's accepts in both forms
 * and rejects, the sender's withdrawals and status reads, all at once over HTTP, several on each
 * offer): at most one kind of decision succeeds on an offer, its status says that one (completed,
 * rejected, withdrawn, or still created when none did), each completed offer paid the receiver with
 * a coin of its own, and the receiver's balance grew by the completed offers' amounts, never by a
 * coin paid twice. Never a 5xx. `SANDNET_RACE_RUNS` asks for more runs (300 by hand found nothing).
 */
import fc from "fast-check"
import { afterAll, beforeAll, expect, it } from "vitest"
import { balanceOf, hours, onboard, startWalletNode, tapFor, tokenOf, wallet, type WalletTestNode } from "./wallet-support.ts"

let node: WalletTestNode
let bob: string
let aliceToken: string
let bobToken: string
let offersMade = 0

beforeAll(async () => {
  node = await startWalletNode()
  await onboard(node, "alice")
  bob = await onboard(node, "bob")
  aliceToken = await tokenOf("alice")
  bobToken = await tokenOf("bob")
  await tapFor(node, aliceToken, "100000")
}, 60_000)
afterAll(() => node.close())

/** What a client does to an offer: the receiver accepts (by path or body) or rejects, the sender withdraws or reads the status. */
type Act = "accept" | "acceptBody" | "reject" | "withdraw" | "status"
const ACTS: ReadonlyArray<Act> = ["accept", "acceptBody", "reject", "withdraw", "status"]

interface Offer {
  readonly trackingId: string
  readonly contractId: string
}

interface Done {
  readonly act: Act
  readonly status: number
  readonly text: string
}

const makeOffer = async (): Promise<Offer> => {
  const trackingId = `race-${++offersMade}`
  const body = { receiver_party_id: bob, amount: "1", description: "race", expires_at: (await node.now()) + hours(1), tracking_id: trackingId }
  const reply = await wallet(node, "POST", "/v0/wallet/transfer-offers", aliceToken, body)
  expect(reply.status, reply.text).toBe(200)
  return { trackingId, contractId: (reply.json as { offer_contract_id: string }).offer_contract_id }
}

const statusOf = (offer: Offer) => wallet(node, "POST", `/v0/wallet/transfer-offers/${encodeURIComponent(offer.trackingId)}/status`, aliceToken)

const perform = async (offer: Offer, act: Act): Promise<Done> => {
  const reply = await (act === "accept"
    ? wallet(node, "POST", `/v0/wallet/transfer-offers/${offer.contractId}/accept`, bobToken)
    : act === "acceptBody"
      ? wallet(node, "POST", "/v0/wallet/transfer-offers/accept", bobToken, { contract_id: offer.contractId })
      : act === "reject"
        ? wallet(node, "POST", "/v0/wallet/transfer-offers/reject", bobToken, { contract_id: offer.contractId })
        : act === "withdraw"
          ? wallet(node, "POST", `/v0/wallet/transfer-offers/${offer.contractId}/withdraw`, aliceToken)
          : statusOf(offer))
  expect(reply.status < 500, `${act}: ${reply.status} ${reply.text}`).toBe(true)
  return { act, status: reply.status, text: reply.text }
}

/** The offer's status agrees with the one kind of decision that succeeded; the coin a completion paid, if any. */
const checkOutcome = async (offer: Offer, done: ReadonlyArray<Done>): Promise<string | undefined> => {
  const won = new Set(done.filter((d) => d.act !== "status" && d.status === 200).map((d) => (d.act === "acceptBody" ? "accept" : d.act)))
  expect(won.size, JSON.stringify(done)).toBeLessThanOrEqual(1)
  const status = (await statusOf(offer)).json as { status: string; failure_kind?: string; contract_id?: string }
  const context = JSON.stringify({ done, status })
  if (won.has("accept")) {
    expect(status.status, context).toBe("completed")
    return status.contract_id
  }
  if (won.has("reject")) expect(status, context).toMatchObject({ status: "failed", failure_kind: "rejected" })
  else if (won.has("withdraw")) expect(status, context).toMatchObject({ status: "failed", failure_kind: "withdrawn" })
  else expect(status.status, context).toBe("created")
  return undefined
}

it("concurrent decisions on an offer: one kind wins, the status says which, the coin arrives once", async () => {
  const plans = fc.array(fc.array(fc.constantFrom(...ACTS), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 })
  await fc.assert(
    fc.asyncProperty(plans, async (plans) => {
      const before = Number(await balanceOf(node, bobToken))
      const offers = await Promise.all(plans.map(makeOffer))
      const done = await Promise.all(plans.map((acts, i) => Promise.all(acts.map((act) => perform(offers[i]!, act)))))
      // the sender's automation pays the accepted offers
      await node.advance(60_000_000)
      const paid: Array<string> = []
      for (let i = 0; i < offers.length; i++) {
        const coin = await checkOutcome(offers[i]!, done[i]!)
        if (coin !== undefined) paid.push(coin)
      }
      expect(new Set(paid).size).toBe(paid.length)
      const grew = Number(await balanceOf(node, bobToken)) - before
      // holding fees take a little of bob's coins as time moves; a coin paid twice would add a whole one
      expect(grew).toBeLessThanOrEqual(paid.length + 1e-6)
      expect(grew).toBeGreaterThan(paid.length - 0.2)
    }),
    { numRuns: Number(process.env["SANDNET_RACE_RUNS"] ?? 25) }
  )
}, 600_000)
