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
}

interface Band {
  readonly from: number
  readonly to: number
  readonly label: string
  readonly kind: string
}

interface Chart {
  readonly id: string
  readonly title: string
  readonly unit: string
  readonly x: ReadonlyArray<number>
  readonly series: ReadonlyArray<Series>
  readonly bands: ReadonlyArray<Band>
  readonly note?: string
}

const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563", "#65a30d", "#9333ea"]
const BAND_COLORS: Record<string, string> = { crash: "#fecaca", "mediator-timeout": "#fde68a", partition: "#bfdbfe", "clock-skew": "#e9d5ff" }

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const fmt = (n: number, digits = 0): string => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 })

const niceMax = (max: number): number => {
  if (!(max > 0)) return 1
  const exponent = Math.pow(10, Math.floor(Math.log10(max)))
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * exponent >= max) return m * exponent
  return 10 * exponent
}

const W = 860
const H = 240
const PAD = { left: 64, right: 16, top: 14, bottom: 34 }

const svgChart = (chart: Chart): string => {
  const xs = chart.x
  const xMax = Math.max(1e-9, xs[xs.length - 1] ?? 1)
  let yMaxRaw = 0
  for (const s of chart.series) for (const v of s.values) if (v !== undefined && Number.isFinite(v)) yMaxRaw = Math.max(yMaxRaw, v)
  const yMax = niceMax(yMaxRaw)
  const px = (x: number) => PAD.left + (x / xMax) * (W - PAD.left - PAD.right)
  const py = (y: number) => H - PAD.bottom - (y / yMax) * (H - PAD.top - PAD.bottom)
  const parts: Array<string> = []
  parts.push(`<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${escape(chart.title)}" class="chart" data-chart="${chart.id}">`)
  for (const band of chart.bands) {
    const x0 = px(Math.max(0, band.from))
    const x1 = px(Math.min(xMax, band.to))
    if (x1 <= x0) continue
    parts.push(`<rect x="${x0.toFixed(1)}" y="${PAD.top}" width="${(x1 - x0).toFixed(1)}" height="${H - PAD.top - PAD.bottom}" fill="${BAND_COLORS[band.kind] ?? "#e5e7eb"}" opacity="0.55"><title>${escape(band.label)}</title></rect>`)
  }
  for (let i = 0; i <= 4; i++) {
    const y = (yMax * i) / 4
    parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${py(y).toFixed(1)}" y2="${py(y).toFixed(1)}" stroke="#e5e7eb"/>`)
    parts.push(`<text x="${PAD.left - 6}" y="${(py(y) + 4).toFixed(1)}" text-anchor="end" class="tick">${escape(fmt(y, yMax < 10 ? 2 : 0))}</text>`)
  }
  const xStep = [0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 1440].find((step) => xMax / step <= 8) ?? xMax / 8
  for (let x = 0; x <= xMax + 1e-9; x += xStep) {
    parts.push(`<text x="${px(x).toFixed(1)}" y="${H - PAD.bottom + 16}" text-anchor="middle" class="tick">${escape(fmt(x, xStep < 1 ? 2 : 0))}</text>`)
  }
  parts.push(`<text x="${(W + PAD.left) / 2}" y="${H - 4}" text-anchor="middle" class="axis">simulated minutes since the workload started</text>`)
  parts.push(`<text x="14" y="${H / 2}" text-anchor="middle" class="axis" transform="rotate(-90 14 ${H / 2})">${escape(chart.unit)}</text>`)
  chart.series.forEach((s, i) => {
    let d = ""
    let pen = false
    s.values.forEach((v, j) => {
      if (v === undefined || !Number.isFinite(v)) {
        pen = false
        return
      }
      d += `${pen ? "L" : "M"}${px(xs[j]!).toFixed(1)} ${py(v).toFixed(1)} `
      pen = true
    })
    if (d !== "") parts.push(`<path d="${d.trim()}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.8"/>`)
  })
  parts.push(`<line class="cursor" x1="0" x2="0" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#111827" stroke-dasharray="3 3" visibility="hidden"/>`)
  parts.push(`<rect x="${PAD.left}" y="${PAD.top}" width="${W - PAD.left - PAD.right}" height="${H - PAD.top - PAD.bottom}" fill="transparent" class="hover"/>`)
  parts.push("</svg>")
  return parts.join("")
}

const legend = (chart: Chart): string =>
  `<div class="legend">${chart.series.map((s, i) => `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${escape(s.name)}</span>`).join("")}</div>`

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
        { name: "committed (accepted verdicts)", values: rates(samples, (s) => s.transactions) },
        { name: "commands submitted", values: rates(samples, (s) => s.submitted) },
        { name: "commands failed", values: rates(samples, (s) => s.failed) }
      ]
    },
    {
      id: "latency",
      title: "Latency from submission to completion (the verdict at the submitter)",
      unit: "milliseconds",
      x,
      bands,
      series: [
        { name: "median", values: samples.map((s) => s.latency?.p50) },
        { name: "90th percentile", values: samples.map((s) => s.latency?.p90) },
        { name: "99th percentile", values: samples.map((s) => s.latency?.p99) }
      ]
    },
    {
      id: "verdicts",
      title: `Verdicts by result (per ${interval > 0 ? `${fmt(interval)} s` : "interval"})`,
      unit: "verdicts",
      x,
      bands,
      series: outcomes.map((o) => ({ name: o, values: deltas(samples, (s) => s.verdicts[o] ?? 0) }))
    },
    {
      id: "traffic",
      title: "Traffic spent (requests behind the verdicts)",
      unit: "kB per second",
      x,
      bands,
      series: [{ name: "traffic", values: rates(samples, (s) => s.traffic / 1000) }]
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
    series: [{ name: "all holdings", values: samples.map((s) => s.supply) }]
  },
  {
    id: "balances",
    title: "Balances of parties (unlocked holdings)",
    unit: "coin",
    x,
    bands,
    series: [
      { name: "median party", values: samples.map((s) => s.balances?.p50) },
      { name: "90th percentile", values: samples.map((s) => s.balances?.p90) },
      { name: "richest", values: samples.map((s) => s.balances?.max) }
    ]
  },
  {
    id: "rounds",
    title: "Mining rounds",
    unit: "latest open round",
    x,
    bands,
    series: [{ name: "latest open round", values: samples.map((s) => s.round) }],
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
    ...charts.flatMap((c) => [`<h2>${escape(c.title)}</h2>`, legend(c), svgChart(c), '<div class="tip"></div>', c.note !== undefined && c.note !== "" ? `<div class="note">${escape(c.note)}</div>` : ""]),
    result.timeline.length === 0 ? '<p class="note">No timeline was sampled for this run.</p>' : "",
    `<p class="note">Generated by ${escape(meta.generatedBy ?? "sandnet simulate")}; self-contained (no network access needed).</p>`,
    `<script type="application/json" id="chart-data">${JSON.stringify(data).replace(/</g, "\\u003c")}</script>`,
    `<script>${SCRIPT}</script>`,
    "</body></html>"
  ]
  return html.join("\n")
}
