/**
 * Cross-checks the hand-written wire codecs against @bufbuild/protobuf's reflection-based reader and
 * writer, driven by descriptors transcribed from Canton's v30 .proto sources.
 */
import { createFileRegistry, fromBinary, type DescMessage, toBinary, toJson, fromJson, type JsonValue, type JsonObject } from "@bufbuild/protobuf"
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import {
  decodeUntypedVersionedMessage,
  deserializeTopologyTransaction,
  generateExternalPartyTopology,
  serializeTopologyTransaction
} from "../../src/external/index.ts"
import { fromBase64, LOCAL, OBSERVER, OTHER, SYNCHRONIZER, testKey } from "./fixtures.ts"

/** [name, number, type (TYPE_*), typeName?, repeated?, oneofIndex?] */
type FieldSpec = readonly [string, number, string, string?, boolean?, number?]
const field = ([name, number, type, typeName, repeated, oneof]: FieldSpec): JsonObject => ({
  name,
  number,
  type: `TYPE_${type}`,
  label: repeated === true ? "LABEL_REPEATED" : "LABEL_OPTIONAL",
  ...(typeName === undefined || typeName === "" ? {} : { typeName }),
  ...(oneof === undefined ? {} : { oneofIndex: oneof }),
  jsonName: name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
})
const message = (name: string, fields: ReadonlyArray<FieldSpec>, extra: JsonObject = {}): JsonObject => ({
  name,
  field: fields.map(field),
  ...extra
})
const enumType = (name: string, numbers: ReadonlyArray<number>): JsonObject => ({
  name,
  value: numbers.map((n) => ({ name: `${name.toUpperCase()}_${n}`, number: n }))
})
const Type = { ENUM: "ENUM", BYTES: "BYTES", MESSAGE: "MESSAGE", UINT32: "UINT32", STRING: "STRING", BOOL: "BOOL", INT32: "INT32" } as const
const CRYPTO = ".com.digitalasset.canton.crypto.v30"
const TOPO = ".com.digitalasset.canton.protocol.v30"

const registry = createFileRegistry(
  fromJson(FileDescriptorSetSchema, {
    file: [
      {
        name: "com/digitalasset/canton/crypto/v30/crypto.proto",
        package: "com.digitalasset.canton.crypto.v30",
        syntax: "proto3",
        enumType: [
          enumType("CryptoKeyFormat", [0, 2, 3, 4, 5]),
          enumType("SigningKeySpec", [0, 1, 2, 3, 4, 5]),
          enumType("SigningKeyUsage", [0, 1, 2, 3, 4, 5]),
          enumType("SigningKeyScheme", [0, 1, 2, 3])
        ],
        messageType: [
          message("SigningPublicKey", [
            ["format", 2, Type.ENUM, `${CRYPTO}.CryptoKeyFormat`],
            ["public_key", 3, Type.BYTES],
            ["scheme", 4, Type.ENUM, `${CRYPTO}.SigningKeyScheme`],
            ["usage", 5, Type.ENUM, `${CRYPTO}.SigningKeyUsage`, true],
            ["key_spec", 6, Type.ENUM, `${CRYPTO}.SigningKeySpec`]
          ]),
          message("SigningKeysWithThreshold", [
            ["keys", 1, Type.MESSAGE, `${CRYPTO}.SigningPublicKey`, true],
            ["threshold", 2, Type.UINT32]
          ])
        ]
      },
      {
        name: "com/digitalasset/canton/protocol/v30/topology.proto",
        package: "com.digitalasset.canton.protocol.v30",
        syntax: "proto3",
        dependency: ["com/digitalasset/canton/crypto/v30/crypto.proto"],
        messageType: [
          message("Enums", [], {
            enumType: [
              enumType("TopologyChangeOp", [0, 1, 2]),
              enumType("ParticipantPermission", [0, 1, 2, 3]),
              enumType("TopologyMappingCode", [0, 1, 9, 18])
            ]
          }),
          message(
            "NamespaceDelegation",
            [
              ["namespace", 1, Type.STRING],
              ["target_key", 2, Type.MESSAGE, `${CRYPTO}.SigningPublicKey`],
              ["is_root_delegation", 3, Type.BOOL],
              ["can_sign_all_mappings", 4, Type.MESSAGE, `${TOPO}.NamespaceDelegation.CanSignAllMappings`, false, 0],
              ["can_sign_all_but_namespace_delegations", 5, Type.MESSAGE, `${TOPO}.NamespaceDelegation.CanSignAllButNamespaceDelegations`, false, 0],
              ["can_sign_specific_mapings", 6, Type.MESSAGE, `${TOPO}.NamespaceDelegation.CanSignSpecificMappings`, false, 0]
            ],
            {
              oneofDecl: [{ name: "restriction" }],
              nestedType: [
                message("CanSignAllMappings", []),
                message("CanSignAllButNamespaceDelegations", []),
                message("CanSignSpecificMappings", [["mappings", 1, Type.ENUM, `${TOPO}.Enums.TopologyMappingCode`, true]])
              ]
            }
          ),
          message("PartyToKeyMapping", [
            ["party", 1, Type.STRING],
            ["threshold", 3, Type.UINT32],
            ["signing_keys", 4, Type.MESSAGE, `${CRYPTO}.SigningPublicKey`, true]
          ]),
          message(
            "PartyToParticipant",
            [
              ["party", 1, Type.STRING],
              ["threshold", 2, Type.UINT32],
              ["participants", 3, Type.MESSAGE, `${TOPO}.PartyToParticipant.HostingParticipant`, true],
              ["party_signing_keys", 6, Type.MESSAGE, `${CRYPTO}.SigningKeysWithThreshold`]
            ],
            {
              nestedType: [
                message(
                  "HostingParticipant",
                  [
                    ["participant_uid", 1, Type.STRING],
                    ["permission", 2, Type.ENUM, `${TOPO}.Enums.ParticipantPermission`],
                    ["onboarding", 3, Type.MESSAGE, `${TOPO}.PartyToParticipant.HostingParticipant.Onboarding`]
                  ],
                  { nestedType: [message("Onboarding", [])] }
                )
              ]
            }
          ),
          message(
            "TopologyMapping",
            [
              ["namespace_delegation", 1, Type.MESSAGE, `${TOPO}.NamespaceDelegation`, false, 0],
              ["party_to_participant", 9, Type.MESSAGE, `${TOPO}.PartyToParticipant`, false, 0],
              ["party_to_key_mapping", 16, Type.MESSAGE, `${TOPO}.PartyToKeyMapping`, false, 0]
            ],
            { oneofDecl: [{ name: "mapping" }] }
          ),
          message("TopologyTransaction", [
            ["operation", 1, Type.ENUM, `${TOPO}.Enums.TopologyChangeOp`],
            ["serial", 2, Type.UINT32],
            ["mapping", 3, Type.MESSAGE, `${TOPO}.TopologyMapping`]
          ])
        ]
      },
      {
        name: "com/digitalasset/canton/version/v1/untyped_versioned_message.proto",
        package: "com.digitalasset.canton.version.v1",
        syntax: "proto3",
        messageType: [
          message(
            "UntypedVersionedMessage",
            [
              ["data", 1, Type.BYTES, "", false, 0],
              ["version", 2, Type.INT32]
            ],
            { oneofDecl: [{ name: "wrapper" }] }
          )
        ]
      }
    ]
  })
)

const desc = (name: string): DescMessage => {
  const found = registry.getMessage(name)
  if (found === undefined) throw new Error(`no descriptor ${name}`)
  return found
}
const Versioned = desc("com.digitalasset.canton.version.v1.UntypedVersionedMessage")
const Transaction = desc("com.digitalasset.canton.protocol.v30.TopologyTransaction")

const alice = testKey(1)
const topology = Either.getOrThrow(
  generateExternalPartyTopology({
    synchronizerId: SYNCHRONIZER,
    partyHint: "alice",
    publicKey: alice.json,
    localParticipantUid: LOCAL,
    otherConfirmingParticipantUids: [OTHER],
    observingParticipantUids: [OBSERVER],
    confirmationThreshold: 1
  })
)

describe("topology transaction wire format", () => {
  it("is read identically by a reflection-based protobuf reader", () => {
    const jsons = topology.topologyTransactions.map((b64) => {
      const wrapper = fromBinary(Versioned, fromBase64(b64))
      const json = toJson(Versioned, wrapper) as { data: string; version: number }
      expect(json.version).toBe(30)
      return toJson(Transaction, fromBinary(Transaction, fromBase64(json.data)), { enumAsInteger: true })
    })
    const key = {
      format: 4,
      publicKey: Buffer.from(alice.spki).toString("base64"),
      usage: [1, 4, 5],
      keySpec: 1
    }
    expect(jsons).toEqual([
      {
        operation: 1,
        serial: 1,
        mapping: { namespaceDelegation: { namespace: topology.publicKeyFingerprint, targetKey: key, canSignAllMappings: {} } }
      },
      { operation: 1, serial: 1, mapping: { partyToKeyMapping: { party: topology.partyId, threshold: 1, signingKeys: [key] } } },
      {
        operation: 1,
        serial: 1,
        mapping: {
          partyToParticipant: {
            party: topology.partyId,
            threshold: 1,
            participants: [
              { participantUid: LOCAL.slice(5), permission: 2 },
              { participantUid: OTHER, permission: 2 },
              { participantUid: OBSERVER, permission: 3 }
            ]
          }
        }
      }
    ])
  })

  it("is byte-identical to what the reflection-based writer produces", () => {
    for (const b64 of topology.topologyTransactions) {
      const bytes = fromBase64(b64)
      const wrapper = fromBinary(Versioned, bytes)
      const inner = fromBinary(Transaction, fromBase64((toJson(Versioned, wrapper) as { data: string }).data))
      const reencoded = toBinary(Versioned, fromJson(Versioned, { data: Buffer.from(toBinary(Transaction, inner)).toString("base64"), version: 30 }))
      expect(Buffer.from(reencoded).toString("hex")).toBe(Buffer.from(bytes).toString("hex"))
    }
  })

  it("decodes what the reflection-based writer produces, including unpacked usages and self-signed hosting", () => {
    const key = { format: 4, publicKey: Buffer.from(alice.spki).toString("base64"), usage: [1, 4], keySpec: 1 }
    const json: JsonValue = {
      operation: 1,
      serial: 3,
      mapping: {
        partyToParticipant: {
          party: topology.partyId,
          threshold: 1,
          participants: [{ participantUid: OTHER, permission: 3, onboarding: {} }, { participantUid: OBSERVER, permission: 2 }],
          partySigningKeys: { keys: [key], threshold: 1 }
        }
      }
    }
    const inner = toBinary(Transaction, fromJson(Transaction, json))
    const versioned = toBinary(Versioned, fromJson(Versioned, { data: Buffer.from(inner).toString("base64"), version: 30 }))
    const decoded = Either.getOrThrow(deserializeTopologyTransaction(versioned))
    expect(decoded).toMatchObject({
      operation: 1,
      serial: 3,
      mapping: {
        kind: "partyToParticipant",
        value: {
          threshold: 1,
          participants: [
            { participantUid: OTHER, permission: 3, onboarding: true },
            { participantUid: OBSERVER, permission: 2, onboarding: false }
          ],
          partySigningKeys: { threshold: 1 }
        }
      }
    })
    expect(Buffer.from(serializeTopologyTransaction(decoded)).toString("hex")).toBe(Buffer.from(versioned).toString("hex"))
  })

  it("rejects other protocol versions and missing data", () => {
    const bytes = toBinary(Versioned, fromJson(Versioned, { data: "", version: 31 }))
    expect(Either.getLeft(deserializeTopologyTransaction(bytes))).toEqual(
      expect.objectContaining({ value: expect.stringMatching(/version is 31/) })
    )
    expect(Either.isLeft(decodeUntypedVersionedMessage(toBinary(Versioned, fromJson(Versioned, { version: 30 }))))).toBe(true)
  })
})
