/**
 * The node's package store as pure, immutable state: package id -> description and upload time.
 * Validation (L5 `POST /v2/dars/validate`) persists nothing; upload (`POST /v2/packages`) returns
 * a new registry. Checks, in order, per DAR:
 * 1. the DAR reads (readDar);
 * 2. no other package with the same name and version is known, in the registry or the DAR
 *    (KNOWN_DAR_VERSION); a package whose id is already known is a no-op (idempotent re-upload);
 * 3. upgrade compatibility against the packages of the same name (the vetted ones when a vetted
 *    set is given, else all known ones, plus the other packages of the DAR): the closest lower
 *    version must be upgradable to the new package and the new package to the closest higher
 *    version (DAR_NOT_VALID_UPGRADE), as Canton checks both directions.
 */
import type { PackageDescription } from "@sandnet/core"
import { Either } from "effect"
import { type Dar, encodeDalf, readDar, type ReadDarOptions } from "./dar.ts"
import { InvalidPackageDescription, KnownPackageVersion, PackageUpgradeInvalid, type PackageUploadError } from "./errors.ts"
import { comparePackageVersions, validatePackageDescription } from "./payload.ts"
import { upgradeProblems } from "./upgrade.ts"

export interface StoredPackage {
  readonly packageId: string
  readonly name: string
  readonly version: string
  readonly description: PackageDescription
  /** Upload time as given by the caller (e.g. epoch microseconds of the engine clock). */
  readonly uploadedAt: number
  /** The .dalf bytes (Archive message). */
  readonly archive: Uint8Array
}

export interface CandidatePackage {
  readonly packageId: string
  readonly description: PackageDescription
  readonly archive: Uint8Array
}

export interface CheckedPackage extends CandidatePackage {
  /** False when the registry already holds this package id. */
  readonly isNew: boolean
}

export interface DarCheck {
  readonly dar: Dar
  readonly mainPackageId: string
  /** Main first, then the others in manifest order. */
  readonly packages: ReadonlyArray<CheckedPackage>
}

export interface DarUpload extends DarCheck {
  readonly registry: PackageRegistry
  /** Ids added by this upload, in DAR order. */
  readonly added: ReadonlyArray<string>
}

export interface CheckOptions {
  /** Package ids vetted on the target synchronizer; upgrade checks compare against these only. */
  readonly vettedOnSynchronizer?: ReadonlyArray<string> | undefined
  readonly read?: ReadDarOptions | undefined
}

export class PackageRegistry {
  private constructor(private readonly byId: ReadonlyMap<string, StoredPackage>) {}

  static empty(): PackageRegistry {
    return new PackageRegistry(new Map())
  }

  get size(): number {
    return this.byId.size
  }

  has(packageId: string): boolean {
    return this.byId.has(packageId)
  }

  get(packageId: string): StoredPackage | undefined {
    return this.byId.get(packageId)
  }

  /** All package ids, sorted (L7 `GET /v2/packages`). */
  packageIds(): ReadonlyArray<string> {
    return [...this.byId.keys()].sort()
  }

  /** All packages, sorted by name, then version, then id. */
  packages(): ReadonlyArray<StoredPackage> {
    return [...this.byId.values()].sort(
      (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || comparePackageVersions(a.version, b.version) || (a.packageId < b.packageId ? -1 : 1)
    )
  }

  /** The versions of one package name, ascending. */
  versionsOf(name: string): ReadonlyArray<StoredPackage> {
    return this.packages().filter((p) => p.name === name)
  }

  /** Checks candidate packages (already decoded) against this registry; persists nothing. */
  checkPackages(
    candidates: ReadonlyArray<CandidatePackage>,
    options: CheckOptions = {}
  ): Either.Either<ReadonlyArray<CheckedPackage>, PackageUploadError> {
    const known = this.byId
    const vetted = options.vettedOnSynchronizer
    return Either.gen(function* () {
      for (const candidate of candidates) yield* validatePackageDescription(candidate.description)
      const fresh = candidates.filter((c) => !known.has(c.packageId))
      // 2. name + version clashes
      for (const candidate of fresh) {
        const { name, version } = candidate.description
        const clash =
          [...known.values()].find((p) => p.name === name && p.version === version) ??
          candidates.find((c) => c !== candidate && c.packageId !== candidate.packageId && c.description.name === name && c.description.version === version)
        if (clash !== undefined)
          return yield* Either.left(
            new KnownPackageVersion({ packageId: candidate.packageId, name, version, existingPackageId: clash.packageId })
          )
      }
      // 3. upgrades
      const comparable: ReadonlyArray<CandidatePackage> = [
        ...(vetted === undefined ? [...known.values()] : vetted.flatMap((id) => known.get(id) ?? [])),
        ...candidates
      ]
      for (const candidate of fresh) {
        const { name, version } = candidate.description
        const sameName = comparable.filter((p) => p.description.name === name && p.packageId !== candidate.packageId)
        const lower = sameName
          .filter((p) => comparePackageVersions(p.description.version, version) < 0)
          .sort((a, b) => comparePackageVersions(b.description.version, a.description.version))[0]
        const higher = sameName
          .filter((p) => comparePackageVersions(p.description.version, version) > 0)
          .sort((a, b) => comparePackageVersions(a.description.version, b.description.version))[0]
        for (const [older, newer] of [
          [lower, candidate],
          [candidate, higher]
        ] as const) {
          if (older === undefined || newer === undefined) continue
          const problems = upgradeProblems(older.description, newer.description)
          if (problems.length > 0)
            return yield* Either.left(
              new PackageUpgradeInvalid({
                name,
                uploadedPackageId: candidate.packageId,
                oldPackageId: older.packageId,
                oldVersion: older.description.version,
                newPackageId: newer.packageId,
                newVersion: newer.description.version,
                problems: [...problems]
              })
            )
        }
      }
      return candidates.map((c): CheckedPackage => ({ ...c, isNew: !known.has(c.packageId) }))
    })
  }

  /** L5: reads and checks a DAR; persists nothing. */
  validateDar(bytes: Uint8Array, options: CheckOptions = {}): Either.Either<DarCheck, PackageUploadError> {
    const registry = this
    return Either.gen(function* () {
      const dar: Dar = yield* readDar(bytes, options.read)
      const packages = yield* registry.checkPackages(
        dar.archives.map((a) => ({ packageId: a.packageId, description: a.description, archive: a.archive })),
        options
      )
      return { dar, mainPackageId: dar.main.packageId, packages }
    })
  }

  /** Upload: validateDar, then a registry holding the new packages with upload time `uploadedAt`. */
  uploadDar(bytes: Uint8Array, uploadedAt: number, options: CheckOptions = {}): Either.Either<DarUpload, PackageUploadError> {
    return Either.flatMap(this.validateDar(bytes, options), (check) => {
      // A node keeps an uploaded package as its description (its journal holds no archives): one
      // whose payload is not the description's encoding could not be restored, so it is refused.
      const unkept = check.packages.find((p) => p.isNew && encodeDalf(p.description).packageId !== p.packageId)
      if (unkept !== undefined) {
        return Either.left(new InvalidPackageDescription({ packageName: unkept.description.name, reason: `package ${unkept.packageId} is not in Sandnet's canonical payload encoding` }))
      }
      const { registry, added } = this.withPackages(check.packages, uploadedAt)
      return Either.right({ ...check, registry, added })
    })
  }

  /** Adds descriptions directly (e.g. Sandnet's built-in packages), with the same checks as an upload. */
  addDescriptions(
    descriptions: ReadonlyArray<PackageDescription>,
    uploadedAt: number,
    options: CheckOptions = {}
  ): Either.Either<{ readonly registry: PackageRegistry; readonly added: ReadonlyArray<string> }, PackageUploadError> {
    const candidates = descriptions.map((description): CandidatePackage => {
      const dalf = encodeDalf(description)
      return { packageId: dalf.packageId, description, archive: dalf.archive }
    })
    return Either.map(this.checkPackages(candidates, options), (checked) => this.withPackages(checked, uploadedAt))
  }

  /**
   * Adds packages an upload checked already (a journal's), without checking them again: only that
   * each description still encodes to its id (Sandnet's archives are a function of the description).
   */
  addUploaded(
    packages: ReadonlyArray<{ readonly packageId: string; readonly description: PackageDescription }>,
    uploadedAt: number
  ): Either.Either<PackageRegistry, string> {
    const checked: Array<CheckedPackage> = []
    for (const p of packages) {
      const dalf = encodeDalf(p.description)
      if (dalf.packageId !== p.packageId) return Either.left(`package ${p.packageId} does not re-encode to the same id`)
      checked.push({ packageId: p.packageId, description: p.description, archive: dalf.archive, isNew: !this.byId.has(p.packageId) })
    }
    return Either.right(this.withPackages(checked, uploadedAt).registry)
  }

  private withPackages(
    packages: ReadonlyArray<CheckedPackage>,
    uploadedAt: number
  ): { readonly registry: PackageRegistry; readonly added: ReadonlyArray<string> } {
    const next = new Map(this.byId)
    const added: Array<string> = []
    for (const p of packages) {
      if (next.has(p.packageId)) continue
      next.set(p.packageId, {
        packageId: p.packageId,
        name: p.description.name,
        version: p.description.version,
        description: p.description,
        uploadedAt,
        archive: p.archive
      })
      added.push(p.packageId)
    }
    return { registry: added.length === 0 ? this : new PackageRegistry(next), added }
  }
}

