/**
 * Steps the browser tests share: a node and a browser per test file, pages opened in their own
 * context (a viewport, a colour scheme), logging in on /wallet, sending, reading balances.
 */
import type { Browser, BrowserContext, Page } from "playwright-core"
import { expect } from "vitest"
import { amountIn, launchBrowser, seriousViolations, startNode, type Node } from "./browser.ts"

export const DESKTOP = { width: 1280, height: 900 }
export const PHONE = { width: 390, height: 844 }

export interface Harness {
  readonly url: () => string
  /** A new browser context (its own session storage) on `path`. */
  readonly open: (path: string, options?: { readonly viewport?: { width: number; height: number }; readonly colorScheme?: "light" | "dark" }) => Promise<Page>
  readonly start: () => Promise<void>
  readonly stop: () => Promise<void>
}

export const harness = (): Harness => {
  let node: Node | undefined
  let browser: Browser | undefined
  const contexts: Array<BrowserContext> = []
  return {
    url: () => node!.url,
    open: async (path, options = {}) => {
      const context = await browser!.newContext({ viewport: options.viewport ?? DESKTOP, colorScheme: options.colorScheme ?? "light" })
      contexts.push(context)
      const page = await context.newPage()
      page.setDefaultTimeout(20_000)
      await page.goto(`${node!.url}${path}`)
      return page
    },
    start: async () => {
      // the node starts in its own process meanwhile
      ;[node, browser] = await Promise.all([startNode(), launchBrowser()])
    },
    stop: async () => {
      for (const c of contexts) await c.close().catch(() => undefined)
      await browser?.close()
      await node?.stop()
    }
  }
}

/**
 * Closes pages a test is done with: every open page refetches what it shows on each of the node's
 * live events, so pages left open slow the node and the browser for the tests after.
 */
export const closeAll = async (...pages: ReadonlyArray<Page>) => {
  for (const page of pages) await page.context().close()
}

export const expectAccessible = async (page: Page) => expect(await seriousViolations(page)).toEqual([])

/** Logs a user in on /wallet with a dev token and onboards it; returns its party. */
export const logIn = async (page: Page, user: string): Promise<string> => {
  await page.getByLabel(/User name/).fill(user)
  await page.getByRole("button", { name: "Log in" }).click()
  await page.getByRole("button", { name: "Onboard" }).click()
  await page.getByRole("heading", { name: "Balance" }).waitFor()
  const party = await page.locator(".who .id code").getAttribute("title")
  return party!
}

export const balanceOf = async (page: Page): Promise<number> => amountIn((await page.getByTestId("balance").textContent()) ?? "")

export const waitForBalance = async (page: Page, check: (n: number) => boolean) => {
  await expect.poll(() => balanceOf(page), { timeout: 30_000 }).toSatisfy(check)
}

export type SendKind = "Transfer offer" | "One-step transfer" | "Token-standard transfer"

/** Sends from the wallet's Send card and waits for the page to say it was sent. */
export const send = async (page: Page, receiver: string, amount: string, description: string, options: { readonly kind?: SendKind; readonly minutes?: number } = {}) => {
  await page.getByRole("radio", { name: new RegExp(`^${options.kind ?? "Transfer offer"}`) }).check()
  await page.getByLabel("Receiver party").fill(receiver)
  await page.getByLabel(/^Amount/).fill(amount)
  await page.getByLabel("Description").fill(description)
  if (options.kind !== "One-step transfer") await page.getByLabel("Expires in (minutes)").fill(String(options.minutes ?? 60))
  await page.getByRole("button", { name: "Send", exact: true }).click()
  await page.getByRole("status").filter({ hasText: `Sent ${amount}` }).waitFor()
}

export const sendOffer = (page: Page, receiver: string, amount: string, description: string, minutes = 60) => send(page, receiver, amount, description, { minutes })

/** A card of the page by its heading. */
export const card = (page: Page, title: string) => page.getByRole("region", { name: title, exact: true })
