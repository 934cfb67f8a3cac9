/**
 * Issue 15: one user's huge taps must not break the node for everyone. Amounts whose sums could
 * leave Numeric 10's range are refused where they enter (400 in the wallet's `{error}` shape),
 * and every other user's requests keep answering 200.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { call } from "./support.ts"
import { balanceOf, expectError, ok, onboard, startWalletNode, tapFor, tokenOf, wallet, type WalletTestNode } from "./wallet-support.ts"

let node: WalletTestNode
beforeAll(async () => {
  node = await startWalletNode()
})
afterAll(() => node.close())

it("refuses taps that would take a party's holdings over the limit; others are served throughout", async () => {
  await onboard(node, "whale")
  await onboard(node, "alice")
  const whale = await tokenOf("whale")
  const alice = await tokenOf("alice")
  await tapFor(node, alice, "5")
  const aliceIsServed = async () => {
    expect(await balanceOf(node, alice)).toBe("5.0000000000")
    ok(await wallet(node, "GET", "/v0/wallet/transfer-offers", alice))
  }

  // The largest amount the reproduction used is beyond what a party may hold.
  const tooMuch = expectError(await wallet(node, "POST", "/v0/wallet/tap", whale, { amount: "9999999999999999999999999999" }), 400)
  expect(tooMuch).toContain("at most 1000000000000000000000000000")
  await aliceIsServed()

  ok(await wallet(node, "POST", "/v0/wallet/tap", whale, { amount: "900000000000000000000000000" }))
  await aliceIsServed()
  const over = expectError(await wallet(node, "POST", "/v0/wallet/tap", whale, { amount: "900000000000000000000000000" }), 400)
  expect(over).toContain("over the limit of 1000000000000000000000000000")
  for (let i = 0; i < 10; i++) {
    ok(await wallet(node, "POST", "/v0/wallet/tap", whale, { amount: "1" }))
    await aliceIsServed()
  }
  // The merge automation runs on the whale's eleven holdings without failing anyone's request.
  await node.advance(60_000_000)
  await aliceIsServed()
  expect(await balanceOf(node, whale)).toBe("900000000000000000000000010.0000000000")

  // A transfer that would take the receiver over the limit is refused as well.
  const alicesParty = ((await wallet(node, "GET", "/v0/wallet/user-status", alice)).json as { party_id: string }).party_id
  await tapFor(node, whale, "1") // it still taps small amounts
  const transfer = expectError(
    await wallet(node, "POST", "/v0/wallet/transfer-offers", whale, {
      receiver_party_id: alicesParty,
      amount: "999999999999999999999999999.9999999999",
      description: "too much",
      expires_at: (await node.now()) + 3_600_000_000,
      tracking_id: "overflow-1"
    }),
    400
  )
  expect(transfer).toContain("over the limit")
  await aliceIsServed()

  // The /dev page's health read lists automation steps that failed: none did here.
  const health = await call(`${node.url}/sandnet/health`, { method: "GET" })
  expect({ status: health.status, automations: (health.json as { automations: unknown }).automations }).toEqual({ status: 200, automations: [] })
})
