/**
 * DARs: zip archives (fflate) with META-INF/MANIFEST.MF and one .dalf (Daml-LF `Archive`) per
 * package. `buildDar` is Sandnet's own DAR tool; `readDar` checks a DAR and decodes its packages.
 *
 * Layout written by buildDar (entries in this order, deflate level 6, fixed timestamps so the
 * same input always gives the same bytes):
 *
 *     META-INF/MANIFEST.MF
 *     <name>-<version>-<mainId>/<pkgName>-<pkgVersion>-<packageId>.dalf   (main package first, then the others)
 */
import type { PackageDescription } from "@sandnet/core"
import { Either } from "effect"
import { unzipSync, zipSync, type Zippable } from "fflate"
import { decodeArchive, encodeArchive, HASH_FUNCTION_SHA256 } from "./archive.ts"
import {
  ArchiveHashMismatch,
  ArchiveUndecodable,
  DamlLfNotExecuted,
  DarEntryMissing,
  DarManifestInvalid,
  DarManifestMissing,
  DarNotAZip,
  type DarReadError,
  DarTooLarge,
  DuplicatePackageInDar,
  InvalidPackageDescription,
  PackagePayloadUndecodable,
  UnsupportedHashFunction
} from "./errors.ts"
import { type DarManifest, DAR_FORMAT, MANIFEST_PATH, parseManifest, writeManifest } from "./manifest.ts"
import { damlLfVersionOf, decodePackagePayload, encodePackagePayload, packageIdOf, validatePackageDescription } from "./payload.ts"

export const DEFAULT_SDK_VERSION = "0.0.0-sandnet"
/** Inflated size limit of a DAR's entries together (Canton guards against zip bombs too). */
export const DEFAULT_MAX_DAR_INFLATED_BYTES = 256 * 1024 * 1024

export interface BuildDarInput {
  readonly name: string
  readonly version: string
  readonly packages: ReadonlyArray<PackageDescription>
  /** Index of the main package in `packages`; default 0. */
  readonly mainIndex?: number | undefined
  readonly sdkVersion?: string | undefined
}

export interface DarArchive {
  /** Entry path in the zip. */
  readonly path: string
  readonly packageId: string
  /** The .dalf bytes (an encoded Archive). */
  readonly archive: Uint8Array
  readonly payload: Uint8Array
  readonly description: PackageDescription
}

export interface Dar {
  readonly manifest: DarManifest
  readonly main: DarArchive
  /** Main first, then the others in manifest order. */
  readonly archives: ReadonlyArray<DarArchive>
}

/** A .dalf for a description: Archive { hash_function = SHA256, payload, hash = package id }. */
export const encodeDalf = (description: PackageDescription): { readonly packageId: string; readonly payload: Uint8Array; readonly archive: Uint8Array } => {
  const payload = encodePackagePayload(description)
  const packageId = packageIdOf(payload)
  return { packageId, payload, archive: encodeArchive({ hashFunction: HASH_FUNCTION_SHA256, payload, hash: packageId }) }
}

/** Fixed zip entry timestamp, given in local-time components so that fflate writes the same DOS date in every timezone. */
const ZIP_TIMESTAMP = (): Date => new Date(1980, 0, 2, 0, 0, 0)

/**
 * Builds a DAR; or an InvalidPackageDescription error for an invalid package, DAR name/version,
 * main index, or two packages with the same id.
 */
export const buildDarEither = (input: BuildDarInput): Either.Either<Uint8Array, InvalidPackageDescription> =>
  Either.gen(function* () {
    const fail = (reason: string) => Either.left(new InvalidPackageDescription({ packageName: input.name || "<unnamed>", reason }))
    if (!/^[A-Za-z0-9_-]+$/.test(input.name)) return yield* fail(`DAR name "${input.name}" must use only letters, digits, '_' and '-'`)
    if (!/^[0-9A-Za-z._-]+$/.test(input.version)) return yield* fail(`DAR version "${input.version}" is not a version`)
    if (input.packages.length === 0) return yield* fail("a DAR needs at least one package")
    const mainIndex = input.mainIndex ?? 0
    if (!Number.isInteger(mainIndex) || mainIndex < 0 || mainIndex >= input.packages.length)
      return yield* fail(`mainIndex ${mainIndex} is not an index of the ${input.packages.length} packages`)
    for (const description of input.packages) yield* validatePackageDescription(description)
    const dalfs = input.packages.map(encodeDalf)
    const duplicate = dalfs.find((d, i) => dalfs.findIndex((e) => e.packageId === d.packageId) !== i)
    if (duplicate !== undefined) return yield* fail(`package ${duplicate.packageId} is listed twice`)
    const order = [mainIndex, ...input.packages.map((_, i) => i).filter((i) => i !== mainIndex)]
    const main = dalfs[mainIndex]!
    const folder = `${input.name}-${input.version}-${main.packageId}`
    const entries = order.map((i) => {
      const d = input.packages[i]!
      const dalf = dalfs[i]!
      return { path: `${folder}/${d.name}-${d.version}-${dalf.packageId}.dalf`, archive: dalf.archive }
    })
    const manifest = writeManifest([
      ["Manifest-Version", "1.0"],
      ["Created-By", "sandnet"],
      ["Name", input.name],
      ["Version", input.version],
      ["Sdk-Version", input.sdkVersion ?? DEFAULT_SDK_VERSION],
      ["Main-Dalf", entries[0]!.path],
      ["Dalfs", entries.map((e) => e.path).join(", ")],
      ["Format", DAR_FORMAT],
      ["Encryption", "non-encrypted"]
    ])
    const files: Zippable = {}
    const options = { level: 6 as const, mtime: ZIP_TIMESTAMP() }
    files[MANIFEST_PATH] = [manifest, options]
    for (const entry of entries) files[entry.path] = [entry.archive, options]
    return zipSync(files, options)
  })

/** Builds a DAR (Sandnet's DAR tool); throws InvalidPackageDescription on invalid input. */
export const buildDar = (input: BuildDarInput): Uint8Array => Either.getOrThrowWith(buildDarEither(input), (error) => error)

export interface ReadDarOptions {
  readonly maxInflatedBytes?: number | undefined
}

const CRC_TABLE: ReadonlyArray<number> = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** CRC-32 (ISO-HDLC, as zip uses). */
export const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** Entry name -> CRC-32 from the central directory (fflate does not check CRCs when inflating). */
const centralDirectoryCrcs = (bytes: Uint8Array): ReadonlyMap<string, number> | string => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let end = bytes.length - 22
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--
  if (end < 0) return "no end of central directory record"
  const count = view.getUint16(end + 10, true)
  let at = view.getUint32(end + 16, true)
  const crcs = new Map<string, number>()
  const decoder = new TextDecoder()
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) return "broken central directory"
    const nameLength = view.getUint16(at + 28, true)
    const extraLength = view.getUint16(at + 30, true)
    const commentLength = view.getUint16(at + 32, true)
    if (at + 46 + nameLength > bytes.length) return "broken central directory"
    crcs.set(decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)), view.getUint32(at + 16, true))
    at += 46 + nameLength + extraLength + commentLength
  }
  return crcs
}

export const unzipDar = (
  bytes: Uint8Array,
  limit: number
): Either.Either<Readonly<Record<string, Uint8Array>>, DarNotAZip | DarTooLarge> => {
  if (bytes.length < 22) return Either.left(new DarNotAZip({ reason: `${bytes.length} bytes cannot hold a zip archive` }))
  let total = 0
  let tooLarge: string | undefined
  let files: Readonly<Record<string, Uint8Array>>
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        total += file.originalSize
        if (total > limit && tooLarge === undefined) tooLarge = file.name
        return tooLarge === undefined
      }
    })
  } catch (error) {
    if (tooLarge !== undefined) return Either.left(new DarTooLarge({ entry: tooLarge, limit }))
    return Either.left(new DarNotAZip({ reason: error instanceof Error ? error.message : String(error) }))
  }
  if (tooLarge !== undefined) return Either.left(new DarTooLarge({ entry: tooLarge, limit }))
  const crcs = centralDirectoryCrcs(bytes)
  if (typeof crcs === "string") return Either.left(new DarNotAZip({ reason: crcs }))
  for (const [name, content] of Object.entries(files))
    if (crcs.get(name) !== crc32(content)) return Either.left(new DarNotAZip({ reason: `CRC-32 mismatch in entry ${name}` }))
  return Either.right(files)
}

/**
 * Reads a DAR: the zip (including each entry's CRC-32), the manifest, every archive the manifest names (the main one first), each
 * archive's hash function and hash, each payload (a Sandnet package, validated), and that no
 * package id appears twice. Entries the manifest does not name are ignored.
 */
export const readDar = (bytes: Uint8Array, options: ReadDarOptions = {}): Either.Either<Dar, DarReadError> =>
  Either.gen(function* () {
    const files = yield* unzipDar(bytes, options.maxInflatedBytes ?? DEFAULT_MAX_DAR_INFLATED_BYTES)
    const entries = Object.keys(files).sort()
    const manifestBytes = files[MANIFEST_PATH]
    if (manifestBytes === undefined) return yield* Either.left(new DarManifestMissing({ entries }))
    const manifest = yield* Either.mapLeft(parseManifest(manifestBytes), (reason) => new DarManifestInvalid({ reason }))
    const paths = [manifest.mainDalf, ...manifest.dalfs.filter((d) => d !== manifest.mainDalf)]
    const archives: Array<DarArchive> = []
    for (const path of paths) {
      const archiveBytes = files[path]
      if (archiveBytes === undefined) return yield* Either.left(new DarEntryMissing({ name: path, entries }))
      const archive = yield* Either.mapLeft(decodeArchive(archiveBytes), (reason) => new ArchiveUndecodable({ path, reason }))
      if (archive.hashFunction !== HASH_FUNCTION_SHA256)
        return yield* Either.left(new UnsupportedHashFunction({ path, hashFunction: archive.hashFunction }))
      const computed = packageIdOf(archive.payload)
      if (computed !== archive.hash) return yield* Either.left(new ArchiveHashMismatch({ path, declared: archive.hash, computed }))
      const lfVersion = damlLfVersionOf(archive.payload)
      if (lfVersion !== undefined) return yield* Either.left(new DamlLfNotExecuted({ path, packageId: computed, lfVersion }))
      const description = yield* Either.mapLeft(
        decodePackagePayload(archive.payload),
        (reason) => new PackagePayloadUndecodable({ path, packageId: computed, reason })
      )
      yield* validatePackageDescription(description)
      const twin = archives.find((a) => a.packageId === computed)
      if (twin !== undefined) return yield* Either.left(new DuplicatePackageInDar({ packageId: computed, paths: [twin.path, path] }))
      archives.push({ path, packageId: computed, archive: archiveBytes, payload: archive.payload, description })
    }
    return { manifest, main: archives[0]!, archives }
  })
