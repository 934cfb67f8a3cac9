/**
 * Signatures as the ledger JSON API carries them (`Signature`: format, signature, signedBy,
 * signingAlgorithmSpec) and Ed25519 verification.
 *
 * Accepted: format SIGNATURE_FORMAT_CONCAT (RFC 8032 `R || S`, 64 bytes) or the legacy
 * SIGNATURE_FORMAT_RAW (Canton migrates RAW to CONCAT for Ed25519); algorithm
 * SIGNING_ALGORITHM_SPEC_ED25519, or SIGNING_ALGORITHM_SPEC_UNSPECIFIED (Canton then infers it
 * from the key). `signedBy` is the signing key's fingerprint.
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { isFingerprint } from "@sandnet/core"
import { Either } from "effect"
import { base64ToBytes } from "./encoding.ts"
import { MalformedSignature, UnsupportedSignatureFormat } from "./errors.ts"

/** Canton's `SignatureFormat` enum names. */
export const SignatureFormat = {
  SIGNATURE_FORMAT_UNSPECIFIED: 0,
  SIGNATURE_FORMAT_RAW: 1,
  SIGNATURE_FORMAT_DER: 2,
  SIGNATURE_FORMAT_CONCAT: 3,
  SIGNATURE_FORMAT_SYMBOLIC: 10000
} as const

/** Canton's `SigningAlgorithmSpec` enum names. */
export const SigningAlgorithmSpec = {
  SIGNING_ALGORITHM_SPEC_UNSPECIFIED: 0,
  SIGNING_ALGORITHM_SPEC_ED25519: 1,
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256: 2,
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384: 3,
  SIGNING_ALGORITHM_SPEC_ML_DSA_65: 4
} as const

export interface SignatureJson {
  readonly format: string
  /** Standard base64 of the signature bytes. */
  readonly signature: string
  /** Fingerprint of the signing key (`1220` + 64 hex). */
  readonly signedBy: string
  readonly signingAlgorithmSpec: string
}

export interface ParsedSignature {
  /** JSON path of the signature in its request, for error messages. */
  readonly location: string
  /** 64 bytes, `R || S`. */
  readonly signature: Uint8Array
  readonly signedBy: string
}

export const parseSignature = (
  json: SignatureJson,
  location: string
): Either.Either<ParsedSignature, UnsupportedSignatureFormat | MalformedSignature> => {
  const unsupported = (attribute: string, value: string, reason: string) =>
    Either.left(new UnsupportedSignatureFormat({ location, attribute, value, reason }))
  switch (json.format) {
    case "SIGNATURE_FORMAT_CONCAT":
    case "SIGNATURE_FORMAT_RAW":
      break
    case "SIGNATURE_FORMAT_DER":
      return unsupported("format", json.format, "SIGNATURE_FORMAT_DER is the EC-DSA format; Ed25519 signatures use SIGNATURE_FORMAT_CONCAT")
    case "SIGNATURE_FORMAT_SYMBOLIC":
      return unsupported("format", json.format, "SIGNATURE_FORMAT_SYMBOLIC is Canton's test-only crypto and is not accepted")
    case "SIGNATURE_FORMAT_UNSPECIFIED":
    case "":
      return unsupported("format", json.format, "the signature format is not set; use SIGNATURE_FORMAT_CONCAT")
    default:
      return unsupported("format", json.format, `unknown signature format "${json.format}"; use SIGNATURE_FORMAT_CONCAT`)
  }
  switch (json.signingAlgorithmSpec) {
    case "SIGNING_ALGORITHM_SPEC_ED25519":
    case "SIGNING_ALGORITHM_SPEC_UNSPECIFIED":
      break
    case "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256":
    case "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384":
    case "SIGNING_ALGORITHM_SPEC_ML_DSA_65":
      return unsupported(
        "signingAlgorithmSpec",
        json.signingAlgorithmSpec,
        `${json.signingAlgorithmSpec} is not supported: Sandnet keys are Ed25519, use SIGNING_ALGORITHM_SPEC_ED25519`
      )
    default:
      return unsupported(
        "signingAlgorithmSpec",
        json.signingAlgorithmSpec,
        `unknown signing algorithm "${json.signingAlgorithmSpec}"; use SIGNING_ALGORITHM_SPEC_ED25519`
      )
  }
  if (!isFingerprint(json.signedBy))
    return Either.left(
      new MalformedSignature({ location, attribute: "signedBy", reason: `"${json.signedBy}" is not a key fingerprint (1220 + 64 hex)` })
    )
  if (json.signature.length === 0)
    return Either.left(new MalformedSignature({ location, attribute: "signature", reason: "must be non-empty" }))
  const signature = base64ToBytes(json.signature)
  if (signature === undefined)
    return Either.left(new MalformedSignature({ location, attribute: "signature", reason: "is not standard base64" }))
  if (signature.length !== 64)
    return Either.left(
      new MalformedSignature({ location, attribute: "signature", reason: `an Ed25519 signature has 64 bytes, got ${signature.length}` })
    )
  return Either.right({ location, signature, signedBy: json.signedBy })
}

/** RFC 8032 Ed25519 verification (strict: non-canonical encodings are rejected, no ZIP-215 leniency). */
export const verifyEd25519 = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean => {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false })
  } catch {
    return false
  }
}
