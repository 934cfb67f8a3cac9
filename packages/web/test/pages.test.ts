/**
 * The pages in a real browser (Debian's Chromium, headless, driven by playwright-core) against a
 * `sandnet start --in-memory` node: the landing page, a transfer offer between two users through
 * /wallet (sent, seen arriving live, accepted, both balances changed), the same transfer found in
 * /scan by its update id with its verdict, an offer expiring on screen when /dev advances time, and
 * a snapshot restored with the wallet showing the old state. Every step stores a screenshot under
 * packages/web/test-results/ and each page passes axe-core without serious or critical violations.
 * The tests run in order and share one node and one browser.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Page } from "playwright-core"
import { screenshot } from "./browser.ts"
import { balanceOf, closeAll, expectAccessible, harness, logIn, sendOffer, waitForBalance } from "./steps.ts"

const h = harness()
const openPage = (path: string): Promise<Page> => h.open(path)

let alice: Page
let bob: Page
let bobParty: string
let transferUpdateId: string

describe("the web pages in Chromium", () => {
  beforeAll(() => h.start(), 180_000)
  afterAll(() => h.stop())

  it("the landing page shows what runs, the dev users and the ledger time", async () => {
    const page = await openPage("/")
    await page.getByRole("heading", { name: "Nodes" }).waitFor()
    await expect.poll(() => page.locator(".node").count()).toBe(2)
    await page.getByRole("button", { name: "Copy token for operator" }).waitFor()
    expect(await page.locator("h1").textContent()).toContain("Sandnet")
    await screenshot(page, "landing")
    await expectAccessible(page)
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "landing-phone")
    await closeAll(page)
  })

  it("two users do a transfer offer end to end through /wallet", async () => {
    alice = await openPage("/wallet")
    bob = await openPage("/wallet")
    await logIn(alice, "alice")
    bobParty = await logIn(bob, "bob")
    await alice.getByRole("button", { name: "Tap" }).click()
    await waitForBalance(alice, (n) => n > 99)
    // a plain node keeps the spec's name for the instrument (LocalNet's is Amulet: localnet.test.ts)
    expect(await alice.getByTestId("instrument").textContent()).toBe("Coin")
    await sendOffer(alice, bobParty, "10", "lunch")
    // it arrives at bob's page live: no reload
    const row = bob.getByTestId("offer-row").filter({ hasText: "lunch" })
    await row.waitFor()
    await screenshot(bob, "wallet-offer-arrived")
    await expectAccessible(bob)
    await row.getByRole("button", { name: /^Accept/ }).click()
    await waitForBalance(bob, (n) => Math.abs(n - 10) < 0.1)
    await waitForBalance(alice, (n) => n < 91 && n > 89)
    await screenshot(alice, "wallet-alice-after")
    await screenshot(bob, "wallet-bob-after")
    // the paying transaction is the newest of bob's history
    const link = bob.getByRole("heading", { name: "History" }).locator("xpath=ancestor::section").locator("tbody tr").first().locator("td:last-child .id code")
    transferUpdateId = (await link.getAttribute("title"))!
    expect(transferUpdateId).toMatch(/^1220[0-9a-f]{64}$/)
  })

  it("/scan finds the transfer by its update id, with its verdict", async () => {
    const page = await openPage("/scan")
    await page.getByRole("heading", { name: "Rounds" }).waitFor()
    await page.getByLabel("Search by update id, contract id or party").fill(transferUpdateId)
    await page.getByRole("button", { name: "Search" }).click()
    await page.getByRole("heading", { name: "Event tree" }).waitFor()
    expect(await page.getByTestId("verdict").textContent()).toContain("accepted")
    await screenshot(page, "scan-update")
    await expectAccessible(page)
    await page.goto(`${h.url()}/scan`)
    await page.getByRole("heading", { name: "Recent updates" }).waitFor()
    await screenshot(page, "scan-home")
    await expectAccessible(page)
    await closeAll(page)
  })

  it("/dev advances time and an offer expires on screen", async () => {
    await sendOffer(alice, bobParty, "1", "soon gone", 5)
    const row = bob.getByTestId("offer-row").filter({ hasText: "soon gone" })
    await row.getByRole("button", { name: /^Accept/ }).waitFor()
    const dev = await openPage("/dev")
    await dev.getByRole("heading", { name: "Ledger time" }).waitFor()
    await expectAccessible(dev)
    await dev.getByRole("button", { name: "Advance time by 10m" }).click()
    // expired: marked, or gone once the automation expired it
    await expect.poll(async () => (await row.count()) === 0 || (await row.getByText("expired").count()) > 0, { timeout: 20_000 }).toBe(true)
    await screenshot(bob, "wallet-offer-expired")
    await screenshot(dev, "dev")
    await closeAll(dev)
  })

  it("a snapshot restored in /dev brings the old state back on the wallet page", async () => {
    const dev = await openPage("/dev")
    await dev.getByRole("button", { name: "Take snapshot" }).click()
    const restore = dev.getByRole("button", { name: /^Restore snapshot/ })
    await restore.first().waitFor()
    const before = await balanceOf(alice)
    await alice.getByRole("button", { name: "Tap" }).click()
    await waitForBalance(alice, (n) => n > before + 99)
    await restore.first().click()
    await waitForBalance(alice, (n) => Math.abs(n - before) < 0.01)
    await screenshot(alice, "wallet-after-restore")
    await dev.getByRole("button", { name: "Reset…" }).click()
    await dev.getByRole("group", { name: "Confirm the reset" }).waitFor()
    await screenshot(dev, "dev-reset-confirmation")
    await dev.getByRole("button", { name: "Cancel" }).click()
  })
})
