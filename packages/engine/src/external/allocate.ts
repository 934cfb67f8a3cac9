/**
 * Verification of `POST /v2/parties/external/allocate`: decode the onboarding transactions, check
 * that they describe one external party consistently, verify every signature and check that each
 * transaction carries the authorizations it needs. Pure: the engine supplies the local participant
 * and applies the result to its topology state.
 */
import { InvalidArgument } from "@sandnet/core"
import { Either } from "effect"
import { base64ToBytes } from "./encoding.ts"
import {
  type AllocationError,
  InvalidSignature,
  LocalParticipantNotHosting,
  MissingSignature,
  OnboardingTransactionsInconsistent,
  TopologyTransactionInvalid,
  TopologyTransactionUndecodable,
  UnknownSigningKey
} from "./errors.ts"
import type { CantonHash } from "./hash.ts"
import { decodeSigningKey, type Ed25519PublicKey, SigningKeyUsage } from "./keys.ts"
import type {
  DelegationRestrictionMessage,
  HostingParticipantMessage,
  NamespaceDelegationMessage,
  PartyToKeyMappingMessage,
  PartyToParticipantMessage,
  SigningPublicKeyMessage,
  TopologyMappingMessage
} from "./proto.ts"
import { TopologyChangeOp } from "./proto.ts"
import { parseSignature, type ParsedSignature, type SignatureJson, verifyEd25519 } from "./signatures.ts"
import {
  deserializeTopologyTransaction,
  type ExternalPartyHosting,
  type HostingPermission,
  isUniqueIdentifier,
  multiTransactionHash,
  normalizeParticipantUid,
  type OnboardingMappingKind,
  type OnboardingTransaction,
  permissionFromProto,
  topologyTransactionHash
} from "./topology.ts"

/** Canton's limit on the number of signing keys of a party. */
export const MAX_PARTY_SIGNING_KEYS = 20

/** TopologyMapping.Code numbers, for namespace delegation restrictions. */
const MAPPING_CODE: Readonly<Record<OnboardingMappingKind, number>> = {
  NamespaceDelegation: 1,
  PartyToParticipant: 9,
  PartyToKeyMapping: 18
}

export interface SignedTransactionJson {
  /** Standard base64 of the serialized (UntypedVersionedMessage) topology transaction. */
  readonly transaction: string
  readonly signatures?: ReadonlyArray<SignatureJson> | undefined
}

export interface VerifyExternalPartyAllocationInput {
  /** The request's `synchronizer`; validated as a synchronizer id when given. */
  readonly synchronizer?: string | undefined
  readonly onboardingTransactions: ReadonlyArray<SignedTransactionJson>
  readonly multiHashSignatures?: ReadonlyArray<SignatureJson> | undefined
  /** When given, the party must be hosted there with Confirmation or Observation permission. */
  readonly localParticipantUid?: string | undefined
}

export interface SigningKeysWithThreshold {
  readonly threshold: number
  readonly keys: ReadonlyArray<Ed25519PublicKey>
}

export interface VerifiedHostingParticipant {
  readonly participantUid: string
  readonly permission: HostingPermission
  /** Canton's `HostingParticipant.onboarding` flag (party replication in progress). */
  readonly onboarding: boolean
}

export interface VerifiedExternalParty {
  readonly partyId: string
  readonly partyHint: string
  /** The party's namespace: the fingerprint of its namespace key. */
  readonly namespace: string
  readonly namespaceKey: Ed25519PublicKey
  /** Keys that authorize the party's Daml transactions (PartyToParticipant.party_signing_keys, else PartyToKeyMapping). */
  readonly signingKeys: SigningKeysWithThreshold
  readonly hosting: ExternalPartyHosting & { readonly participants: ReadonlyArray<VerifiedHostingParticipant> }
  /** In request order. */
  readonly transactions: ReadonlyArray<OnboardingTransaction>
  readonly multiHash: CantonHash
  /** Fingerprints of the keys that produced at least one valid signature, sorted. */
  readonly signedBy: ReadonlyArray<string>
}

interface DecodedNamespaceDelegation {
  readonly kind: "NamespaceDelegation"
  readonly namespace: string
  readonly target: Ed25519PublicKey
  readonly canSign: ReadonlyArray<number> | "all"
}
interface DecodedPartyToKeyMapping {
  readonly kind: "PartyToKeyMapping"
  readonly party: string
  readonly keys: SigningKeysWithThreshold
}
interface DecodedPartyToParticipant {
  readonly kind: "PartyToParticipant"
  readonly party: string
  readonly hosting: ExternalPartyHosting & { readonly participants: ReadonlyArray<VerifiedHostingParticipant> }
  readonly keys: SigningKeysWithThreshold | undefined
}
type DecodedMapping = DecodedNamespaceDelegation | DecodedPartyToKeyMapping | DecodedPartyToParticipant

interface Decoded {
  readonly index: number
  readonly transaction: OnboardingTransaction
  readonly mapping: DecodedMapping
}

type Check<A> = Either.Either<A, AllocationError | InvalidArgument>

const invalidTx = (transactionIndex: number, reason: string) =>
  Either.left(new TopologyTransactionInvalid({ transactionIndex, reason }))
const inconsistent = (reason: string) => Either.left(new OnboardingTransactionsInconsistent({ reason }))

const hasUsage = (key: SigningPublicKeyMessage, usage: number): boolean =>
  key.usage.length === 0 || key.usage.includes(usage)

const decodeKey = (
  index: number,
  what: string,
  key: SigningPublicKeyMessage,
  usage: number,
  usageName: string
): Check<Ed25519PublicKey> =>
  Either.gen(function* () {
    const decoded = decodeSigningKey(key.format, key.publicKey, key.keySpec)
    if (Either.isLeft(decoded)) return yield* invalidTx(index, `${what}: ${decoded.left.attribute}: ${decoded.left.reason}`)
    if (!hasUsage(key, usage))
      return yield* invalidTx(index, `${what} (${decoded.right.fingerprint}) lacks the ${usageName} key usage`)
    return decoded.right
  })

const decodeKeys = (
  index: number,
  what: string,
  keys: ReadonlyArray<SigningPublicKeyMessage>,
  threshold: number
): Check<SigningKeysWithThreshold> =>
  Either.gen(function* () {
    if (keys.length === 0) return yield* invalidTx(index, `${what}: no signing keys`)
    if (keys.length > MAX_PARTY_SIGNING_KEYS)
      return yield* invalidTx(index, `${what}: ${keys.length} signing keys, at most ${MAX_PARTY_SIGNING_KEYS}`)
    const decoded: Array<Ed25519PublicKey> = []
    for (const [i, key] of keys.entries()) {
      const k = yield* decodeKey(index, `${what} key ${i}`, key, SigningKeyUsage.SIGNING_KEY_USAGE_PROTOCOL, "PROTOCOL")
      if (decoded.some((d) => d.fingerprint === k.fingerprint))
        return yield* invalidTx(index, `${what}: key ${k.fingerprint} is listed twice`)
      decoded.push(k)
    }
    if (threshold < 1 || threshold > decoded.length)
      return yield* invalidTx(index, `${what}: threshold ${threshold} must be between 1 and the number of keys (${decoded.length})`)
    return { threshold, keys: decoded }
  })

type Signable = { readonly ok: ReadonlyArray<number> | "all" } | { readonly error: string }

const ALL_BUT_NAMESPACE_DELEGATIONS: ReadonlyArray<number> = Object.values(MAPPING_CODE).filter(
  (c) => c !== MAPPING_CODE.NamespaceDelegation
)

/** Which mappings a delegation's key may sign, following Canton's NamespaceDelegation.fromProtoV30. */
const restrictionCanSign = (restriction: DelegationRestrictionMessage, isRootDelegation: boolean): Signable => {
  const conflict = { error: "is_root_delegation must not be set together with a restriction" }
  switch (restriction.kind) {
    case "unset":
      // Canton's backward compatibility: is_root_delegation alone means CanSignAllMappings.
      return { ok: isRootDelegation ? "all" : ALL_BUT_NAMESPACE_DELEGATIONS }
    case "canSignAllMappings":
      return isRootDelegation ? conflict : { ok: "all" }
    case "canSignAllButNamespaceDelegations":
      return isRootDelegation ? conflict : { ok: ALL_BUT_NAMESPACE_DELEGATIONS }
    case "canSignSpecificMappings":
      if (isRootDelegation) return conflict
      return restriction.mappings.length === 0 ? { error: "CanSignSpecificMappings lists no mapping" } : { ok: restriction.mappings }
  }
}

const canSign = (nd: DecodedNamespaceDelegation, kind: OnboardingMappingKind): boolean =>
  nd.canSign === "all" || nd.canSign.includes(MAPPING_CODE[kind])

const decodeOne = (index: number, signed: SignedTransactionJson): Check<Decoded> =>
  Either.gen(function* () {
    const undecodable = (reason: string) => Either.left(new TopologyTransactionUndecodable({ transactionIndex: index, reason }))
    if (signed.transaction.length === 0) return yield* undecodable("must be non-empty")
    const serialized = base64ToBytes(signed.transaction)
    if (serialized === undefined) return yield* undecodable("is not standard base64")
    const decoded = deserializeTopologyTransaction(serialized)
    if (Either.isLeft(decoded)) return yield* undecodable(decoded.left)
    const tx = decoded.right
    if (tx.operation !== TopologyChangeOp.TOPOLOGY_CHANGE_OP_ADD_REPLACE)
      return yield* invalidTx(
        index,
        tx.operation === TopologyChangeOp.TOPOLOGY_CHANGE_OP_REMOVE
          ? "operation is TOPOLOGY_CHANGE_OP_REMOVE; onboarding only adds mappings (TOPOLOGY_CHANGE_OP_ADD_REPLACE)"
          : `operation ${tx.operation} is not TOPOLOGY_CHANGE_OP_ADD_REPLACE`
      )
    if (tx.serial < 1) return yield* invalidTx(index, "serial must be at least 1")
    const hash = topologyTransactionHash(serialized)
    const result = yield* decodeMapping(index, tx.mapping)
    return { index, transaction: { mapping: result.kind, serialized, hash }, mapping: result }
  })

/** One of the three mappings of an external party's onboarding; any other is invalid. */
const decodeMapping = (index: number, mapping: TopologyMappingMessage): Check<DecodedMapping> => {
  switch (mapping.kind) {
    case "unset":
      return invalidTx(index, "the topology mapping is not set")
    case "other":
      return invalidTx(
        index,
        `TopologyMapping field ${mapping.fieldNumber} is not part of external party onboarding (NamespaceDelegation, PartyToKeyMapping, PartyToParticipant)`
      )
    case "namespaceDelegation":
      return decodeNamespaceDelegation(index, mapping.value)
    case "partyToKeyMapping":
      return decodePartyToKeyMapping(index, mapping.value)
    case "partyToParticipant":
      return decodePartyToParticipant(index, mapping.value)
  }
}

/** A root delegation of the party's namespace to its own key, allowed to sign namespace delegations. */
const decodeNamespaceDelegation = (index: number, nd: NamespaceDelegationMessage): Check<DecodedNamespaceDelegation> =>
  Either.gen(function* () {
    if (nd.targetKey === undefined) return yield* invalidTx(index, "NamespaceDelegation.target_key is not set")
    const target = yield* decodeKey(
      index,
      "NamespaceDelegation.target_key",
      nd.targetKey,
      SigningKeyUsage.SIGNING_KEY_USAGE_NAMESPACE,
      "NAMESPACE"
    )
    if (nd.namespace !== target.fingerprint)
      return yield* invalidTx(
        index,
        `NamespaceDelegation of namespace ${nd.namespace} to key ${target.fingerprint} is not a root delegation; external party onboarding needs the key delegating its own namespace`
      )
    const restriction = restrictionCanSign(nd.restriction, nd.isRootDelegation)
    if ("error" in restriction) return yield* invalidTx(index, `NamespaceDelegation: ${restriction.error}`)
    const signable = restriction.ok
    if (signable !== "all" && !signable.includes(MAPPING_CODE.NamespaceDelegation))
      return yield* invalidTx(index, "a root NamespaceDelegation must be allowed to sign namespace delegations")
    const result: DecodedNamespaceDelegation = { kind: "NamespaceDelegation", namespace: nd.namespace, target, canSign: signable }
    return result
  })

const decodePartyToKeyMapping = (index: number, p2k: PartyToKeyMappingMessage): Check<DecodedPartyToKeyMapping> =>
  Either.gen(function* () {
    if (!isUniqueIdentifier(p2k.party)) return yield* invalidTx(index, `PartyToKeyMapping.party "${p2k.party}" is not a party id`)
    const keys = yield* decodeKeys(index, "PartyToKeyMapping", p2k.signingKeys, p2k.threshold)
    const result: DecodedPartyToKeyMapping = { kind: "PartyToKeyMapping", party: p2k.party, keys }
    return result
  })

const decodePartyToParticipant = (index: number, ptp: PartyToParticipantMessage): Check<DecodedPartyToParticipant> =>
  Either.gen(function* () {
    if (!isUniqueIdentifier(ptp.party)) return yield* invalidTx(index, `PartyToParticipant.party "${ptp.party}" is not a party id`)
    if (ptp.participants.length === 0) return yield* invalidTx(index, "PartyToParticipant lists no participants")
    const participants = yield* decodeHostingParticipants(index, ptp.participants)
    const confirmers = participants.filter((p) => p.permission !== "Observation").length
    if (confirmers === 0) return yield* invalidTx(index, "PartyToParticipant: no participant confirms for the party")
    if (ptp.threshold < 1 || ptp.threshold > confirmers)
      return yield* invalidTx(
        index,
        `PartyToParticipant: threshold ${ptp.threshold} must be between 1 and the number of confirming participants (${confirmers})`
      )
    const keys =
      ptp.partySigningKeys === undefined
        ? undefined
        : yield* decodeKeys(index, "PartyToParticipant.party_signing_keys", ptp.partySigningKeys.keys, ptp.partySigningKeys.threshold)
    const result: DecodedPartyToParticipant = { kind: "PartyToParticipant", party: ptp.party, hosting: { threshold: ptp.threshold, participants }, keys }
    return result
  })

/** Each hosting participant once, by its uid, with a Submission, Confirmation or Observation permission. */
const decodeHostingParticipants = (
  index: number,
  hosting: ReadonlyArray<HostingParticipantMessage>
): Check<Array<VerifiedHostingParticipant>> =>
  Either.gen(function* () {
    const participants: Array<VerifiedHostingParticipant> = []
    for (const [i, p] of hosting.entries()) {
      const uid = normalizeParticipantUid(p.participantUid)
      if (uid === undefined || uid !== p.participantUid)
        return yield* invalidTx(index, `PartyToParticipant.participants[${i}]: "${p.participantUid}" is not a participant uid`)
      const permission = permissionFromProto(p.permission)
      if (permission === undefined)
        return yield* invalidTx(index, `PartyToParticipant.participants[${i}]: permission ${p.permission} is not Submission, Confirmation or Observation`)
      if (participants.some((q) => q.participantUid === uid))
        return yield* invalidTx(index, `PartyToParticipant: participant ${uid} is listed twice`)
      participants.push({ participantUid: uid, permission, onboarding: p.onboarding })
    }
    return participants
  })

/** A decoded transaction of one mapping kind. */
type DecodedOf<K extends DecodedMapping["kind"]> = Decoded & { readonly mapping: Extract<DecodedMapping, { kind: K }> }

const only = <K extends DecodedMapping["kind"]>(decoded: ReadonlyArray<Decoded>, kind: K): Check<DecodedOf<K> | undefined> => {
  const found = decoded.filter((d) => d.mapping.kind === kind) as Array<DecodedOf<K>>
  if (found.length > 1)
    return inconsistent(`more than one ${kind} (transactions ${found.map((d) => d.index).join(", ")}); onboarding takes one of each`)
  return Either.right(found[0])
}

/** The party the onboarding transactions agree on, with its keys. */
interface OnboardedParty {
  readonly ptp: DecodedOf<"PartyToParticipant">
  readonly p2k: DecodedOf<"PartyToKeyMapping"> | undefined
  readonly partyId: string
  readonly partyHint: string
  readonly namespace: string
  readonly signingKeys: SigningKeysWithThreshold
  readonly namespaceKey: Ed25519PublicKey
}

/**
 * Verifies an external party allocation request. Returns the party with its hosting and keys, or
 * the first problem found, in this order: request shape, each transaction's decoding and rules,
 * consistency across transactions, signature shapes, signature validity, authorization, hosting
 * on the local participant.
 */
export const verifyExternalPartyAllocation = (
  input: VerifyExternalPartyAllocationInput
): Either.Either<VerifiedExternalParty, AllocationError | InvalidArgument> =>
  Either.gen(function* () {
    if (input.synchronizer !== undefined && !isUniqueIdentifier(input.synchronizer))
      return yield* Either.left(
        new InvalidArgument({ field: "synchronizer", message: `"${input.synchronizer}" is not a synchronizer id (<name>::<namespace fingerprint>)` })
      )
    if (input.onboardingTransactions.length === 0) return yield* inconsistent("must be non-empty")
    const decoded = yield* decodeAll(input.onboardingTransactions)
    const party = yield* partyOf(decoded)
    const { multiHash, allSigners } = yield* verifySignatures(input, decoded, party)
    if (input.localParticipantUid !== undefined) yield* checkLocalHosting(input.localParticipantUid, party.ptp.mapping)
    return {
      partyId: party.partyId,
      partyHint: party.partyHint,
      namespace: party.namespace,
      namespaceKey: party.namespaceKey,
      signingKeys: party.signingKeys,
      hosting: party.ptp.mapping.hosting,
      transactions: decoded.map((d) => d.transaction),
      multiHash,
      signedBy: [...allSigners].sort()
    }
  })

/** Every transaction decoded, in request order; no two alike. */
const decodeAll = (transactions: ReadonlyArray<SignedTransactionJson>): Check<Array<Decoded>> =>
  Either.gen(function* () {
    const decoded: Array<Decoded> = []
    for (const [index, signed] of transactions.entries()) {
      const d = yield* decodeOne(index, signed)
      const twin = decoded.find((e) => e.transaction.hash.hex === d.transaction.hash.hex)
      if (twin !== undefined) return yield* inconsistent(`transactions ${twin.index} and ${index} are identical`)
      decoded.push(d)
    }
    return decoded
  })

/** Consistency across transactions: one of each mapping, one party, its signing keys and its namespace key. */
const partyOf = (decoded: ReadonlyArray<Decoded>): Check<OnboardedParty> =>
  Either.gen(function* () {
    const nd = yield* only(decoded, "NamespaceDelegation")
    const p2k = yield* only(decoded, "PartyToKeyMapping")
    const ptp = yield* only(decoded, "PartyToParticipant")
    if (ptp === undefined) return yield* inconsistent("a PartyToParticipant mapping must be provided")
    const partyId = ptp.mapping.party
    if (p2k !== undefined && p2k.mapping.party !== partyId)
      return yield* inconsistent(`the PartyToKeyMapping is for ${p2k.mapping.party} but the PartyToParticipant is for ${partyId}`)
    const separator = partyId.indexOf("::")
    const partyHint = partyId.slice(0, separator)
    const namespace = partyId.slice(separator + 2)

    const signingKeys = ptp.mapping.keys ?? p2k?.mapping.keys
    if (signingKeys === undefined)
      return yield* inconsistent(
        "the party has no signing keys: include a PartyToKeyMapping or set PartyToParticipant.party_signing_keys"
      )
    const namespaceKey = yield* namespaceKeyOf(decoded, namespace, nd, ptp, p2k)
    const party: OnboardedParty = { ptp, p2k, partyId, partyHint, namespace, signingKeys, namespaceKey }
    return party
  })

/** The namespace's key: the NamespaceDelegation's (which must allow every mapping given), else a party signing key that is it. */
const namespaceKeyOf = (
  decoded: ReadonlyArray<Decoded>,
  namespace: string,
  nd: DecodedOf<"NamespaceDelegation"> | undefined,
  ptp: DecodedOf<"PartyToParticipant">,
  p2k: DecodedOf<"PartyToKeyMapping"> | undefined
): Check<Ed25519PublicKey> => {
  if (nd !== undefined) {
    if (nd.mapping.namespace !== namespace)
      return inconsistent(`The Party namespace (${namespace}) does not match the NamespaceDelegation namespace (${nd.mapping.namespace})`)
    for (const d of decoded)
      if (!canSign(nd.mapping, d.mapping.kind))
        return inconsistent(`the NamespaceDelegation (transaction ${nd.index}) does not allow its key to sign a ${d.mapping.kind}`)
    return Either.right(nd.mapping.target)
  }
  const selfSigned = [...(ptp.mapping.keys?.keys ?? []), ...(p2k?.mapping.keys.keys ?? [])].find((k) => k.fingerprint === namespace)
  if (selfSigned === undefined)
    return inconsistent(
      `the party's namespace ${namespace} has no key in the request: include its root NamespaceDelegation (or its key among the party signing keys)`
    )
  return Either.right(selfSigned)
}

/**
 * Every signature (on the multi-transaction hash or on one transaction) is by a key the request
 * knows and valid; each transaction is signed by its namespace and by the keys it names.
 */
const verifySignatures = (
  input: VerifyExternalPartyAllocationInput,
  decoded: ReadonlyArray<Decoded>,
  party: OnboardedParty
): Check<{ readonly multiHash: CantonHash; readonly allSigners: ReadonlySet<string> }> =>
  Either.gen(function* () {
    const { namespace, namespaceKey, signingKeys, p2k } = party
    // Keys the request knows, by fingerprint.
    const known = new Map<string, Ed25519PublicKey>([[namespaceKey.fingerprint, namespaceKey]])
    for (const k of [...signingKeys.keys, ...(p2k?.mapping.keys.keys ?? [])]) known.set(k.fingerprint, k)
    const knownKeys = [...known.keys()].sort()

    const check = (parsed: ParsedSignature, hash: CantonHash): Check<string> => {
      const key = known.get(parsed.signedBy)
      if (key === undefined)
        return Either.left(new UnknownSigningKey({ location: parsed.location, signedBy: parsed.signedBy, knownKeys }))
      if (!verifyEd25519(parsed.signature, hash.multihash, key.raw))
        return Either.left(new InvalidSignature({ location: parsed.location, signedBy: parsed.signedBy, hash: hash.hex }))
      return Either.right(parsed.signedBy)
    }

    const multiHash = multiTransactionHash(decoded.map((d) => d.transaction.hash))
    const multiSigners = new Set<string>()
    for (const [j, json] of (input.multiHashSignatures ?? []).entries()) {
      const parsed = yield* parseSignature(json, `multiHashSignatures[${j}]`)
      multiSigners.add(yield* check(parsed, multiHash))
    }
    const allSigners = new Set(multiSigners)
    for (const d of decoded) {
      const signers = new Set(multiSigners)
      for (const [j, json] of (input.onboardingTransactions[d.index]?.signatures ?? []).entries()) {
        const parsed = yield* parseSignature(json, `onboardingTransactions[${d.index}].signatures[${j}]`)
        const signer = yield* check(parsed, d.transaction.hash)
        signers.add(signer)
        allSigners.add(signer)
      }
      const required = new Set([namespace])
      if (d.mapping.kind === "PartyToKeyMapping") for (const k of d.mapping.keys.keys) required.add(k.fingerprint)
      if (d.mapping.kind === "PartyToParticipant") for (const k of d.mapping.keys?.keys ?? []) required.add(k.fingerprint)
      const missing = [...required].filter((k) => !signers.has(k)).sort()
      if (missing.length > 0)
        return yield* Either.left(new MissingSignature({ transactionIndex: d.index, mapping: d.mapping.kind, missingKeys: missing }))
    }
    return { multiHash, allSigners }
  })

/** The local participant hosts the party, with Confirmation or Observation (its transactions are signed externally). */
const checkLocalHosting = (localParticipantUid: string, ptp: DecodedPartyToParticipant): Check<void> => {
  const local = normalizeParticipantUid(localParticipantUid)
  const hosted = ptp.hosting.participants.find((p) => p.participantUid === local)
  if (local === undefined || hosted === undefined)
    return Either.left(
      new LocalParticipantNotHosting({
        participantUid: localParticipantUid,
        reason: `The external party must be hosted on this participant (${localParticipantUid}) with confirmation or observation permission; the PartyToParticipant does not list it`
      })
    )
  if (hosted.permission === "Submission")
    return Either.left(
      new LocalParticipantNotHosting({
        participantUid: localParticipantUid,
        reason: `The external party must be hosted on this participant with confirmation or observation permission, not submission (its transactions are signed externally)`
      })
    )
  return Either.void
}
