/**
 * Per-network state of the ledger API that the participant does not keep (yet): the built-in and
 * uploaded packages, the vetted package ids and the signing keys of external parties allocated
 * through the ledger API. Kept beside the network object (any value with the network's template
 * registry keys it), so that these queries need not know the coin network's type.
 */
import { Either } from "effect"
import type { PackageDescription, PartyId } from "@sandnet/core"
import type * as External from "../external/index.ts"
import type { TemplateRegistry } from "../ledger/template.ts"
import * as Packages from "../packages/index.ts"

/**
 * What the ledger API needs of a network: its template registry (the built-in packages). The
 * network object itself (a CoinNetwork) keys the state, as one network has one ledger API state.
 */
export interface LedgerNetwork {
  readonly registry: TemplateRegistry
}

export interface KnownPackage {
  readonly packageId: string
  readonly description: PackageDescription
}

/** Per-network state the participant does not keep (yet): uploaded packages and external parties' keys. */
export interface LedgerApiState {
  /** Built-in and uploaded packages. */
  packages: Packages.PackageRegistry
  /** Package ids vetted on the node's synchronizers (built-ins, and uploads with vetting). */
  readonly vetted: Set<string>
  /** Serial of the node's VettedPackages topology state: 1 at start, +1 whenever `vetted` changes. */
  vettingSerial: number
  /** Signing keys of the external parties allocated through the ledger API. */
  readonly externalParties: Map<PartyId, External.SigningKeysWithThreshold>
}

const states = new WeakMap<LedgerNetwork, LedgerApiState>()

/** The built-in packages: every PackageDef of the network's template registry. */
export const builtInPackages = (registry: TemplateRegistry): ReadonlyArray<KnownPackage> =>
  registry.allPackages().map((pkg) => ({ packageId: pkg.id, description: pkg.description() }))

/** The ledger API state of a network (created on first use, dropped with the network). */
export const ledgerApiState = (network: LedgerNetwork): LedgerApiState => {
  let state = states.get(network)
  if (state === undefined) {
    const builtIns = builtInPackages(network.registry)
    const added = Packages.PackageRegistry.empty().addDescriptions(
      builtIns.map((p) => p.description),
      0
    )
    const packages = Either.isRight(added) ? added.right.registry : Packages.PackageRegistry.empty()
    state = {
      packages,
      vetted: new Set([...builtIns.map((p) => p.packageId), ...packages.packageIds()]),
      vettingSerial: 1,
      externalParties: new Map()
    }
    states.set(network, state)
  }
  return state
}
