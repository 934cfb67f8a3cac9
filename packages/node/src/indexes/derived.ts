/**
 * Derived indexes: digests of a network's state (ACS per participant, scan updates and verdicts,
 * packages, parties), stored in the `derived` stream now and then and at shutdown, and checked by
 * `sandnet rebuild` against the ones it recomputes from the journals.
 */
import { invariant, runningParts, sha256OfParts, type RunningParts } from "@sandnet/core"
import { LedgerApi, type ArchivedLog, type CoinNetwork } from "@sandnet/engine"
import { Streams } from "../journal/streams.ts"
import type { NodeStorageService } from "../storage/node-storage.ts"

export interface DerivedIndexes {
  /** How the scan digests are made (see `DigestFormat`); absent in indexes stored before format 2. */
  readonly format?: 2
  /** Ordinal of the last journal entry the indexes include. */
  readonly ordinal: number
  readonly participants: ReadonlyArray<{
    readonly name: string
    readonly ledgerEnd: number
    readonly activeContracts: number
    /** sha256 over the sorted active contract ids. */
    readonly acsDigest: string
    readonly lastUpdateId: string | null
  }>
  readonly scans: ReadonlyArray<{
    readonly name: string
    readonly updates: number
    readonly verdicts: number
    readonly digest: string
  }>
  readonly packages: ReadonlyArray<string>
  readonly parties: number
}

/**
 * How a scan's digest is made. 1: sha256OfParts over every update, then every verdict: recomputed
 * from the whole history every time (a node stores its indexes every 256 batches, so the cost grew
 * with the history). 2, what a node stores now: sha256OfParts("scan-v2", U, V), where U and V are
 * the sha256OfParts of the updates' and of the verdicts' parts, each kept running as the lists grow
 * (both are append-only), so that each part is hashed once. `sandnet rebuild` checks a stored index
 * in the format it was stored in.
 */
export type DigestFormat = 1 | 2

/** A list that only grows, with the running sha256OfParts of its items' parts up to `count`. */
interface Running {
  readonly parts: RunningParts
  count: number
}

const running = new WeakMap<object, Running>()

const runningDigest = <A>(list: ArchivedLog<A>, partOf: (item: A) => string): string => {
  let state = running.get(list)
  if (state === undefined) running.set(list, (state = { parts: runningParts(), count: 0 }))
  invariant(list.length >= state.count, "a scan's updates and verdicts only grow")
  for (; state.count < list.length; state.count++) state.parts.add(partOf(list.at(state.count)!))
  return state.parts.digest()
}

const updatePart = (u: { readonly offset: number; readonly update: { readonly updateId: string } }) => `${u.offset}:${u.update.updateId}`
const verdictPart = (v: { readonly verdict: { readonly updateId: string; readonly result: string } }) => `${v.verdict.updateId}:${v.verdict.result}`

const scanDigest = (scan: CoinNetwork["superValidators"][number]["scan"], format: DigestFormat): string =>
  format === 1
    ? sha256OfParts("scan", ...scan.updates.map(updatePart), ...scan.verdictLog.map(verdictPart))
    : sha256OfParts("scan-v2", runningDigest(scan.updates, updatePart), runningDigest(scan.verdictLog, verdictPart))

/** Computes the derived indexes of a network's current state (format 2 unless told: what a node stores). */
export const derivedIndexes = (network: CoinNetwork, ordinal: number, format: DigestFormat = 2): DerivedIndexes => ({
  ...(format === 2 ? { format } : {}),
  ordinal,
  participants: [...network.superValidators, ...network.validators].map((node) => {
    const logic = node.participant.logic
    const ids: Array<string> = []
    for (const c of logic.acs.all()) ids.push(c.created.contractId)
    ids.sort()
    return {
      name: node.name,
      ledgerEnd: logic.ledgerEnd,
      activeContracts: ids.length,
      acsDigest: sha256OfParts("acs", ...ids),
      lastUpdateId: logic.log.last()?.update.updateId ?? null
    }
  }),
  scans: network.superValidators.map((sv) => ({
    name: sv.name,
    updates: sv.scan.updates.length,
    verdicts: sv.scan.verdictLog.length,
    digest: scanDigest(sv.scan, format)
  })),
  packages: LedgerApi.knownPackageIds(network),
  parties: network.topology.allParties().length
})

export const DERIVED_KEY = "indexes"

/**
 * Puts the network's derived indexes with the recorder's next batch, when the store keeps indexes
 * (`NodeStorageService.keepsIndexes`: not a memory store, which nobody else can read).
 */
export const recordDerivedIndexes = (storage: NodeStorageService, network: CoinNetwork): void => {
  if (storage.keepsIndexes) storage.engine.put(Streams.derived, DERIVED_KEY, derivedIndexes(network, storage.engine.lastOrdinal))
}
