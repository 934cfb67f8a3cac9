import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { axisOf, chartsOf, renderReport, type Chart } from "../src/index.ts"
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

describe("the report's plots are readable", () => {
  const chart = (values: ReadonlyArray<number | undefined>, extra: Partial<Chart> = {}): Chart => ({
    id: "c",
    title: "c",
    unit: "per second",
    x: values.map((_, i) => i * 0.25),
    bands: [],
    series: [{ name: "s", values, color: "#000" }],
    ...extra
  })

  it("a warm-up spike does not set the scale of the rest of the run, and the note says so", () => {
    const axis = axisOf(chart([900, 40, 12, 11, 10, 12, 9, 11, 10]))
    expect(axis.max).toBeLessThanOrEqual(15)
    expect(axis.clipped).toEqual({ value: 900, at: 0 })
    // A peak later in the run is real data and is never clipped.
    expect(axisOf(chart([10, 12, 11, 10, 900, 12])).max).toBeGreaterThanOrEqual(900)
  })

  it("counts get whole-number ticks only", () => {
    for (const values of [[0, 1, 0, 1], [0, 2, 3, 1], [0, 7, 5]]) {
      const labels = axisOf(chart(values, { integer: true })).ticks.map((t) => t.label)
      expect(labels.every((label) => /^\d+$/.test(label))).toBe(true)
    }
  })

  it("tick labels stay short enough to keep clear of the axis title", () => {
    const labels = axisOf(chart([0, 150_000, 90_000, 120_000])).ticks.map((t) => t.label)
    expect(labels).toContain("150k")
    expect(Math.max(...labels.map((l) => l.length))).toBeLessThanOrEqual(6)
  })

  it("latency is on a log axis so the median stays visible under a long tail; failures are red, what went through green", async () => {
    const result = await run(shipped("faults-crash"), { seed: 2, timeline: { detailed: true } })
    const charts = chartsOf(result)
    const latency = charts.find((c) => c.id === "latency")!
    expect(axisOf(latency).scale).toBe("log")
    const html = renderReport(result, { file: "scenarios/faults-crash.yaml" })
    const svg = new RegExp(`<svg [^>]*data-chart="latency"[^>]*>(.*?)</svg>`).exec(html)![1]!
    const median = /<path d="([^"]+)"[^>]*data-series="median"/.exec(svg)![1]!
    const ys = [...median.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => Number(m[1]))
    const baseline = 240 - 34
    // On a linear axis up to the tail the median sat on the baseline; now it stands clear of it.
    expect(ys.filter((y) => y < baseline - 20).length).toBeGreaterThan(ys.length / 2)
    const throughput = charts.find((c) => c.id === "throughput")!
    expect(throughput.series.find((s) => s.name === "commands failed")!.color).toBe("#dc2626")
    expect(throughput.series.find((s) => s.name === "commands submitted")!.color).not.toBe("#dc2626")
    const verdicts = charts.find((c) => c.id === "verdicts")!
    expect(verdicts.series.find((s) => s.name === "ACCEPTED")!.color).toBe("#16a34a")
    expect(verdicts.series.filter((s) => s.name !== "ACCEPTED").every((s) => s.color !== "#16a34a")).toBe(true)
  }, 60_000)
})
