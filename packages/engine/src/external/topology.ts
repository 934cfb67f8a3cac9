/**
 * External party onboarding topology: the three transactions the ledger API's
 * `POST /v2/parties/external/generate-topology` hands out for signing, their hashes and the
 * multiHash over all of them.
 *
 * Byte layouts (see docs/external-parties.md):
 * - serialized transaction = UntypedVersionedMessage { data = TopologyTransaction bytes, version = 30 }
 * - transaction hash       = multihash(sha256(int32be(11) || serialized transaction))
 * - multiHash              = multihash(sha256(int32be(55) || int32be(n) || for each distinct
 *                            transaction hash in ascending order: int32be(34) || hash multihash))
 */
import { InvalidArgument, isFingerprint } from "@sandnet/core"
import { Either } from "effect"
import { bytesToBase64, int32BigEndian } from "./encoding.ts"
import { type CantonHash, HashPurpose, hashWithPurpose } from "./hash.ts"
import {
  CryptoKeyFormat,
  type Ed25519PublicKey,
  EXTERNAL_PARTY_KEY_USAGES,
  parseSigningPublicKey,
  type SigningPublicKeyJson,
  SigningKeySpec
} from "./keys.ts"
import {
  decodeTopologyTransactionMessage,
  decodeUntypedVersionedMessage,
  encodeTopologyTransactionMessage,
  encodeUntypedVersionedMessage,
  ParticipantPermissionProto,
  type SigningPublicKeyMessage,
  TopologyChangeOp,
  type TopologyMappingMessage,
  type TopologyTransactionMessage
} from "./proto.ts"

/** The proto version of TopologyTransaction that protocol versions 33+ use (`ProtoVersion(30)`). */
export const TOPOLOGY_TRANSACTION_PROTO_VERSION = 30

export type HostingPermission = "Submission" | "Confirmation" | "Observation"

export const permissionToProto = (permission: HostingPermission): number =>
  permission === "Submission"
    ? ParticipantPermissionProto.PARTICIPANT_PERMISSION_SUBMISSION
    : permission === "Confirmation"
      ? ParticipantPermissionProto.PARTICIPANT_PERMISSION_CONFIRMATION
      : ParticipantPermissionProto.PARTICIPANT_PERMISSION_OBSERVATION

export const permissionFromProto = (value: number): HostingPermission | undefined =>
  value === ParticipantPermissionProto.PARTICIPANT_PERMISSION_SUBMISSION
    ? "Submission"
    : value === ParticipantPermissionProto.PARTICIPANT_PERMISSION_CONFIRMATION
      ? "Confirmation"
      : value === ParticipantPermissionProto.PARTICIPANT_PERMISSION_OBSERVATION
        ? "Observation"
        : undefined

/** UntypedVersionedMessage { data = TopologyTransaction, version = 30 }: the bytes clients see and sign. */
export const serializeTopologyTransaction = (tx: TopologyTransactionMessage): Uint8Array =>
  encodeUntypedVersionedMessage({
    data: encodeTopologyTransactionMessage(tx),
    version: TOPOLOGY_TRANSACTION_PROTO_VERSION
  })

/** Decodes the versioned wrapper and the v30 TopologyTransaction inside it. */
export const deserializeTopologyTransaction = (bytes: Uint8Array): Either.Either<TopologyTransactionMessage, string> =>
  Either.flatMap(decodeUntypedVersionedMessage(bytes), (wrapper) =>
    wrapper.version !== TOPOLOGY_TRANSACTION_PROTO_VERSION
      ? Either.left(
          `UntypedVersionedMessage.version is ${wrapper.version}; Sandnet reads TopologyTransaction proto version ${TOPOLOGY_TRANSACTION_PROTO_VERSION}`
        )
      : decodeTopologyTransactionMessage(wrapper.data)
  )

/** Canton's `TopologyTransaction.hash`: hash purpose TopologyTransactionSignature (11) over the serialized transaction. */
export const topologyTransactionHash = (serialized: Uint8Array): CantonHash =>
  hashWithPurpose(HashPurpose.TopologyTransactionSignature, serialized)

/** Canton's `MultiTransactionSignature.computeCombinedHash` over a set of transaction hashes. */
export const multiTransactionHash = (hashes: ReadonlyArray<CantonHash>): CantonHash => {
  const distinct = [...new Map(hashes.map((h) => [h.hex, h] as const)).values()].sort((a, b) =>
    a.hex < b.hex ? -1 : a.hex > b.hex ? 1 : 0
  )
  const parts: Array<Uint8Array> = [int32BigEndian(distinct.length)]
  for (const hash of distinct) parts.push(int32BigEndian(hash.multihash.length), hash.multihash)
  return hashWithPurpose(HashPurpose.MultiTopologyTransaction, ...parts)
}

/** The proto form of an external party's Ed25519 key inside topology transactions. */
export const signingKeyMessage = (key: Ed25519PublicKey): SigningPublicKeyMessage => ({
  format: CryptoKeyFormat.CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO,
  publicKey: key.spki,
  scheme: 0,
  usage: EXTERNAL_PARTY_KEY_USAGES,
  keySpec: SigningKeySpec.SIGNING_KEY_SPEC_EC_CURVE25519
})

// ---------------------------------------------------------------------------------------------
// identifiers

const UID_PATTERN = /^([^:]{1,185})::(1220[0-9a-f]{64})$/
/** Party hints: Canton's rules (Daml-LF party characters, no "::", at most 185) narrowed to what core's ids accept. */
const HINT_PATTERN = /^[a-zA-Z0-9_-]{1,185}$/

/**
 * Normalises a participant uid to Canton's `<identifier>::<namespace>` form: a `PAR::` member
 * prefix (as Sandnet's engine prints participant member ids) is removed.
 */
export const normalizeParticipantUid = (text: string): string | undefined => {
  const uid = text.startsWith("PAR::") ? text.slice(5) : text
  return UID_PATTERN.test(uid) ? uid : undefined
}

export const isUniqueIdentifier = (text: string): boolean => UID_PATTERN.test(text)

// ---------------------------------------------------------------------------------------------
// generate

export interface GenerateExternalPartyTopologyInput {
  /** The request's `synchronizer` (a synchronizer id, `<name>::<namespace>`). */
  readonly synchronizerId: string
  readonly partyHint: string
  readonly publicKey: SigningPublicKeyJson
  /** The participant answering the request; always hosts the party. `PAR::` prefix accepted. */
  readonly localParticipantUid: string
  readonly localParticipantObservationOnly?: boolean | undefined
  readonly otherConfirmingParticipantUids?: ReadonlyArray<string> | undefined
  /** At least 1; 0 or absent means all available confirmers. */
  readonly confirmationThreshold?: number | undefined
  readonly observingParticipantUids?: ReadonlyArray<string> | undefined
}

export interface ExternalHostingParticipant {
  /** `<identifier>::<namespace>`, without member prefix. */
  readonly participantUid: string
  readonly permission: HostingPermission
}

export interface ExternalPartyHosting {
  readonly threshold: number
  readonly participants: ReadonlyArray<ExternalHostingParticipant>
}

export type OnboardingMappingKind = "NamespaceDelegation" | "PartyToKeyMapping" | "PartyToParticipant"

export interface OnboardingTransaction {
  readonly mapping: OnboardingMappingKind
  /** UntypedVersionedMessage bytes. */
  readonly serialized: Uint8Array
  readonly hash: CantonHash
}

/** The answer of generate-topology, plus what the engine needs to keep. */
export interface GeneratedExternalPartyTopology {
  readonly partyId: string
  readonly publicKeyFingerprint: string
  /** Base64 of each serialized transaction: NamespaceDelegation, PartyToKeyMapping, PartyToParticipant. */
  readonly topologyTransactions: ReadonlyArray<string>
  /** Base64 of the 34-byte multihash over all transaction hashes. */
  readonly multiHash: string
  readonly transactions: ReadonlyArray<OnboardingTransaction>
  readonly multiHashBytes: CantonHash
  readonly publicKey: Ed25519PublicKey
  readonly hosting: ExternalPartyHosting
}

const invalid = (field: string, message: string) => Either.left(new InvalidArgument({ field, message }))

const parseUidList = (
  field: string,
  values: ReadonlyArray<string>
): Either.Either<ReadonlyArray<string>, InvalidArgument> => {
  const out: Array<string> = []
  for (const [i, value] of values.entries()) {
    const uid = normalizeParticipantUid(value)
    if (uid === undefined)
      return invalid(`${field}[${i}]`, `"${value}" is not a participant uid (<identifier>::<namespace fingerprint>)`)
    out.push(uid)
  }
  return Either.right(out)
}

/**
 * The onboarding transactions for an external party whose namespace and signing key is one Ed25519
 * key, following Canton's ledger API rules:
 * - party id = `<partyHint>::<fingerprint of the key>`;
 * - hosting: the local participant (Confirmation, or Observation when
 *   `localParticipantObservationOnly`), each of `otherConfirmingParticipantUids` (Confirmation),
 *   each of `observingParticipantUids` (Observation); no participant listed twice, the local one
 *   never listed;
 * - confirmation threshold: 0 or absent = all confirmers, otherwise 1..confirmers;
 * - transactions (operation ADD_REPLACE, serial 1): NamespaceDelegation (root: the key delegating
 *   its own namespace to itself, CanSignAllMappings), PartyToKeyMapping (the key, threshold 1),
 *   PartyToParticipant (the hosting above).
 * Errors are InvalidArgument naming the JSON request field.
 */
export const generateExternalPartyTopology = (
  input: GenerateExternalPartyTopologyInput
): Either.Either<GeneratedExternalPartyTopology, InvalidArgument> =>
  Either.gen(function* () {
    if (input.synchronizerId.length === 0) return yield* invalid("synchronizer", "must be non-empty")
    if (!isUniqueIdentifier(input.synchronizerId))
      return yield* invalid("synchronizer", `"${input.synchronizerId}" is not a synchronizer id (<name>::<namespace fingerprint>)`)
    if (input.partyHint.length === 0) return yield* invalid("partyHint", "Party hint is empty")
    if (input.partyHint.length > 185) return yield* invalid("partyHint", "is too long (at most 185 characters)")
    if (!HINT_PATTERN.test(input.partyHint))
      return yield* invalid("partyHint", `"${input.partyHint}" may only contain letters, digits, '_' and '-'`)
    const key = yield* parseSigningPublicKey(input.publicKey, "publicKey")
    const local = normalizeParticipantUid(input.localParticipantUid)
    if (local === undefined)
      return yield* invalid("localParticipantUid", `"${input.localParticipantUid}" is not a participant uid`)
    const others = yield* parseUidList("otherConfirmingParticipantUids", input.otherConfirmingParticipantUids ?? [])
    const observers = yield* parseUidList("observingParticipantUids", input.observingParticipantUids ?? [])
    const localIndex = others.indexOf(local)
    if (localIndex >= 0)
      return yield* invalid(
        `otherConfirmingParticipantUids[${localIndex}]`,
        `This participant node (${local}) is also listed in 'otherConfirmingParticipantUids'. By sending the request to this node, it is de facto a hosting node and must not be listed in 'otherConfirmingParticipantUids'.`
      )
    const localObserverIndex = observers.indexOf(local)
    if (localObserverIndex >= 0)
      return yield* invalid(
        `observingParticipantUids[${localObserverIndex}]`,
        `This participant node (${local}) is also listed in 'observingParticipantUids'. By sending the request to this node, it is de facto a hosting node and must not be listed in 'observingParticipantUids'.`
      )
    const all = [...others, ...observers]
    const duplicates = [...new Set(all.filter((uid, i) => all.indexOf(uid) !== i))]
    if (duplicates.length > 0)
      return yield* invalid(
        duplicates.some((d) => others.indexOf(d) !== others.lastIndexOf(d)) ? "otherConfirmingParticipantUids" : "observingParticipantUids",
        `The following participant IDs are referenced multiple times in the request: ${duplicates.join(", ")}. Please ensure all IDs are referenced only once across 'otherConfirmingParticipantUids' and 'observingParticipantUids' fields.`
      )
    const requested = input.confirmationThreshold ?? 0
    if (!Number.isInteger(requested) || requested > 2147483647)
      return yield* invalid("confirmationThreshold", "must be an int32")
    if (requested < 0) return yield* invalid("confirmationThreshold", "Negative confirmation threshold observed")
    const observationOnly = input.localParticipantObservationOnly ?? false
    const confirmers = (observationOnly ? 0 : 1) + others.length
    if (confirmers === 0)
      return yield* invalid(
        "localParticipantObservationOnly",
        "no confirming participant: the local participant only observes and otherConfirmingParticipantUids is empty"
      )
    if (requested > confirmers)
      return yield* invalid(
        "confirmationThreshold",
        `Confirmation threshold exceeds number of confirming participants (${requested} > ${confirmers})`
      )
    const threshold = requested === 0 ? confirmers : requested
    const participants: ReadonlyArray<ExternalHostingParticipant> = [
      { participantUid: local, permission: observationOnly ? "Observation" : "Confirmation" },
      ...others.map((participantUid): ExternalHostingParticipant => ({ participantUid, permission: "Confirmation" })),
      ...observers.map((participantUid): ExternalHostingParticipant => ({ participantUid, permission: "Observation" }))
    ]
    return buildOnboarding(input.partyHint, key, { threshold, participants })
  })

/** Builds the three onboarding transactions for already validated inputs. */
export const buildOnboarding = (
  partyHint: string,
  key: Ed25519PublicKey,
  hosting: ExternalPartyHosting
): GeneratedExternalPartyTopology => {
  if (!isFingerprint(key.fingerprint)) throw new Error(`not a fingerprint: ${key.fingerprint}`)
  const partyId = `${partyHint}::${key.fingerprint}`
  const keyMessage = signingKeyMessage(key)
  const mappings: ReadonlyArray<readonly [OnboardingMappingKind, TopologyMappingMessage]> = [
    [
      "NamespaceDelegation",
      {
        kind: "namespaceDelegation",
        value: {
          namespace: key.fingerprint,
          targetKey: keyMessage,
          isRootDelegation: false,
          restriction: { kind: "canSignAllMappings" }
        }
      }
    ],
    ["PartyToKeyMapping", { kind: "partyToKeyMapping", value: { party: partyId, threshold: 1, signingKeys: [keyMessage] } }],
    [
      "PartyToParticipant",
      {
        kind: "partyToParticipant",
        value: {
          party: partyId,
          threshold: hosting.threshold,
          participants: hosting.participants.map((p) => ({
            participantUid: p.participantUid,
            permission: permissionToProto(p.permission),
            onboarding: false
          })),
          partySigningKeys: undefined
        }
      }
    ]
  ]
  const transactions = mappings.map(([kind, mapping]): OnboardingTransaction => {
    const serialized = serializeTopologyTransaction({
      operation: TopologyChangeOp.TOPOLOGY_CHANGE_OP_ADD_REPLACE,
      serial: 1,
      mapping
    })
    return { mapping: kind, serialized, hash: topologyTransactionHash(serialized) }
  })
  const multiHash = multiTransactionHash(transactions.map((t) => t.hash))
  return {
    partyId,
    publicKeyFingerprint: key.fingerprint,
    topologyTransactions: transactions.map((t) => bytesToBase64(t.serialized)),
    multiHash: multiHash.base64,
    transactions,
    multiHashBytes: multiHash,
    publicKey: key,
    hosting
  }
}
