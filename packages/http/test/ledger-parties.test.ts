/**
 * Party management over real HTTP, and an external party as an external wallet onboards and uses
 * it: an Ed25519 key pair made with node:crypto, generate-topology, sign the multiHash, allocate,
 * then prepare / sign / execute transactions whose updates carry the external transaction hash.
 */
import { PreparedTransaction } from "@canton-network/core-ledger-proto"
import { CoinRules } from "@sandnet/engine"
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  actAs,
  allocateParty,
  devToken,
  engineFacts,
  exercise,
  get,
  post,
  startLedgerNode,
  userWith,
  type LedgerTestNode
} from "./ledger-support.ts"

type Json = Record<string, unknown>

let node: LedgerTestNode
let facts: Awaited<ReturnType<typeof engineFacts>>
let alice: string
let aliceToken: string

beforeAll(async () => {
  node = await startLedgerNode()
  facts = await engineFacts(node)
  alice = await allocateParty(node, "alice")
  aliceToken = await userWith(node, "alice", [actAs(alice)])
})
afterAll(() => node.close())

describe("parties", () => {
  it("participant-id is the participant's uid without member prefix", async () => {
    const answer = await get(node, "/v2/parties/participant-id", aliceToken)
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ participantId: facts.participantUid.replace(/^PAR::/, "") })
  })

  it("allocate: a hint, no hint, a taken hint, an invalid hint, a user that gets CanActAs", async () => {
    const namespace = facts.participantUid.split("::")[2]
    const dave = await post(node, "/v2/parties", node.admin, { partyIdHint: "dave" })
    expect(dave.status).toBe(200)
    expect(dave.json).toEqual({
      partyDetails: { party: `dave::${namespace}`, isLocal: true, localMetadata: { resourceVersion: "0", annotations: {} }, identityProviderId: "" }
    })
    const generated = await post(node, "/v2/parties", node.admin, {})
    expect((generated.json as { partyDetails: { party: string } }).partyDetails.party).toMatch(new RegExp(`^party-\\d+::${namespace}$`))
    const taken = await post(node, "/v2/parties", node.admin, { partyIdHint: "dave" })
    expect(taken.status).toBe(409)
    expect(taken.json).toMatchObject({ code: "PARTY_ALREADY_EXISTS", errorCategory: 10, resources: [["PARTY", `dave::${namespace}`]] })
    const invalid = await post(node, "/v2/parties", node.admin, { partyIdHint: "no spaces" })
    expect(invalid.status).toBe(400)
    expect(invalid.text).toBe(`Invalid value for: body (partyIdHint: "no spaces" is not a valid party hint (1 to 185 letters, digits, '_', '-', '.'))`)

    await userWith(node, "erin", [])
    const erin = await post(node, "/v2/parties", node.admin, { partyIdHint: "erin", userId: "erin" })
    expect(erin.status).toBe(200)
    const rights = await get(node, "/v2/users/erin/rights", node.admin)
    expect(rights.json).toEqual({ rights: [{ kind: { CanActAs: { value: { party: `erin::${namespace}` } } } }] })
    const noUser = await post(node, "/v2/parties", node.admin, { partyIdHint: "frank", userId: "no-such-user" })
    expect(noUser.status).toBe(404)
    expect(noUser.json).toMatchObject({ code: "USER_NOT_FOUND" })
    // nothing was allocated for the unknown user
    expect((await get(node, `/v2/parties/frank::${namespace}`, node.admin)).json).toEqual({ partyDetails: [] })
  })

  it("list (paged) and get: local and remote parties; admins only", async () => {
    const all = await get(node, "/v2/parties", node.admin)
    expect(all.status).toBe(200)
    const details = (all.json as { partyDetails: Array<{ party: string; isLocal: boolean }>; nextPageToken: string }).partyDetails
    expect(details.map((d) => d.party)).toEqual([...details.map((d) => d.party)].sort())
    expect(details).toContainEqual(expect.objectContaining({ party: alice, isLocal: true }))
    expect(details).toContainEqual(expect.objectContaining({ party: facts.dso, isLocal: false }))
    const first = await get(node, "/v2/parties?pageSize=2", node.admin)
    const page1 = first.json as { partyDetails: Array<{ party: string }>; nextPageToken: string }
    expect(page1.partyDetails.map((d) => d.party)).toEqual(details.slice(0, 2).map((d) => d.party))
    expect(page1.nextPageToken).toBe(details[1]!.party)
    const second = await get(node, `/v2/parties?pageSize=2&pageToken=${encodeURIComponent(page1.nextPageToken)}`, node.admin)
    expect((second.json as { partyDetails: Array<{ party: string }> }).partyDetails.map((d) => d.party)).toEqual(details.slice(2, 4).map((d) => d.party))

    const some = await get(node, `/v2/parties/${encodeURIComponent(alice)}?parties=${encodeURIComponent(facts.dso)}&parties=unknown::1220${"0".repeat(64)}`, node.admin)
    expect((some.json as { partyDetails: Array<{ party: string }> }).partyDetails.map((d) => d.party)).toEqual([alice, facts.dso].sort())
    expect((await get(node, "/v2/parties", aliceToken)).status).toBe(403)
    expect((await post(node, "/v2/parties", aliceToken, { partyIdHint: "mallory" })).status).toBe(403)
    expect((await post(node, "/v2/parties", undefined, { partyIdHint: "mallory" })).status).toBe(401)
  })
})

// ---------------------------------------------------------------------------------------------
// External parties
// ---------------------------------------------------------------------------------------------

interface Wallet {
  readonly privateKey: KeyObject
  readonly publicKey: { format: string; keyData: string; keySpec: string }
}

const newWallet = (): Wallet => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519")
  const spki = publicKey.export({ type: "spki", format: "der" })
  return {
    privateKey,
    publicKey: {
      format: "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
      keyData: Buffer.from(spki).toString("base64"),
      keySpec: "SIGNING_KEY_SPEC_EC_CURVE25519"
    }
  }
}

const signBase64 = (wallet: Wallet, base64: string, signedBy: string) => ({
  format: "SIGNATURE_FORMAT_CONCAT",
  signature: sign(null, Buffer.from(base64, "base64"), wallet.privateKey).toString("base64"),
  signedBy,
  signingAlgorithmSpec: "SIGNING_ALGORITHM_SPEC_ED25519"
})

interface Topology {
  partyId: string
  publicKeyFingerprint: string
  topologyTransactions: Array<string>
  multiHash: string
}

const generate = async (wallet: Wallet, partyHint: string): Promise<Topology> => {
  const answer = await post(node, "/v2/parties/external/generate-topology", aliceToken, {
    synchronizer: facts.synchronizerId,
    partyHint,
    publicKey: wallet.publicKey
  })
  expect(answer.status, answer.text).toBe(200)
  return answer.json as Topology
}

const allocate = (topology: Topology, signatures: ReadonlyArray<unknown>, transactions = topology.topologyTransactions, extra: Json = {}) =>
  post(node, "/v2/parties/external/allocate", node.admin, {
    synchronizer: facts.synchronizerId,
    onboardingTransactions: transactions.map((transaction) => ({ transaction })),
    multiHashSignatures: signatures,
    ...extra
  })

const isAllocated = async (party: string) =>
  ((await get(node, `/v2/parties/${encodeURIComponent(party)}`, node.admin)).json as { partyDetails: Array<unknown> }).partyDetails.length > 0

describe("external parties", () => {
  it("generate-topology: the party id is the hint and the key's fingerprint; invalid inputs name the field", async () => {
    const wallet = newWallet()
    const topology = await generate(wallet, "grace")
    expect(topology.partyId).toBe(`grace::${topology.publicKeyFingerprint}`)
    expect(topology.publicKeyFingerprint).toMatch(/^1220[0-9a-f]{64}$/)
    expect(topology.topologyTransactions).toHaveLength(3)
    expect(Buffer.from(topology.multiHash, "base64")).toHaveLength(34)

    const badKey = await post(node, "/v2/parties/external/generate-topology", aliceToken, {
      synchronizer: facts.synchronizerId,
      partyHint: "grace",
      publicKey: { ...wallet.publicKey, keySpec: "SIGNING_KEY_SPEC_EC_P256" }
    })
    expect(badKey.status).toBe(400)
    expect(badKey.text).toMatch(/^Invalid value for: body \(publicKey\.keySpec: /)
    const badHint = await post(node, "/v2/parties/external/generate-topology", aliceToken, { synchronizer: facts.synchronizerId, partyHint: "", publicKey: wallet.publicKey })
    expect(badHint.text).toBe("Invalid value for: body (partyHint: Party hint is empty)")
    const unknownSynchronizer = await post(node, "/v2/parties/external/generate-topology", aliceToken, {
      synchronizer: `other::1220${"a".repeat(64)}`,
      partyHint: "grace",
      publicKey: wallet.publicKey
    })
    expect(unknownSynchronizer.status).toBe(400)
    expect(unknownSynchronizer.json).toMatchObject({ code: "INVALID_ARGUMENT", cause: expect.stringContaining("is not connected to this participant") })
  })

  it("allocate refuses a bad signature, a wrong key and a tampered transaction, and allocates nothing", async () => {
    const wallet = newWallet()
    const topology = await generate(wallet, "heidi")
    const good = signBase64(wallet, topology.multiHash, topology.publicKeyFingerprint)

    const badSignature = await allocate(topology, [{ ...good, signature: Buffer.alloc(64, 7).toString("base64") }])
    expect(badSignature.status).toBe(400)
    expect(badSignature.json).toMatchObject({ code: "TOPOLOGY_INVALID_TX_SIGNATURE", errorCategory: 5, context: { field: "multiHashSignatures[0].signature" } })

    const other = newWallet()
    const otherTopology = await generate(other, "heidi")
    const wrongKey = await allocate(topology, [signBase64(other, topology.multiHash, otherTopology.publicKeyFingerprint)])
    expect(wrongKey.status).toBe(400)
    expect(wrongKey.json).toMatchObject({ code: "TOPOLOGY_INVALID_TX_SIGNATURE", context: { field: "multiHashSignatures[0].signedBy" } })

    const tampered = [...topology.topologyTransactions]
    const bytes = Buffer.from(tampered[2]!, "base64")
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x01
    tampered[2] = bytes.toString("base64")
    const changed = await allocate(topology, [good], tampered)
    expect(changed.status).toBe(400)

    const unsigned = await allocate(topology, [])
    expect(unsigned.status).toBe(400)
    expect(unsigned.json).toMatchObject({ code: "TOPOLOGY_UNAUTHORIZED_TRANSACTION" })

    const garbage = await allocate(topology, [good], ["not base64!"])
    expect(garbage.status).toBe(400)
    expect(garbage.text).toMatch(/^Invalid value for: body \(onboardingTransactions\[0\]\.transaction: /)

    expect(await isAllocated(topology.partyId)).toBe(false)
    expect((await post(node, "/v2/parties/external/allocate", aliceToken, { synchronizer: facts.synchronizerId, onboardingTransactions: [] })).status).toBe(403)
  })

  it("onboard, then tap and transfer coin with prepare / sign / execute; the updates carry the external transaction hash", async () => {
    const wallet = newWallet()
    const topology = await generate(wallet, "ivan")
    await userWith(node, "ivan-wallet", [])
    const allocated = await allocate(topology, [signBase64(wallet, topology.multiHash, topology.publicKeyFingerprint)], undefined, { userId: "ivan-wallet" })
    expect(allocated.status, allocated.text).toBe(200)
    const ivan = topology.partyId
    expect(allocated.json).toEqual({ partyId: ivan })
    expect(await isAllocated(ivan)).toBe(true)
    const again = await allocate(topology, [signBase64(wallet, topology.multiHash, topology.publicKeyFingerprint)])
    expect(again.status).toBe(409)
    const token = await devToken("ivan-wallet")

    const prepareAndExecute = async (commandId: string, commands: ReadonlyArray<unknown>, signer = wallet) => {
      const prepared = await post(node, "/v2/interactive-submission/prepare", token, {
        commandId,
        commands,
        actAs: [ivan],
        disclosedContracts: facts.disclosed,
        verboseHashing: true
      })
      expect(prepared.status, prepared.text).toBe(200)
      const { preparedTransaction, preparedTransactionHash, hashingSchemeVersion, hashingDetails } = prepared.json as Record<string, string>
      expect(hashingSchemeVersion).toBe("HASHING_SCHEME_VERSION_V2")
      expect(hashingDetails).toContain("HASHING_SCHEME_VERSION_V2")
      expect(Buffer.from(preparedTransactionHash!, "base64")).toHaveLength(32)
      const executed = await post(node, "/v2/interactive-submission/executeAndWaitForTransaction", token, {
        preparedTransaction,
        partySignatures: { signatures: [{ party: ivan, signatures: [signBase64(signer, preparedTransactionHash!, topology.publicKeyFingerprint)] }] },
        submissionId: `${commandId}-submission`,
        hashingSchemeVersion: "HASHING_SCHEME_VERSION_V2",
        transactionFormat: { eventFormat: { filtersByParty: { [ivan]: {} } }, transactionShape: "TRANSACTION_SHAPE_LEDGER_EFFECTS" }
      })
      return { preparedTransaction: preparedTransaction!, hash: preparedTransactionHash!, executed }
    }

    const tap = await prepareAndExecute("ivan-tap", [
      exercise(facts.coinRules.created.contractId, "CoinRules_DevNet_Tap", { receiver: ivan, amount: "50.0", openRound: facts.openRound.created.contractId }, CoinRules.nameReference)
    ])
    expect(tap.executed.status, tap.executed.text).toBe(200)
    const tapTx = (tap.executed.json as { transaction: { externalTransactionHash: string; commandId: string; events: Array<Record<string, Json>> } }).transaction
    expect(tapTx.externalTransactionHash).toBe(tap.hash)
    expect(tapTx.commandId).toBe("ivan-tap")
    const coin = tapTx.events.map((e) => e["CreatedEvent"]).find((e) => e !== undefined && String(e["templateId"]).endsWith(":Coin"))!
    expect(coin["createArgument"]).toMatchObject({ owner: ivan })

    const transfer = await prepareAndExecute("ivan-transfer", [
      exercise(
        facts.coinRules.created.contractId,
        "CoinRules_Transfer",
        {
          transfer: {
            sender: ivan,
            provider: ivan,
            inputs: [{ tag: "InputCoin", value: coin["contractId"] }],
            outputs: [{ receiver: ivan, receiverFeeRatio: "0.0", amount: "10.0" }],
            beneficiaries: null
          },
          context: { openMiningRound: facts.openRound.created.contractId, featuredAppRight: null },
          expectedDso: facts.dso
        },
        CoinRules.nameReference
      )
    ])
    expect(transfer.executed.status, transfer.executed.text).toBe(200)
    const transferTx = (transfer.executed.json as { transaction: { updateId: string; externalTransactionHash: string; events: Array<Record<string, Json>> } }).transaction
    expect(transferTx.externalTransactionHash).toBe(transfer.hash)
    expect(transferTx.events.map((e) => Object.keys(e)[0])).toContain("ExercisedEvent")

    // the same hash on the update stream
    const byId = await post(node, "/v2/updates/update-by-id", token, {
      updateId: transferTx.updateId,
      updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [ivan]: {} } }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" } }
    })
    expect((byId.json as { update: { Transaction: { value: { externalTransactionHash: string } } } }).update.Transaction.value.externalTransactionHash).toBe(transfer.hash)

    // a signature by another key, a changed prepared transaction, a local party: refused
    const stranger = newWallet()
    const forged = await prepareAndExecute("ivan-forged", [createCoinlessOffer(ivan)], stranger)
    expect(forged.executed.status).toBe(400)
    expect(forged.executed.json).toMatchObject({ code: "INVALID_ARGUMENT", cause: expect.stringContaining("not authorized"), context: { field: "partySignatures" } })

    const prepared = await post(node, "/v2/interactive-submission/prepare", token, { commandId: "ivan-changed", commands: [createCoinlessOffer(ivan)], actAs: [ivan] })
    const { preparedTransaction, preparedTransactionHash } = prepared.json as Record<string, string>
    const message = PreparedTransaction.fromBinary(Buffer.from(preparedTransaction!, "base64"))
    message.metadata!.submitterInfo!.commandId = "ivan-changes"
    const changed = Buffer.from(PreparedTransaction.toBinary(message)).toString("base64")
    const tampered = await post(node, "/v2/interactive-submission/executeAndWait", token, {
      preparedTransaction: changed,
      partySignatures: { signatures: [{ party: ivan, signatures: [signBase64(wallet, preparedTransactionHash!, topology.publicKeyFingerprint)] }] },
      submissionId: "s",
      hashingSchemeVersion: "HASHING_SCHEME_VERSION_V2"
    })
    expect(tampered.status).toBe(400)
    expect(tampered.json).toMatchObject({ code: "INVALID_ARGUMENT", cause: expect.stringContaining("not authorized") })

    const local = await post(node, "/v2/interactive-submission/prepare", aliceToken, { commandId: "alice-prep", commands: [createCoinlessOffer(alice)], actAs: [alice] })
    expect(local.status).toBe(200)
    const localExecute = await post(node, "/v2/interactive-submission/execute", aliceToken, {
      preparedTransaction: (local.json as Record<string, string>)["preparedTransaction"],
      partySignatures: { signatures: [] },
      submissionId: "s",
      hashingSchemeVersion: "HASHING_SCHEME_VERSION_V2"
    })
    expect(localExecute.status).toBe(400)
    expect(localExecute.text).toContain(`preparedTransaction.metadata.submitterInfo.actAs: party ${alice} is not an external party of this node`)

    const notPrepared = await post(node, "/v2/interactive-submission/execute", token, {
      preparedTransaction: "bm90IHByZXBhcmVk",
      partySignatures: { signatures: [] },
      submissionId: "s",
      hashingSchemeVersion: "HASHING_SCHEME_VERSION_V2"
    })
    expect(notPrepared.status).toBe(400)
    expect(notPrepared.text).toMatch(/preparedTransaction: (is not a PreparedTransaction \(protobuf\)|cannot be hashed)/)
    const otherUser = await post(node, "/v2/interactive-submission/prepare", aliceToken, { commandId: "x", commands: [createCoinlessOffer(ivan)], actAs: [ivan] })
    expect(otherUser.status).toBe(403)
  })
})

/** A transfer offer from `sender` (no coin needed). */
const createCoinlessOffer = (sender: string) => ({
  CreateCommand: {
    templateId: "#splice-wallet:Splice.Wallet.TransferOffer:TransferOffer",
    createArguments: {
      sender,
      receiver: alice,
      dso: facts.dso,
      amount: { amount: "1.0", unit: "CoinUnit" },
      description: "external",
      expiresAt: "2027-01-01T00:00:00Z",
      trackingId: `t-${sender.slice(0, 4)}`
    }
  }
})
