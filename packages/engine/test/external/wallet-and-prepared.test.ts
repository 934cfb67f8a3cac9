import type { PreparedTransaction } from "@canton-network/core-ledger-proto"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import {
  MissingSignature,
  multiTransactionHash,
  PreparedTransactionNotAuthorized,
  preparedTransactionHash,
  serializeTopologyTransaction,
  signingKeyMessage,
  topologyTransactionHash,
  verifyExternalPartyAllocation,
  verifyPreparedTransactionSignatures,
  walletGenerateExternalPartyTopology,
  walletSubmitExternalPartyTopology,
  ed25519PublicKeyFromRaw,
  InvalidSignature
} from "../../src/external/index.ts"
import { fromBase64, LOCAL, LOCAL_UID, OTHER, sign, signatureJson, SYNCHRONIZER, testKey, toBase64 } from "./fixtures.ts"

const alice = testKey(1)
const bob = testKey(3)
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")
const node = { participantUid: LOCAL, synchronizerId: SYNCHRONIZER }

describe("wallet admin external party topology", () => {
  it("generates with a hex key and accepts hex signatures over each hash", () => {
    const generated = Either.getOrThrow(walletGenerateExternalPartyTopology({ party_hint: "alice", public_key: hex(alice.raw) }, node))
    expect(generated.response.party_id).toMatch(/^alice::1220[0-9a-f]{64}$/)
    expect(generated.response.topology_txs).toHaveLength(3)
    for (const tx of generated.response.topology_txs) {
      expect(tx.hash).toBe(topologyTransactionHash(fromBase64(tx.topology_tx)).hex)
      expect(tx.hash).toMatch(/^1220[0-9a-f]{64}$/)
    }
    expect(generated.topology.hosting).toEqual({ threshold: 1, participants: [{ participantUid: LOCAL_UID, permission: "Confirmation" }] })
    const submitted = walletSubmitExternalPartyTopology(
      {
        public_key: hex(alice.raw),
        signed_topology_txs: generated.response.topology_txs.map((tx) => ({
          topology_tx: tx.topology_tx,
          signed_hash: hex(sign(alice, Buffer.from(tx.hash, "hex")))
        }))
      },
      { participantUid: LOCAL }
    )
    expect(Either.getOrThrow(submitted).response).toEqual({ party_id: generated.response.party_id })
  })

  it("names the wallet fields in its errors", () => {
    expect(Either.getLeft(walletGenerateExternalPartyTopology({ party_hint: "alice", public_key: "zz" }, node))).toEqual(
      expect.objectContaining({ value: expect.objectContaining({ field: "public_key" }) })
    )
    expect(Either.getLeft(walletGenerateExternalPartyTopology({ party_hint: "", public_key: hex(alice.raw) }, node))).toEqual(
      expect.objectContaining({ value: expect.objectContaining({ field: "party_hint" }) })
    )
    const generated = Either.getOrThrow(walletGenerateExternalPartyTopology({ party_hint: "alice", public_key: hex(alice.raw) }, node))
    const bad = walletSubmitExternalPartyTopology({
      public_key: hex(alice.raw),
      signed_topology_txs: generated.response.topology_txs.map((tx) => ({ topology_tx: tx.topology_tx, signed_hash: "00" }))
    })
    expect(Either.getLeft(bad)).toEqual(
      expect.objectContaining({ value: expect.objectContaining({ field: "signed_topology_txs[0].signed_hash" }) })
    )
    const wrongKey = walletSubmitExternalPartyTopology({
      public_key: hex(alice.raw),
      signed_topology_txs: generated.response.topology_txs.map((tx) => ({
        topology_tx: tx.topology_tx,
        signed_hash: hex(sign(bob, Buffer.from(tx.hash, "hex")))
      }))
    })
    expect(Either.getLeft(wrongKey)).toEqual(expect.objectContaining({ value: expect.any(InvalidSignature) }))
  })
})

describe("self-signed hosting (one PartyToParticipant carrying the party keys)", () => {
  const key = Either.getOrThrow(ed25519PublicKeyFromRaw(alice.raw))
  const partyId = `alice::${key.fingerprint}`
  const ptp = serializeTopologyTransaction({
    operation: 1,
    serial: 1,
    mapping: {
      kind: "partyToParticipant",
      value: {
        party: partyId,
        threshold: 1,
        participants: [{ participantUid: LOCAL_UID, permission: 2, onboarding: false }, { participantUid: OTHER, permission: 3, onboarding: false }],
        partySigningKeys: { keys: [signingKeyMessage(key)], threshold: 1 }
      }
    }
  })

  it("is accepted when the namespace key signs it", () => {
    const party = Either.getOrThrow(
      verifyExternalPartyAllocation({
        onboardingTransactions: [{ transaction: toBase64(ptp), signatures: [signatureJson(alice, topologyTransactionHash(ptp).multihash, key.fingerprint)] }]
      })
    )
    expect(party).toMatchObject({ partyId, namespace: key.fingerprint, signingKeys: { threshold: 1 } })
    expect(party.hosting.participants.map((p) => p.permission)).toEqual(["Confirmation", "Observation"])
    expect(party.multiHash.hex).toBe(multiTransactionHash([topologyTransactionHash(ptp)]).hex)
  })

  it("needs the signature of every new signing key", () => {
    const extra = Either.getOrThrow(ed25519PublicKeyFromRaw(bob.raw))
    const twoKeys = serializeTopologyTransaction({
      operation: 1,
      serial: 1,
      mapping: {
        kind: "partyToParticipant",
        value: {
          party: partyId,
          threshold: 1,
          participants: [{ participantUid: LOCAL_UID, permission: 2, onboarding: false }],
          partySigningKeys: { keys: [signingKeyMessage(key), signingKeyMessage(extra)], threshold: 2 }
        }
      }
    })
    const hash = topologyTransactionHash(twoKeys).multihash
    const onlyAlice = verifyExternalPartyAllocation({
      onboardingTransactions: [{ transaction: toBase64(twoKeys), signatures: [signatureJson(alice, hash, key.fingerprint)] }]
    })
    expect(Either.getLeft(onlyAlice)).toEqual(
      expect.objectContaining({ value: expect.objectContaining({ _tag: "MissingSignature", missingKeys: [extra.fingerprint] }) })
    )
    expect(Either.isLeft(onlyAlice) && onlyAlice.left instanceof MissingSignature).toBe(true)
    const both = verifyExternalPartyAllocation({
      onboardingTransactions: [
        { transaction: toBase64(twoKeys), signatures: [signatureJson(alice, hash, key.fingerprint), signatureJson(bob, hash, extra.fingerprint)] }
      ]
    })
    expect(Either.getOrThrow(both).signingKeys.threshold).toBe(2)
  })
})

describe("prepared transaction signing", () => {
  const key = Either.getOrThrow(ed25519PublicKeyFromRaw(alice.raw))
  const keys = { threshold: 1, keys: [key] }
  // A minimal PreparedTransaction: one create root, as Canton's bindings type it.
  const message = (actAs: ReadonlyArray<string>, amount = "10.0000000000"): PreparedTransaction => ({
    transaction: {
      version: "2.1",
      roots: ["0"],
      nodes: [
        {
          nodeId: "0",
          versionedNode: {
            oneofKind: "v1",
            v1: {
              nodeType: {
                oneofKind: "create",
                create: {
                  lfVersion: "2.1",
                  contractId: "00" + "ab".repeat(32),
                  packageName: "pkg",
                  templateId: { packageId: "cd".repeat(32), moduleName: "M.N", entityName: "T" },
                  argument: { sum: { oneofKind: "record", record: { fields: [{ label: "amount", value: { sum: { oneofKind: "numeric", numeric: amount } } }] } } },
                  signatories: [...actAs],
                  stakeholders: [...actAs]
                }
              }
            }
          }
        }
      ],
      nodeSeeds: [{ nodeId: 0, seed: new Uint8Array(32).fill(7) }]
    },
    metadata: {
      submitterInfo: { actAs: [...actAs], commandId: "c" },
      synchronizerId: "sync::1220",
      mediatorGroup: 0,
      transactionUuid: "u",
      preparationTime: 1n,
      inputContracts: [],
      globalKeyMapping: []
    }
  })
  const hashOf = (m: PreparedTransaction) => Either.getOrThrow(preparedTransactionHash(m))
  const prepared = message(["alice::1220"])

  it("hashes the message's fields (scheme V2): any field changes the hash", () => {
    const hash = hashOf(prepared)
    expect(hash.digest).toHaveLength(32)
    expect(hash.hex).toMatch(/^[0-9a-f]{64}$/)
    expect(hashOf(message(["alice::1220"])).hex).toBe(hash.hex)
    expect(hashOf(message([])).hex).not.toBe(hash.hex)
    expect(hashOf(message(["alice::1220"], "10.0000000001")).hex).not.toBe(hash.hex)
    expect(Buffer.from(hash.base64, "base64")).toEqual(Buffer.from(hash.digest))
  })

  it("accepts a signature over the 32-byte hash by a registered key", () => {
    const hash = hashOf(prepared)
    const result = verifyPreparedTransactionSignatures({
      partyId: "alice",
      hash,
      keys,
      signatures: [signatureJson(alice, hash.digest, key.fingerprint)]
    })
    expect(Either.getOrThrow(result).validSigners).toEqual([key.fingerprint])
  })

  it("rejects signatures by other keys, over other content, or too few", () => {
    const hash = hashOf(prepared)
    const other = hashOf(message([]))
    const bobFingerprint = Either.getOrThrow(ed25519PublicKeyFromRaw(bob.raw)).fingerprint
    const result = verifyPreparedTransactionSignatures({
      partyId: "alice",
      hash,
      keys,
      signatures: [signatureJson(bob, hash.digest, bobFingerprint), signatureJson(alice, other.digest, key.fingerprint)]
    })
    if (Either.isRight(result)) throw new Error("expected a rejection")
    expect(result.left).toBeInstanceOf(PreparedTransactionNotAuthorized)
    expect(result.left).toMatchObject({
      threshold: 1,
      validSignatures: 0,
      problems: [expect.stringMatching(/not a signing key/), expect.stringMatching(/does not verify/)]
    })
    expect(Either.isLeft(verifyPreparedTransactionSignatures({ partyId: "alice", hash, keys, signatures: [] }))).toBe(true)
    // A signature over the multihash form is not a signature over the hash.
    const multihash = new Uint8Array([0x12, 0x20, ...hash.digest])
    expect(Either.isLeft(verifyPreparedTransactionSignatures({ partyId: "alice", hash, keys, signatures: [signatureJson(alice, multihash, key.fingerprint)] }))).toBe(true)
  })
})
