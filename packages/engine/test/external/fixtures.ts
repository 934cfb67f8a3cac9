/** Deterministic Ed25519 key pairs and signing helpers for the external-party tests. */
import { ed25519 } from "@noble/curves/ed25519.js"
import { ED25519_SPKI_PREFIX, type SignatureJson, type SigningPublicKeyJson } from "../../src/external/index.ts"

export interface TestKey {
  readonly secret: Uint8Array
  readonly raw: Uint8Array
  readonly spki: Uint8Array
  readonly json: SigningPublicKeyJson
}

export const testKey = (seed: number): TestKey => {
  const secret = new Uint8Array(32)
  for (let i = 0; i < 32; i++) secret[i] = (seed * 31 + i * 7) & 0xff
  const raw = ed25519.getPublicKey(secret)
  const spki = new Uint8Array([...ED25519_SPKI_PREFIX, ...raw])
  return {
    secret,
    raw,
    spki,
    json: {
      format: "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
      keyData: Buffer.from(spki).toString("base64"),
      keySpec: "SIGNING_KEY_SPEC_EC_CURVE25519"
    }
  }
}

export const sign = (key: TestKey, message: Uint8Array): Uint8Array => ed25519.sign(message, key.secret)

export const signatureJson = (key: TestKey, message: Uint8Array, signedBy: string): SignatureJson => ({
  format: "SIGNATURE_FORMAT_CONCAT",
  signature: Buffer.from(sign(key, message)).toString("base64"),
  signedBy,
  signingAlgorithmSpec: "SIGNING_ALGORITHM_SPEC_ED25519"
})

export const fromBase64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64"))
export const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64")

export const NS = (c: string): string => "1220" + c.repeat(64)
export const SYNCHRONIZER = `global-domain::${NS("a")}`
export const LOCAL = `PAR::participant1::${NS("b")}`
export const LOCAL_UID = `participant1::${NS("b")}`
export const OTHER = `participant2::${NS("c")}`
export const OBSERVER = `participant3::${NS("d")}`
