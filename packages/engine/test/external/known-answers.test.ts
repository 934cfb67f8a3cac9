/**
 * Known answers that pin the byte layouts documented in docs/external-parties.md, for the public
 * key of RFC 8032 test vector 1. A change here changes every Sandnet party id and signature.
 */
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { fingerprintOfEd25519, generateExternalPartyTopology, preparedTransactionHash } from "../../src/external/index.ts"
import { FIXED } from "./prepared-fixture.ts"

const RFC8032_KEY = Buffer.from("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "hex")
const FINGERPRINT = "1220035a791d845bbb8195615e7eccd7a57c2ec4075c2e88695f194bab4e0194a889"

describe("known answers", () => {
  it("fingerprint = 1220 || sha256(int32be(12) || raw key)", () => {
    expect(fingerprintOfEd25519(RFC8032_KEY)).toBe(FINGERPRINT)
  })

  it("onboarding transactions, their hashes and the multiHash", () => {
    const topology = Either.getOrThrow(
      generateExternalPartyTopology({
        synchronizerId: `global::1220${"a".repeat(64)}`,
        partyHint: "alice",
        publicKey: { format: "CRYPTO_KEY_FORMAT_RAW", keyData: RFC8032_KEY.toString("base64"), keySpec: "SIGNING_KEY_SPEC_EC_CURVE25519" },
        localParticipantUid: `participant1::1220${"b".repeat(64)}`
      })
    )
    expect(topology.partyId).toBe(`alice::${FINGERPRINT}`)
    const spki = "302a300506032b6570032100d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    const key = `10041a2c${spki}2a03010405` + "3001"
    const party = Buffer.from(`alice::${FINGERPRINT}`).toString("hex")
    expect(topology.transactions.map((t) => [t.mapping, Buffer.from(t.serialized).toString("hex"), t.hash.hex])).toEqual([
      [
        "NamespaceDelegation",
        `0a8b01080110011a84010a81010a44${Buffer.from(FINGERPRINT).toString("hex")}1237${key}2200101e`,
        "12202e79e4910fdc24b1cf289ed7c3ec1fca1ccb233eaec499f4b368a86581430fc5"
      ],
      [
        "PartyToKeyMapping",
        `0a9301080110011a8c01820188010a4b${party}18012237${key}101e`,
        "12208e5e3f2924b50e0d4467f05f0df1410ccaee7cc713a5b9970457344e7b8ca5c5"
      ],
      [
        "PartyToParticipant",
        `0ab101080110011aaa014aa7010a4b${party}10011a560a52${Buffer.from(`participant1::1220${"b".repeat(64)}`).toString("hex")}1002101e`,
        "1220081f16a348f7a4298f52eecf92b055d20b4542b2ae893b95984462b7e6c5fb60"
      ]
    ])
    expect(Buffer.from(topology.multiHash, "base64").toString("hex")).toBe(
      "1220a19d4aa3676f8075e881e444e3773f3c52d965103fd0e8739de896ecf7a94a29"
    )
  })

  it("prepared transaction hash (scheme V2) of a message with every node and value kind, as the Wallet SDK computes it", () => {
    // The expected value is core-tx-visualizer's hashPreparedTransaction of the same message.
    expect(Either.getOrThrow(preparedTransactionHash(FIXED)).hex).toBe("bc6bd671f734aea8da3f7e83ddd6f63174be74e5b57bd6746c664e9ad3b04fed")
  })
})
