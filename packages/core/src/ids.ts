/**
 * Identifiers, all derived from content and counters (never wall time or randomness), in the
 * shapes the real network uses so that clients parsing them keep working:
 * - party: `<hint>::1220<64 hex>` (hint plus the namespace fingerprint, a sha2-256 multihash)
 * - participant / mediator / sequencer uid: `PAR::<name>::1220<64 hex>` (member prefix, name, namespace)
 * - synchronizer id: `<name>::1220<64 hex>`
 * - contract id: `00<64 hex>` followed by the suffix `ca12<64 hex>` of a suffixed contract
 * - update id: `1220<64 hex>`
 */
import { multihashSha256Hex, sha256OfParts, sha512Hex } from "./hash.ts"

export type PartyId = string
export type ContractId = string
export type UpdateId = string
export type SynchronizerId = string
export type ParticipantUid = string
export type MemberUid = string
export type Fingerprint = string

const HINT_PATTERN = /^[a-zA-Z0-9_\-.]{1,185}$/
const FINGERPRINT_PATTERN = /^1220[0-9a-f]{64}$/
const PARTY_PATTERN = /^([^:]{1,185})::(1220[0-9a-f]{64})$/

export const isPartyHint = (hint: string): boolean => HINT_PATTERN.test(hint)
export const isFingerprint = (text: string): boolean => FINGERPRINT_PATTERN.test(text)
export const isPartyId = (text: string): boolean => PARTY_PATTERN.test(text)

/** The namespace fingerprint of a key, or of a name for namespaces that Sandnet simulates. */
export const namespaceOf = (seed: string): Fingerprint => multihashSha256Hex(`namespace:${seed}`)

export const partyId = (hint: string, namespace: Fingerprint): PartyId => `${hint}::${namespace}`

export const partyHint = (party: PartyId): string => party.slice(0, party.indexOf("::"))
export const partyNamespace = (party: PartyId): Fingerprint => party.slice(party.indexOf("::") + 2)

export const participantUid = (name: string, namespace: Fingerprint): ParticipantUid => `PAR::${name}::${namespace}`
export const mediatorUid = (name: string, namespace: Fingerprint): MemberUid => `MED::${name}::${namespace}`
export const sequencerUid = (name: string, namespace: Fingerprint): MemberUid => `SEQ::${name}::${namespace}`
export const synchronizerId = (name: string, namespace: Fingerprint): SynchronizerId => `${name}::${namespace}`

/** Strips the member prefix: `PAR::name::ns` -> `name::ns`, as ledger APIs print participant ids. */
export const uidWithoutPrefix = (member: MemberUid): string => member.replace(/^[A-Z]{3}::/, "")

/** Contract id of node `nodeId` of the transaction whose seed is `transactionSeed`. */
export const contractId = (transactionSeed: string, nodeId: number): ContractId => {
  // One SHA-512 gives both halves: the 32-byte discriminator and the 32-byte suffix.
  const digest = sha512Hex(`contract:${transactionSeed}:${nodeId}`)
  return `00${digest.slice(0, 64)}ca12${digest.slice(64)}`
}

export const isContractId = (text: string): boolean => /^00[0-9a-f]{64}(ca12[0-9a-f]{64})?$/.test(text)

export const updateIdOf = (...parts: ReadonlyArray<string>): UpdateId => "1220" + sha256OfParts("update", ...parts)

export const isUpdateId = (text: string): boolean => /^1220[0-9a-f]{64}$/.test(text)

/**
 * Offsets are positive integers per node. Scan prints them as zero-padded hex strings so that
 * within one scan they increase both numerically and lexicographically.
 */
export const formatScanOffset = (offset: number): string => offset.toString(16).padStart(18, "0")
export const parseScanOffset = (text: string): number | undefined =>
  /^[0-9a-f]{1,18}$/.test(text) ? parseInt(text, 16) : undefined
