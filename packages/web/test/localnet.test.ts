/**
 * The pages under `sandnet start --localnet` (LocalNet's ports, shifted by a free offset, and
 * upstream's names) in Chromium: the wallet on the validator's port (log in, tap, the balance in
 * the Amulet instrument), the scan explorer at scan.localhost on scan's port (the tap found with
 * its AmuletRules choice and verdict, alice's holdings on her party page) and /dev on the app
 * user's ledger port (health, users, time). Every step stores a screenshot under packages/web/test-results/ and each page passes
 * axe-core without serious or critical violations. The tests run in order and share one node and
 * one browser.
 */
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { amountIn, launchBrowser, screenshot, startLocalNet, type LocalNetNode } from "./browser.ts"
import { card, closeAll, DESKTOP, expectAccessible, logIn, waitForBalance } from "./steps.ts"

let node: LocalNetNode
let browser: Browser
const contexts: Array<BrowserContext> = []
let tapUpdateId: string
let wallet: Page
let dev: Page

const open = async (url: string): Promise<Page> => {
  const context = await browser.newContext({ viewport: DESKTOP })
  contexts.push(context)
  const page = await context.newPage()
  page.setDefaultTimeout(20_000)
  await page.goto(url)
  return page
}

describe("the pages in LocalNet's layout", () => {
  beforeAll(async () => {
    // the node starts in its own process meanwhile
    ;[node, browser] = await Promise.all([startLocalNet(), launchBrowser()])
  }, 180_000)
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
    await browser?.close()
    await node?.stop()
  })

  it("the wallet on the validator's port taps and shows the balance in Amulet", async () => {
    wallet = await open(`${node.validatorUrl}/wallet`)
    await logIn(wallet, "alice")
    await wallet.getByRole("button", { name: "Tap" }).click()
    await waitForBalance(wallet, (n) => n > 99)
    expect(await wallet.getByTestId("instrument").textContent()).toBe("Amulet")
    // the tap is the newest transaction of the history; its update id links to the explorer
    const newest = card(wallet, "History").locator("tbody tr").first()
    await expect.poll(() => newest.textContent(), { timeout: 20_000 }).toMatch(/tap/i)
    tapUpdateId = (await newest.locator("td:last-child .id code").getAttribute("title"))!
    expect(tapUpdateId).toMatch(/^1220[0-9a-f]{64}$/)
    await screenshot(wallet, "localnet-wallet")
    await expectAccessible(wallet)
  }, 120_000)

  it("the scan explorer at scan.localhost lists the tap by upstream's names and finds it with its verdict", async () => {
    const explorer = await open(`${node.scanUrl}/scan`)
    const recent = card(explorer, "Recent updates")
    await expect.poll(() => recent.textContent(), { timeout: 20_000 }).toContain("AmuletRules_DevNet_Tap on AmuletRules")
    await screenshot(explorer, "localnet-scan-home")
    await expectAccessible(explorer)
    await explorer.getByLabel("Search by update id, contract id or party").fill(tapUpdateId)
    await explorer.getByRole("button", { name: "Search" }).click()
    await explorer.getByRole("heading", { name: "Event tree" }).waitFor()
    expect(await explorer.getByTestId("verdict").textContent()).toContain("accepted")
    const tree = (await explorer.locator("main").textContent()) ?? ""
    expect([tree.includes("exercise AmuletRules_DevNet_Tap on AmuletRules"), tree.includes("create Amulet Contract")]).toEqual([true, true])
    await screenshot(explorer, "localnet-scan-update")
    await expectAccessible(explorer)
    await closeAll(explorer)
  }, 120_000)

  it("/dev on the app user's ledger port shows the network, LocalNet's user, and advances time", async () => {
    dev = await open(`${node.ledgerUrl}/dev`)
    const health = card(dev, "Health")
    await expect.poll(() => health.locator("tbody tr").allTextContents(), { timeout: 20_000 }).toEqual([expect.stringMatching(/^sv1/), expect.stringMatching(/^validator1/)])
    await health.getByText("No automation step has failed.").waitFor()
    await card(dev, "Users and rights").getByRole("cell", { name: "ledger-api-user", exact: true }).waitFor()
    const time = card(dev, "Ledger time")
    const before = Date.parse(((await time.locator("time").first().getAttribute("datetime")) ?? "").trim())
    await dev.getByRole("button", { name: "Advance time by 10m" }).click()
    await expect.poll(async () => Date.parse((await time.locator("time").first().getAttribute("datetime")) ?? "") - before, { timeout: 20_000 }).toBeGreaterThanOrEqual(10 * 60_000)
    await screenshot(dev, "localnet-dev")
    await expectAccessible(dev)
  }, 120_000)

  it("the explorer's party page shows alice's holdings from the hour's ACS snapshot", async () => {
    // the next full hour's snapshot holds what happened so far once an update passes it
    await dev.getByLabel("Advance by").fill("1h")
    await dev.getByRole("button", { name: "Advance", exact: true }).click()
    await wallet.getByRole("button", { name: "Tap", exact: true }).click()
    await waitForBalance(wallet, (n) => n > 199)
    const explorer = await open(`${node.scanUrl}/scan`)
    await explorer.getByLabel("Search by update id, contract id or party").fill("alice")
    await explorer.getByRole("button", { name: "Search" }).click()
    await explorer.getByRole("heading", { name: "Activity" }).waitFor()
    await expect.poll(async () => amountIn((await explorer.getByTestId("party-available").textContent().catch(() => "")) ?? ""), { timeout: 30_000 }).toSatisfy((n: number) => n > 99)
    await screenshot(explorer, "localnet-scan-party")
    await expectAccessible(explorer)
  }, 120_000)
})
