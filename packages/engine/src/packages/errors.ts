/**
 * Errors of DAR reading, package validation and upload. Each is a Schema.TaggedError with a
 * precise name and a `code`: the Canton ledger error code id (PackageServiceErrors) the HTTP layer
 * puts into the standard error body. All of them are in Canton's error category
 * InvalidIndependentOfSystemState (`errorCategory` 8, gRPC INVALID_ARGUMENT = 3).
 */
import { Schema } from "effect"

/** Canton's ErrorCategory.InvalidIndependentOfSystemState. */
export const PACKAGE_ERROR_CATEGORY = 8
/** gRPC INVALID_ARGUMENT. */
export const PACKAGE_ERROR_GRPC_CODE = 3

export type PackageErrorCode =
  | "INVALID_DAR"
  | "ZIP_BOMB"
  | "INVALID_LEGACY_DAR"
  | "INVALID_ZIP_ENTRY"
  | "DAR_PARSE_ERROR"
  | "DAR_VALIDATION_ERROR"
  | "KNOWN_DAR_VERSION"
  | "DAR_NOT_VALID_UPGRADE"
  | "UNSUPPORTED_OPERATION"

/** The bytes are not a readable zip archive ("Dar file is corrupt"). */
export class DarNotAZip extends Schema.TaggedError<DarNotAZip>()("DarNotAZip", { reason: Schema.String }) {
  get code(): PackageErrorCode {
    return "INVALID_DAR"
  }
  override get message(): string {
    return `Dar file is corrupt: ${this.reason}`
  }
}

/** The archive would inflate beyond the size limit. */
export class DarTooLarge extends Schema.TaggedError<DarTooLarge>()("DarTooLarge", {
  entry: Schema.String,
  limit: Schema.Number
}) {
  get code(): PackageErrorCode {
    return "ZIP_BOMB"
  }
  override get message(): string {
    return `Dar zip file seems to be a zip bomb: entry ${this.entry} inflates beyond ${this.limit} bytes in total`
  }
}

/** No META-INF/MANIFEST.MF: a legacy DAR, which is not supported. */
export class DarManifestMissing extends Schema.TaggedError<DarManifestMissing>()("DarManifestMissing", {
  entries: Schema.Array(Schema.String)
}) {
  get code(): PackageErrorCode {
    return "INVALID_LEGACY_DAR"
  }
  override get message(): string {
    return `Unsupported legacy Dar zip file: no META-INF/MANIFEST.MF among ${this.entries.length} entries`
  }
}

/** The manifest lacks Main-Dalf, Dalfs or Format, or names an unsupported format. */
export class DarManifestInvalid extends Schema.TaggedError<DarManifestInvalid>()("DarManifestInvalid", {
  reason: Schema.String
}) {
  get code(): PackageErrorCode {
    return "DAR_PARSE_ERROR"
  }
  override get message(): string {
    return `Failed to parse the dar file content: META-INF/MANIFEST.MF: ${this.reason}`
  }
}

/** The manifest names an archive that the zip does not contain. */
export class DarEntryMissing extends Schema.TaggedError<DarEntryMissing>()("DarEntryMissing", {
  name: Schema.String,
  entries: Schema.Array(Schema.String)
}) {
  get code(): PackageErrorCode {
    return "INVALID_ZIP_ENTRY"
  }
  override get message(): string {
    return `Dar zip file is corrupt: the manifest names ${this.name}, which is not in the archive`
  }
}

/** A .dalf is not a Daml-LF `Archive` protobuf message. */
export class ArchiveUndecodable extends Schema.TaggedError<ArchiveUndecodable>()("ArchiveUndecodable", {
  path: Schema.String,
  reason: Schema.String
}) {
  get code(): PackageErrorCode {
    return "DAR_PARSE_ERROR"
  }
  override get message(): string {
    return `Failed to parse the dar file content: ${this.path}: ${this.reason}`
  }
}

/** `Archive.hash_function` is not SHA256 (0). */
export class UnsupportedHashFunction extends Schema.TaggedError<UnsupportedHashFunction>()("UnsupportedHashFunction", {
  path: Schema.String,
  hashFunction: Schema.Number
}) {
  get code(): PackageErrorCode {
    return "DAR_PARSE_ERROR"
  }
  override get message(): string {
    return `Failed to parse the dar file content: ${this.path}: unsupported hash function ${this.hashFunction} (only SHA256 = 0)`
  }
}

/** The archive's `hash` is not the SHA-256 of its payload. */
export class ArchiveHashMismatch extends Schema.TaggedError<ArchiveHashMismatch>()("ArchiveHashMismatch", {
  path: Schema.String,
  declared: Schema.String,
  computed: Schema.String
}) {
  get code(): PackageErrorCode {
    return "DAR_PARSE_ERROR"
  }
  override get message(): string {
    return `Failed to parse the dar file content: ${this.path}: Mismatching hashes! Expected ${this.declared} but got ${this.computed}`
  }
}

/** The payload is not a Sandnet package payload (see docs/packages.md). */
export class PackagePayloadUndecodable extends Schema.TaggedError<PackagePayloadUndecodable>()("PackagePayloadUndecodable", {
  path: Schema.String,
  packageId: Schema.String,
  reason: Schema.String
}) {
  get code(): PackageErrorCode {
    return "DAR_PARSE_ERROR"
  }
  override get message(): string {
    return `Failed to parse the dar file content: ${this.path} (${this.packageId}): ${this.reason}`
  }
}

/**
 * A well-formed archive whose payload is a Daml-LF package (a user's own DAR): Sandnet runs its own
 * templates and does not execute Daml-LF. Not a parse error: the HTTP layer answers it 501
 * UNSUPPORTED_OPERATION (Canton's InternalUnsupportedOperation category).
 */
export class DamlLfNotExecuted extends Schema.TaggedError<DamlLfNotExecuted>()("DamlLfNotExecuted", {
  path: Schema.String,
  packageId: Schema.String,
  /** The Daml-LF version of the payload, e.g. "2.1". */
  lfVersion: Schema.String
}) {
  get code(): PackageErrorCode {
    return "UNSUPPORTED_OPERATION"
  }
  override get message(): string {
    return (
      `Sandnet does not execute Daml-LF: ${this.path} (${this.packageId}) is a Daml-LF ${this.lfVersion} package. ` +
      "Sandnet runs its own built-in templates (coin/amulet, wallet, token standard, Ping) and packages in its own format (docs/packages.md); " +
      "flows that need your own DARs need a Canton participant (e.g. LocalNet)"
    )
  }
}

/** Two archives of one DAR carry the same package id. */
export class DuplicatePackageInDar extends Schema.TaggedError<DuplicatePackageInDar>()("DuplicatePackageInDar", {
  packageId: Schema.String,
  paths: Schema.Array(Schema.String)
}) {
  get code(): PackageErrorCode {
    return "DAR_PARSE_ERROR"
  }
  override get message(): string {
    return `Failed to parse the dar file content: package ${this.packageId} appears more than once (${this.paths.join(", ")})`
  }
}

/** A package description breaks a rule (names, versions, duplicates). */
export class InvalidPackageDescription extends Schema.TaggedError<InvalidPackageDescription>()("InvalidPackageDescription", {
  packageName: Schema.String,
  reason: Schema.String
}) {
  get code(): PackageErrorCode {
    return "DAR_VALIDATION_ERROR"
  }
  override get message(): string {
    return `Package validation failed: ${this.packageName}: ${this.reason}`
  }
}

/** A different package with the same name and version is already known. */
export class KnownPackageVersion extends Schema.TaggedError<KnownPackageVersion>()("KnownPackageVersion", {
  packageId: Schema.String,
  name: Schema.String,
  version: Schema.String,
  existingPackageId: Schema.String
}) {
  get code(): PackageErrorCode {
    return "KNOWN_DAR_VERSION"
  }
  override get message(): string {
    return `Tried to upload package ${this.name}-${this.version} (${this.packageId}), but a different package ${this.existingPackageId} with the same name and version has previously been uploaded.`
  }
}

/** One element that an upgrade dropped or changed. */
export const UpgradeProblem = Schema.Struct({
  kind: Schema.Literal(
    "missingTemplate",
    "missingChoice",
    "choiceConsumingChanged",
    "missingImplementation",
    "missingInterface",
    "missingInterfaceChoice",
    "interfaceChoiceConsumingChanged"
  ),
  module: Schema.String,
  /** Template or interface name. */
  entity: Schema.String,
  /** Choice name or implemented interface, where relevant. */
  detail: Schema.optional(Schema.String),
  description: Schema.String
})
export type UpgradeProblem = typeof UpgradeProblem.Type

/**
 * A package is not a valid upgrade: `newPackage` (the higher version) lacks something of
 * `oldPackage` (the lower version). One of them is the uploaded package, the other already known
 * (or in the same DAR).
 */
export class PackageUpgradeInvalid extends Schema.TaggedError<PackageUpgradeInvalid>()("PackageUpgradeInvalid", {
  name: Schema.String,
  uploadedPackageId: Schema.String,
  oldPackageId: Schema.String,
  oldVersion: Schema.String,
  newPackageId: Schema.String,
  newVersion: Schema.String,
  problems: Schema.Array(UpgradeProblem)
}) {
  get code(): PackageErrorCode {
    return "DAR_NOT_VALID_UPGRADE"
  }
  override get message(): string {
    const reason = this.problems.map((p) => p.description).join("; ")
    return this.uploadedPackageId === this.newPackageId
      ? `Upgrade checks indicate that new package ${this.name}-${this.newVersion} (${this.newPackageId}) cannot be an upgrade of existing package ${this.name}-${this.oldVersion} (${this.oldPackageId}). Reason: ${reason}`
      : `Upgrade checks indicate that existing package ${this.name}-${this.newVersion} (${this.newPackageId}) cannot be an upgrade of new package ${this.name}-${this.oldVersion} (${this.oldPackageId}). Reason: ${reason}`
  }
}

export type DarReadError =
  | DarNotAZip
  | DarTooLarge
  | DarManifestMissing
  | DarManifestInvalid
  | DarEntryMissing
  | ArchiveUndecodable
  | UnsupportedHashFunction
  | ArchiveHashMismatch
  | PackagePayloadUndecodable
  | DamlLfNotExecuted
  | DuplicatePackageInDar
  | InvalidPackageDescription

export type PackageUploadError = DarReadError | KnownPackageVersion | PackageUpgradeInvalid

/** The fields of Canton's standard error body that depend only on the error. */
export const packageErrorBody = (
  error: PackageUploadError
): { readonly code: PackageErrorCode; readonly cause: string; readonly errorCategory: number; readonly grpcCodeValue: number } => ({
  code: error.code,
  cause: error.message,
  errorCategory: PACKAGE_ERROR_CATEGORY,
  grpcCodeValue: PACKAGE_ERROR_GRPC_CODE
})
