/**
 * The wire form of a protocol message: what crosses a process boundary when a network is spread
 * over processes (docs/storage.md, "A network spread over processes"). Messages are plain data
 * except for a few containers JSON does not keep: Maps (a transaction's inputs), Sets, byte
 * arrays, bigints and `undefined` inside arrays. Those travel as one-key tagged objects
 * (`{"$map": [[k, v], ...]}`, `{"$set": [...]}`, `{"$bytes": base64}`, `{"$bigint": "..."}`,
 * `{"$undefined": 0}`) and come back as they were; an object property that is `undefined` is left
 * out, as JSON does, and reads back as `undefined`.
 *
 * A message must survive the round trip unchanged in everything an actor reads: the simulation
 * test runs a whole scenario with every delivery passed through `toWire`/`fromWire` and compares
 * the history hash with the run without.
 */
import { invariant } from "@sandnet/core"
import type { Message } from "./network.ts"

const TAGS = new Set(["$map", "$set", "$bytes", "$bigint", "$undefined"])

const toBase64 = (bytes: Uint8Array): string => {
  let binary = ""
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!)
  return btoa(binary)
}

const fromBase64 = (text: string): Uint8Array => {
  const binary = atob(text)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/** The JSON-safe form of a value (see the module comment). */
export const encodeWireValue = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") {
    if (typeof value === "bigint") return { $bigint: value.toString() }
    invariant(typeof value !== "function" && typeof value !== "symbol", "a protocol message holds a function or a symbol")
    invariant(typeof value !== "number" || Number.isFinite(value), () => `a protocol message holds the number ${String(value)}`)
    return value
  }
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? { $undefined: 0 } : encodeWireValue(v)))
  if (value instanceof Map) return { $map: [...value].map(([k, v]) => [encodeWireValue(k), encodeWireValue(v)]) }
  if (value instanceof Set) return { $set: [...value].map(encodeWireValue) }
  if (value instanceof Uint8Array) return { $bytes: toBase64(value) }
  const proto = Object.getPrototypeOf(value) as unknown
  invariant(proto === Object.prototype || proto === null, "a protocol message holds an instance of a class")
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key]
    if (v === undefined) continue
    invariant(!(TAGS.has(key) && Object.keys(value).length === 1), () => `a protocol message holds an object whose only key is ${key}`)
    out[key] = encodeWireValue(v)
  }
  return out
}

/** The value `encodeWireValue` encoded. */
export const decodeWireValue = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map(decodeWireValue)
  const keys = Object.keys(value)
  if (keys.length === 1 && TAGS.has(keys[0]!)) {
    const inner = (value as Record<string, unknown>)[keys[0]!]
    switch (keys[0]) {
      case "$map":
        return new Map((inner as ReadonlyArray<readonly [unknown, unknown]>).map(([k, v]) => [decodeWireValue(k), decodeWireValue(v)]))
      case "$set":
        return new Set((inner as ReadonlyArray<unknown>).map(decodeWireValue))
      case "$bytes":
        return fromBase64(inner as string)
      case "$bigint":
        return BigInt(inner as string)
      case "$undefined":
        return undefined
    }
  }
  const out: Record<string, unknown> = {}
  for (const key of keys) out[key] = decodeWireValue((value as Record<string, unknown>)[key])
  return out
}

/** A message as JSON text. */
export const toWire = (message: Message): string => JSON.stringify(encodeWireValue(message))

/** The message `toWire` wrote. */
export const fromWire = (text: string): Message => {
  const decoded = decodeWireValue(JSON.parse(text))
  invariant(typeof decoded === "object" && decoded !== null && typeof (decoded as { _tag?: unknown })._tag === "string", "a wire message has no _tag")
  return decoded as Message
}
