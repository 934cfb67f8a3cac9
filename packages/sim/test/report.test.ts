import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { renderReport } from "../src/index.ts"
import { run } from "./support.ts"
import { shipped } from "./swarm-support.ts"

const CHROMIUM = "/usr/bin/chromium"

const chromium = (args: ReadonlyArray<string>): Promise<{ stdout: string; stderr: string }> =>
  new Promise((resolve, reject) =>
    execFile(CHROMIUM, ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", ...args], { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error !== null ? reject(error) : resolve({ stdout, stderr })
    )
  )

describe("the HTML report", () => {
  it("is one self-contained page with a plot per figure, fault windows shaded", async () => {
    const result = await run(shipped("faults-crash"), { seed: 2, timeline: { detailed: true } })
    const html = renderReport(result, { file: "scenarios/faults-crash.yaml" })
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//)
    for (const title of ["Throughput", "Latency from submission", "Verdicts by result", "Traffic spent", "Coin in circulation", "Balances of parties", "Mining rounds"]) expect(html).toContain(title)
    expect(html.match(/<svg /g)?.length).toBe(7)
    expect(html).toContain("REJECTED MEDIATOR_SAYS_TX_TIMED_OUT")
    expect(html).toMatch(/<rect [^>]*fill="#fecaca"/)
    expect(result.timeline.length).toBeGreaterThan(50)
    expect(result.timeline.at(-1)!.supply).toBeGreaterThan(0)
  }, 60_000)

  it.skipIf(!existsSync(CHROMIUM))("renders its plots in a real browser (headless Chromium) without script errors", async () => {
    const result = await run(shipped("faults-network"), { seed: 3, timeline: { detailed: true } })
    const dir = mkdtempSync(join(tmpdir(), "sandnet-report-"))
    const file = join(dir, "report.html")
    writeFileSync(file, renderReport(result, { file: "scenarios/faults-network.yaml" }))
    const { stdout, stderr } = await chromium(["--dump-dom", pathToFileURL(file).href])
    // The page's script ran to its end: it counts the plotted lines into data-rendered.
    const rendered = /data-rendered="(\d+)"/.exec(stdout)
    expect(rendered).not.toBeNull()
    expect(Number(rendered![1])).toBeGreaterThanOrEqual(7)
    expect(stderr).not.toMatch(/Uncaught|SyntaxError|TypeError|ReferenceError/)
    await chromium([`--screenshot=${join(dir, "report.png")}`, "--window-size=1000,2400", pathToFileURL(file).href])
    expect(existsSync(join(dir, "report.png"))).toBe(true)
  }, 120_000)
})
