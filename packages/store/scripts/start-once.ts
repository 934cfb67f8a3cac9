/**
 * One PGlite-backed EventStore start in a fresh process, as a node would do it; prints JSON.
 *   node --import tsx packages/store/scripts/start-once.ts <dataDir> [templateDir]
 * `layerReadyMs`: from building the layer to a migrated, ready store; `cpuMs`: CPU time (user +
 * system) this process spent in that interval, a figure that depends less on other load.
 */
import { Effect } from "effect"
import { EmbeddedPglite, EventStore } from "../src/index.ts"

const [dataDir, template] = process.argv.slice(2)
if (dataDir === undefined) throw new Error("usage: start-once.ts <dataDir> [templateDir]")
const imported = performance.now()
const cpu = process.cpuUsage()
const info = await Effect.runPromise(
  Effect.flatMap(EventStore, () => EmbeddedPglite).pipe(
    Effect.provide(EventStore.pglite(template === undefined ? { dataDir } : { dataDir, template }))
  )
)
const used = process.cpuUsage(cpu)
console.log(JSON.stringify({
  origin: info.origin,
  ...info.timings,
  layerReadyMs: Math.round(performance.now() - imported),
  cpuMs: Math.round((used.user + used.system) / 1000),
  importMs: Math.round(imported)
}))
