/**
 * Binary protobuf codecs for the Canton messages that external-party onboarding exchanges, written
 * with @bufbuild/protobuf's wire API (BinaryWriter / BinaryReader). Field numbers and types follow
 * Canton's protocol v30 sources (com/digitalasset/canton/protocol/v30/topology.proto,
 * crypto/v30/crypto.proto, version/v1/untyped_versioned_message.proto). Only the messages that
 * onboarding needs are modelled; other topology mappings decode as `{ kind: "other" }`.
 *
 * Encoding follows proto3 and protoc conventions: fields in ascending field-number order, scalar
 * fields equal to their default (0, "", false, empty bytes) omitted, repeated enums packed, a set
 * oneof member always written (even an empty message). Decoding accepts packed and unpacked
 * repeated enums and skips unknown fields, as any protobuf reader does.
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire"
import { Either } from "effect"

export const TopologyChangeOp = {
  TOPOLOGY_CHANGE_OP_UNSPECIFIED: 0,
  TOPOLOGY_CHANGE_OP_ADD_REPLACE: 1,
  TOPOLOGY_CHANGE_OP_REMOVE: 2
} as const

export const ParticipantPermissionProto = {
  PARTICIPANT_PERMISSION_UNSPECIFIED: 0,
  PARTICIPANT_PERMISSION_SUBMISSION: 1,
  PARTICIPANT_PERMISSION_CONFIRMATION: 2,
  PARTICIPANT_PERMISSION_OBSERVATION: 3
} as const

/** crypto.v30.SigningPublicKey { format = 2; public_key = 3; scheme = 4 (deprecated); usage = 5 (repeated enum); key_spec = 6 } */
export interface SigningPublicKeyMessage {
  readonly format: number
  readonly publicKey: Uint8Array
  readonly scheme: number
  readonly usage: ReadonlyArray<number>
  readonly keySpec: number
}

/** protocol.v30.NamespaceDelegation's `restriction` oneof (fields 4, 5, 6). */
export type DelegationRestrictionMessage =
  | { readonly kind: "unset" }
  | { readonly kind: "canSignAllMappings" }
  | { readonly kind: "canSignAllButNamespaceDelegations" }
  | { readonly kind: "canSignSpecificMappings"; readonly mappings: ReadonlyArray<number> }

/** protocol.v30.NamespaceDelegation { namespace = 1; target_key = 2; is_root_delegation = 3 (deprecated); restriction = 4|5|6 } */
export interface NamespaceDelegationMessage {
  readonly namespace: string
  readonly targetKey: SigningPublicKeyMessage | undefined
  readonly isRootDelegation: boolean
  readonly restriction: DelegationRestrictionMessage
}

/** protocol.v30.PartyToKeyMapping { party = 1; threshold = 3 (uint32); signing_keys = 4 } */
export interface PartyToKeyMappingMessage {
  readonly party: string
  readonly threshold: number
  readonly signingKeys: ReadonlyArray<SigningPublicKeyMessage>
}

/** protocol.v30.PartyToParticipant.HostingParticipant { participant_uid = 1; permission = 2; onboarding = 3 (empty message) } */
export interface HostingParticipantMessage {
  readonly participantUid: string
  readonly permission: number
  readonly onboarding: boolean
}

/** crypto.v30.SigningKeysWithThreshold { keys = 1; threshold = 2 (uint32) } */
export interface SigningKeysWithThresholdMessage {
  readonly keys: ReadonlyArray<SigningPublicKeyMessage>
  readonly threshold: number
}

/** protocol.v30.PartyToParticipant { party = 1; threshold = 2 (uint32); participants = 3; party_signing_keys = 6 (optional) } */
export interface PartyToParticipantMessage {
  readonly party: string
  readonly threshold: number
  readonly participants: ReadonlyArray<HostingParticipantMessage>
  readonly partySigningKeys: SigningKeysWithThresholdMessage | undefined
}

/** protocol.v30.TopologyMapping's `mapping` oneof: namespace_delegation = 1, party_to_participant = 9, party_to_key_mapping = 16. */
export type TopologyMappingMessage =
  | { readonly kind: "namespaceDelegation"; readonly value: NamespaceDelegationMessage }
  | { readonly kind: "partyToParticipant"; readonly value: PartyToParticipantMessage }
  | { readonly kind: "partyToKeyMapping"; readonly value: PartyToKeyMappingMessage }
  | { readonly kind: "other"; readonly fieldNumber: number }
  | { readonly kind: "unset" }

/** protocol.v30.TopologyTransaction { operation = 1 (enum); serial = 2 (uint32); mapping = 3 } */
export interface TopologyTransactionMessage {
  readonly operation: number
  readonly serial: number
  readonly mapping: TopologyMappingMessage
}

/** version.v1.UntypedVersionedMessage { oneof wrapper { bytes data = 1; } int32 version = 2; } */
export interface UntypedVersionedMessage {
  readonly data: Uint8Array
  readonly version: number
}

// ---------------------------------------------------------------------------------------------
// encoding

type Encode = (writer: BinaryWriter) => void

const writeMessage = (writer: BinaryWriter, field: number, encode: Encode): void => {
  writer.tag(field, WireType.LengthDelimited).fork()
  encode(writer)
  writer.join()
}
const writeString = (writer: BinaryWriter, field: number, value: string): void => {
  if (value !== "") writer.tag(field, WireType.LengthDelimited).string(value)
}
const writeBytes = (writer: BinaryWriter, field: number, value: Uint8Array): void => {
  if (value.length > 0) writer.tag(field, WireType.LengthDelimited).bytes(value)
}
const writeEnum = (writer: BinaryWriter, field: number, value: number): void => {
  if (value !== 0) writer.tag(field, WireType.Varint).int32(value)
}
const writeUint32 = (writer: BinaryWriter, field: number, value: number): void => {
  if (value !== 0) writer.tag(field, WireType.Varint).uint32(value)
}
const writeBool = (writer: BinaryWriter, field: number, value: boolean): void => {
  if (value) writer.tag(field, WireType.Varint).bool(true)
}
const writePackedEnums = (writer: BinaryWriter, field: number, values: ReadonlyArray<number>): void => {
  if (values.length === 0) return
  writer.tag(field, WireType.LengthDelimited).fork()
  for (const value of values) writer.int32(value)
  writer.join()
}

const encodeSigningPublicKey =
  (key: SigningPublicKeyMessage): Encode =>
  (w) => {
    writeEnum(w, 2, key.format)
    writeBytes(w, 3, key.publicKey)
    writeEnum(w, 4, key.scheme)
    writePackedEnums(w, 5, key.usage)
    writeEnum(w, 6, key.keySpec)
  }

const encodeNamespaceDelegation =
  (value: NamespaceDelegationMessage): Encode =>
  (w) => {
    writeString(w, 1, value.namespace)
    if (value.targetKey !== undefined) writeMessage(w, 2, encodeSigningPublicKey(value.targetKey))
    writeBool(w, 3, value.isRootDelegation)
    const restriction = value.restriction
    switch (restriction.kind) {
      case "unset":
        break
      case "canSignAllMappings":
        writeMessage(w, 4, () => {})
        break
      case "canSignAllButNamespaceDelegations":
        writeMessage(w, 5, () => {})
        break
      case "canSignSpecificMappings":
        writeMessage(w, 6, (inner) => writePackedEnums(inner, 1, restriction.mappings))
        break
    }
  }

const encodePartyToKeyMapping =
  (value: PartyToKeyMappingMessage): Encode =>
  (w) => {
    writeString(w, 1, value.party)
    writeUint32(w, 3, value.threshold)
    for (const key of value.signingKeys) writeMessage(w, 4, encodeSigningPublicKey(key))
  }

const encodePartyToParticipant =
  (value: PartyToParticipantMessage): Encode =>
  (w) => {
    writeString(w, 1, value.party)
    writeUint32(w, 2, value.threshold)
    for (const participant of value.participants)
      writeMessage(w, 3, (inner) => {
        writeString(inner, 1, participant.participantUid)
        writeEnum(inner, 2, participant.permission)
        if (participant.onboarding) writeMessage(inner, 3, () => {})
      })
    const keys = value.partySigningKeys
    if (keys !== undefined)
      writeMessage(w, 6, (inner) => {
        for (const key of keys.keys) writeMessage(inner, 1, encodeSigningPublicKey(key))
        writeUint32(inner, 2, keys.threshold)
      })
  }

const encodeMapping =
  (mapping: TopologyMappingMessage): Encode =>
  (w) => {
    switch (mapping.kind) {
      case "namespaceDelegation":
        return writeMessage(w, 1, encodeNamespaceDelegation(mapping.value))
      case "partyToParticipant":
        return writeMessage(w, 9, encodePartyToParticipant(mapping.value))
      case "partyToKeyMapping":
        return writeMessage(w, 16, encodePartyToKeyMapping(mapping.value))
      case "other":
        throw new Error(`cannot encode topology mapping field ${mapping.fieldNumber}: not modelled`)
      case "unset":
        return
    }
  }

/** The inner `TopologyTransaction` message bytes. */
export const encodeTopologyTransactionMessage = (tx: TopologyTransactionMessage): Uint8Array => {
  const w = new BinaryWriter()
  writeEnum(w, 1, tx.operation)
  writeUint32(w, 2, tx.serial)
  writeMessage(w, 3, encodeMapping(tx.mapping))
  return w.finish()
}

export const encodeUntypedVersionedMessage = (message: UntypedVersionedMessage): Uint8Array => {
  const w = new BinaryWriter()
  // `data` sits in a oneof, so it is written even when empty.
  w.tag(1, WireType.LengthDelimited).bytes(message.data)
  if (message.version !== 0) w.tag(2, WireType.Varint).int32(message.version)
  return w.finish()
}

// ---------------------------------------------------------------------------------------------
// decoding

class DecodeFailure extends Error {}

const WIRE_TYPE_NAMES: Readonly<Record<number, string>> = {
  0: "varint",
  1: "64-bit",
  2: "length-delimited",
  3: "start-group",
  4: "end-group",
  5: "32-bit"
}

/** Walks the fields of one message; `on` returns false for fields it does not know (they are skipped). */
const readFields = (
  bytes: Uint8Array,
  message: string,
  on: (field: number, wireType: WireType, reader: BinaryReader) => boolean
): void => {
  const reader = new BinaryReader(bytes)
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag()
    if (field <= 0) throw new DecodeFailure(`${message}: invalid field number ${field}`)
    if (!on(field, wireType, reader)) reader.skip(wireType, field)
  }
  if (reader.pos !== reader.len) throw new DecodeFailure(`${message}: trailing bytes`)
}

const expectWire = (message: string, name: string, actual: WireType, expected: WireType): void => {
  if (actual !== expected)
    throw new DecodeFailure(
      `${message}.${name}: wire type ${WIRE_TYPE_NAMES[actual] ?? actual}, expected ${WIRE_TYPE_NAMES[expected] ?? expected}`
    )
}

const readString = (reader: BinaryReader, message: string, name: string): string => {
  try {
    return reader.string(true)
  } catch {
    throw new DecodeFailure(`${message}.${name}: invalid UTF-8`)
  }
}

const readRepeatedEnum = (reader: BinaryReader, wireType: WireType, out: Array<number>): void => {
  if (wireType === WireType.LengthDelimited) {
    const packed = new BinaryReader(reader.bytes())
    while (packed.pos < packed.len) out.push(packed.int32())
  } else out.push(reader.int32())
}

const decodeSigningPublicKey = (bytes: Uint8Array, message: string): SigningPublicKeyMessage => {
  let format = 0
  let publicKey: Uint8Array = new Uint8Array(0)
  let scheme = 0
  const usage: Array<number> = []
  let keySpec = 0
  readFields(bytes, message, (field, wire, r) => {
    switch (field) {
      case 2:
        expectWire(message, "format", wire, WireType.Varint)
        format = r.int32()
        return true
      case 3:
        expectWire(message, "public_key", wire, WireType.LengthDelimited)
        publicKey = r.bytes()
        return true
      case 4:
        expectWire(message, "scheme", wire, WireType.Varint)
        scheme = r.int32()
        return true
      case 5:
        if (wire !== WireType.LengthDelimited) expectWire(message, "usage", wire, WireType.Varint)
        readRepeatedEnum(r, wire, usage)
        return true
      case 6:
        expectWire(message, "key_spec", wire, WireType.Varint)
        keySpec = r.int32()
        return true
      default:
        return false
    }
  })
  return { format, publicKey, scheme, usage, keySpec }
}

const decodeNamespaceDelegation = (bytes: Uint8Array): NamespaceDelegationMessage => {
  const message = "NamespaceDelegation"
  let namespace = ""
  let targetKey: SigningPublicKeyMessage | undefined
  let isRootDelegation = false
  let restriction: DelegationRestrictionMessage = { kind: "unset" }
  readFields(bytes, message, (field, wire, r) => {
    switch (field) {
      case 1:
        expectWire(message, "namespace", wire, WireType.LengthDelimited)
        namespace = readString(r, message, "namespace")
        return true
      case 2:
        expectWire(message, "target_key", wire, WireType.LengthDelimited)
        targetKey = decodeSigningPublicKey(r.bytes(), `${message}.target_key`)
        return true
      case 3:
        expectWire(message, "is_root_delegation", wire, WireType.Varint)
        isRootDelegation = r.bool()
        return true
      case 4:
        expectWire(message, "can_sign_all_mappings", wire, WireType.LengthDelimited)
        r.bytes()
        restriction = { kind: "canSignAllMappings" }
        return true
      case 5:
        expectWire(message, "can_sign_all_but_namespace_delegations", wire, WireType.LengthDelimited)
        r.bytes()
        restriction = { kind: "canSignAllButNamespaceDelegations" }
        return true
      case 6: {
        expectWire(message, "can_sign_specific_mapings", wire, WireType.LengthDelimited)
        const mappings: Array<number> = []
        readFields(r.bytes(), `${message}.CanSignSpecificMappings`, (f, w, inner) => {
          if (f !== 1) return false
          readRepeatedEnum(inner, w, mappings)
          return true
        })
        restriction = { kind: "canSignSpecificMappings", mappings }
        return true
      }
      default:
        return false
    }
  })
  return { namespace, targetKey, isRootDelegation, restriction }
}

const decodePartyToKeyMapping = (bytes: Uint8Array): PartyToKeyMappingMessage => {
  const message = "PartyToKeyMapping"
  let party = ""
  let threshold = 0
  const signingKeys: Array<SigningPublicKeyMessage> = []
  readFields(bytes, message, (field, wire, r) => {
    switch (field) {
      case 1:
        expectWire(message, "party", wire, WireType.LengthDelimited)
        party = readString(r, message, "party")
        return true
      case 3:
        expectWire(message, "threshold", wire, WireType.Varint)
        threshold = r.uint32()
        return true
      case 4:
        expectWire(message, "signing_keys", wire, WireType.LengthDelimited)
        signingKeys.push(decodeSigningPublicKey(r.bytes(), `${message}.signing_keys`))
        return true
      default:
        return false
    }
  })
  return { party, threshold, signingKeys }
}

const decodeHostingParticipant = (bytes: Uint8Array): HostingParticipantMessage => {
  const message = "PartyToParticipant.HostingParticipant"
  let participantUid = ""
  let permission = 0
  let onboarding = false
  readFields(bytes, message, (field, wire, r) => {
    switch (field) {
      case 1:
        expectWire(message, "participant_uid", wire, WireType.LengthDelimited)
        participantUid = readString(r, message, "participant_uid")
        return true
      case 2:
        expectWire(message, "permission", wire, WireType.Varint)
        permission = r.int32()
        return true
      case 3:
        expectWire(message, "onboarding", wire, WireType.LengthDelimited)
        r.bytes()
        onboarding = true
        return true
      default:
        return false
    }
  })
  return { participantUid, permission, onboarding }
}

const decodeSigningKeysWithThreshold = (bytes: Uint8Array): SigningKeysWithThresholdMessage => {
  const message = "SigningKeysWithThreshold"
  const keys: Array<SigningPublicKeyMessage> = []
  let threshold = 0
  readFields(bytes, message, (field, wire, r) => {
    switch (field) {
      case 1:
        expectWire(message, "keys", wire, WireType.LengthDelimited)
        keys.push(decodeSigningPublicKey(r.bytes(), `${message}.keys`))
        return true
      case 2:
        expectWire(message, "threshold", wire, WireType.Varint)
        threshold = r.uint32()
        return true
      default:
        return false
    }
  })
  return { keys, threshold }
}

const decodePartyToParticipant = (bytes: Uint8Array): PartyToParticipantMessage => {
  const message = "PartyToParticipant"
  let party = ""
  let threshold = 0
  const participants: Array<HostingParticipantMessage> = []
  let partySigningKeys: SigningKeysWithThresholdMessage | undefined
  readFields(bytes, message, (field, wire, r) => {
    switch (field) {
      case 1:
        expectWire(message, "party", wire, WireType.LengthDelimited)
        party = readString(r, message, "party")
        return true
      case 2:
        expectWire(message, "threshold", wire, WireType.Varint)
        threshold = r.uint32()
        return true
      case 3:
        expectWire(message, "participants", wire, WireType.LengthDelimited)
        participants.push(decodeHostingParticipant(r.bytes()))
        return true
      case 6:
        expectWire(message, "party_signing_keys", wire, WireType.LengthDelimited)
        partySigningKeys = decodeSigningKeysWithThreshold(r.bytes())
        return true
      default:
        return false
    }
  })
  return { party, threshold, participants, partySigningKeys }
}

const decodeMapping = (bytes: Uint8Array): TopologyMappingMessage => {
  const message = "TopologyMapping"
  let mapping: TopologyMappingMessage = { kind: "unset" }
  readFields(bytes, message, (field, wire, r) => {
    expectWire(message, `field ${field}`, wire, WireType.LengthDelimited)
    const inner = r.bytes()
    switch (field) {
      case 1:
        mapping = { kind: "namespaceDelegation", value: decodeNamespaceDelegation(inner) }
        break
      case 9:
        mapping = { kind: "partyToParticipant", value: decodePartyToParticipant(inner) }
        break
      case 16:
        mapping = { kind: "partyToKeyMapping", value: decodePartyToKeyMapping(inner) }
        break
      default:
        mapping = { kind: "other", fieldNumber: field }
    }
    return true
  })
  return mapping
}

const decodeTransaction = (bytes: Uint8Array): TopologyTransactionMessage => {
  const message = "TopologyTransaction"
  let operation = 0
  let serial = 0
  let mapping: TopologyMappingMessage = { kind: "unset" }
  readFields(bytes, message, (field, wire, r) => {
    switch (field) {
      case 1:
        expectWire(message, "operation", wire, WireType.Varint)
        operation = r.int32()
        return true
      case 2:
        expectWire(message, "serial", wire, WireType.Varint)
        serial = r.uint32()
        return true
      case 3:
        expectWire(message, "mapping", wire, WireType.LengthDelimited)
        mapping = decodeMapping(r.bytes())
        return true
      default:
        return false
    }
  })
  return { operation, serial, mapping }
}

const decodeVersioned = (bytes: Uint8Array): UntypedVersionedMessage => {
  const message = "UntypedVersionedMessage"
  let data: Uint8Array | undefined
  let version = 0
  readFields(bytes, message, (field, wire, r) => {
    switch (field) {
      case 1:
        expectWire(message, "data", wire, WireType.LengthDelimited)
        data = r.bytes()
        return true
      case 2:
        expectWire(message, "version", wire, WireType.Varint)
        version = r.int32()
        return true
      default:
        return false
    }
  })
  if (data === undefined) throw new DecodeFailure(`${message}: field data is not set`)
  return { data, version }
}

const attempt = <A>(run: () => A): Either.Either<A, string> => {
  try {
    return Either.right(run())
  } catch (error) {
    if (error instanceof DecodeFailure) return Either.left(error.message)
    return Either.left(`malformed protobuf: ${error instanceof Error ? error.message : String(error)}`)
  }
}

export const decodeUntypedVersionedMessage = (bytes: Uint8Array): Either.Either<UntypedVersionedMessage, string> =>
  attempt(() => decodeVersioned(bytes))

export const decodeTopologyTransactionMessage = (bytes: Uint8Array): Either.Either<TopologyTransactionMessage, string> =>
  attempt(() => decodeTransaction(bytes))
