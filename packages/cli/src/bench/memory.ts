/**
 * The `memory` section of `sandnet bench`: what a running node keeps per committed transaction.
 * A node as `sandnet start` composes it (in memory, and on an embedded PGlite data directory)
 * answers W1 offer creations (each one committed transaction) from 32 concurrent clients; the
 * JavaScript heap after a full garbage collection, the process's RSS and its external memory are
 * read before and after, and the difference is divided by the transactions committed. Baselines
 * from the same run: the node at rest before the load (what it holds whatever the history), and
 * the bytes of journal JSON the same transactions wrote to the store (what a node must keep
 * somewhere, in the store, per transaction).
 */
import { historySpillDirOf } from "@sandnet/node"
import { EventStore, pgliteLayer } from "@sandnet/store"
import { Context, Effect, Layer } from "effect"
import { startOfferNode } from "./storage.ts"
import { fmt, kbPerTx, mib, withTempDir } from "./machine.ts"
import { sample } from "./heap-sample.ts"
import { benchSoak, renderSoak, soakSeconds, soakStore, type SoakBench } from "./soak.ts"

export interface MemoryBenchRow {
  readonly store: string
  readonly transactions: number
  /** After a full GC, before the load (after the warm-up) and after it, in bytes. */
  readonly heapBefore: number
  readonly heapAfter: number
  readonly rssBefore: number
  readonly rssAfter: number
  /** External memory (ArrayBuffers, PGlite's WebAssembly memory), before and after. */
  readonly externalBefore: number
  readonly externalAfter: number
  /** Bytes of journal JSON the transactions wrote to the store. */
  readonly journalBytes: number
}

export interface MemoryBench {
  readonly rows: ReadonlyArray<MemoryBenchRow>
  /** The mixed load over minutes (soak.ts); absent when SANDNET_BENCH_SOAK_SECONDS is 0. */
  readonly soak: SoakBench | undefined
  readonly skipped: ReadonlyArray<string>
}

const TRANSACTIONS = 3000
const WARMUP = 200

/** Bytes of JSON of the entries appended after `heads`. */
const journalBytesSince = (store: EventStore["Type"], heads: ReadonlyMap<string, number>) =>
  Effect.gen(function* () {
    let bytes = 0
    for (const stream of yield* store.streams()) {
      const entries = yield* store.readStream(stream, (heads.get(stream) ?? 0) + 1)
      for (const entry of entries) bytes += JSON.stringify(entry.body).length + entry.kind.length
    }
    return bytes
  })

const headsOf = (store: EventStore["Type"]) =>
  Effect.gen(function* () {
    const heads = new Map<string, number>()
    for (const stream of yield* store.streams()) heads.set(stream, yield* store.lastSeq(stream))
    return heads
  })

const measure = (label: string, storeContext: Context.Context<EventStore>, keepsIndexes: boolean, historySpillDir?: string) =>
  Effect.gen(function* () {
    const node = yield* startOfferNode(storeContext, keepsIndexes, historySpillDir)
    yield* Effect.promise(() => node.load(0, 0, WARMUP))
    const heads = yield* headsOf(node.store)
    const before = sample()
    yield* Effect.promise(() => node.load(WARMUP, 0, TRANSACTIONS))
    const after = sample()
    const journalBytes = yield* journalBytesSince(node.store, heads)
    yield* node.close
    const row: MemoryBenchRow = {
      store: label,
      transactions: TRANSACTIONS,
      heapBefore: before.heap,
      heapAfter: after.heap,
      rssBefore: before.rss,
      rssAfter: after.rss,
      externalBefore: before.external,
      externalAfter: after.external,
      journalBytes
    }
    return row
  })

export const benchMemory = async (): Promise<MemoryBench> => {
  const rows: Array<MemoryBenchRow> = []
  const skipped: Array<string> = []
  rows.push(
    await Effect.runPromise(Effect.scoped(Effect.flatMap(Layer.build(EventStore.memory), (ctx) => measure("in memory (`--in-memory`)", ctx, false))))
  )
  try {
    const pglite = (dataDir: string) =>
      Effect.scoped(
        Effect.flatMap(Layer.build(EventStore.sql({ schema: "sandnet" }).pipe(Layer.provide(pgliteLayer({ dataDir })))), (ctx) =>
          measure("PGlite (embedded data directory)", ctx, true, historySpillDirOf({ _tag: "pglite", dataDir }))
        )
      )
    rows.push(await withTempDir("sandnet-bench-memory-", (dataDir) => Effect.runPromise(pglite(dataDir))))
  } catch (error) {
    skipped.push(`PGlite: ${error instanceof Error ? error.message : String(error)}`)
  }
  const seconds = soakSeconds()
  return { rows, soak: seconds === 0 ? undefined : await benchSoak(seconds, soakStore()), skipped }
}


export const renderMemory = (m: MemoryBench): Array<string> => [
  "## Memory of a running node",
  "",
  `A node as \`sandnet start\` composes it (wallets and automations on, port 0) answers ${fmt(TRANSACTIONS)} W1 offer creations`,
  `(\`POST /api/validator/v0/wallet/transfer-offers\`, 32 concurrent clients, after ${WARMUP} warm-up requests); each is one`,
  "committed transaction. Memory is read after a full garbage collection before and after the load; kept per",
  "transaction = (after - before) / transactions. Baselines from the same run: the node at rest (before), and the",
  "journal JSON the same transactions wrote to the store (for `--in-memory` the store is in the heap too).",
  "Issue 13's target: at most 2 KB kept per committed transaction.",
  "",
  "| store | transactions | heap before → after (MiB) | **heap kept per transaction** | RSS before → after (MiB) | RSS per transaction | external before → after (MiB) | baseline: journal JSON per transaction |",
  "|---|---|---|---|---|---|---|---|",
  ...m.rows.map(
    (r) =>
      `| ${r.store} | ${fmt(r.transactions)} | ${mib(r.heapBefore)} → ${mib(r.heapAfter)} | **${kbPerTx(r.heapAfter - r.heapBefore, r.transactions)} KB** | ${mib(r.rssBefore)} → ${mib(r.rssAfter)} | ${kbPerTx(r.rssAfter - r.rssBefore, r.transactions)} KB | ${mib(r.externalBefore)} → ${mib(r.externalAfter)} | ${kbPerTx(r.journalBytes, r.transactions)} KB |`
  ),
  "",
  ...(m.soak === undefined ? [] : renderSoak(m.soak)),
  ...(m.skipped.length > 0 ? [`Skipped: ${m.skipped.join("; ")}.`, ""] : [])
]
