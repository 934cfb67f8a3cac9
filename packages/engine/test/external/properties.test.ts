import { ed25519 } from "@noble/curves/ed25519.js"
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  ED25519_SPKI_PREFIX,
  generateExternalPartyTopology,
  type GenerateExternalPartyTopologyInput,
  topologyTransactionHash,
  verifyExternalPartyAllocation
} from "../../src/external/index.ts"
import { fromBase64, LOCAL, SYNCHRONIZER } from "./fixtures.ts"

const hint = fc.stringMatching(/^[a-zA-Z0-9_-]{1,40}$/)
const uid = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), fc.uint8Array({ minLength: 32, maxLength: 32 }))
  .map(([name, ns]) => `${name}::1220${Buffer.from(ns).toString("hex")}`)

const validInput = fc
  .record({
    partyHint: hint,
    secret: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    raw: fc.boolean(),
    others: fc.uniqueArray(uid, { maxLength: 3 }),
    observers: fc.uniqueArray(uid, { maxLength: 3 }),
    observationOnly: fc.boolean(),
    thresholdPick: fc.nat()
  })
  .filter(({ others, observers, observationOnly }) => others.every((o) => !observers.includes(o)) && (others.length > 0 || !observationOnly))
  .map(({ partyHint, secret, raw, others, observers, observationOnly, thresholdPick }) => {
    const publicKey = ed25519.getPublicKey(secret)
    const confirmers = (observationOnly ? 0 : 1) + others.length
    const input: GenerateExternalPartyTopologyInput = {
      synchronizerId: SYNCHRONIZER,
      partyHint,
      publicKey: raw
        ? { format: "CRYPTO_KEY_FORMAT_RAW", keyData: Buffer.from(publicKey).toString("base64"), keySpec: "SIGNING_KEY_SPEC_EC_CURVE25519" }
        : {
            format: "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
            keyData: Buffer.from([...ED25519_SPKI_PREFIX, ...publicKey]).toString("base64"),
            keySpec: "SIGNING_KEY_SPEC_EC_CURVE25519"
          },
      localParticipantUid: LOCAL,
      localParticipantObservationOnly: observationOnly,
      otherConfirmingParticipantUids: others,
      observingParticipantUids: observers,
      confirmationThreshold: thresholdPick % (confirmers + 1)
    }
    return { input, secret }
  })

describe("external party properties", () => {
  it("any valid input yields hint::1220<64 hex>, a stable multiHash, and verifies once signed", () => {
    fc.assert(
      fc.property(validInput, ({ input, secret }) => {
        const first = Either.getOrThrow(generateExternalPartyTopology(input))
        const second = Either.getOrThrow(generateExternalPartyTopology(input))
        expect(first.partyId).toMatch(new RegExp(`^${input.partyHint}::1220[0-9a-f]{64}$`))
        expect(second.multiHash).toBe(first.multiHash)
        expect(second.topologyTransactions).toEqual(first.topologyTransactions)
        const party = Either.getOrThrow(
          verifyExternalPartyAllocation({
            onboardingTransactions: first.topologyTransactions.map((transaction) => ({ transaction })),
            multiHashSignatures: [
              {
                format: "SIGNATURE_FORMAT_CONCAT",
                signature: Buffer.from(ed25519.sign(fromBase64(first.multiHash), secret)).toString("base64"),
                signedBy: first.publicKeyFingerprint,
                signingAlgorithmSpec: "SIGNING_ALGORITHM_SPEC_ED25519"
              }
            ],
            localParticipantUid: LOCAL
          })
        )
        expect(party.partyId).toBe(first.partyId)
        expect(party.hosting.threshold).toBe(first.hosting.threshold)
        expect(party.transactions.map((t) => t.hash.hex)).toEqual(
          first.topologyTransactions.map((t) => topologyTransactionHash(fromBase64(t)).hex)
        )
      }),
      { numRuns: 60 }
    )
  })

  it("different keys give different parties for the same hint", () => {
    fc.assert(
      fc.property(hint, fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), (h, a, b) => {
        fc.pre(Buffer.compare(Buffer.from(a), Buffer.from(b)) !== 0)
        const party = (secret: Uint8Array) =>
          Either.getOrThrow(
            generateExternalPartyTopology({
              synchronizerId: SYNCHRONIZER,
              partyHint: h,
              publicKey: {
                format: "CRYPTO_KEY_FORMAT_RAW",
                keyData: Buffer.from(ed25519.getPublicKey(secret)).toString("base64"),
                keySpec: "SIGNING_KEY_SPEC_EC_CURVE25519"
              },
              localParticipantUid: LOCAL
            })
          ).partyId
        expect(party(a)).not.toBe(party(b))
      }),
      { numRuns: 30 }
    )
  })
})
