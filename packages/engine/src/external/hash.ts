/**
 * Canton-style hashes: SHA-256 over a 4-byte big-endian hash purpose followed by the content, and
 * the multihash form (0x12 = sha2-256, 0x20 = 32 bytes, digest) that Canton calls a hash's
 * "cryptographic evidence" and that is what gets signed for topology transactions.
 */
import { createHash } from "node:crypto"
import { bytesToBase64, bytesToHex, concatBytes, int32BigEndian } from "./encoding.ts"

/** The subset of Canton's `HashPurpose` ids that Sandnet uses (same numbers as Canton). */
export const HashPurpose = {
  TopologyTransactionSignature: 11,
  PublicKeyFingerprint: 12,
  PreparedSubmission: 48,
  MultiTopologyTransaction: 55
} as const
export type HashPurpose = (typeof HashPurpose)[keyof typeof HashPurpose]

export const MULTIHASH_SHA256_PREFIX: Uint8Array = Uint8Array.of(0x12, 0x20)

/** A SHA-256 hash with its multihash encoding. */
export interface CantonHash {
  /** The raw 32-byte SHA-256 digest. */
  readonly digest: Uint8Array
  /** `0x12 0x20 || digest`, 34 bytes: what Canton serialises and signs for topology hashes. */
  readonly multihash: Uint8Array
  /** Lowercase hex of `multihash` (`1220` + 64 hex). */
  readonly hex: string
  /** Standard base64 of `multihash`. */
  readonly base64: string
}

export const cantonHashOfDigest = (digest: Uint8Array): CantonHash => {
  const multihash = concatBytes(MULTIHASH_SHA256_PREFIX, digest)
  return { digest, multihash, hex: bytesToHex(multihash), base64: bytesToBase64(multihash) }
}

/** `sha256(int32be(purpose) || part_1 || ... || part_n)`, like Canton's `Hash.digest(purpose, bytes)`. */
export const hashWithPurpose = (purpose: HashPurpose, ...parts: ReadonlyArray<Uint8Array>): CantonHash => {
  const hash = createHash("sha256")
  hash.update(int32BigEndian(purpose))
  for (const part of parts) hash.update(part)
  return cantonHashOfDigest(new Uint8Array(hash.digest()))
}
