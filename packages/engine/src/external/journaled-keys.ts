/**
 * An external party's signing keys as a participant's journal keeps them (JSON): the threshold
 * and each Ed25519 key's 32 raw bytes in hex. The SPKI and fingerprint follow from the raw key.
 */
import type { Json } from "@sandnet/core"
import { Either } from "effect"
import type { SigningKeysWithThreshold } from "./allocate.ts"
import { bytesToHex, hexToBytes } from "./encoding.ts"
import { ed25519PublicKeyFromRaw, type Ed25519PublicKey } from "./keys.ts"

export const signingKeysToJson = (keys: SigningKeysWithThreshold): Json => ({
  threshold: keys.threshold,
  keys: keys.keys.map((k) => bytesToHex(k.raw))
})

/** The keys of `signingKeysToJson`'s form; a reason when the value is not of that form. */
export const signingKeysFromJson = (json: Json): Either.Either<SigningKeysWithThreshold, string> => {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return Either.left("signing keys are not an object")
  const { threshold, keys } = json as { readonly threshold?: Json; readonly keys?: Json }
  if (typeof threshold !== "number" || !Array.isArray(keys)) return Either.left("signing keys need a threshold and a list of keys")
  const decoded: Array<Ed25519PublicKey> = []
  for (const key of keys as ReadonlyArray<Json>) {
    const raw = typeof key === "string" ? hexToBytes(key) : undefined
    if (raw === undefined) return Either.left(`signing key ${JSON.stringify(key)} is not hex`)
    const parsed = ed25519PublicKeyFromRaw(raw)
    if (Either.isLeft(parsed)) return Either.left(parsed.left)
    decoded.push(parsed.right)
  }
  return Either.right({ threshold, keys: decoded })
}
