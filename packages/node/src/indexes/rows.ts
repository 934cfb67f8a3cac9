/**
 * The stored index rows: key-value rows for fast reads (the ACS of each node, the scan of each
 * super validator) that follow every write batch. What a network's nodes should have stored, and
 * the check (and repair) of what is stored against it.
 */
import type { CommittedUpdate } from "@sandnet/core"
import type { CoinNetwork } from "@sandnet/engine"
import type { EventStoreService, SnapshotEntry, SnapshotRef } from "@sandnet/store"
import { Effect } from "effect"
import { Streams } from "../journal/streams.ts"

/** A row of the stored scan index. */
export interface ScanIndexRow {
  readonly offset: number
  readonly recordTime: number
  readonly migrationId: number
  readonly synchronizerId: string
  readonly kind: "transaction" | "reassignment"
}

export const scanRowOf = (entry: CommittedUpdate, migrationOf: (synchronizerId: string) => number): ScanIndexRow | undefined => {
  const u = entry.update
  if (u.kind === "topology") return undefined
  return {
    offset: entry.offset,
    recordTime: u.recordTime,
    migrationId: u.kind === "transaction" ? u.migrationId : migrationOf(u.synchronizerId),
    synchronizerId: u.synchronizerId,
    kind: u.kind
  }
}

/** The index rows a network's nodes `hostedHere` should have stored, by stream. */
export const indexRowsOf = (network: CoinNetwork, hostedHere: (node: { readonly name: string }) => boolean): Map<string, Map<string, unknown>> => {
  const migrationOf = (synchronizerId: string) => network.topology.synchronizer(synchronizerId as never)?.migrationId ?? 0
  const out = new Map<string, Map<string, unknown>>()
  for (const node of [...network.superValidators, ...network.validators]) {
    if (!hostedHere(node)) continue
    const acs = new Map<string, unknown>()
    for (const c of node.participant.logic.acs.all()) acs.set(c.created.contractId, c)
    out.set(Streams.acsIndex(node.name), acs)
    if (!network.superValidators.some((sv) => sv.name === node.name)) continue
    const scan = new Map<string, unknown>()
    for (const entry of node.participant.logic.log) {
      const row = scanRowOf(entry, migrationOf)
      if (row !== undefined) scan.set(entry.update.updateId, row)
    }
    out.set(Streams.scanIndex(node.name), scan)
  }
  return out
}

export interface IndexRowCheck {
  readonly stream: string
  readonly rows: number
  readonly missing: number
  readonly extra: number
  readonly differing: number
}

/**
 * Compares the stored index rows with `expected` (indexRowsOf) and, with `repair`, rewrites what
 * differs in one write. Returns one line of figures per stream.
 */
export const checkIndexRows = (store: EventStoreService, expected: ReadonlyMap<string, ReadonlyMap<string, unknown>>, repair: boolean) =>
  Effect.gen(function* () {
    const checks: Array<IndexRowCheck> = []
    const putSnapshots: Array<SnapshotEntry> = []
    const deleteSnapshots: Array<SnapshotRef> = []
    for (const [stream, rows] of expected) {
      const stored = new Map((yield* store.listSnapshots(stream)).map((r) => [r.key, r.body] as const))
      let missing = 0
      let differing = 0
      for (const [key, body] of rows) {
        const have = stored.get(key)
        if (have === undefined) missing++
        else if (JSON.stringify(have) !== JSON.stringify(body)) differing++
        else continue
        putSnapshots.push({ stream, key, body })
      }
      let extra = 0
      for (const key of stored.keys()) {
        if (rows.has(key)) continue
        extra++
        deleteSnapshots.push({ stream, key })
      }
      checks.push({ stream, rows: rows.size, missing, extra, differing })
    }
    if (repair && (putSnapshots.length > 0 || deleteSnapshots.length > 0)) yield* store.write({ putSnapshots, deleteSnapshots })
    return checks
  })
