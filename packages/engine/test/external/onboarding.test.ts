import { InvalidArgument } from "@sandnet/core"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import {
  deserializeTopologyTransaction,
  fingerprintOfEd25519,
  generateExternalPartyTopology,
  type GenerateExternalPartyTopologyInput,
  InvalidSignature,
  LocalParticipantNotHosting,
  MalformedSignature,
  MissingSignature,
  multiTransactionHash,
  OnboardingTransactionsInconsistent,
  serializeTopologyTransaction,
  TopologyTransactionInvalid,
  TopologyTransactionUndecodable,
  topologyTransactionHash,
  UnknownSigningKey,
  UnsupportedSignatureFormat,
  verifyExternalPartyAllocation,
  type VerifyExternalPartyAllocationInput
} from "../../src/external/index.ts"
import { fromBase64, LOCAL, LOCAL_UID, NS, OBSERVER, OTHER, signatureJson, SYNCHRONIZER, testKey, toBase64 } from "./fixtures.ts"

const alice = testKey(1)
const mallory = testKey(2)

const baseInput = (overrides: Partial<GenerateExternalPartyTopologyInput> = {}): GenerateExternalPartyTopologyInput => ({
  synchronizerId: SYNCHRONIZER,
  partyHint: "alice",
  publicKey: alice.json,
  localParticipantUid: LOCAL,
  ...overrides
})

const generate = (overrides: Partial<GenerateExternalPartyTopologyInput> = {}) => {
  const result = generateExternalPartyTopology(baseInput(overrides))
  if (Either.isLeft(result)) throw new Error(`unexpected: ${result.left.message}`)
  return result.right
}

const expectLeft = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) throw new Error("expected a failure, got a success")
  return result.left
}

const expectRight = <A, E>(result: Either.Either<A, E>): A => {
  if (Either.isLeft(result)) throw new Error(`expected a success, got ${String((result.left as { message?: string }).message)}`)
  return result.right
}

/** What an external wallet does: sign each transaction's hash with its key. */
const signEach = (topology: ReturnType<typeof generate>, key = alice, signedBy = topology.publicKeyFingerprint) =>
  topology.topologyTransactions.map((transaction) => ({
    transaction,
    signatures: [signatureJson(key, topologyTransactionHash(fromBase64(transaction)).multihash, signedBy)]
  }))

describe("generate-topology", () => {
  it("derives the party id from the hint and the key fingerprint", () => {
    const topology = generate()
    const fingerprint = fingerprintOfEd25519(alice.raw)
    expect(topology.publicKeyFingerprint).toBe(fingerprint)
    expect(fingerprint).toMatch(/^1220[0-9a-f]{64}$/)
    expect(topology.partyId).toBe(`alice::${fingerprint}`)
    expect(topology.topologyTransactions).toHaveLength(3)
    expect(fromBase64(topology.multiHash)).toHaveLength(34)
    expect(topology.multiHash).toBe(multiTransactionHash(topology.transactions.map((t) => t.hash)).base64)
  })

  it("gives the same fingerprint for the RAW and the DER SubjectPublicKeyInfo form of a key", () => {
    const raw = generate({ publicKey: { ...alice.json, format: "CRYPTO_KEY_FORMAT_RAW", keyData: toBase64(alice.raw) } })
    expect(raw.partyId).toBe(generate().partyId)
    // Canton stores the key as DER SPKI in the transactions either way.
    expect(raw.topologyTransactions).toEqual(generate().topologyTransactions)
  })

  it("emits a root namespace delegation, a party-to-key mapping and the hosting", () => {
    const topology = generate({
      otherConfirmingParticipantUids: [OTHER],
      observingParticipantUids: [OBSERVER],
      confirmationThreshold: 2
    })
    const [nd, p2k, ptp] = topology.topologyTransactions.map((t) => Either.getOrThrow(deserializeTopologyTransaction(fromBase64(t))))
    expect(nd?.mapping).toMatchObject({ kind: "namespaceDelegation", value: { namespace: topology.publicKeyFingerprint, restriction: { kind: "canSignAllMappings" } } })
    expect(p2k?.mapping).toMatchObject({ kind: "partyToKeyMapping", value: { party: topology.partyId, threshold: 1 } })
    expect(ptp).toMatchObject({
      operation: 1,
      serial: 1,
      mapping: {
        kind: "partyToParticipant",
        value: {
          party: topology.partyId,
          threshold: 2,
          participants: [
            { participantUid: LOCAL_UID, permission: 2, onboarding: false },
            { participantUid: OTHER, permission: 2, onboarding: false },
            { participantUid: OBSERVER, permission: 3, onboarding: false }
          ]
        }
      }
    })
    expect(topology.hosting.threshold).toBe(2)
  })

  it("defaults the threshold to all confirmers and lets the local participant only observe", () => {
    expect(generate({ otherConfirmingParticipantUids: [OTHER] }).hosting.threshold).toBe(2)
    expect(generate({ otherConfirmingParticipantUids: [OTHER], confirmationThreshold: 0 }).hosting.threshold).toBe(2)
    const observing = generate({ localParticipantObservationOnly: true, otherConfirmingParticipantUids: [OTHER] })
    expect(observing.hosting).toEqual({
      threshold: 1,
      participants: [
        { participantUid: LOCAL_UID, permission: "Observation" },
        { participantUid: OTHER, permission: "Confirmation" }
      ]
    })
  })

  const rejects: ReadonlyArray<readonly [string, Partial<GenerateExternalPartyTopologyInput>, string, RegExp]> = [
    ["empty hint", { partyHint: "" }, "partyHint", /Party hint is empty/],
    ["hint with ::", { partyHint: "a::b" }, "partyHint", /may only contain/],
    ["hint with a space", { partyHint: "al ice" }, "partyHint", /may only contain/],
    ["too long hint", { partyHint: "A".repeat(186) }, "partyHint", /too long/],
    ["empty synchronizer", { synchronizerId: "" }, "synchronizer", /non-empty/],
    ["bad synchronizer", { synchronizerId: "not::valid" }, "synchronizer", /not a synchronizer id/],
    ["empty keyData", { publicKey: { ...alice.json, keyData: "" } }, "publicKey.keyData", /non-empty/],
    ["keyData not base64", { publicKey: { ...alice.json, keyData: "%%%" } }, "publicKey.keyData", /base64/],
    ["short raw key", { publicKey: { ...alice.json, format: "CRYPTO_KEY_FORMAT_RAW", keyData: toBase64(alice.raw.subarray(0, 31)) } }, "publicKey.keyData", /32 bytes, got 31/],
    ["raw key in DER field", { publicKey: { ...alice.json, keyData: toBase64(alice.raw) } }, "publicKey.keyData", /SubjectPublicKeyInfo/],
    ["wrong OID", { publicKey: { ...alice.json, keyData: toBase64(Uint8Array.from([...alice.spki.subarray(0, 8), 0x71, ...alice.spki.subarray(9)])) } }, "publicKey.keyData", /1\.3\.101\.113 \(Ed448\)/],
    ["P-256 key spec", { publicKey: { ...alice.json, keySpec: "SIGNING_KEY_SPEC_EC_P256" } }, "publicKey.keySpec", /does not support/],
    ["unknown key spec", { publicKey: { ...alice.json, keySpec: "RSA" } }, "publicKey.keySpec", /unknown key spec/],
    ["unspecified key spec", { publicKey: { ...alice.json, keySpec: "SIGNING_KEY_SPEC_UNSPECIFIED" } }, "publicKey.keySpec", /not set/],
    ["private key format", { publicKey: { ...alice.json, format: "CRYPTO_KEY_FORMAT_DER_PKCS8_PRIVATE_KEY_INFO" } }, "publicKey.format", /private key/],
    ["legacy DER format", { publicKey: { ...alice.json, format: "CRYPTO_KEY_FORMAT_DER" } }, "publicKey.format", /legacy/],
    ["unknown format", { publicKey: { ...alice.json, format: "PEM" } }, "publicKey.format", /unknown key format/],
    ["threshold > confirmers", { otherConfirmingParticipantUids: [OTHER], confirmationThreshold: 3 }, "confirmationThreshold", /exceeds number of confirming participants/],
    ["negative threshold", { confirmationThreshold: -1 }, "confirmationThreshold", /Negative/],
    ["fractional threshold", { confirmationThreshold: 1.5 }, "confirmationThreshold", /int32/],
    ["no confirmer", { localParticipantObservationOnly: true }, "localParticipantObservationOnly", /no confirming participant/],
    ["local listed as confirmer", { otherConfirmingParticipantUids: [LOCAL_UID] }, "otherConfirmingParticipantUids[0]", /also listed/],
    ["local listed as observer", { observingParticipantUids: [LOCAL] }, "observingParticipantUids[0]", /also listed/],
    ["duplicate participant", { otherConfirmingParticipantUids: [OTHER], observingParticipantUids: [OTHER] }, "observingParticipantUids", /referenced multiple times/],
    ["bad participant uid", { observingParticipantUids: ["nope"] }, "observingParticipantUids[0]", /not a participant uid/]
  ]
  it.each(rejects)("rejects %s, naming the field", (_, overrides, field, message) => {
    const error = expectLeft(generateExternalPartyTopology(baseInput(overrides)))
    expect(error).toBeInstanceOf(InvalidArgument)
    expect(error.field).toBe(field)
    expect(error.message).toMatch(message)
  })

  it("rejects a 32-byte key that is not a curve point", () => {
    // y = 2 does not decode to a point on edwards25519.
    const notAPoint = new Uint8Array(32)
    notAPoint[0] = 2
    const error = expectLeft(
      generateExternalPartyTopology(baseInput({ publicKey: { ...alice.json, format: "CRYPTO_KEY_FORMAT_RAW", keyData: toBase64(notAPoint) } }))
    )
    expect(error.message).toMatch(/not an Ed25519 curve point/)
  })
})

describe("allocate (the external wallet's flow)", () => {
  it("accepts each transaction signed by the party key and returns the party", () => {
    const topology = generate({ otherConfirmingParticipantUids: [OTHER], confirmationThreshold: 1 })
    const party = expectRight(
      verifyExternalPartyAllocation({
        synchronizer: SYNCHRONIZER,
        onboardingTransactions: signEach(topology),
        localParticipantUid: LOCAL
      })
    )
    expect(party.partyId).toBe(topology.partyId)
    expect(party.partyHint).toBe("alice")
    expect(party.namespace).toBe(topology.publicKeyFingerprint)
    expect(party.namespaceKey.raw).toEqual(alice.raw)
    expect(party.signingKeys.threshold).toBe(1)
    expect(party.signingKeys.keys.map((k) => k.fingerprint)).toEqual([topology.publicKeyFingerprint])
    expect(party.hosting).toEqual({
      threshold: 1,
      participants: [
        { participantUid: LOCAL_UID, permission: "Confirmation", onboarding: false },
        { participantUid: OTHER, permission: "Confirmation", onboarding: false }
      ]
    })
    expect(party.multiHash.base64).toBe(topology.multiHash)
    expect(party.signedBy).toEqual([topology.publicKeyFingerprint])
  })

  it("accepts one signature over the multiHash instead", () => {
    const topology = generate()
    const party = expectRight(
      verifyExternalPartyAllocation({
        onboardingTransactions: topology.topologyTransactions.map((transaction) => ({ transaction })),
        multiHashSignatures: [signatureJson(alice, fromBase64(topology.multiHash), topology.publicKeyFingerprint)]
      })
    )
    expect(party.partyId).toBe(topology.partyId)
  })

  it("accepts the transactions in any order and the legacy RAW signature format", () => {
    const topology = generate()
    const signed = signEach(topology).reverse().map((t) => ({
      ...t,
      signatures: t.signatures.map((s) => ({ ...s, format: "SIGNATURE_FORMAT_RAW", signingAlgorithmSpec: "SIGNING_ALGORITHM_SPEC_UNSPECIFIED" }))
    }))
    expect(expectRight(verifyExternalPartyAllocation({ onboardingTransactions: signed })).partyId).toBe(topology.partyId)
  })

  it("rejects a bad signature", () => {
    const topology = generate()
    const signed = signEach(topology)
    const bytes = fromBase64(signed[1]!.signatures[0]!.signature)
    bytes[10] = (bytes[10] ?? 0) ^ 0x01
    signed[1] = { ...signed[1]!, signatures: [{ ...signed[1]!.signatures[0]!, signature: toBase64(bytes) }] }
    const error = expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: signed }))
    expect(error).toBeInstanceOf(InvalidSignature)
    expect(error).toMatchObject({ location: "onboardingTransactions[1].signatures[0]", code: "TOPOLOGY_INVALID_TX_SIGNATURE" })
  })

  it("rejects a signature made by another key but claiming the party key", () => {
    const topology = generate()
    const error = expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: signEach(topology, mallory) }))
    expect(error).toBeInstanceOf(InvalidSignature)
  })

  it("rejects a signature by a key the party does not have", () => {
    const topology = generate()
    const malloryFingerprint = fingerprintOfEd25519(mallory.raw)
    const error = expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: signEach(topology, mallory, malloryFingerprint) }))
    expect(error).toBeInstanceOf(UnknownSigningKey)
    expect(error).toMatchObject({ signedBy: malloryFingerprint, knownKeys: [topology.publicKeyFingerprint] })
  })

  it("rejects a transaction changed after signing", () => {
    const topology = generate({ otherConfirmingParticipantUids: [OTHER] })
    const signed = signEach(topology)
    // Flip one character of the other participant's uid inside the PartyToParticipant bytes.
    const bytes = fromBase64(signed[2]!.transaction)
    const at = Buffer.from(bytes).indexOf(Buffer.from("participant2"))
    expect(at).toBeGreaterThan(0)
    bytes[at + 11] = "3".charCodeAt(0)
    signed[2] = { ...signed[2]!, transaction: toBase64(bytes) }
    const error = expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: signed }))
    expect(error).toBeInstanceOf(InvalidSignature)
    expect(error).toMatchObject({ location: "onboardingTransactions[2].signatures[0]" })
  })

  it("rejects a multiHash signature once any transaction changed", () => {
    const topology = generate()
    const bytes = fromBase64(topology.topologyTransactions[1]!)
    const at = Buffer.from(bytes).indexOf(Buffer.from("alice"))
    bytes[at] = "b".charCodeAt(0)
    const txs = [topology.topologyTransactions[0]!, toBase64(bytes), topology.topologyTransactions[2]!]
    const error = expectLeft(
      verifyExternalPartyAllocation({
        onboardingTransactions: txs.map((transaction) => ({ transaction })),
        multiHashSignatures: [signatureJson(alice, fromBase64(topology.multiHash), topology.publicKeyFingerprint)]
      })
    )
    // The changed party name no longer matches the hosting mapping's party.
    expect(error).toBeInstanceOf(OnboardingTransactionsInconsistent)
  })

  it("rejects structurally damaged bytes as undecodable", () => {
    const topology = generate()
    const bytes = fromBase64(topology.topologyTransactions[0]!)
    const error = expectLeft(
      verifyExternalPartyAllocation({ onboardingTransactions: [{ transaction: toBase64(bytes.subarray(0, bytes.length - 5)) }] })
    )
    expect(error).toBeInstanceOf(TopologyTransactionUndecodable)
    expect(error).toMatchObject({ transactionIndex: 0 })
    expect(expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: [{ transaction: "!!" }] }))).toBeInstanceOf(
      TopologyTransactionUndecodable
    )
  })

  it("rejects missing signatures, naming the transaction and the key", () => {
    const topology = generate()
    const signed = signEach(topology)
    signed[2] = { transaction: signed[2]!.transaction, signatures: [] }
    const error = expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: signed }))
    expect(error).toBeInstanceOf(MissingSignature)
    expect(error).toMatchObject({
      transactionIndex: 2,
      mapping: "PartyToParticipant",
      missingKeys: [topology.publicKeyFingerprint],
      code: "TOPOLOGY_UNAUTHORIZED_TRANSACTION"
    })
    const none = expectLeft(
      verifyExternalPartyAllocation({ onboardingTransactions: topology.topologyTransactions.map((transaction) => ({ transaction })) })
    )
    expect(none).toBeInstanceOf(MissingSignature)
  })

  it("rejects unknown and unusable signature formats", () => {
    const topology = generate()
    const withSignature = (patch: Record<string, string>): VerifyExternalPartyAllocationInput => ({
      onboardingTransactions: topology.topologyTransactions.map((transaction) => ({ transaction })),
      multiHashSignatures: [{ ...signatureJson(alice, fromBase64(topology.multiHash), topology.publicKeyFingerprint), ...patch }]
    })
    for (const format of ["SIGNATURE_FORMAT_DER", "SIGNATURE_FORMAT_SYMBOLIC", "SIGNATURE_FORMAT_UNSPECIFIED", "JWS"]) {
      const error = expectLeft(verifyExternalPartyAllocation(withSignature({ format })))
      expect(error).toBeInstanceOf(UnsupportedSignatureFormat)
      expect(error).toMatchObject({ field: "multiHashSignatures[0].format" })
    }
    const algorithm = expectLeft(verifyExternalPartyAllocation(withSignature({ signingAlgorithmSpec: "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256" })))
    expect(algorithm).toMatchObject({ _tag: "UnsupportedSignatureFormat", field: "multiHashSignatures[0].signingAlgorithmSpec" })
    expect(expectLeft(verifyExternalPartyAllocation(withSignature({ signedBy: "alice" })))).toBeInstanceOf(MalformedSignature)
    expect(expectLeft(verifyExternalPartyAllocation(withSignature({ signature: toBase64(new Uint8Array(63)) })))).toMatchObject({
      _tag: "MalformedSignature",
      attribute: "signature"
    })
  })

  it("rejects transactions of different parties", () => {
    const a = generate()
    const b = generateExternalPartyTopology(baseInput({ partyHint: "bob" }))
    const bob = Either.getOrThrow(b)
    const error = expectLeft(
      verifyExternalPartyAllocation({
        onboardingTransactions: [
          ...signEach(a).slice(0, 2),
          signEach(bob)[2]!
        ]
      })
    )
    expect(error).toBeInstanceOf(OnboardingTransactionsInconsistent)
    expect(error.message).toMatch(/PartyToKeyMapping is for alice::.* but the PartyToParticipant is for bob::/)
  })

  it("rejects a namespace that is not the key's fingerprint", () => {
    const a = generate()
    const m = Either.getOrThrow(generateExternalPartyTopology(baseInput({ publicKey: mallory.json })))
    const error = expectLeft(
      verifyExternalPartyAllocation({ onboardingTransactions: [signEach(m)[0]!, ...signEach(a).slice(1)] })
    )
    expect(error).toBeInstanceOf(OnboardingTransactionsInconsistent)
    expect(error.message).toMatch(/does not match the NamespaceDelegation namespace/)
  })

  it("rejects onboarding without hosting, duplicates and foreign mappings", () => {
    const topology = generate()
    const signed = signEach(topology)
    expect(expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: signed.slice(0, 2) }))).toMatchObject({
      _tag: "OnboardingTransactionsInconsistent",
      reason: "a PartyToParticipant mapping must be provided"
    })
    expect(expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: [...signed, signed[0]!] }))).toMatchObject({
      _tag: "OnboardingTransactionsInconsistent",
      reason: "transactions 0 and 3 are identical"
    })
    expect(expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: [] }))).toBeInstanceOf(OnboardingTransactionsInconsistent)
    const removal = serializeTopologyTransaction({
      ...Either.getOrThrow(deserializeTopologyTransaction(fromBase64(topology.topologyTransactions[0]!))),
      operation: 2
    })
    expect(expectLeft(verifyExternalPartyAllocation({ onboardingTransactions: [{ transaction: toBase64(removal) }] }))).toBeInstanceOf(
      TopologyTransactionInvalid
    )
  })

  it("checks that this participant hosts the party with confirmation or observation", () => {
    const topology = generate()
    const error = expectLeft(
      verifyExternalPartyAllocation({ onboardingTransactions: signEach(topology), localParticipantUid: `PAR::elsewhere::${NS("e")}` })
    )
    expect(error).toBeInstanceOf(LocalParticipantNotHosting)
  })

  it("rejects a bad synchronizer id", () => {
    const topology = generate()
    const error = expectLeft(verifyExternalPartyAllocation({ synchronizer: "", onboardingTransactions: signEach(topology) }))
    expect(error).toMatchObject({ _tag: "InvalidArgument", field: "synchronizer" })
  })
})
