/**
 * External transaction signing (prepare / execute of an external party's transaction).
 *
 * The hash a party signs is Canton's hashing scheme V2 over the protobuf `PreparedTransaction`
 * (hashing-v2.ts). As in Canton's interactive submission, the party signs the raw 32-byte digest
 * (not its multihash form) and a submission is authorized when at least `threshold` distinct
 * registered keys produced a valid signature; signatures by other keys or that fail verification
 * are reported but do not by themselves reject the submission.
 */
import type { PreparedTransaction } from "@canton-network/core-ledger-proto"
import { Either } from "effect"
import { bytesToBase64, bytesToHex } from "./encoding.ts"
import { MalformedSignature, PreparedTransactionNotAuthorized, UnsupportedSignatureFormat } from "./errors.ts"
import type { SigningKeysWithThreshold } from "./allocate.ts"
import { preparedTransactionV2Hash } from "./hashing-v2.ts"
import { parseSignature, type SignatureJson, verifyEd25519 } from "./signatures.ts"

export const PREPARED_TRANSACTION_HASHING_SCHEME = "HASHING_SCHEME_VERSION_V2" as const

export interface PreparedTransactionHash {
  /** The 32 bytes the party signs. */
  readonly digest: Uint8Array
  readonly hex: string
  /** Standard base64 of the digest (the JSON API's `preparedTransactionHash`). */
  readonly base64: string
  readonly hashingScheme: typeof PREPARED_TRANSACTION_HASHING_SCHEME
}

const hashOfDigest = (digest: Uint8Array): PreparedTransactionHash => ({
  digest,
  hex: bytesToHex(digest),
  base64: bytesToBase64(digest),
  hashingScheme: PREPARED_TRANSACTION_HASHING_SCHEME
})

/** The hash of a prepared transaction (scheme V2); a Left names why the message cannot be hashed. */
export const preparedTransactionHash = (prepared: PreparedTransaction): Either.Either<PreparedTransactionHash, string> =>
  Either.map(preparedTransactionV2Hash(prepared), hashOfDigest)

/** A one-line account of how the hash was computed (the JSON API's `hashingDetails` when verbose). */
export const preparedTransactionHashingDetails = (hash: PreparedTransactionHash): string =>
  `${hash.hashingScheme}: sha256(int32be(48) || 0x02 || sha256(int32be(48) || transaction) || sha256(int32be(48) || 0x01 || metadata)) over the PreparedTransaction's fields = ${hash.hex}`

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
