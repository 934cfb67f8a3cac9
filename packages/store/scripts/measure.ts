/**
 * Reproduces the figures in docs/storage.md:
 *   npx tsx packages/store/scripts/measure.ts [postgres-url] [--initdb]
 * Prints JSON: PGlite start-up samples, then benchStore on PGlite and (if a URL is given) PostgreSQL,
 * then appends through the memory store.
 */
import { Effect } from "effect"
import { benchMemory, benchPglite, benchPostgres, measurePgliteStartup } from "../src/index.ts"

const url = process.argv.slice(2).find((arg) => arg.startsWith("postgres"))
const includeInitdb = process.argv.includes("--initdb")

const program = Effect.gen(function*() {
  const print = (label: string, value: unknown) => Effect.sync(() => console.log(label, JSON.stringify(value)))
  yield* print("pglite startup", yield* measurePgliteStartup({ runs: 3, includeInitdb }))
  for (const writers of [1, 16, 64]) {
    yield* print(`pglite writers=${writers}`, yield* benchPglite({ writers, appends: 3000, bareInserts: 2000 }))
  }
  if (url !== undefined) {
    for (const writers of [1, 16, 64]) {
      yield* print(`postgres writers=${writers}`, yield* benchPostgres({ url, writers, appends: 3000, bareInserts: 2000 }))
    }
  }
  yield* print("memory writers=64", yield* benchMemory({ writers: 64, appends: 100_000 }))
})

Effect.runPromise(program).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
