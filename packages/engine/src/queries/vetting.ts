/**
 * Package vetting: the packages vetted on the node's synchronizers, the vetting states a
 * `ListVettedPackagesRequest` asks for, and the preferred package of each requirement of a draft
 * transaction.
 */
import { Either, Schema } from "effect"
import { uidWithoutPrefix, type SynchronizerId } from "@sandnet/core"
import * as Packages from "../packages/index.ts"
import type { TopologyState } from "../topology.ts"
import { PackageNamesNotFound } from "./errors.ts"
import { knownPackages } from "./packages.ts"
import { ledgerParticipant, type KnownPackage, type LedgerNetwork } from "./state.ts"

/**
 * Orders packages as the reference sorts VettedPackages: by name, then version, then id.
 */
const byNameVersionId = (a: KnownPackage, b: KnownPackage): number =>
  (a.description.name < b.description.name ? -1 : a.description.name > b.description.name ? 1 : 0) ||
  Packages.comparePackageVersions(a.description.version, b.description.version) ||
  (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0)

/** The packages vetted on the node's synchronizers (every participant vets the same set), sorted by name, version, id. */
export const vettedPackages = (network: LedgerNetwork): ReadonlyArray<KnownPackage> => {
  const vetted = ledgerParticipant(network).vetted
  return knownPackages(network)
    .filter((p) => vetted.has(p.packageId))
    .sort(byNameVersionId)
}

/** Filters of `ListVettedPackagesRequest`: empty lists match everything. */
export interface VettedPackagesQuery {
  readonly packageIds: ReadonlyArray<string>
  readonly packageNamePrefixes: ReadonlyArray<string>
  readonly participantIds: ReadonlyArray<string>
  readonly synchronizerIds: ReadonlyArray<string>
}

/** One participant's vetting state on one synchronizer, with the packages that matched the query. */
export interface VettedPackagesEntry {
  readonly participantId: string
  readonly synchronizerId: SynchronizerId
  readonly topologySerial: number
  readonly packages: ReadonlyArray<KnownPackage>
}

/**
 * The vetting states matching a query, sorted by synchronizer id then participant id: in Sandnet
 * every participant of the topology vets every vetted package on every synchronizer. A package
 * matches when no metadata filter is given, or its id is listed, or its name starts with a listed
 * prefix; entries without a matching package are left out.
 */
export const listVettedPackages = (network: LedgerNetwork, topology: TopologyState, query: VettedPackagesQuery): ReadonlyArray<VettedPackagesEntry> => {
  const noMetadataFilter = query.packageIds.length === 0 && query.packageNamePrefixes.length === 0
  const packages = vettedPackages(network).filter(
    (p) =>
      noMetadataFilter ||
      query.packageIds.includes(p.packageId) ||
      query.packageNamePrefixes.some((prefix) => p.description.name.startsWith(prefix))
  )
  if (packages.length === 0) return []
  const serial = ledgerParticipant(network).vettingSerial
  const synchronizers = topology
    .synchronizers()
    .map((s) => s.synchronizerId)
    .filter((id) => query.synchronizerIds.length === 0 || query.synchronizerIds.includes(id))
    .sort()
  const participants = topology
    .participants()
    .map((p) => uidWithoutPrefix(p.uid))
    .filter((id) => query.participantIds.length === 0 || query.participantIds.includes(id))
    .sort()
  return synchronizers.flatMap((synchronizerId) =>
    participants.map((participantId) => ({ participantId, synchronizerId, topologySerial: serial, packages }))
  )
}

/** No synchronizer satisfies a preferred-package request (PACKAGE_SELECTION_FAILED, FAILED_PRECONDITION). */
export class PackageSelectionFailed extends Schema.TaggedError<PackageSelectionFailed>()("PackageSelectionFailed", {
  reason: Schema.String
}) {
  override get message(): string {
    return `No synchronizers satisfy the draft transaction topology requirements: ${this.reason}`
  }
}

export interface PackageVettingRequirement {
  readonly packageName: string
  readonly parties: ReadonlyArray<string>
}

export interface PreferredPackages {
  readonly synchronizerId: SynchronizerId
  /** One per requirement, in the requirements' order (a package name asked twice answers twice). */
  readonly packages: ReadonlyArray<KnownPackage>
}

/**
 * The highest vetted version of each requirement's package name that the participants hosting
 * its parties all vet, on the given synchronizer or on the first one (by id) that satisfies every
 * requirement. Every participant vets the same packages here, so a requirement is satisfied when
 * its package name has a vetted package and each of its parties is hosted somewhere. A package
 * name the node does not know at all is PACKAGE_NAMES_NOT_FOUND, as upstream.
 */
export const preferredPackages = (
  network: LedgerNetwork,
  topology: TopologyState,
  requirements: ReadonlyArray<PackageVettingRequirement>,
  synchronizerId: SynchronizerId | undefined
): Either.Either<PreferredPackages, PackageNamesNotFound | PackageSelectionFailed> => {
  const known = new Set(knownPackages(network).map((p) => p.description.name))
  const unknownNames = [...new Set(requirements.map((r) => r.packageName).filter((n) => !known.has(n)))]
  if (unknownNames.length > 0) return Either.left(new PackageNamesNotFound({ names: unknownNames }))
  const synchronizers =
    synchronizerId !== undefined ? [synchronizerId] : topology.synchronizers().map((s) => s.synchronizerId).sort()
  const chosen = synchronizers[0]
  if (chosen === undefined || topology.synchronizer(chosen) === undefined) {
    return Either.left(new PackageSelectionFailed({ reason: `synchronizer ${synchronizerId ?? "(none)"} is not connected` }))
  }
  const hosted = new Set(topology.allParties().filter((h) => h.participants.length > 0).map((h) => h.party as string))
  const vetted = vettedPackages(network)
  const packages: Array<KnownPackage> = []
  for (const requirement of requirements) {
    const unhosted = requirement.parties.filter((p) => !hosted.has(p))
    if (unhosted.length > 0) {
      return Either.left(
        new PackageSelectionFailed({
          reason: `${chosen}: parties ${unhosted.join(", ")} have no hosting participant on the synchronizer (package name ${requirement.packageName})`
        })
      )
    }
    const highest = vetted.filter((p) => p.description.name === requirement.packageName).at(-1)
    if (highest === undefined) {
      return Either.left(
        new PackageSelectionFailed({
          reason: `${chosen}: no package with package name ${requirement.packageName} is vetted by the participants hosting ${requirement.parties.join(", ")}`
        })
      )
    }
    packages.push(highest)
  }
  return Either.right({ synchronizerId: chosen, packages })
}
