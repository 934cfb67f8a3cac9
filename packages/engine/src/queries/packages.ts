/**
 * The packages a node knows (built-in and uploaded), their archives, and DAR validation and
 * upload (L5, L7 `GET /v2/packages`): the participants' state (participant/packages.ts).
 */
import { Either } from "effect"
import type { Micros } from "@sandnet/core"
import * as Packages from "../packages/index.ts"
import { builtInPackages, ledgerParticipant, type KnownPackage, type LedgerNetwork } from "./state.ts"

/** Every package the node knows, sorted by id: built-in ones and uploaded ones. */
export const knownPackages = (network: LedgerNetwork): ReadonlyArray<KnownPackage> => {
  const byId = new Map<string, KnownPackage>()
  for (const p of builtInPackages(network.registry)) byId.set(p.packageId, p)
  for (const p of ledgerParticipant(network).packages.packages()) byId.set(p.packageId, { packageId: p.packageId, description: p.description })
  return [...byId.values()].sort((a, b) => (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0))
}

/** The ids of all packages the node supports (L7 `GET /v2/packages`), sorted. */
export const knownPackageIds = (network: LedgerNetwork): ReadonlyArray<string> => knownPackages(network).map((p) => p.packageId)

/** The archive (.dalf bytes) of a known package. */
export const packageArchive = (network: LedgerNetwork, packageId: string): Uint8Array | undefined => {
  const stored = ledgerParticipant(network).packages.get(packageId)
  if (stored !== undefined) return stored.archive
  const builtIn = builtInPackages(network.registry).find((p) => p.packageId === packageId)
  return builtIn === undefined ? undefined : Packages.encodeDalf(builtIn.description).archive
}

/** L5: checks a DAR against the node's packages (the vetted ones when a synchronizer is named). */
export const validateDar = (
  network: LedgerNetwork,
  bytes: Uint8Array,
  options: { readonly againstVetted: boolean }
): Either.Either<Packages.DarCheck, Packages.PackageUploadError> => {
  const node = ledgerParticipant(network)
  return Either.orElse(node.packages.validateDar(bytes, options.againstVetted ? { vettedOnSynchronizer: [...node.vetted] } : {}), (error) =>
    nativeSpliceDar(network, bytes, error)
  )
}

/**
 * A refused Daml-LF DAR that is one of Splice's own (Packages.SPLICE_DARS), whose package Sandnet
 * implements: accepted as it stands, nothing added (the built-in package is served and vetted).
 */
const nativeSpliceDar = (
  network: LedgerNetwork,
  bytes: Uint8Array,
  error: Packages.PackageUploadError
): Either.Either<Packages.DarCheck, Packages.PackageUploadError> => {
  if (error._tag !== "DamlLfNotExecuted") return Either.left(error)
  const builtIns = builtInPackages(network.registry)
  const recognized = Packages.recognizeSpliceDar(bytes, error, (name, version) =>
    builtIns.find((p) => p.description.name === name && p.description.version === version)?.description
  )
  return recognized === undefined ? Either.left(error) : Either.right({ dar: recognized.dar, mainPackageId: recognized.dar.main.packageId, packages: [] })
}

/**
 * Uploads a DAR; vets its packages unless told not to. Checked against the packages of the
 * ledger API's participant; then every participant of the network takes the upload (journaled).
 */
export const uploadDar = (
  network: LedgerNetwork,
  bytes: Uint8Array,
  uploadedAt: Micros,
  options: { readonly vet: boolean }
): Either.Either<Packages.DarUpload, Packages.PackageUploadError> => {
  const node = ledgerParticipant(network)
  const upload = Either.orElse(node.packages.uploadDar(bytes, uploadedAt, options.vet ? { vettedOnSynchronizer: [...node.vetted] } : {}), (error) =>
    Either.map(nativeSpliceDar(network, bytes, error), (check): Packages.DarUpload => ({ ...check, registry: node.packages, added: [] }))
  )
  if (Either.isRight(upload)) {
    for (const participant of network.participants) participant.logic.takeUpload(upload.right.packages, uploadedAt, options.vet)
  }
  return upload
}
