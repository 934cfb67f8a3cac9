/**
 * PGlite start-up figures for docs/storage.md, each start in a fresh process:
 *   npx tsx packages/store/scripts/startup.ts [rounds]
 * first start on a machine (initdb into a new template), new data directory from the template,
 * reopen of an existing one; prints min / median / max of the wall time to a ready store and of
 * the CPU time, and the load average before and after.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const rounds = Number(process.argv[2] ?? 5)
const once = fileURLToPath(new URL("./start-once.ts", import.meta.url))
const root = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-startup-"))

interface Sample { origin: string; layerReadyMs: number; cpuMs: number; prepareMs: number; openMs: number }
const start = (...args: Array<string>): Sample => {
  const child = spawnSync(process.execPath, ["--import", "tsx", once, ...args], { encoding: "utf8" })
  const line = child.stdout.trim().split("\n").pop() ?? ""
  if (child.status !== 0) throw new Error(child.stderr)
  return JSON.parse(line) as Sample
}
const stats = (values: Array<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] }
}
const report = (label: string, samples: Array<Sample>) =>
  console.log(label, JSON.stringify({
    n: samples.length,
    readyMs: stats(samples.map((s) => s.layerReadyMs)),
    cpuMs: stats(samples.map((s) => s.cpuMs)),
    prepareMs: stats(samples.map((s) => s.prepareMs)),
    openMs: stats(samples.map((s) => s.openMs))
  }))

console.log("load before", os.loadavg().map((l) => l.toFixed(2)).join(" "), "cpus", os.cpus().length)
const first: Array<Sample> = []
const fromTemplate: Array<Sample> = []
const reopen: Array<Sample> = []
for (let i = 0; i < rounds; i++) {
  // first start on a machine: no template yet
  first.push(start(path.join(root, `first${i}`), path.join(root, `template${i}`)))
  fromTemplate.push(start(path.join(root, `new${i}`)))
  reopen.push(start(path.join(root, `new${i}`)))
}
report("first start (initdb, template created)", first)
report("new data directory from the template", fromTemplate)
report("reopen", reopen)
console.log("load after", os.loadavg().map((l) => l.toFixed(2)).join(" "))
fs.rmSync(root, { recursive: true, force: true })
