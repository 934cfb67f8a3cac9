import { Either } from "effect"
import { unzipSync } from "fflate"
import { describe, expect, it } from "vitest"
import {
  buildDar,
  buildDarEither,
  decodeArchive,
  encodeArchive,
  encodeDalf,
  encodePackagePayload,
  InvalidPackageDescription,
  MANIFEST_PATH,
  packageIdOf,
  packageIdOfDescription,
  parseManifest,
  readDar,
  type DarReadError
} from "../../src/packages/index.ts"
import { coin, manifest, standardManifest, util, zip } from "./fixtures.ts"

const failure = (bytes: Uint8Array, options?: Parameters<typeof readDar>[1]): DarReadError => {
  const result = readDar(bytes, options)
  if (Either.isRight(result)) throw new Error("expected the DAR to be rejected")
  return result.left
}

describe("buildDar / readDar", () => {
  it("round-trips packages, main first, with ids = sha256(payload)", () => {
    const bytes = buildDar({ name: "sandnet-coin", version: "0.1.0", packages: [util, coin("0.1.0")], mainIndex: 1 })
    const dar = Either.getOrThrow(readDar(bytes))
    expect(dar.archives.map((a) => a.description)).toEqual([coin("0.1.0"), util])
    expect(dar.main.packageId).toBe(packageIdOfDescription(coin("0.1.0")))
    expect(dar.main.packageId).toMatch(/^[0-9a-f]{64}$/)
    expect(dar.main.packageId).toBe(packageIdOf(encodePackagePayload(coin("0.1.0"))))
    expect(dar.manifest).toMatchObject({ format: "daml-lf", name: "sandnet-coin", sdkVersion: "0.0.0-sandnet" })
    expect(dar.main.path).toBe(`sandnet-coin-0.1.0-${dar.main.packageId}/sandnet-coin-0.1.0-${dar.main.packageId}.dalf`)
  })

  it("is deterministic and lays out a standard DAR", () => {
    const input = { name: "sandnet-coin", version: "0.1.0", packages: [coin("0.1.0"), util] }
    const a = buildDar(input)
    expect(Buffer.from(buildDar(input)).equals(Buffer.from(a))).toBe(true)
    const entries = unzipSync(a)
    expect(Object.keys(entries)[0]).toBe(MANIFEST_PATH)
    const parsed = Either.getOrThrow(parseManifest(entries[MANIFEST_PATH]!))
    expect(parsed.dalfs).toHaveLength(2)
    expect(parsed.mainDalf).toBe(parsed.dalfs[0])
    const archive = Either.getOrThrow(decodeArchive(entries[parsed.mainDalf]!))
    expect(archive.hashFunction).toBe(0)
    expect(archive.hash).toBe(packageIdOf(archive.payload))
  })

  it("wraps long manifest lines at 72 bytes and reads them back", () => {
    const text = Buffer.from(standardManifest("x".repeat(100) + ".dalf", ["x".repeat(100) + ".dalf", "y.dalf"])).toString()
    for (const line of text.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(72)
    const parsed = Either.getOrThrow(parseManifest(Buffer.from(text)))
    expect(parsed.mainDalf).toBe("x".repeat(100) + ".dalf")
    expect(parsed.dalfs).toEqual(["x".repeat(100) + ".dalf", "y.dalf"])
  })

  it("refuses to build from invalid input", () => {
    expect(() => buildDar({ name: "d", version: "1", packages: [coin("01.0")] })).toThrow(InvalidPackageDescription)
    expect(Either.isLeft(buildDarEither({ name: "d", version: "1", packages: [] }))).toBe(true)
    expect(Either.isLeft(buildDarEither({ name: "d", version: "1", packages: [util], mainIndex: 1 }))).toBe(true)
    expect(Either.isLeft(buildDarEither({ name: "d", version: "1", packages: [util, util] }))).toBe(true)
    const twice = coin("1.0.0", { modules: [...coin("1.0.0").modules, ...coin("1.0.0").modules] })
    expect(Either.getLeft(buildDarEither({ name: "d", version: "1", packages: [twice] }))).toEqual(
      expect.objectContaining({ value: expect.objectContaining({ reason: "module Sandnet.Coin is defined twice" }) })
    )
  })
})

describe("readDar rejections", () => {
  const good = encodeDalf(coin("0.1.0"))
  const path = `d/${good.packageId}.dalf`

  it("not a zip", () => {
    for (const bytes of [new Uint8Array(0), new Uint8Array(10), Buffer.from("hello, this is definitely not a zip archive at all")]) {
      expect(failure(bytes)).toMatchObject({ _tag: "DarNotAZip", code: "INVALID_DAR" })
    }
    const valid = buildDar({ name: "d", version: "1", packages: [util] })
    expect(failure(valid.subarray(0, valid.length - 30))).toMatchObject({ _tag: "DarNotAZip" })
    // Damaged deflate data: either it does not inflate or its CRC-32 no longer matches.
    for (const [from, to] of [[40, 120], [100, 101], [150, 151]] as const) {
      const corrupted = new Uint8Array(valid)
      corrupted.fill(0xff, from, to)
      expect(failure(corrupted)).toMatchObject({ _tag: "DarNotAZip", code: "INVALID_DAR" })
    }
  })

  it("missing manifest", () => {
    expect(failure(zip({ [path]: good.archive }))).toMatchObject({ _tag: "DarManifestMissing", code: "INVALID_LEGACY_DAR", entries: [path] })
  })

  it("manifest without Main-Dalf or with another format", () => {
    expect(failure(zip({ [MANIFEST_PATH]: manifest([["Dalfs", path], ["Format", "daml-lf"]]), [path]: good.archive }))).toMatchObject({
      _tag: "DarManifestInvalid",
      code: "DAR_PARSE_ERROR",
      reason: "Cannot find attribute: Main-Dalf"
    })
    expect(
      failure(zip({ [MANIFEST_PATH]: manifest([["Main-Dalf", path], ["Dalfs", path], ["Format", "daml-lf-2"]]), [path]: good.archive }))
    ).toMatchObject({ _tag: "DarManifestInvalid", reason: "Unsupported format: daml-lf-2" })
  })

  it("manifest naming a missing archive", () => {
    const error = failure(zip({ [MANIFEST_PATH]: standardManifest(path, [path, "d/missing.dalf"]), [path]: good.archive }))
    expect(error).toMatchObject({ _tag: "DarEntryMissing", code: "INVALID_ZIP_ENTRY", name: "d/missing.dalf" })
  })

  it("tampered payload (hash mismatch)", () => {
    const payload = new Uint8Array(good.payload)
    payload[payload.length - 1] = (payload[payload.length - 1] ?? 0) ^ 1
    const tampered = encodeArchive({ hashFunction: 0, payload, hash: good.packageId })
    const error = failure(zip({ [MANIFEST_PATH]: standardManifest(path, [path]), [path]: tampered }))
    expect(error).toMatchObject({ _tag: "ArchiveHashMismatch", code: "DAR_PARSE_ERROR", declared: good.packageId, computed: packageIdOf(payload) })
  })

  it("unsupported hash function", () => {
    const archive = encodeArchive({ hashFunction: 1, payload: good.payload, hash: good.packageId })
    expect(failure(zip({ [MANIFEST_PATH]: standardManifest(path, [path]), [path]: archive }))).toMatchObject({
      _tag: "UnsupportedHashFunction",
      hashFunction: 1
    })
  })

  it("archive that is not protobuf", () => {
    expect(failure(zip({ [MANIFEST_PATH]: standardManifest(path, [path]), [path]: Uint8Array.of(0xff, 0xff, 0xff) }))).toMatchObject({
      _tag: "ArchiveUndecodable",
      path
    })
  })

  it("a Daml-LF package (a user's own DAR) is not executed: UNSUPPORTED_OPERATION naming its Daml-LF version", () => {
    // ArchivePayload { minor = "1" (3), daml_lf_2 = <bytes> (4) }
    const payload = Uint8Array.of(0x1a, 0x01, 0x31, 0x22, 0x02, 0x08, 0x01)
    const archive = encodeArchive({ hashFunction: 0, payload, hash: packageIdOf(payload) })
    const error = failure(zip({ [MANIFEST_PATH]: standardManifest(path, [path]), [path]: archive }))
    expect(error).toMatchObject({ _tag: "DamlLfNotExecuted", code: "UNSUPPORTED_OPERATION", lfVersion: "2.1", packageId: packageIdOf(payload) })
    expect(error.message).toMatch(/^Sandnet does not execute Daml-LF: .* is a Daml-LF 2\.1 package/)
  })

  it("undecodable payloads: garbage, a Daml-LF marker in bytes that are not protobuf, wrong minor", () => {
    const payloads = [
      Buffer.from("not a payload"),
      // ArchivePayload { minor = "2.1" (3), daml_lf_2 = <bytes> (4) } followed by a truncated field
      Uint8Array.of(0x1a, 0x03, 0x32, 0x2e, 0x31, 0x22, 0x02, 0x08, 0x01, 0x22, 0x05),
      // ArchivePayload { minor = "sandnet-2" }
      Uint8Array.of(0x1a, 0x09, ...Buffer.from("sandnet-2"))
    ]
    const reasons = payloads.map((payload) => {
      const archive = encodeArchive({ hashFunction: 0, payload, hash: packageIdOf(payload) })
      const error = failure(zip({ [MANIFEST_PATH]: standardManifest(path, [path]), [path]: archive }))
      expect(error).toMatchObject({ _tag: "PackagePayloadUndecodable", code: "DAR_PARSE_ERROR" })
      return (error as { reason: string }).reason
    })
    expect(reasons[1]).toMatch(/malformed protobuf/)
    expect(reasons[2]).toMatch(/"sandnet-2"/)
  })

  it("payload with an invalid description", () => {
    const bad = encodeDalf({ ...util, version: "1.0.0-rc1" })
    expect(failure(zip({ [MANIFEST_PATH]: standardManifest(path, [path]), [path]: bad.archive }))).toMatchObject({
      _tag: "InvalidPackageDescription",
      code: "DAR_VALIDATION_ERROR"
    })
  })

  it("duplicate package ids", () => {
    const other = `e/${good.packageId}.dalf`
    expect(failure(zip({ [MANIFEST_PATH]: standardManifest(path, [path, other]), [path]: good.archive, [other]: good.archive }))).toMatchObject({
      _tag: "DuplicatePackageInDar",
      packageId: good.packageId,
      paths: [path, other]
    })
  })

  it("zip bomb guard", () => {
    const bytes = buildDar({ name: "d", version: "1", packages: [coin("1.0.0")] })
    expect(failure(bytes, { maxInflatedBytes: 100 })).toMatchObject({ _tag: "DarTooLarge", code: "ZIP_BOMB" })
  })
})
