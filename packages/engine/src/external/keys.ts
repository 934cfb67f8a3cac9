/**
 * Ed25519 signing public keys as Canton's ledger API carries them (`SigningPublicKey`: format,
 * keyData, keySpec), their validation and their fingerprints.
 *
 * Fingerprint (as Canton's `Fingerprint.create` over `SigningPublicKey.dataForFingerprint`): for an
 * Ed25519 key the hash covers the raw 32-byte key, whichever format it arrived in, so that keys
 * migrated from RAW to DER SubjectPublicKeyInfo keep their fingerprint:
 *
 *     fingerprint = "1220" + hex(sha256(int32be(12 = PublicKeyFingerprint) || raw32))
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { InvalidArgument } from "@sandnet/core"
import { Either } from "effect"
import { base64ToBytes, bytesEqual, concatBytes } from "./encoding.ts"
import { HashPurpose, hashWithPurpose } from "./hash.ts"

/** Canton's `CryptoKeyFormat` enum (crypto/v30/crypto.proto). */
export const CryptoKeyFormat = {
  CRYPTO_KEY_FORMAT_UNSPECIFIED: 0,
  CRYPTO_KEY_FORMAT_DER: 2,
  CRYPTO_KEY_FORMAT_RAW: 3,
  CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO: 4,
  CRYPTO_KEY_FORMAT_DER_PKCS8_PRIVATE_KEY_INFO: 5,
  CRYPTO_KEY_FORMAT_SYMBOLIC: 10000
} as const
export type CryptoKeyFormatName = keyof typeof CryptoKeyFormat

/** Canton's `SigningKeySpec` enum. */
export const SigningKeySpec = {
  SIGNING_KEY_SPEC_UNSPECIFIED: 0,
  SIGNING_KEY_SPEC_EC_CURVE25519: 1,
  SIGNING_KEY_SPEC_EC_P256: 2,
  SIGNING_KEY_SPEC_EC_P384: 3,
  SIGNING_KEY_SPEC_EC_SECP256K1: 4,
  SIGNING_KEY_SPEC_ML_DSA_65: 5
} as const
export type SigningKeySpecName = keyof typeof SigningKeySpec

/** Canton's `SigningKeyUsage` enum. */
export const SigningKeyUsage = {
  SIGNING_KEY_USAGE_UNSPECIFIED: 0,
  SIGNING_KEY_USAGE_NAMESPACE: 1,
  SIGNING_KEY_USAGE_IDENTITY_DELEGATION: 2,
  SIGNING_KEY_USAGE_SEQUENCER_AUTHENTICATION: 3,
  SIGNING_KEY_USAGE_PROTOCOL: 4,
  SIGNING_KEY_USAGE_PROOF_OF_OWNERSHIP: 5
} as const

/** The usages the ledger API's generate-topology gives the party key (sorted by enum number). */
export const EXTERNAL_PARTY_KEY_USAGES: ReadonlyArray<number> = [
  SigningKeyUsage.SIGNING_KEY_USAGE_NAMESPACE,
  SigningKeyUsage.SIGNING_KEY_USAGE_PROTOCOL,
  SigningKeyUsage.SIGNING_KEY_USAGE_PROOF_OF_OWNERSHIP
]

/** The SigningPublicKey of the JSON ledger API (keyData is standard base64). */
export interface SigningPublicKeyJson {
  readonly format: string
  readonly keyData: string
  readonly keySpec: string
}

/** A validated Ed25519 public key. */
export interface Ed25519PublicKey {
  /** The 32-byte key (RFC 8032 encoding of the point). */
  readonly raw: Uint8Array
  /** DER X.509 SubjectPublicKeyInfo (44 bytes), the form Canton stores in topology transactions. */
  readonly spki: Uint8Array
  /** `1220` + 64 hex. */
  readonly fingerprint: string
}

/** SEQUENCE(42) { SEQUENCE(5) { OID 1.3.101.112 } BIT STRING(33) { 0 unused bits, key } } */
export const ED25519_SPKI_PREFIX: Uint8Array = Uint8Array.of(
  0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00
)
const ED25519_OID = "1.3.101.112"
const KNOWN_OIDS: Readonly<Record<string, string>> = {
  "1.3.101.112": "Ed25519",
  "1.3.101.113": "Ed448",
  "1.3.101.110": "X25519",
  "1.3.101.111": "X448",
  "1.2.840.10045.2.1": "EC public key (P-256/P-384/secp256k1)",
  "1.2.840.113549.1.1.1": "RSA"
}

export const fingerprintOfEd25519 = (raw: Uint8Array): string =>
  hashWithPurpose(HashPurpose.PublicKeyFingerprint, raw).hex

export const ed25519Spki = (raw: Uint8Array): Uint8Array => concatBytes(ED25519_SPKI_PREFIX, raw)

/** Validates 32 raw key bytes (length and that they decode to a curve point). */
export const ed25519PublicKeyFromRaw = (raw: Uint8Array): Either.Either<Ed25519PublicKey, string> => {
  if (raw.length === 0) return Either.left("the key is empty")
  if (raw.length !== 32) return Either.left(`an Ed25519 public key has 32 bytes, got ${raw.length}`)
  try {
    ed25519.Point.fromBytes(raw)
  } catch {
    return Either.left("the 32 bytes are not an Ed25519 curve point")
  }
  const copy = new Uint8Array(raw)
  return Either.right({ raw: copy, spki: ed25519Spki(copy), fingerprint: fingerprintOfEd25519(copy) })
}

interface DerElement {
  readonly tag: number
  readonly start: number
  readonly end: number
}

/** Reads one DER TLV at `at`; definite lengths up to 4 bytes. */
const readDer = (bytes: Uint8Array, at: number): DerElement | string => {
  const tag = bytes[at]
  const first = bytes[at + 1]
  if (tag === undefined || first === undefined) return "truncated DER"
  let length = first
  let start = at + 2
  if (first & 0x80) {
    const count = first & 0x7f
    if (count === 0 || count > 4) return "unsupported DER length encoding"
    length = 0
    for (let i = 0; i < count; i++) {
      const b = bytes[start + i]
      if (b === undefined) return "truncated DER"
      length = length * 256 + b
    }
    start += count
  }
  const end = start + length
  if (end > bytes.length) return "truncated DER"
  return { tag, start, end }
}

const decodeOid = (bytes: Uint8Array): string => {
  const parts: Array<number> = []
  let value = 0
  for (const b of bytes) {
    value = value * 128 + (b & 0x7f)
    if ((b & 0x80) === 0) {
      if (parts.length === 0) {
        const first = value < 80 ? Math.floor(value / 40) : 2
        parts.push(first, value - first * 40)
      } else parts.push(value)
      value = 0
    }
  }
  return parts.join(".")
}

/** Parses a DER X.509 SubjectPublicKeyInfo holding an Ed25519 key (RFC 8410: no algorithm parameters). */
export const ed25519PublicKeyFromSpki = (der: Uint8Array): Either.Either<Ed25519PublicKey, string> => {
  if (der.length === 0) return Either.left("the key is empty")
  const outer = readDer(der, 0)
  if (typeof outer === "string") return Either.left(`not a DER SubjectPublicKeyInfo: ${outer}`)
  if (outer.tag !== 0x30 || outer.end !== der.length)
    return Either.left("not a DER SubjectPublicKeyInfo: expected one SEQUENCE spanning the whole key")
  const algorithm = readDer(der, outer.start)
  if (typeof algorithm === "string" || algorithm.tag !== 0x30)
    return Either.left("not a DER SubjectPublicKeyInfo: missing AlgorithmIdentifier")
  const oid = readDer(der, algorithm.start)
  if (typeof oid === "string" || oid.tag !== 0x06)
    return Either.left("not a DER SubjectPublicKeyInfo: missing algorithm OID")
  const oidText = decodeOid(der.subarray(oid.start, oid.end))
  if (oidText !== ED25519_OID) {
    const known = KNOWN_OIDS[oidText]
    return Either.left(
      `the key's algorithm OID is ${oidText}${known === undefined ? "" : ` (${known})`}, expected ${ED25519_OID} (Ed25519)`
    )
  }
  if (oid.end !== algorithm.end) return Either.left("Ed25519 AlgorithmIdentifier must not carry parameters (RFC 8410)")
  const bits = readDer(der, algorithm.end)
  if (typeof bits === "string" || bits.tag !== 0x03 || bits.end !== outer.end)
    return Either.left("not a DER SubjectPublicKeyInfo: missing subjectPublicKey BIT STRING")
  if (der[bits.start] !== 0) return Either.left("subjectPublicKey BIT STRING must have 0 unused bits")
  const raw = der.subarray(bits.start + 1, bits.end)
  return ed25519PublicKeyFromRaw(raw)
}

/** Which attribute of a SigningPublicKey is at fault. */
export type KeyAttribute = "format" | "keyData" | "keySpec"
export interface KeyProblem {
  readonly attribute: KeyAttribute
  readonly reason: string
}

const nameOf = <T extends Record<string, number>>(table: T, value: number): string =>
  Object.keys(table).find((k) => table[k] === value) ?? String(value)

/**
 * Validates key bytes in a format and key spec given as Canton enum numbers (as they appear inside
 * topology transactions). Accepted: key spec EC_CURVE25519 with format DER_X509_SUBJECT_PUBLIC_KEY_INFO
 * or RAW; every other combination is rejected with a reason.
 */
export const decodeSigningKey = (
  format: number,
  keyData: Uint8Array,
  keySpec: number
): Either.Either<Ed25519PublicKey, KeyProblem> => {
  switch (keySpec) {
    case SigningKeySpec.SIGNING_KEY_SPEC_EC_CURVE25519:
      break
    case SigningKeySpec.SIGNING_KEY_SPEC_UNSPECIFIED:
      return Either.left({ attribute: "keySpec", reason: "the key spec is not set; use SIGNING_KEY_SPEC_EC_CURVE25519" })
    case SigningKeySpec.SIGNING_KEY_SPEC_EC_P256:
    case SigningKeySpec.SIGNING_KEY_SPEC_EC_P384:
    case SigningKeySpec.SIGNING_KEY_SPEC_EC_SECP256K1:
    case SigningKeySpec.SIGNING_KEY_SPEC_ML_DSA_65:
      return Either.left({
        attribute: "keySpec",
        reason: `${nameOf(SigningKeySpec, keySpec)} is a Canton key spec that Sandnet does not support; external parties use SIGNING_KEY_SPEC_EC_CURVE25519 (Ed25519)`
      })
    default:
      return Either.left({ attribute: "keySpec", reason: `unknown key spec ${keySpec}` })
  }
  const wrap = (result: Either.Either<Ed25519PublicKey, string>) =>
    Either.mapLeft(result, (reason): KeyProblem => ({ attribute: "keyData", reason }))
  switch (format) {
    case CryptoKeyFormat.CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO:
      return wrap(ed25519PublicKeyFromSpki(keyData))
    case CryptoKeyFormat.CRYPTO_KEY_FORMAT_RAW:
      return wrap(ed25519PublicKeyFromRaw(keyData))
    case CryptoKeyFormat.CRYPTO_KEY_FORMAT_UNSPECIFIED:
      return Either.left({ attribute: "format", reason: "the key format is not set" })
    case CryptoKeyFormat.CRYPTO_KEY_FORMAT_DER:
      return Either.left({
        attribute: "format",
        reason:
          "CRYPTO_KEY_FORMAT_DER is a legacy format Canton only migrates for EC-DSA keys; send the Ed25519 key as CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO or CRYPTO_KEY_FORMAT_RAW"
      })
    case CryptoKeyFormat.CRYPTO_KEY_FORMAT_DER_PKCS8_PRIVATE_KEY_INFO:
      return Either.left({
        attribute: "format",
        reason: "CRYPTO_KEY_FORMAT_DER_PKCS8_PRIVATE_KEY_INFO is a private key format; send the public key only"
      })
    case CryptoKeyFormat.CRYPTO_KEY_FORMAT_SYMBOLIC:
      return Either.left({ attribute: "format", reason: "CRYPTO_KEY_FORMAT_SYMBOLIC is Canton's test-only crypto and is not accepted" })
    default:
      return Either.left({ attribute: "format", reason: `unknown key format ${format}` })
  }
}

const ACCEPTED_FORMATS = "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO, CRYPTO_KEY_FORMAT_RAW"

/**
 * Parses the JSON API's SigningPublicKey. Errors are `InvalidArgument` naming the field
 * (`<fieldPrefix>.format`, `<fieldPrefix>.keyData`, `<fieldPrefix>.keySpec`).
 */
export const parseSigningPublicKey = (
  json: SigningPublicKeyJson,
  fieldPrefix = "publicKey"
): Either.Either<Ed25519PublicKey, InvalidArgument> => {
  const invalid = (attribute: KeyAttribute, message: string) =>
    Either.left(new InvalidArgument({ field: `${fieldPrefix}.${attribute}`, message }))
  const format = (CryptoKeyFormat as Readonly<Record<string, number>>)[json.format]
  if (format === undefined)
    return invalid("format", `unknown key format "${json.format}"; accepted: ${ACCEPTED_FORMATS}`)
  const keySpec = (SigningKeySpec as Readonly<Record<string, number>>)[json.keySpec]
  if (keySpec === undefined)
    return invalid("keySpec", `unknown key spec "${json.keySpec}"; accepted: SIGNING_KEY_SPEC_EC_CURVE25519`)
  if (json.keyData.length === 0) return invalid("keyData", "must be non-empty")
  const keyData = base64ToBytes(json.keyData)
  if (keyData === undefined) return invalid("keyData", "is not standard base64")
  return Either.mapLeft(
    decodeSigningKey(format, keyData, keySpec),
    (problem) => new InvalidArgument({ field: `${fieldPrefix}.${problem.attribute}`, message: problem.reason })
  )
}

export const sameKey = (a: Ed25519PublicKey, b: Ed25519PublicKey): boolean => bytesEqual(a.raw, b.raw)
