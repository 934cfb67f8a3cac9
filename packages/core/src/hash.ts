/**
 * Hashing and canonical serialisation. Every id in Sandnet is derived from content through these
 * functions, never from wall time or randomness, so the same inputs give the same ids everywhere.
 */
import * as crypto from "node:crypto"

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type JsonObject = { readonly [key: string]: Json }

/**
 * One-shot hashing (`crypto.hash`, Node 20.12+) costs half of a Hash object's create, update and
 * digest: ids are hashed several times per transaction, so it shows. Older Nodes use the object.
 */
const oneShot: ((algorithm: string, data: string | Uint8Array, encoding: "hex") => string) | undefined = (
  crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "hex") => string }
).hash

/** SHA-256 of UTF-8 text or bytes, as lowercase hex. */
export const sha256Hex = (data: string | Uint8Array): string =>
  oneShot !== undefined ? oneShot("sha256", data, "hex") : crypto.createHash("sha256").update(data).digest("hex")

const oneShotBytes = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "buffer") => Buffer }).hash

/**
 * A compact map key for long text: the first 16 bytes of its SHA-256, one character each (a
 * 16-character one-byte string, about 32 bytes of heap). 128 bits do not collide by chance.
 */
export const sha256Key128 = (data: string): string =>
  (oneShotBytes !== undefined ? oneShotBytes("sha256", data, "buffer") : crypto.createHash("sha256").update(data).digest()).toString("latin1", 0, 16)

/** SHA-512 of UTF-8 text, as lowercase hex (one-shot where the Node has it, like sha256Hex). */
export const sha512Hex = (data: string): string =>
  oneShot !== undefined ? oneShot("sha512", data, "hex") : crypto.createHash("sha512").update(data).digest("hex")

/** How sha256OfParts frames a part: length-prefixed, so that ("ab","c") and ("a","bc") differ. */
const framedPart = (part: string): string => `${part.length}:${part}`

/** SHA-256 over several parts, each length-prefixed so that ("ab","c") and ("a","bc") differ. */
export const sha256OfParts = (...parts: ReadonlyArray<string>): string => {
  let text = ""
  for (const part of parts) text += framedPart(part)
  return sha256Hex(text)
}

/** sha256OfParts over parts given one at a time: `digest()` equals sha256OfParts of every part added so far. */
export interface RunningParts {
  readonly add: (part: string) => void
  readonly digest: () => string
}

/** A SHA-256 fed text by text, each framed by `frame`, that can be read at any point. */
const streamingSha256 = (frame: (text: string) => ReadonlyArray<string>) => {
  const hash = crypto.createHash("sha256")
  return {
    add: (text: string): void => {
      for (const piece of frame(text)) hash.update(piece)
    },
    digest: (): string => hash.copy().digest("hex")
  }
}

export const runningParts = (): RunningParts => streamingSha256((part) => [framedPart(part)])

/**
 * Canonical JSON: object keys sorted, no whitespace. Objects are compared and hashed through this
 * form so that property insertion order can never leak into an id or a history hash.
 */
export const canonicalJson = (value: unknown): string => {
  const cached = typeof value === "object" && value !== null ? canonicalCache.get(value) : undefined
  if (cached !== undefined) return cached
  const parts: Array<string> = []
  writeCanonical(value, parts)
  return parts.join("")
}

/**
 * Canonical forms of objects that are hashed repeatedly (the same update is part of many nodes'
 * histories). Only frozen-by-convention values are cached: updates and events are never mutated.
 */
const canonicalCache = new WeakMap<object, string>()

/** Like canonicalJson, and remembers the result for this (immutable) object. */
export const canonicalJsonCached = (value: object): string => {
  let text = canonicalCache.get(value)
  if (text === undefined) {
    text = canonicalJson(value)
    canonicalCache.set(value, text)
  }
  return text
}

const writeCanonical = (value: unknown, out: Array<string>): void => {
  if (value === null || value === undefined) {
    out.push("null")
    return
  }
  switch (typeof value) {
    case "string":
      out.push(JSON.stringify(value))
      return
    case "number":
    case "boolean":
      out.push(JSON.stringify(value))
      return
    case "bigint":
      out.push(JSON.stringify(value.toString()))
      return
    case "object": {
      const cached = canonicalCache.get(value)
      if (cached !== undefined) {
        out.push(cached)
        return
      }
      if (Array.isArray(value)) {
        out.push("[")
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(",")
          writeCanonical(value[i], out)
        }
        out.push("]")
        return
      }
      const record = value as Record<string, unknown>
      const keys = Object.keys(record).sort()
      out.push("{")
      let first = true
      for (const key of keys) {
        const v = record[key]
        if (v === undefined) continue
        if (!first) out.push(",")
        first = false
        out.push(JSON.stringify(key), ":")
        writeCanonical(v, out)
      }
      out.push("}")
      return
    }
    default:
      out.push("null")
  }
}

/** The multihash form used for Canton-style fingerprints and hashes: 0x12 (sha2-256), 0x20 (32 bytes), digest. */
export const multihashSha256Hex = (data: string | Uint8Array): string => "1220" + sha256Hex(data)

/** Incremental hasher for long histories (the simulation's history hash). */
export interface RunningHash {
  readonly update: (text: string) => void
  readonly digest: () => string
}

/**
 * Texts gathered before they are hashed together. SHA-256 over a stream does not depend on how it
 * is cut, so the digest is the same; `node --cpu-prof` of the large scenario had two native
 * `update` calls per text (about 2.2 million of each) at 3.5% of the run.
 */
const RUNNING_HASH_BUFFER = 64 * 1024

/** Each text followed by a newline, hashed as one stream; `digest` may be read at any point. */
export const runningHash = (): RunningHash => {
  const hash = crypto.createHash("sha256")
  let pending = ""
  const flush = (): void => {
    if (pending.length === 0) return
    hash.update(pending)
    pending = ""
  }
  return {
    update: (text) => {
      pending += text + "\n"
      if (pending.length >= RUNNING_HASH_BUFFER) flush()
    },
    digest: () => {
      flush()
      return hash.copy().digest("hex")
    }
  }
}
