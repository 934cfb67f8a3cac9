/**
 * The packages a node knows (built-in and uploaded), their archives, and DAR validation and
 * upload (L5, L7 `GET /v2/packages`).
 */
import { Either } from "effect"
import type { Micros } from "@sandnet/core"
import * as Packages from "../packages/index.ts"
import { builtInPackages, ledgerApiState, type KnownPackage, type LedgerNetwork } from "./state.ts"

/** Every package the node knows, sorted by id: built-in ones and uploaded ones. */
export const knownPackages = (network: LedgerNetwork): ReadonlyArray<KnownPackage> => {
  const byId = new Map<string, KnownPackage>()
  for (const p of builtInPackages(network.registry)) byId.set(p.packageId, p)
  for (const p of ledgerApiState(network).packages.packages()) byId.set(p.packageId, { packageId: p.packageId, description: p.description })
  return [...byId.values()].sort((a, b) => (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0))
}

/** The ids of all packages the node supports (L7 `GET /v2/packages`), sorted. */
export const knownPackageIds = (network: LedgerNetwork): ReadonlyArray<string> => knownPackages(network).map((p) => p.packageId)

/** The archive (.dalf bytes) of a known package. */
export const packageArchive = (network: LedgerNetwork, packageId: string): Uint8Array | undefined => {
  const stored = ledgerApiState(network).packages.get(packageId)
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
  const state = ledgerApiState(network)
  return state.packages.validateDar(bytes, options.againstVetted ? { vettedOnSynchronizer: [...state.vetted] } : {})
}

/** Uploads a DAR (kept in memory with the network); vets its packages unless told not to. */
export const uploadDar = (
  network: LedgerNetwork,
  bytes: Uint8Array,
  uploadedAt: Micros,
  options: { readonly vet: boolean }
): Either.Either<Packages.DarUpload, Packages.PackageUploadError> => {
  const state = ledgerApiState(network)
  const upload = state.packages.uploadDar(bytes, uploadedAt, options.vet ? { vettedOnSynchronizer: [...state.vetted] } : {})
  if (Either.isRight(upload)) {
    state.packages = upload.right.registry
    if (options.vet) {
      const before = state.vetted.size
      for (const p of upload.right.packages) state.vetted.add(p.packageId)
      if (state.vetted.size !== before) state.vettingSerial += 1
    }
  }
  return upload
}
