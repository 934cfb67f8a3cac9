/**
 * More of the pages in Chromium against a `sandnet start --in-memory` node: an offer rejected by
 * its receiver and one withdrawn by its sender, a token-standard transfer sent and accepted, a
 * one-step transfer to a receiver with a preapproval, the explorer's party page (holdings from the
 * ACS snapshot, activity) found by a party's name, /dev's rights, identity providers and failed
 * automation steps, the pages used by keyboard alone, and the pages
 * in the dark theme and on a phone. Every step stores screenshots under packages/web/test-results/
 * and each page passes axe-core without serious or critical violations. The tests run in order and
 * share one node and one browser.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { amountIn, screenshot } from "./browser.ts"
import { balanceOf, card, closeAll, expectAccessible, harness, logIn, PHONE, send, sendOffer, waitForBalance } from "./steps.ts"

const h = harness()
let alice: Page
let bob: Page
let aliceParty: string
let bobParty: string

/** The kinds the history card shows, newest first. */
const historyKinds = (page: Page) => card(page, "History").getByTestId("history-kind").allTextContents()

describe("wallet flows, the party page, keyboard, dark and phone", () => {
  beforeAll(async () => {
    await h.start()
    alice = await h.open("/wallet")
    bob = await h.open("/wallet")
    aliceParty = await logIn(alice, "alice")
    bobParty = await logIn(bob, "bob")
  }, 240_000)

  afterAll(() => h.stop())

  it("an offer rejected by its receiver and one withdrawn by its sender leave both pages; no coin moves", async () => {
    await alice.getByRole("button", { name: "Tap", exact: true }).click()
    await waitForBalance(alice, (n) => n > 99)
    const before = await balanceOf(alice)
    await sendOffer(alice, bobParty, "4", "to be rejected")
    await sendOffer(alice, bobParty, "6", "to be withdrawn")
    const rejected = bob.getByTestId("offer-row").filter({ hasText: "to be rejected" })
    const withdrawn = bob.getByTestId("offer-row").filter({ hasText: "to be withdrawn" })
    await withdrawn.waitFor()
    await rejected.getByRole("button", { name: /^Reject offer/ }).waitFor()
    await screenshot(bob, "offers-incoming")
    await expectAccessible(bob)
    await rejected.getByRole("button", { name: /^Reject offer/ }).click()
    await rejected.waitFor({ state: "detached" })
    await alice.getByTestId("offer-row").filter({ hasText: "to be rejected" }).waitFor({ state: "detached" })
    const outgoing = alice.getByTestId("offer-row").filter({ hasText: "to be withdrawn" })
    await screenshot(alice, "offers-outgoing")
    await outgoing.getByRole("button", { name: /^Withdraw offer/ }).click()
    await outgoing.waitFor({ state: "detached" })
    await withdrawn.waitFor({ state: "detached" })
    await expect.poll(() => historyKinds(bob), { timeout: 30_000 }).toEqual(expect.arrayContaining(["Offer rejected", "Offer withdrawn"]))
    expect(await balanceOf(alice)).toBeCloseTo(before, 6)
    expect(await balanceOf(bob)).toBe(0)
    await screenshot(bob, "offers-history")
  }, 180_000)

  it("a token-standard transfer: sent, seen arriving live, accepted; the history names it", async () => {
    const before = await balanceOf(alice)
    await send(alice, bobParty, "7", "books", { kind: "Token-standard transfer" })
    const incoming = bob.getByTestId("instruction-row").filter({ hasText: "books" })
    await incoming.waitFor()
    // the sender's coin is locked until the receiver decides
    await expect.poll(async () => (await card(alice, "Holdings").getByText("locked", { exact: true }).count()) > 0, { timeout: 30_000 }).toBe(true)
    await screenshot(alice, "token-transfer-locked")
    await screenshot(bob, "token-transfer-arrived")
    await expectAccessible(bob)
    await incoming.getByRole("button", { name: "Accept transfer of 7" }).click()
    await waitForBalance(bob, (n) => Math.abs(n - 7) < 0.01)
    await waitForBalance(alice, (n) => n < before - 6.9 && n > before - 8)
    await incoming.waitFor({ state: "detached" })
    await expect.poll(() => historyKinds(bob), { timeout: 30_000 }).toContain("Token-standard transfer accepted")
    const row = card(bob, "History").getByTestId("history-row").first()
    expect(amountIn((await row.locator("td.num").textContent()) ?? "")).toBeCloseTo(7, 6)
    await screenshot(bob, "token-transfer-accepted")
  }, 180_000)

  it("token-standard instructions: one rejected by the receiver, one withdrawn by the sender; the locked coin comes back", async () => {
    if ((await balanceOf(alice)) < 10) {
      await alice.getByRole("button", { name: "Tap", exact: true }).click()
      await waitForBalance(alice, (n) => n >= 10)
    }
    const before = await balanceOf(alice)
    await send(alice, bobParty, "1", "declined", { kind: "Token-standard transfer" })
    await send(alice, bobParty, "2", "taken back", { kind: "Token-standard transfer" })
    const declined = bob.getByTestId("instruction-row").filter({ hasText: "declined" })
    const takenBack = alice.getByTestId("instruction-row").filter({ hasText: "taken back" })
    await bob.getByTestId("instruction-row").filter({ hasText: "taken back" }).waitFor()
    await declined.getByRole("button", { name: "Reject transfer of 1" }).click()
    await takenBack.getByRole("button", { name: "Withdraw transfer of 2" }).click()
    await declined.waitFor({ state: "detached" })
    await bob.getByTestId("instruction-row").filter({ hasText: "taken back" }).waitFor({ state: "detached" })
    await expect.poll(() => historyKinds(alice), { timeout: 30_000 }).toEqual(expect.arrayContaining(["Token-standard transfer rejected", "Token-standard transfer withdrawn"]))
    // nothing locked is left and only fees were paid
    await expect.poll(() => card(alice, "Holdings").getByText("locked", { exact: true }).count(), { timeout: 30_000 }).toBe(0)
    await waitForBalance(alice, (n) => n > before - 0.5 && n <= before)
    await screenshot(alice, "token-transfers-rejected-withdrawn")
    await expectAccessible(alice)
  }, 180_000)

  it("a one-step transfer reaches a receiver with a preapproval at once", async () => {
    const receiving = card(bob, "Receiving and rewards")
    await receiving.getByRole("button", { name: "Create transfer preapproval" }).click()
    await receiving.getByTestId("preapproval").getByText("active").waitFor({ timeout: 30_000 })
    const before = await balanceOf(bob)
    await send(alice, bobParty, "2.5", "coffee", { kind: "One-step transfer" })
    await waitForBalance(bob, (n) => Math.abs(n - (before + 2.5)) < 0.01)
    await expect.poll(() => historyKinds(alice), { timeout: 30_000 }).toContain("One-step transfer")
    await screenshot(alice, "one-step-transfer")
    await expectAccessible(alice)
  }, 180_000)

  it("the party page, found by the party's name, shows its holdings in the ACS snapshot and its activity", async () => {
    // The next full hour's snapshot holds what happened so far once an update passes it.
    const dev = await h.open("/dev")
    const time = card(dev, "Ledger time")
    const ledgerTime = async () => Date.parse(((await time.locator("time").first().getAttribute("datetime")) ?? "").trim())
    // the first live state shows the time ('—' before it)
    await expect.poll(async () => Number.isFinite(await ledgerTime()), { timeout: 20_000 }).toBe(true)
    const before = await ledgerTime()
    await dev.getByLabel("Advance by").fill("1h")
    await dev.getByRole("button", { name: "Advance", exact: true }).click()
    // the advance runs in steps that other commands may come between: tap once it is done, after the hour
    await expect.poll(async () => (await ledgerTime()) - before, { timeout: 60_000 }).toBeGreaterThanOrEqual(60 * 60_000)
    await alice.getByRole("button", { name: "Tap", exact: true }).click()
    const scan = await h.open("/scan")
    // two snapshots to download now: genesis's and the hour's
    const snapshots = scan.getByRole("list", { name: "ACS snapshots, newest first" })
    await expect.poll(() => snapshots.getByRole("link").count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(2)
    const download = await fetch((await snapshots.getByRole("link").first().getAttribute("href"))!)
    expect(download.status).toBe(200)
    expect(download.headers.get("content-type")).toBe("application/gzip")
    await scan.getByLabel("Search by update id, contract id or party").fill("alice")
    await scan.getByRole("button", { name: "Search" }).click()
    await scan.getByRole("heading", { name: "Activity" }).waitFor()
    expect(await scan.locator("h1 .id code").getAttribute("title")).toBe(aliceParty)
    // alice holds what she tapped less what she sent (fees aside), as of the snapshot
    await expect.poll(async () => amountIn((await scan.getByTestId("party-available").textContent().catch(() => "")) ?? ""), { timeout: 30_000 }).toSatisfy((n: number) => n > 80 && n < 100)
    await expect.poll(() => scan.getByTestId("party-activity").count(), { timeout: 30_000 }).toBeGreaterThan(3)
    expect(await card(scan, "Activity").getByText("submitter").count()).toBeGreaterThan(0)
    await screenshot(scan, "scan-party")
    await expectAccessible(scan)
    // bob's page says he has a preapproval
    await scan.goto(`${h.url()}/scan/party/${encodeURIComponent(bobParty)}`)
    await scan.getByTestId("party-preapproval").locator(".id").waitFor()
    await screenshot(scan, "scan-party-bob")
    await closeAll(dev, scan)
  }, 180_000)

  it("/dev grants and revokes a user's right and adds an identity provider", async () => {
    const dev = await h.open("/dev")
    const users = card(dev, "Users and rights")
    await users.getByTestId("rights-bob").waitFor()
    await users.getByRole("combobox", { name: "User" }).selectOption("bob")
    await users.getByRole("combobox", { name: "Right" }).selectOption("CanReadAs")
    await users.getByRole("textbox", { name: "Party" }).fill(aliceParty)
    await users.getByRole("button", { name: "Grant", exact: true }).click()
    await expect.poll(() => users.getByTestId("rights-bob").textContent(), { timeout: 20_000 }).toContain("CanReadAs alice")
    await screenshot(dev, "dev-right-granted")
    await users.getByRole("button", { name: "Revoke", exact: true }).click()
    await expect.poll(() => users.getByTestId("rights-bob").textContent(), { timeout: 20_000 }).not.toContain("CanReadAs alice")
    const idps = card(dev, "Identity providers")
    await idps.getByRole("textbox", { name: "Id", exact: true }).fill("example-idp")
    await idps.getByRole("textbox", { name: "Issuer" }).fill("https://idp.example.com")
    await idps.getByRole("textbox", { name: "JWKS URL" }).fill("https://idp.example.com/jwks")
    await idps.getByRole("button", { name: "Add identity provider" }).click()
    await idps.getByTestId("idp").filter({ hasText: "example-idp" }).waitFor()
    await screenshot(dev, "dev-idp-added")
    await expectAccessible(dev)
    await closeAll(dev)
  }, 120_000)

  it("/dev's health shows the automation steps /sandnet/health reports as failed", async () => {
    const dev = await h.open("/dev")
    const health = card(dev, "Health")
    // this node's automations have not failed: the page says so
    await health.getByText("No automation step has failed.").waitFor()
    const reported = (await (await fetch(`${h.url()}/sandnet/health`)).json()) as { ledger_time: string; automations: ReadonlyArray<unknown> }
    expect(reported.automations).toEqual([])
    // No request makes a healthy node's step fail, so the node's own answer gets one failed step added on its way to the page.
    const retryAt = new Date(Date.parse(reported.ledger_time) + 60_000).toISOString()
    const failed = { automation: "wallet-alice", step: "merge-holdings", failures: 3, consecutive_failures: 2, last_error: "Error: contract 00ab is not active", retry_at: retryAt }
    await dev.route("**/sandnet/health", async (route) => {
      const response = await route.fetch()
      const body = (await response.json()) as { automations: ReadonlyArray<unknown> }
      await route.fulfill({ response, json: { ...body, automations: [...body.automations, failed] } })
    })
    await dev.reload()
    const row = card(dev, "Health").getByTestId("failed-automation")
    await row.waitFor()
    expect((await row.textContent())?.replace(/\s+/g, " ")).toBe(
      `wallet-alice, step merge-holdings: 3 failures, 2 in a row; retry at ${retryAt.replace("T", " ").replace(/\.\d+Z$/, " UTC")}Error: contract 00ab is not active`
    )
    await screenshot(dev, "dev-failed-automation")
    await expectAccessible(dev)
    await closeAll(dev)
  }, 120_000)

  it("works by keyboard alone: navigation, search and a wallet action", async () => {
    const page = await h.open("/")
    const focusOn = async (name: RegExp) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press("Tab")
        const focused = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null
          return `${el?.getAttribute("aria-label") ?? ""} ${el?.textContent ?? ""} ${(el as HTMLInputElement | null)?.placeholder ?? ""}`.trim()
        })
        if (name.test(focused)) return
      }
      throw new Error(`no element matching ${name} took the focus`)
    }
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content")
    await focusOn(/^Scan$/)
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: "Rounds" }).waitFor()
    await focusOn(/Update id, contract id, party or name/)
    await page.keyboard.type("bob")
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: "Activity" }).waitFor()
    expect(await page.locator("h1 .id code").getAttribute("title")).toBe(bobParty)
    // the theme toggle and a copy button answer the keyboard too
    await focusOn(/^Colour theme/)
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => document.documentElement.dataset["theme"])).toBe("light")
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => document.documentElement.dataset["theme"])).toBe("dark")
    await screenshot(page, "keyboard-party-dark")
    await closeAll(page)
  }, 120_000)

  it("reads well in the dark theme and on a phone", async () => {
    // one dark and one phone page, each loading the three pages in turn
    const dark = await h.open("/", { colorScheme: "dark" })
    const phone = await h.open("/", { viewport: PHONE })
    for (const [path, name] of [
      ["/", "landing"],
      ["/scan", "scan-home"],
      ["/dev", "dev"]
    ] as const) {
      if (path !== "/") await Promise.all([dark.goto(`${h.url()}${path}`), phone.goto(`${h.url()}${path}`)])
      await dark.locator("main h1").waitFor()
      await dark.locator(".card").first().waitFor()
      await screenshot(dark, `dark-${name}`)
      await expectAccessible(dark)
      await phone.locator(".card").first().waitFor()
      await screenshot(phone, `phone-${name}`)
      await expectAccessible(phone)
      // nothing wider than the phone's screen but scrolling tables
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
    }
    await closeAll(dark, phone)
    for (const page of [alice, bob]) await page.setViewportSize(PHONE)
    await screenshot(bob, "wallet-phone")
    await expectAccessible(bob)
    expect(await bob.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
    await bob.emulateMedia({ colorScheme: "dark" })
    await screenshot(bob, "wallet-phone-dark")
    await expectAccessible(bob)
  }, 240_000)
})
