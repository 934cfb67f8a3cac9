/**
 * Splice's own DARs that Sandnet serves natively. LocalNet ships them as Daml-LF, and the Wallet
 * SDK's examples upload them (08-merge-delegation: splice-util-token-standard-wallet-1.0.0.dar)
 * (13-rewards-for-deposits: splice-util-featured-app-proxies-1.1.0.dar) before using their templates. Sandnet does not execute Daml-LF, but it implements these
 * packages' templates itself, so uploading one of these DARs is accepted as Canton accepts it
 * (the package is served and vetted) without reading its Daml-LF. Any other Daml-LF DAR stays
 * refused (DamlLfNotExecuted).
 *
 * A DAR is recognized by its main package id (the id upstream's build gives it), or by the name
 * and version of its main archive (manifest `Name`, or the `<name>-<version>-<id>.dalf` file name
 * `daml build` writes).
 */
import type { PackageDescription } from "@sandnet/core"
import { Either } from "effect"
import { decodeArchive } from "./archive.ts"
import { DEFAULT_MAX_DAR_INFLATED_BYTES, type Dar, unzipDar } from "./dar.ts"
import type { DamlLfNotExecuted } from "./errors.ts"
import { MANIFEST_PATH, parseManifest } from "./manifest.ts"

export interface SpliceDar {
  readonly name: string
  readonly version: string
  /** Main package ids of upstream's builds of this DAR. */
  readonly packageIds: ReadonlyArray<string>
}

export const SPLICE_DARS: ReadonlyArray<SpliceDar> = [
  {
    name: "splice-util-token-standard-wallet",
    version: "1.0.0",
    packageIds: ["1da198cb7968fa478cfa12aba9fdf128a63a8af6ab284ea6be238cf92a3733ac"]
  },
  {
    name: "splice-util-featured-app-proxies",
    version: "1.1.0",
    packageIds: ["81dd5a9e5c02d0de03208522a895fb85eeb12fbea4aca7c4ad0ad106f3b0bfce"]
  }
]

const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

const matches = (dar: SpliceDar, packageId: string, manifestName: string | undefined, mainPath: string): boolean =>
  dar.packageIds.includes(packageId) ||
  manifestName === dar.name ||
  baseName(mainPath) === `${dar.name}-${dar.version}-${packageId}.dalf`

/**
 * The Splice DAR a DAR refused with `DamlLfNotExecuted` is, if it is one whose main archive is a
 * known Splice package: the DAR as Sandnet serves it (its main archive described by `describe`,
 * the native package of that name and version). Undefined otherwise (the refusal stands).
 */
export const recognizeSpliceDar = (
  bytes: Uint8Array,
  refusal: DamlLfNotExecuted,
  describe: (name: string, version: string) => PackageDescription | undefined
): { readonly spliceDar: SpliceDar; readonly dar: Dar } | undefined => {
  const files = unzipDar(bytes, DEFAULT_MAX_DAR_INFLATED_BYTES)
  if (Either.isLeft(files)) return undefined
  const manifestBytes = files.right[MANIFEST_PATH]
  if (manifestBytes === undefined) return undefined
  const manifest = parseManifest(manifestBytes)
  if (Either.isLeft(manifest) || manifest.right.mainDalf !== refusal.path) return undefined
  const spliceDar = SPLICE_DARS.find((d) => matches(d, refusal.packageId, manifest.right.name, refusal.path))
  if (spliceDar === undefined) return undefined
  const description = describe(spliceDar.name, spliceDar.version)
  const archiveBytes = files.right[refusal.path]
  if (description === undefined || archiveBytes === undefined) return undefined
  const archive = decodeArchive(archiveBytes)
  if (Either.isLeft(archive)) return undefined
  const main = { path: refusal.path, packageId: refusal.packageId, archive: archiveBytes, payload: archive.right.payload, description }
  return { spliceDar, dar: { manifest: manifest.right, main, archives: [main] } }
}
