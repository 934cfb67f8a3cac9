/**
 * The behavioural suite on the embedded PGlite. Its tests share one database, a schema each (the
 * store's layers as `EventStore.pglite` composes them, on a PGlite opened once for the file: each
 * PGlite opened costs about a second of a test run); the restart test opens a data directory of
 * its own and closes and reopens PGlite itself.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import type { SqlClient } from "@effect/sql/SqlClient"
import type * as PgClient from "@effect/sql-pg/PgClient"
import { type Context, Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EmbeddedPglite, EventStore, pgliteLayer } from "../src/index.ts"
import { behaviouralSuite } from "./suite.ts"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-store-pglite-"))
const shared = path.join(root, "shared")
const scope = Effect.runSync(Scope.make())
let database: Context.Context<EmbeddedPglite | PgClient.PgClient | SqlClient> | undefined
let n = 0

beforeAll(async () => {
  database = await Effect.runPromise(Layer.buildWithScope(pgliteLayer({ dataDir: shared }), scope))
}, 60_000)
afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  fs.rmSync(root, { recursive: true, force: true })
})

behaviouralSuite(
  "pglite",
  () => Effect.sync(() => ({ layer: EventStore.onPglite({ dataDir: shared, schema: `t${n++}` }).pipe(Layer.provide(Layer.succeedContext(database!))), groupCommit: true })),
  () => Effect.sync(() => ({ layer: EventStore.pglite({ dataDir: path.join(root, `restart${n++}`) }), groupCommit: true }))
)
