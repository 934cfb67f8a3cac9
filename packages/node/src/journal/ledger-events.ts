/**
 * Events of the legacy `ledger` stream: stores written before uploaded packages, vetting and
 * external parties' keys were participant state (journaled in `participant/<name>` as
 * PackagesUploaded, PackagesVetted and PartyHosted) kept them there. Replay still reads it; nothing
 * writes it any more. Byte arrays in the bodies are kept as `{"$bytes": base64}`.
 */
import type { Packages, PartyHosting } from "@sandnet/engine"

export interface PackagesUploaded {
  readonly _tag: "PackagesUploaded"
  readonly uploadedAt: number
  readonly vetted: boolean
  readonly packages: ReadonlyArray<{ readonly packageId: string; readonly description: Packages.StoredPackage["description"] }>
}

export interface ExternalPartyRegistered {
  readonly _tag: "ExternalPartyRegistered"
  readonly hosting: PartyHosting | null
  readonly signingKeys: unknown
}

export type LedgerEvent = PackagesUploaded | ExternalPartyRegistered

/** Byte arrays inside a body (e.g. signing keys) as `{"$bytes": base64}`: JSON keeps them. */
export const encodeBinary = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString("base64") }
  if (Array.isArray(value)) return value.map(encodeBinary)
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeBinary(v)]))
  return value
}

export const decodeBinary = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(decodeBinary)
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
    if (entries.length === 1 && entries[0]![0] === "$bytes" && typeof entries[0]![1] === "string") return new Uint8Array(Buffer.from(entries[0]![1], "base64"))
    return Object.fromEntries(entries.map(([k, v]) => [k, decodeBinary(v)]))
  }
  return value
}
