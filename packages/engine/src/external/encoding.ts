/**
 * Byte encodings used on the wire: the ledger JSON API carries bytes as standard base64 (padding
 * optional, as Java's basic decoder accepts), the wallet admin API as lowercase or uppercase hex.
 * Both decoders are strict: any character outside the alphabet is a rejection, never skipped.
 */

const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/
const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})*$/

export const bytesToBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64")

/** Standard-alphabet base64, padding optional; `undefined` when the text is not base64. */
export const base64ToBytes = (text: string): Uint8Array | undefined => {
  if (!BASE64_PATTERN.test(text)) return undefined
  return new Uint8Array(Buffer.from(text, "base64"))
}

export const bytesToHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

/** Hex of even length, either case, no `0x` prefix; `undefined` when the text is not hex. */
export const hexToBytes = (text: string): Uint8Array | undefined => {
  if (!HEX_PATTERN.test(text)) return undefined
  return new Uint8Array(Buffer.from(text, "hex"))
}

export const concatBytes = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

export const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Big-endian 4-byte encoding of a signed 32-bit integer (Canton's DeterministicEncoding.encodeInt). */
export const int32BigEndian = (value: number): Uint8Array => {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setInt32(0, value, false)
  return out
}
