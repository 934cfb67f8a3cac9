/**
 * `--report out.html`: one self-contained page about a run (inline SVG and a few lines of inline
 * script for hover read-outs; no network access): what ran, whether every invariant held, the
 * faults, and plots over simulated time of throughput, latency from submission to completion,
 * verdicts by result, traffic spent, coin in circulation and balances, and mining rounds.
 */
import { SIMULATION_EPOCH } from "@sandnet/core"
import { formatDuration } from "./duration.ts"
import type { RunResult } from "./runner.ts"
import { faultLine } from "./swarm.ts"
import type { TimelineSample } from "./timeline.ts"
import { formatSimTime } from "./trace.ts"

interface Series {
  readonly name: string
  readonly values: ReadonlyArray<number | undefined>
  /** The series' colour says what it is: green for what went through, red for what failed. */
  readonly color: string
}

interface Band {
  readonly from: number
  readonly to: number
  readonly label: string
  readonly kind: string
}

export interface Chart {
  readonly id: string
  readonly title: string
  readonly unit: string
  readonly x: ReadonlyArray<number>
  readonly series: ReadonlyArray<Series>
  readonly bands: ReadonlyArray<Band>
  readonly note?: string
  /** Counts (verdicts, rounds): ticks only at whole numbers. */
  readonly integer?: boolean
  /** Latency spans decades (a median of tens of ms under a tail of minutes): a log axis shows both. */
  readonly scale?: "linear" | "log"
}

const BLUE = "#2563eb"
const GREEN = "#16a34a"
const RED = "#dc2626"
const AMBER = "#d97706"
const PURPLE = "#7c3aed"
const REJECTION_COLORS = [RED, "#b45309", "#db2777", "#9333ea", "#4b5563"]
const BAND_COLORS: Record<string, string> = { crash: "#fecaca", "mediator-timeout": "#fde68a", partition: "#bfdbfe", "clock-skew": "#e9d5ff" }

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const fmt = (n: number, digits = 0): string => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 })

/** Tick labels stay short (150k, 2.5M) so that they never run into the axis title. */
const compact = (n: number, digits: number): string =>
  Math.abs(n) >= 1e6 ? `${fmt(n / 1e6, 1)}M` : Math.abs(n) >= 1e4 ? `${fmt(n / 1e3, 1)}k` : fmt(n, digits)

const niceMax = (max: number): number => {
  if (!(max > 0)) return 1
  const exponent = Math.pow(10, Math.floor(Math.log10(max)))
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * exponent >= max) return m * exponent
  return 10 * exponent
}

/** Where the workload's warm-up ends: a spike before it does not set the scale of the whole plot. */
const WARM_UP_MINUTES = 1
/** A warm-up peak is clipped when it is this many times the highest value after it. */
const SPIKE_FACTOR = 1.5

export interface Axis {
  readonly scale: "linear" | "log"
  /** Linear: 0 .. max. Log: 10^min .. 10^max (decades). */
  readonly min: number
  readonly max: number
  readonly ticks: ReadonlyArray<{ readonly value: number; readonly label: string }>
  /** The warm-up peak that lies above the axis, when one was clipped. */
  readonly clipped: { readonly value: number; readonly at: number } | undefined
}

const finiteValues = (chart: Chart, keep: (x: number) => boolean): Array<number> =>
  chart.series.flatMap((s) => s.values.filter((v, j): v is number => v !== undefined && Number.isFinite(v) && keep(chart.x[j] ?? 0)))

const logAxis = (chart: Chart): Axis => {
  const positive = finiteValues(chart, () => true).filter((v) => v > 0)
  const low = positive.length === 0 ? 0 : Math.floor(Math.log10(Math.min(...positive)))
  const high = positive.length === 0 ? 1 : Math.max(low + 1, Math.ceil(Math.log10(Math.max(...positive))))
  const ticks = Array.from({ length: high - low + 1 }, (_, i) => ({ value: Math.pow(10, low + i), label: compact(Math.pow(10, low + i), 3) }))
  return { scale: "log", min: low, max: high, ticks, clipped: undefined }
}

/** The y axis of a chart: its scale, range and tick labels (exported for the report's tests). */
export const axisOf = (chart: Chart): Axis => {
  if (chart.scale === "log") return logAxis(chart)
  const all = finiteValues(chart, () => true)
  const after = finiteValues(chart, (x) => x >= WARM_UP_MINUTES)
  const peak = Math.max(0, ...all)
  const settled = Math.max(0, ...after)
  const clip = after.length > 0 && settled > 0 && peak > SPIKE_FACTOR * settled
  const raw = clip ? settled : peak
  const step = chart.integer === true ? Math.max(1, Math.ceil(niceMax(raw) / 4)) : niceMax(raw) / 4
  const max = step * 4
  const digits = chart.integer === true ? 0 : max < 10 ? 2 : 0
  const ticks = [0, 1, 2, 3, 4].map((i) => ({ value: step * i, label: compact(step * i, digits) }))
  const peakIndex = chart.series.flatMap((s) => s.values.map((v, j) => ({ v, j }))).find(({ v }) => v === peak)
  return { scale: "linear", min: 0, max, ticks, clipped: clip ? { value: peak, at: chart.x[peakIndex?.j ?? 0] ?? 0 } : undefined }
}

const W = 860
const H = 240
const PAD = { left: 64, right: 16, top: 14, bottom: 34 }

const svgChart = (chart: Chart): string => {
  const xs = chart.x
  const xMax = Math.max(1e-9, xs[xs.length - 1] ?? 1)
  const axis = axisOf(chart)
  const px = (x: number) => PAD.left + (x / xMax) * (W - PAD.left - PAD.right)
  const share = (y: number) => (axis.scale === "log" ? (Math.log10(y) - axis.min) / (axis.max - axis.min) : Math.min(y, axis.max) / axis.max)
  const py = (y: number) => H - PAD.bottom - share(y) * (H - PAD.top - PAD.bottom)
  const parts: Array<string> = []
  parts.push(`<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${escape(chart.title)}" class="chart" data-chart="${chart.id}" data-scale="${axis.scale}">`)
  for (const band of chart.bands) {
    const x0 = px(Math.max(0, band.from))
    const x1 = px(Math.min(xMax, band.to))
    if (x1 <= x0) continue
    parts.push(`<rect x="${x0.toFixed(1)}" y="${PAD.top}" width="${(x1 - x0).toFixed(1)}" height="${H - PAD.top - PAD.bottom}" fill="${BAND_COLORS[band.kind] ?? "#e5e7eb"}" opacity="0.55"><title>${escape(band.label)}</title></rect>`)
  }
  for (const tick of axis.ticks) {
    parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${py(tick.value).toFixed(1)}" y2="${py(tick.value).toFixed(1)}" stroke="#e5e7eb"/>`)
    parts.push(`<text x="${PAD.left - 6}" y="${(py(tick.value) + 4).toFixed(1)}" text-anchor="end" class="tick y-tick">${escape(tick.label)}</text>`)
  }
  const xStep = [0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 1440].find((step) => xMax / step <= 8) ?? xMax / 8
  for (let x = 0; x <= xMax + 1e-9; x += xStep) {
    parts.push(`<text x="${px(x).toFixed(1)}" y="${H - PAD.bottom + 16}" text-anchor="middle" class="tick">${escape(fmt(x, xStep < 1 ? 2 : 0))}</text>`)
  }
  parts.push(`<text x="${(W + PAD.left) / 2}" y="${H - 2}" text-anchor="middle" class="axis">simulated minutes since the workload started</text>`)
  parts.push(`<text x="12" y="${H / 2}" text-anchor="middle" class="axis" transform="rotate(-90 12 ${H / 2})">${escape(chart.unit)}</text>`)
  for (const s of chart.series) {
    let d = ""
    let pen = false
    s.values.forEach((v, j) => {
      if (v === undefined || !Number.isFinite(v) || (axis.scale === "log" && v <= 0)) {
        pen = false
        return
      }
      d += `${pen ? "L" : "M"}${px(xs[j]!).toFixed(1)} ${py(v).toFixed(1)} `
      pen = true
    })
    if (d !== "") parts.push(`<path d="${d.trim()}" fill="none" stroke="${s.color}" stroke-width="1.8" data-series="${escape(s.name)}"/>`)
  }
  parts.push(`<line class="cursor" x1="0" x2="0" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#111827" stroke-dasharray="3 3" visibility="hidden"/>`)
  parts.push(`<rect x="${PAD.left}" y="${PAD.top}" width="${W - PAD.left - PAD.right}" height="${H - PAD.top - PAD.bottom}" fill="transparent" class="hover"/>`)
  parts.push("</svg>")
  return parts.join("")
}

/** Says what the axis does not show: a clipped warm-up peak. */
const axisNote = (chart: Chart): string => {
  const clipped = axisOf(chart).clipped
  return clipped === undefined ? "" : `The warm-up peak of ${fmt(clipped.value, 1)} ${chart.unit} at minute ${fmt(clipped.at, 2)} is above the axis, which is scaled to the rest of the run.`
}

const legend = (chart: Chart): string =>
  `<div class="legend">${chart.series.map((s) => `<span><i style="background:${s.color}"></i>${escape(s.name)}</span>`).join("")}</div>`

/** Per-interval rates (per second) of a cumulative count. */
const rates = (samples: ReadonlyArray<TimelineSample>, of: (s: TimelineSample) => number): ReadonlyArray<number | undefined> =>
  samples.map((s, i) => {
    if (i === 0) return undefined
    const previous = samples[i - 1]!
    const seconds = (s.t - previous.t) / 1e6
    return seconds > 0 ? (of(s) - of(previous)) / seconds : undefined
  })

const deltas = (samples: ReadonlyArray<TimelineSample>, of: (s: TimelineSample) => number): ReadonlyArray<number | undefined> =>
  samples.map((s, i) => (i === 0 ? undefined : of(s) - of(samples[i - 1]!)))

export const chartsOf = (result: RunResult): ReadonlyArray<Chart> => {
  const samples = result.timeline
  const x = samples.map((s) => s.t / 60e6)
  const bands: ReadonlyArray<Band> = result.faults.events
    .filter((e) => e.kind !== "clock-skew")
    .map((e) => ({ from: (e.from - result.start) / 60e6, to: (e.to - result.start) / 60e6, label: `${e.kind}: ${e.detail}`, kind: e.kind }))
  const charts: Array<Chart> = [...protocolCharts(samples, x, bands), ...coinCharts(samples, x, bands)]
  return charts
}

/** Throughput, latency, verdicts by result and traffic spent. */
const protocolCharts = (samples: ReadonlyArray<TimelineSample>, x: ReadonlyArray<number>, bands: ReadonlyArray<Band>): ReadonlyArray<Chart> => {
  const outcomes = [...new Set(samples.flatMap((s) => Object.keys(s.verdicts)))].sort((a, b) => (a === "ACCEPTED" ? -1 : b === "ACCEPTED" ? 1 : a < b ? -1 : 1))
  const interval = samples.length > 1 ? (samples[1]!.t - samples[0]!.t) / 1e6 : 0
  return [
    {
      id: "throughput",
      title: "Throughput",
      unit: "per second",
      x,
      bands,
      series: [
        { name: "committed (accepted verdicts)", values: rates(samples, (s) => s.transactions), color: GREEN },
        { name: "commands submitted", values: rates(samples, (s) => s.submitted), color: BLUE },
        { name: "commands failed", values: rates(samples, (s) => s.failed), color: RED }
      ]
    },
    {
      id: "latency",
      title: "Latency from submission to completion (the verdict at the submitter)",
      unit: "milliseconds (log scale)",
      scale: "log",
      x,
      bands,
      series: [
        { name: "median", values: samples.map((s) => s.latency?.p50), color: BLUE },
        { name: "90th percentile", values: samples.map((s) => s.latency?.p90), color: AMBER },
        { name: "99th percentile", values: samples.map((s) => s.latency?.p99), color: RED }
      ]
    },
    {
      id: "verdicts",
      title: `Verdicts by result (per ${interval > 0 ? `${fmt(interval)} s` : "interval"})`,
      unit: "verdicts",
      integer: true,
      x,
      bands,
      series: outcomes.map((o, i) => ({ name: o, values: deltas(samples, (s) => s.verdicts[o] ?? 0), color: o === "ACCEPTED" ? GREEN : REJECTION_COLORS[(i - (outcomes[0] === "ACCEPTED" ? 1 : 0)) % REJECTION_COLORS.length]! }))
    },
    {
      id: "traffic",
      title: "Traffic spent (requests behind the verdicts)",
      unit: "kB per second",
      x,
      bands,
      series: [{ name: "traffic", values: rates(samples, (s) => s.traffic / 1000), color: PURPLE }]
    }
  ]
}

/** Coin in circulation, balances of parties and mining rounds. */
const coinCharts = (samples: ReadonlyArray<TimelineSample>, x: ReadonlyArray<number>, bands: ReadonlyArray<Band>): ReadonlyArray<Chart> => [
  {
    id: "supply",
    title: "Coin in circulation (the DSO's view)",
    unit: "coin",
    x,
    bands,
    series: [{ name: "all holdings", values: samples.map((s) => s.supply), color: GREEN }]
  },
  {
    id: "balances",
    title: "Balances of parties (unlocked holdings)",
    unit: "coin",
    x,
    bands,
    series: [
      { name: "median party", values: samples.map((s) => s.balances?.p50), color: BLUE },
      { name: "90th percentile", values: samples.map((s) => s.balances?.p90), color: AMBER },
      { name: "richest", values: samples.map((s) => s.balances?.max), color: PURPLE }
    ]
  },
  {
    id: "rounds",
    title: "Mining rounds",
    unit: "latest open round",
    integer: true,
    x,
    bands,
    series: [{ name: "latest open round", values: samples.map((s) => s.round), color: BLUE }],
    note: samples.every((s) => s.round === samples[0]?.round) ? "No round advanced in this run (the DSO automation advances one per tick)." : ""
  }
]

const SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById("chart-data").textContent);
  document.querySelectorAll("svg.chart").forEach(function (svg) {
    var chart = data[svg.getAttribute("data-chart")];
    var tip = svg.parentNode.querySelector(".tip");
    var cursor = svg.querySelector(".cursor");
    var hover = svg.querySelector(".hover");
    hover.addEventListener("mousemove", function (event) {
      var box = svg.getBoundingClientRect();
      var x = (event.clientX - box.left) / box.width * ${W};
      var share = (x - ${PAD.left}) / (${W - PAD.left - PAD.right});
      var xs = chart.x, last = xs[xs.length - 1] || 1, best = 0;
      for (var i = 0; i < xs.length; i++) if (Math.abs(xs[i] / last - share) < Math.abs(xs[best] / last - share)) best = i;
      var px = ${PAD.left} + xs[best] / last * ${W - PAD.left - PAD.right};
      cursor.setAttribute("x1", px); cursor.setAttribute("x2", px); cursor.setAttribute("visibility", "visible");
      var lines = [xs[best].toFixed(2) + " min"];
      chart.series.forEach(function (s) { var v = s.values[best]; lines.push(s.name + ": " + (v === null || v === undefined ? "-" : (Math.round(v * 100) / 100).toLocaleString("en-US"))); });
      tip.textContent = lines.join("   ");
    });
    hover.addEventListener("mouseleave", function () { cursor.setAttribute("visibility", "hidden"); tip.textContent = ""; });
  });
  document.body.setAttribute("data-rendered", String(document.querySelectorAll("svg.chart path").length));
})();
`

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #111827; margin: 24px auto; max-width: 900px; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 16px; margin: 28px 0 6px; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 3px 8px; border-bottom: 1px solid #e5e7eb; vertical-align: top; } th { white-space: nowrap; }
.ok { color: #15803d; font-weight: 600; } .bad { color: #b91c1c; font-weight: 600; }
.tick { font-size: 11px; fill: #4b5563; } .axis { font-size: 11px; fill: #6b7280; }
.legend span { margin-right: 14px; font-size: 12px; white-space: nowrap; } .legend i { display: inline-block; width: 12px; height: 3px; margin-right: 5px; vertical-align: middle; }
.tip { font: 12px ui-monospace, monospace; color: #374151; min-height: 1.4em; } .note { color: #6b7280; font-size: 12px; }
code { font: 12px ui-monospace, monospace; background: #f3f4f6; padding: 1px 4px; }
.bands span { margin-right: 12px; font-size: 12px; } .bands i { display: inline-block; width: 12px; height: 10px; margin-right: 4px; vertical-align: middle; opacity: 0.7; }
`

export const renderReport = (result: RunResult, meta: { readonly file: string; readonly generatedBy?: string } = { file: "" }): string => {
  const charts = chartsOf(result)
  const s = result.summary
  const w = s.workload
  const broken = Object.entries(result.invariants).filter(([, v]) => v.length > 0)
  const rows = (pairs: ReadonlyArray<readonly [string, string]>) => pairs.map(([k, v]) => `<tr><th>${escape(k)}</th><td>${v}</td></tr>`).join("")
  const data: Record<string, { x: ReadonlyArray<number>; series: ReadonlyArray<{ name: string; values: ReadonlyArray<number | null> }> }> = {}
  for (const c of charts) data[c.id] = { x: c.x, series: c.series.map((x) => ({ name: x.name, values: x.values.map((v) => (v === undefined || !Number.isFinite(v) ? null : v)) })) }
  const failure = result.firstFailure
  const html = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>Sandnet report: ${escape(result.scenario)}, seed ${result.seed}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escape(result.scenario)} <span class="note">seed ${result.seed}</span></h1>`,
    `<div class="note">${escape(meta.file)} · history hash <code>${result.historyHash}</code></div>`,
    "<h2>Run</h2><table>",
    rows([
      ["result", result.ok ? `<span class="ok">every invariant held</span> (${Object.keys(result.invariants).length} checked)` : `<span class="bad">${broken.length + (broken.length === 0 ? 1 : 0)} invariant(s) broken</span>`],
      ...(failure === undefined ? [] : [["first failure", `${escape(failure.invariant)} at delivery #${failure.delivery} (${formatSimTime(failure.at)}): ${escape(failure.message)}`] as const]),
      ["simulated time", `${escape(formatDuration(s.simulatedTime))} (workload ${escape(formatDuration(result.workloadDuration))}, started after ${escape(formatDuration(result.start - SIMULATION_EPOCH))} of bootstrap)`],
      ["wall time", `${fmt(result.wallTimeMs / 1000, 2)} s (${fmt(s.simulatedTime / 1000 / Math.max(1, result.wallTimeMs))}x real time)`],
      ["deliveries", fmt(s.deliveries)],
      ["verdicts", `${fmt(s.verdictsAccepted)} accepted, ${fmt(s.verdictsRejected)} rejected`],
      ["updates (DSO's scan)", fmt(s.updates)],
      ["parties", `${fmt(w.partiesOnboarded)} onboarded`],
      ["transfers", `${fmt(w.transfersSubmitted)} submitted, ${fmt(w.transfersSucceeded)} succeeded, ${fmt(w.transfersFailed)} failed`],
      ["faults", escape(faultLine(result))]
    ]),
    "</table>",
    ...(broken.length === 0
      ? []
      : ["<h2>Broken invariants</h2><table>", rows(broken.map(([name, list]) => [name, list.slice(0, 5).map(escape).join("<br>")] as const)), "</table>"]),
    ...(result.faults.events.length === 0
      ? []
      : [
          "<h2>Faults</h2>",
          `<div class="bands">${Object.entries(BAND_COLORS)
            .filter(([k]) => k !== "clock-skew")
            .map(([k, c]) => `<span><i style="background:${c}"></i>${escape(k)}</span>`)
            .join("")} (shaded on the plots)</div><table>`,
          rows([
            // Clock offsets hold for the whole run: one row for all of them.
            ...(result.faults.events.some((e) => e.kind === "clock-skew")
              ? [["whole run", `clock-skew: ${result.faults.events.filter((e) => e.kind === "clock-skew").map((e) => escape(e.detail.replace(" clock ", " "))).join(", ")}`] as const]
              : []),
            ...result.faults.events
              .filter((e) => e.kind !== "clock-skew")
              .slice(0, 200)
              .map((e) => [`${formatSimTime(e.from)} - ${formatSimTime(e.to)}`, `${escape(e.kind)}: ${escape(e.detail)}`] as const)
          ]),
          "</table>"
        ]),
    ...charts.flatMap((c) => [`<h2>${escape(c.title)}</h2>`, legend(c), svgChart(c), '<div class="tip"></div>', ...[c.note ?? "", axisNote(c)].filter((n) => n !== "").map((n) => `<div class="note">${escape(n)}</div>`)]),
    result.timeline.length === 0 ? '<p class="note">No timeline was sampled for this run.</p>' : "",
    `<p class="note">Generated by ${escape(meta.generatedBy ?? "sandnet simulate")}; self-contained (no network access needed).</p>`,
    `<script type="application/json" id="chart-data">${JSON.stringify(data).replace(/</g, "\\u003c")}</script>`,
    `<script>${SCRIPT}</script>`,
    "</body></html>"
  ]
  return html.join("\n")
}
