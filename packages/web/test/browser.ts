/**
 * Browser tests' support: a `sandnet start --in-memory` node (or one in LocalNet's layout) as a child process on free ports,
 * Debian's Chromium driven by playwright-core (the npm browser downloads are not reachable), an
 * axe-core check of a page, screenshots under packages/web/test-results/ and dev tokens.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { mkdirSync, readFileSync } from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { chromium, type Browser, type Page } from "playwright-core"

const root = fileURLToPath(new URL("../../../", import.meta.url))
export const resultsDir = fileURLToPath(new URL("../test-results/", import.meta.url))
export const CHROMIUM = process.env["SANDNET_CHROMIUM"] ?? "/usr/bin/chromium"

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

export interface Node {
  readonly url: string
  readonly stop: () => Promise<void>
}

/** Runs `sandnet <args>` until it prints that it is ready; `stop` ends it. */
const spawnNode = async (args: ReadonlyArray<string>): Promise<{ readonly stop: () => Promise<void> }> => {
  const child: ChildProcess = spawn(process.execPath, [join(root, "packages/cli/bin/sandnet.js"), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the node did not start:\n${output}`)), 120_000)
    child.stdout!.on("data", () => output.includes("Sandnet node ready") && (clearTimeout(timer), resolve()))
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`the node exited (${code}):\n${output}`))))
  })
  child.removeAllListeners("exit")
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      })
  }
}

/** `sandnet start --in-memory` (which builds the pages first when they are stale). */
export const startNode = async (): Promise<Node> => {
  const port = await freePort()
  const node = await spawnNode(["start", "--in-memory", "--port", String(port)])
  return { url: `http://127.0.0.1:${port}`, stop: node.stop }
}

/** LocalNet's ports (2975 app user's ledger, 3975 super validator's, 2000 validator, 4000 scan, 5003 registry), before the offset. */
const LOCALNET_PORTS = [2975, 3975, 2000, 4000, 5003]

const isFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

export interface LocalNetNode {
  /** The app user's ledger port (2975 + offset), the validator's (2000 + offset) and scan's, addressed as scan.localhost (4000 + offset). */
  readonly ledgerUrl: string
  readonly validatorUrl: string
  readonly scanUrl: string
  readonly stop: () => Promise<void>
}

/**
 * `sandnet start --localnet --in-memory --port-offset N`, with an offset whose five ports are free
 * (below the ephemeral range, where port-0 listeners land).
 */
export const startLocalNet = async (): Promise<LocalNetNode> => {
  for (let attempt = 0; ; attempt++) {
    if (attempt > 20) throw new Error("no port offset with LocalNet's five ports free")
    const offset = 10_000 + ((process.pid * 7 + attempt * 1_337) % 17_000)
    if (!(await Promise.all(LOCALNET_PORTS.map((p) => isFree(p + offset)))).every(Boolean)) continue
    try {
      const node = await spawnNode(["start", "--localnet", "--in-memory", "--port-offset", String(offset)])
      return {
        ledgerUrl: `http://127.0.0.1:${2975 + offset}`,
        validatorUrl: `http://127.0.0.1:${2000 + offset}`,
        scanUrl: `http://scan.localhost:${4000 + offset}`,
        stop: node.stop
      }
    } catch (error) {
      if (attempt >= 3) throw error
    }
  }
}

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    // launch() runs on a fresh temporary profile (a new user data dir) each time
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
  })

export const screenshot = async (page: Page, name: string): Promise<void> => {
  mkdirSync(resultsDir, { recursive: true })
  await page.screenshot({ path: join(resultsDir, `${name}.png`), fullPage: true })
}

const axeSource = readFileSync(join(root, "node_modules/axe-core/axe.min.js"), "utf8")

export interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<unknown> }>
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2 A and AA rules). */
export const seriousViolations = async (page: Page): Promise<ReadonlyArray<string>> => {
  // once per document: a page checked again keeps the axe it was given
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axeSource })
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: ReadonlyArray<AxeViolation> }> } }).axe
    // resultTypes: every violation in full; passes and the rest (not read here) summarized, which is axe's documented way to run faster
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] })
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }))
  })
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")})`)
}

export const devToken = async (url: string, user: string): Promise<string> => {
  const response = await fetch(`${url}/sandnet/dev-token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user }) })
  return ((await response.json()) as { token: string }).token
}

/** A number from an amount as the page writes it ("1,234.5 CC"). */
export const amountIn = (text: string): number => Number(text.replace(/[^0-9.-]/g, ""))
