/**
 * External transaction signing (prepare / execute of an external party's transaction).
 *
 * Sandnet's hashing scheme for a prepared transaction (SANDNET_CANONICAL_JSON_V1; Canton's own V2
 * scheme hashes the Daml transaction nodes and metadata field by field, which Sandnet does not
 * reproduce):
 *
 *     digest = sha256(int32be(48 = PreparedSubmission) || 0x01 (scheme version) || utf8(canonicalJson(value)))
 *
 * canonicalJson is core's (object keys sorted by UTF-16 code units, no whitespace, undefined object
 * members dropped). As in Canton's interactive submission, the party signs the raw 32-byte digest
 * (not its multihash form) and a submission is authorized when at least `threshold` distinct
 * registered keys produced a valid signature; signatures by other keys or that fail verification
 * are reported but do not by themselves reject the submission.
 */
import { canonicalJson, type Json } from "@sandnet/core"
import { Either } from "effect"
import { bytesToBase64, bytesToHex } from "./encoding.ts"
import { MalformedSignature, PreparedTransactionNotAuthorized, UnsupportedSignatureFormat } from "./errors.ts"
import { HashPurpose, hashWithPurpose } from "./hash.ts"
import type { SigningKeysWithThreshold } from "./allocate.ts"
import { parseSignature, type SignatureJson, verifyEd25519 } from "./signatures.ts"

export const PREPARED_TRANSACTION_HASHING_SCHEME = "SANDNET_CANONICAL_JSON_V1" as const
export const PREPARED_TRANSACTION_HASHING_SCHEME_VERSION = 1

export interface PreparedTransactionHash {
  /** The 32 bytes the party signs. */
  readonly digest: Uint8Array
  readonly hex: string
  /** Standard base64 of the digest (the JSON API's `preparedTransactionHash`). */
  readonly base64: string
  readonly hashingScheme: typeof PREPARED_TRANSACTION_HASHING_SCHEME
}

export const preparedTransactionHash = (value: Json): PreparedTransactionHash => {
  const hash = hashWithPurpose(
    HashPurpose.PreparedSubmission,
    Uint8Array.of(PREPARED_TRANSACTION_HASHING_SCHEME_VERSION),
    new TextEncoder().encode(canonicalJson(value))
  )
  return {
    digest: hash.digest,
    hex: bytesToHex(hash.digest),
    base64: bytesToBase64(hash.digest),
    hashingScheme: PREPARED_TRANSACTION_HASHING_SCHEME
  }
}

export interface VerifyPreparedTransactionInput {
  readonly partyId: string
  readonly hash: PreparedTransactionHash
  readonly signatures: ReadonlyArray<SignatureJson>
  /** The party's registered signing keys (VerifiedExternalParty.signingKeys). */
  readonly keys: SigningKeysWithThreshold
  /** JSON path prefix for error locations. */
  readonly location?: string | undefined
}

export interface PreparedTransactionAuthorization {
  readonly partyId: string
  /** Fingerprints of the keys with a valid signature, sorted. */
  readonly validSigners: ReadonlyArray<string>
  /** Signatures that were ignored (unknown key or failed verification). */
  readonly ignored: ReadonlyArray<string>
}

export const verifyPreparedTransactionSignatures = (
  input: VerifyPreparedTransactionInput
): Either.Either<
  PreparedTransactionAuthorization,
  PreparedTransactionNotAuthorized | UnsupportedSignatureFormat | MalformedSignature
> =>
  Either.gen(function* () {
    const location = input.location ?? "signatures"
    const valid = new Set<string>()
    const problems: Array<string> = []
    for (const [i, json] of input.signatures.entries()) {
      const parsed = yield* parseSignature(json, `${location}[${i}]`)
      const key = input.keys.keys.find((k) => k.fingerprint === parsed.signedBy)
      if (key === undefined) problems.push(`${parsed.location}: key ${parsed.signedBy} is not a signing key of ${input.partyId}`)
      else if (!verifyEd25519(parsed.signature, input.hash.digest, key.raw))
        problems.push(`${parsed.location}: signature by ${parsed.signedBy} does not verify`)
      else valid.add(parsed.signedBy)
    }
    if (valid.size < input.keys.threshold)
      return yield* Either.left(
        new PreparedTransactionNotAuthorized({
          partyId: input.partyId,
          threshold: input.keys.threshold,
          validSignatures: valid.size,
          hash: input.hash.hex,
          problems
        })
      )
    return { partyId: input.partyId, validSigners: [...valid].sort(), ignored: problems }
  })
