/**
 * Offline storage commands (the node must not be running on the same store: the PGlite data
 * directory lock and the PostgreSQL schema lock refuse a second process):
 *
 *   sandnet rebuild  [--data-dir DIR | --database-url URL [--schema S] | --node-name N]
 *       replays every journal into a fresh engine, recomputes the derived indexes (ACS per
 *       participant, scan updates and verdicts, packages, parties), checks them against the stored
 *       ones (at the journal position they were taken) and stores the recomputed ones.
 *   sandnet snapshot --out FILE [storage options]    writes the network's journals to an archive
 *   sandnet restore  --in FILE  [storage options]    replaces the network by an archive's
 */
import { micros } from "@sandnet/core"
import { defaultCoinNetworkConfig, type CoinNetworkConfig } from "@sandnet/engine"
import {
  checkIndexRows,
  decodeArchive,
  DERIVED_KEY,
  derivedIndexes,
  encodeArchive,
  exportNetwork,
  importNetwork,
  indexRowsOf,
  makeNodeStorage,
  readJournals,
  readSequencerSnapshots,
  replayNetwork,
  StorageInfo,
  storageLayer,
  Streams,
  type DerivedIndexes,
  type JournalBody
} from "@sandnet/node"
import { EventStore } from "@sandnet/store"
import { Clock, Console, Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import { agreeingStorage, storageChoice, type StorageOptions } from "./start.ts"

/**
 * What the comparison with the stored digest of the indexes found. A store closed by kill -9 may
 * hold none yet (the node writes it now and then and at shutdown); the index rows are still
 * compared, one line per stream, after this one, so the line says only what is missing.
 */
export const digestLine = (hasStoredDigest: boolean, problems: ReadonlyArray<string>, upTo: number): string =>
  !hasStoredDigest
    ? "  no stored digest of the indexes yet (the node writes one at shutdown): only the index rows below are compared"
    : problems.length === 0
      ? `  stored indexes (at journal position ${upTo}) equal the recomputed ones`
      : `  stored indexes (at journal position ${upTo}) DIFFER:\n${problems.map((p) => `    ${p}`).join("\n")}`

const fail = (message: string) => Effect.zipRight(Console.error(message), Effect.sync(() => (process.exitCode = 1)))

/**
 * Runs a storage command on the store its flags pick: flags that disagree are refused first (a
 * usage error, exit 2), and a failure of the command itself is printed as `<command> failed: ...` (exit 1).
 */
const withStore = <A, E extends { readonly message: string }>(command: string, options: StorageOptions, f: (info: string) => Effect.Effect<A, E, EventStore>) =>
  Effect.zipRight(
    agreeingStorage(options),
    Effect.flatMap(StorageInfo, (info) => f(info.text)).pipe(
      Effect.provide(storageLayer(storageChoice(options))),
      Effect.scoped,
      Effect.catchAll((error) => fail(`${command} failed: ${error.message}`))
    )
  )

/** Field-by-field differences of two JSON values (paths of what differs). */
const differences = (a: unknown, b: unknown, path = ""): Array<string> => {
  if (JSON.stringify(a) === JSON.stringify(b)) return []
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return [`${path || "/"}: stored ${JSON.stringify(a)}, recomputed ${JSON.stringify(b)}`]
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  return [...keys].flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k}`))
}

export const rebuild = (options: StorageOptions) =>
  withStore("rebuild", options, (info) =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const started = performance.now()
      const journals = yield* readJournals(store)
      if (journals.entries.length === 0) return yield* Console.log(`${info}: no journals (a node has not run on this store yet)`)
      const config: CoinNetworkConfig = journals.config ?? defaultCoinNetworkConfig
      const now = Math.max(micros.fromNanos(yield* Clock.currentTimeNanos), journals.clock?.now ?? 0)
      const { network, replay } = yield* replayNetwork(config, now)
      const stored = Option.getOrUndefined(yield* store.getSnapshot(Streams.derived, DERIVED_KEY)) as DerivedIndexes | undefined
      const upTo = stored?.ordinal ?? journals.lastOrdinal
      const ordinal = (e: { readonly body: unknown }) => (e.body as JournalBody).n
      const head = journals.entries.filter((e) => ordinal(e) <= upTo)
      const tail = journals.entries.filter((e) => ordinal(e) > upTo)
      const first = replay(head)
      if (Either.isLeft(first)) return yield* fail(`rebuild failed: ${first.left.message}`)
      const atStored = derivedIndexes(network, upTo, stored === undefined ? 2 : stored.format ?? 1)
      const problems = stored === undefined ? [] : differences(stored, atStored)
      const second = replay(tail, yield* readSequencerSnapshots(store, network))
      if (Either.isLeft(second)) return yield* fail(`rebuild failed: ${second.left.message}`)
      const recomputed = derivedIndexes(network, journals.lastOrdinal)
      // the stored index rows of the nodes whose journals this store holds (one node in a cluster)
      const hosted = (node: { readonly name: string }) => journals.heads.has(Streams.participant(node.name))
      const rowChecks = yield* checkIndexRows(store, indexRowsOf(network, hosted), true)
      const rowProblems = rowChecks.filter((c) => c.missing + c.extra + c.differing > 0)
      const lines = [
        `${info}: ${journals.entries.length} journal entries in ${journals.heads.size} streams replayed (${journals.admin.length} user management events) in ${((performance.now() - started) / 1000).toFixed(2)} s`,
        ...recomputed.participants.map((p) => `  ${p.name.padEnd(12)} ledger end ${p.ledgerEnd}, ${p.activeContracts} active contracts`),
        ...recomputed.scans.map((s) => `  scan ${s.name.padEnd(7)} ${s.updates} updates, ${s.verdicts} verdicts`),
        `  ${recomputed.packages.length} packages, ${recomputed.parties} parties`,
        digestLine(stored !== undefined, problems, upTo),
        ...rowChecks.map((c) =>
          c.missing + c.extra + c.differing === 0
            ? `  ${c.stream}: ${c.rows} rows, equal to the recomputed ones`
            : `  ${c.stream}: ${c.rows} rows recomputed; stored rows DIFFER (${c.missing} missing, ${c.extra} extra, ${c.differing} differing): rewritten`
        )
      ]
      yield* Console.log(lines.join("\n"))
      yield* store.putSnapshot(Streams.derived, DERIVED_KEY, recomputed)
      if (problems.length > 0 || rowProblems.length > 0) yield* Effect.sync(() => (process.exitCode = 1))
    })
  )

/** `sandnet snapshot --out FILE`. */
export const snapshot = ({ out, ...options }: StorageOptions & { readonly out: string }) =>
  withStore("snapshot", options, (info) =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const snapshot = yield* exportNetwork(store, new Date().toISOString())
      const archive = encodeArchive(snapshot)
      yield* Effect.sync(() => fs.writeFileSync(out, archive))
      yield* Console.log(`${info}: ${snapshot.entries.length} journal entries written to ${out} (${archive.length} bytes)`)
    })
  )

/** `sandnet restore --in FILE`. */
export const restore = ({ in: file, ...options }: StorageOptions & { readonly in: string }) =>
  withStore("restore", options, (info) =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const decoded = decodeArchive(fs.readFileSync(file))
      if (Either.isLeft(decoded)) return yield* fail(`${file}: ${decoded.left.reason}`)
      yield* importNetwork(store, decoded.right)
      // check that it replays
      yield* Effect.scoped(Effect.flatMap(makeNodeStorage(store), () => Effect.void))
      yield* Console.log(`${info}: network replaced by ${file} (${decoded.right.entries.length} journal entries; users and rights kept)`)
    })
  )
