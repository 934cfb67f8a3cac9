/**
 * Storage benchmark: acknowledged offer creations per second of a whole node (the HTTP ledger
 * surface's submit-and-wait, a TransferOffer create per request, answered only once committed),
 * on PGlite and on PostgreSQL, each next to a bare single-row INSERT-and-commit loop measured in
 * the same run on the same database (`benchStore` of @sandnet/store). The same node with an
 * in-memory store is measured too, to show what durability costs.
 *
 * PostgreSQL: `SANDNET_BENCH_POSTGRES_URL`, else `DATABASE_URL`, else the local test server
 * (postgres://postgres@127.0.0.1:5432/test); skipped when it cannot be reached.
 */
import * as Pg from "@effect/sql-pg/PgClient"
import type { SqlClient } from "@effect/sql/SqlClient"
import { TransferOffer } from "@sandnet/engine"
import { baseUrl, makeDevToken, NodeReadRoutes, NodeRoutes, serve } from "@sandnet/http"
import { NodeRuntime, nodeStorageLayerWith, persistentNodeRuntimeLayer, storedUserManagementLayer, type EngineInstance } from "@sandnet/node"
import { benchStore, dropSchema, EventStore, pgliteLayer, StorageError } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as os from "node:os"
import type { PostsRun } from "./load-clients.ts"
import { runClients } from "./load.ts"
import { measureDiskSync, type DiskSync } from "./disk-sync.ts"
import { fmt, postgresUrl, withTempDir } from "./machine.ts"

export interface StorageBenchRow {
  readonly database: string
  /** What was measured: W1 (wallet transfer offers) or ledger submit-and-wait creates. */
  readonly request: "W1" | "submit-and-wait"
  /** Bare single-row INSERT + commit, one after the other, per second. */
  readonly bareInsertsPerSecond: number
  /** Acknowledged offer creations per second (submit-and-wait over HTTP, `clients` concurrent). */
  readonly offersPerSecond: number
  /** offersPerSecond / bareInsertsPerSecond */
  readonly ratio: number
  /** CPU time of the node's process (PGlite too where embedded) per acknowledged offer, and of this process per bare insert, in ms. */
  readonly cpuPerOfferMs: number
  /** CPU time of the clients' process per acknowledged offer, in ms. */
  readonly clientCpuPerOfferMs: number
  readonly bareCpuPerInsertMs: number
  readonly offers: number
  readonly clients: number
  /** Store commits during the offers, and offers per commit (group commit at work). */
  readonly commits: number
  readonly offersPerCommit: number
}

export interface StorageBench {
  readonly rows: ReadonlyArray<StorageBenchRow>
  /** The same load on a node whose store is in memory (no database). */
  readonly memoryOffersPerSecond: number
  readonly memoryCpuPerOfferMs: number
  readonly memoryClientCpuPerOfferMs: number
  readonly memoryRequest: "W1" | "submit-and-wait"
  /** This machine's disk: an 8 KB write and its fdatasync in the temp directory (disk-sync.ts). */
  readonly diskSync: DiskSync
  readonly skipped: ReadonlyArray<string>
}

const OFFERS = 1500
const CLIENTS = 32
const WARMUP = 100

type Post = (token: string, path: string, body: unknown) => Promise<Response>
/** The offers' requests: a path, a token, and a body whose `$INDEX` is each request's number (its tracking or command id). */
interface OfferRequests {
  readonly path: string
  readonly token: string
  readonly bodyTemplate: string
}

/**
 * A node as `sandnet start` composes it, on port 0, on the EventStore in `storeContext`, ready for the
 * offer load; `keepsIndexes` false as `start --in-memory` has it on the memory store, and
 * `historySpillDir` where a node with a database spills its archived history.
 */
export const startOfferNode = (storeContext: Context.Context<EventStore>, keepsIndexes: boolean, historySpillDir?: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const storage = nodeStorageLayerWith({ keepsIndexes }).pipe(Layer.provideMerge(Layer.succeedContext(storeContext)))
    const runtime = persistentNodeRuntimeLayer({ wallets: true, historySpillDir }).pipe(Layer.provideMerge(storage))
    const users = storedUserManagementLayer().pipe(Layer.provide(storage))
    const layer = serve(NodeRoutes, { http: { port: 0, logRequests: false }, reads: NodeReadRoutes }).pipe(Layer.provideMerge(users), Layer.provideMerge(runtime))
    const context = yield* Layer.buildWithScope(layer, scope)
    const url = yield* Effect.provide(baseUrl, context)
    const engine = yield* Context.get(context, NodeRuntime).engine
    const store = Context.get(context, EventStore)
    const admin = yield* makeDevToken({ user: "participant_admin", secret: "unsafe" })
    const post: Post = (token, p, body) =>
      fetch(`${url}${p}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) })
    const { kind, requests } = yield* Effect.promise(() => offerRequests(url, post, engine, admin))
    /** Runs offers `first` .. `first + warmup + count - 1`, the last `count` measured (load-clients.ts); throws if any failed. */
    const load = async (first: number, warmup: number, count: number, onMeasuring?: () => void) => {
      const { path, token, bodyTemplate } = requests
      const run: PostsRun = { type: "posts", clients: CLIENTS, url: `${url}${path}`, headers: { authorization: `Bearer ${token}` }, bodyTemplate, first, warmup, count }
      const measured = await runClients(run, onMeasuring)
      const failed = Object.values(measured.done.failures).reduce((a, b) => a + b, 0)
      if (failed > 0) throw new Error(`${failed} offers failed, the first: ${measured.done.firstFailure}`)
      return measured
    }
    return { scope, store, engine, kind, load, close: Scope.close(scope, Exit.void) }
  })

/**
 * Starts a node on the EventStore in `storeContext`, runs the offer load from clients in a process
 * of their own (load-clients.ts, as users' clients are), returns offers/s, the node's and the
 * clients' CPU per offer and the store's commits. Any failed offer fails the bench.
 */
export const offerLoad = (storeContext: Context.Context<EventStore>, keepsIndexes = true, historySpillDir?: string) =>
  Effect.gen(function* () {
    const node = yield* startOfferNode(storeContext, keepsIndexes, historySpillDir)
    const result = yield* Effect.promise(async () => {
      let before = 0
      const measured = await node.load(0, WARMUP, OFFERS, () => (before = Effect.runSync(node.store.stats()).commits))
      const after = Effect.runSync(node.store.stats()).commits
      return {
        offersPerSecond: Math.round(OFFERS / measured.done.seconds),
        cpuPerOfferMs: measured.serverCpuMillis / OFFERS,
        clientCpuPerOfferMs: measured.done.clientCpuMillis / OFFERS,
        commits: after - before,
        kind: node.kind
      }
    })
    yield* node.close
    return result
  })

/** A TransferOffer create from `party` to itself, as a ledger command. */
const offerCommand = (engine: EngineInstance, run: string, party: string, index: string) => ({
  commands: [
    {
      CreateCommand: {
        templateId: TransferOffer.nameReference,
        createArguments: {
          sender: party,
          receiver: party,
          dso: engine.network.dso,
          amount: { amount: "1.0000000000", unit: "CoinUnit" },
          description: "bench",
          expiresAt: "2099-01-01T00:00:00.000000Z",
          trackingId: `bench-${run}-${index}`
        }
      }
    }
  ],
  commandId: `bench-${run}-${index}`,
  actAs: [party]
})

/**
 * What the load sends: W1 (the wallet's transfer offers with tracking ids) when the wallet surface
 * serves it, else a TransferOffer create through submit-and-wait; the users they need are created.
 */
const offerRequests = async (
  url: string,
  post: Post,
  engine: EngineInstance,
  admin: string
): Promise<{ readonly kind: "W1" | "submit-and-wait"; readonly requests: OfferRequests }> => {
  const operator = await Effect.runPromise(makeDevToken({ user: "operator", secret: "unsafe" }))
  const run = randomBytes(3).toString("hex")
  const probe = await fetch(`${url}/api/validator/v0/wallet/balance`, { headers: { authorization: `Bearer ${operator}` } })
  await probe.arrayBuffer()
  if (probe.status === 200) {
    // the validator's wallet user, as `sandnet start` creates it (administrator of the wallet)
    const operatorParty = engine.network.validators[0]!.operator
    await post(admin, "/v2/users", {
      user: { id: "operator", primaryParty: operatorParty },
      rights: [{ kind: { CanActAs: { value: { party: operatorParty } } } }, { kind: { CanReadAs: { value: { party: operatorParty } } } }, { kind: { ParticipantAdmin: { value: {} } } }]
    })
    const bob = await (await post(operator, "/api/validator/v0/admin/users", { name: `bench-${run}` })).json() as { party_id: string }
    const expiresAt = Date.now() * 1000 + 24 * 3600 * 1_000_000
    return {
      kind: "W1",
      requests: {
        path: "/api/validator/v0/wallet/transfer-offers",
        token: operator,
        bodyTemplate: JSON.stringify({ receiver_party_id: bob.party_id, amount: "1.0", description: "bench", expires_at: expiresAt, tracking_id: `bench-${run}-$INDEX` })
      }
    }
  }
  const party = ((await (await post(admin, "/v2/parties", { partyIdHint: "bench" })).json()) as { partyDetails: { party: string } }).partyDetails.party
  await post(admin, "/v2/users", { user: { id: "bench" }, rights: [{ kind: { CanActAs: { value: { party } } } }] })
  const token = await Effect.runPromise(makeDevToken({ user: "bench", secret: "unsafe" }))
  return { kind: "submit-and-wait", requests: { path: "/v2/commands/submit-and-wait", token, bodyTemplate: JSON.stringify(offerCommand(engine, run, party, "$INDEX")) } }
}

const onDatabase = (label: string, schema: string) =>
  Effect.gen(function* () {
    const bare = yield* benchStore({ bareInserts: 2000, appends: 100, writers: 1 })
    const storeScope = yield* Scope.make()
    const storeContext = yield* Layer.buildWithScope(EventStore.sql({ schema }), storeScope)
    // as `sandnet start` composes a node with a database: archived history spilled to a file
    const load = yield* offerLoad(storeContext, true, os.tmpdir()).pipe(
      Effect.ensuring(Scope.close(storeScope, Exit.void)),
      Effect.ensuring(Effect.ignore(dropSchema(schema)))
    )
    const row: StorageBenchRow = {
      database: label,
      request: load.kind,
      bareInsertsPerSecond: bare.bareInsert.opsPerSecond,
      offersPerSecond: load.offersPerSecond,
      ratio: Math.round((load.offersPerSecond / bare.bareInsert.opsPerSecond) * 100) / 100,
      cpuPerOfferMs: load.cpuPerOfferMs,
      clientCpuPerOfferMs: load.clientCpuPerOfferMs,
      bareCpuPerInsertMs: bare.bareInsert.cpuMsPerOp,
      offers: OFFERS,
      clients: CLIENTS,
      commits: load.commits,
      offersPerCommit: Math.round((OFFERS / Math.max(load.commits, 1)) * 10) / 10
    }
    return row
  })

type OnDatabase = Effect.Effect<StorageBenchRow, unknown, SqlClient | Pg.PgClient>

export const benchStorage = async (): Promise<StorageBench> => {
  const rows: Array<StorageBenchRow> = []
  const skipped: Array<string> = []
  const schema = `sandnet_bench_node_${process.pid}`
  try {
    const pglite: OnDatabase = onDatabase("PGlite (embedded, via socket)", schema)
    rows.push(await withTempDir("sandnet-bench-node-", (dataDir) => Effect.runPromise(pglite.pipe(Effect.provide(pgliteLayer({ dataDir }))))))
  } catch (error) {
    skipped.push(`PGlite: ${error instanceof Error ? error.message : String(error)}`)
  }
  const url = postgresUrl()
  try {
    const client = Pg.layer({ url: Redacted.make(url), maxConnections: 4 }).pipe(
      Layer.mapError((e) => new StorageError({ operation: "connect", message: e.message }))
    )
    rows.push(await Effect.runPromise((onDatabase(`PostgreSQL (${url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@")})`, schema) as OnDatabase).pipe(Effect.provide(client))))
  } catch (error) {
    skipped.push(`PostgreSQL: ${error instanceof Error ? error.message : String(error)}`)
  }
  const memory = await Effect.runPromise(Effect.scoped(Effect.flatMap(Layer.build(EventStore.memory), (ctx) => offerLoad(ctx, false))))
  const diskSync = measureDiskSync(os.tmpdir())
  return { rows, memoryOffersPerSecond: memory.offersPerSecond, memoryCpuPerOfferMs: memory.cpuPerOfferMs, memoryClientCpuPerOfferMs: memory.clientCpuPerOfferMs, memoryRequest: memory.kind, diskSync, skipped }
}

const requestText = {
  W1: "W1: `POST /api/validator/v0/wallet/transfer-offers` with a tracking id",
  "submit-and-wait": "`POST /v2/commands/submit-and-wait` with one TransferOffer create"
} as const

export const renderStorage = (s: StorageBench): Array<string> => [
  "## Storage (acknowledged writes)",
  "",
  `A whole node (\`sandnet start\`'s composition, on port 0) answers ${fmt(OFFERS)} offer creations`,
  `(${CLIENTS} concurrent clients in a process of their own, after ${WARMUP} warm-up requests); a 200 means the offer's journal entries`,
  "are committed. Baseline: a bare single-row `INSERT` + commit loop on the same database in the same run",
  "(packages/store/src/bench.ts). Requests: " + [...new Set([...s.rows.map((r) => r.request), s.memoryRequest])].map((k) => requestText[k]).join("; ") + ".",
  "",
  "The CPU columns are user + system time: the bench's per bare insert, the node's process per acknowledged offer (PGlite",
  "included where it is embedded), the clients' process per offer; they move less than the rates when other work",
  "shares the machine. (Until 2026-11-29 the clients ran in the node's process, on its event loop, with `fetch`.)",
  "",
  "| database | request | bare INSERT+commit/s | acknowledged offers/s | ratio | CPU ms per bare insert | node CPU ms per offer | clients' CPU ms per offer | commits | offers per commit |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...s.rows.map(
    (r) =>
      `| ${r.database} | ${r.request} | ${fmt(r.bareInsertsPerSecond)} | **${fmt(r.offersPerSecond)}** | **${fmt(r.ratio, 2)}x** | ${fmt(r.bareCpuPerInsertMs, 3)} | ${fmt(r.cpuPerOfferMs, 2)} | ${fmt(r.clientCpuPerOfferMs, 2)} | ${fmt(r.commits)} | ${fmt(r.offersPerCommit, 1)} |`
  ),
  `| memory (no database, same node) | ${s.memoryRequest} | | ${fmt(s.memoryOffersPerSecond)} | | | ${fmt(s.memoryCpuPerOfferMs, 2)} | ${fmt(s.memoryClientCpuPerOfferMs, 2)} | | |`,
  "",
  ...renderDiskSync(s),
  ...(s.skipped.length > 0 ? [`Skipped: ${s.skipped.join("; ")}.`, ""] : [])
]

/** The disk's sync beside the bare commit of each server database (PGlite runs with fsync off). */
const renderDiskSync = (s: StorageBench): Array<string> => {
  const server = s.rows.find((r) => r.database.startsWith("PostgreSQL"))
  const share = server === undefined ? "" : `, ${fmt((100 * s.diskSync.microsPerSync) / (1e6 / server.bareInsertsPerSecond))}% of a bare PostgreSQL commit here (${fmt(1000 / server.bareInsertsPerSecond, 2)} ms)`
  return [
    `Baseline: this machine's disk syncs an 8 KB write (\`fdatasync\` in the temp directory, what a PostgreSQL commit waits for`,
    `at least) in **${fmt(s.diskSync.microsPerSync)} µs**${share}. Group commit shares that sync among a commit's offers and`,
    "can gain no more than it; the rest of a bare commit (its round trip, PostgreSQL's CPU) an offer's commit only adds to. Where",
    "the sync is a small part of a commit, the bare loop is bound by CPU, and so is the ratio; on a disk whose sync takes",
    "milliseconds the same node passes the bare loop (docs/benchmarks.md, the W1 row with a slower sync, 2026-11-30 night).",
    "A PostgreSQL server on another machine syncs its own disk.",
    ""
  ]
}
