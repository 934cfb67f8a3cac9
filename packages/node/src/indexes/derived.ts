/**
 * Derived indexes: digests of a network's state (ACS per participant, scan updates and verdicts,
 * packages, parties), stored in the `derived` stream now and then and at shutdown, and checked by
 * `sandnet rebuild` against the ones it recomputes from the journals.
 */
import { sha256OfParts } from "@sandnet/core"
import { LedgerApi, type CoinNetwork } from "@sandnet/engine"
import { Streams } from "../journal/streams.ts"
import type { NodeStorageService } from "../storage/node-storage.ts"

export interface DerivedIndexes {
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

/** Computes the derived indexes of a network's current state. */
export const derivedIndexes = (network: CoinNetwork, ordinal: number): DerivedIndexes => ({
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
      lastUpdateId: logic.log[logic.log.length - 1]?.update.updateId ?? null
    }
  }),
  scans: network.superValidators.map((sv) => ({
    name: sv.name,
    updates: sv.scan.updates.length,
    verdicts: sv.scan.verdictLog.length,
    digest: sha256OfParts(
      "scan",
      ...sv.scan.updates.map((u) => `${u.offset}:${u.update.updateId}`),
      ...sv.scan.verdictLog.map((v) => `${v.verdict.updateId}:${v.verdict.result}`)
    )
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
