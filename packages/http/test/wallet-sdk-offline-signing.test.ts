/**
 * Offline signing with the official Wallet SDK (@canton-network/wallet-sdk 1.4), unchanged, against
 * a plain node: the SDK makes the key pair, onboards the external party (generate-topology, sign
 * the multiHash, allocate), prepares transactions, decodes them with Canton's bindings, recomputes
 * their hash with its own V2 implementation, signs it with its signing library and executes; the
 * tap and the transfer commit and the balances change.
 */
import { createKeyPair, signTransactionHash } from "@canton-network/core-signing-lib"
import { hashPreparedTransaction } from "@canton-network/core-tx-visualizer"
import { CustomLogAdapter, LedgerProvider, SDK } from "@canton-network/wallet-sdk"
import { AcceptedTransferOffer, CoinRules } from "@sandnet/engine"
import { shortSdkPauses } from "./localnet-sdk-support.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  actAs,
  allocateParty,
  createOffer,
  devToken,
  engineFacts,
  exercise,
  get,
  post,
  readAsAnyParty,
  startLedgerNode,
  type LedgerTestNode
} from "./ledger-support.ts"

let node: LedgerTestNode
let facts: Awaited<ReturnType<typeof engineFacts>>
let alice: string
let reader: string
let aliceToken: string

const ACCEPTED_TRANSFER_OFFER = AcceptedTransferOffer.nameReference
const quiet = new CustomLogAdapter(() => undefined)

/** The SDK connected as a user, with its own LedgerProvider and a static dev token. */
const connect = async (userId: string) => {
  const token = await devToken(userId)
  const ledgerProvider = new LedgerProvider({
    baseUrl: node.url,
    accessTokenProvider: { getAccessToken: async () => token, getAuthContext: async () => ({ userId, accessToken: token }) }
  })
  return SDK.create({ ledgerProvider, logAdapter: quiet })
}

/** The active contracts `party` sees whose template id ends with `suffix`. */
const contractsOf = async (party: string, suffix: string) => {
  const end = (await get(node, "/v2/state/ledger-end", reader)).json as { offset: number }
  const acs = await post(node, "/v2/state/active-contracts", reader, { activeAtOffset: end.offset, eventFormat: { filtersByParty: { [party]: {} }, verbose: false } })
  expect(acs.status, acs.text).toBe(200)
  return (acs.json as Array<{ contractEntry: { JsActiveContract?: { createdEvent: { contractId: string; templateId: string; createArgument: Record<string, unknown> } } } }>)
    .map((e) => e.contractEntry.JsActiveContract?.createdEvent)
    .filter((e) => e !== undefined && e.templateId.endsWith(suffix))
    .map((e) => e!)
}

/** The total of the Coin contracts `party` owns, from the ledger's active contracts. */
const coinTotal = async (party: string): Promise<number> => {
  return (await contractsOf(party, ":Splice.Coin:Coin"))
    .filter((e) => e.createArgument["owner"] === party)
    .reduce((sum, e) => sum + Number((e.createArgument["amount"] as { initialAmount: string }).initialAmount), 0)
}

beforeAll(async () => {
  shortSdkPauses()
  node = await startLedgerNode()
  facts = await engineFacts(node)
  alice = await allocateParty(node, "alice")
  await post(node, "/v2/users", node.admin, { user: { id: "reader" }, rights: [readAsAnyParty, actAs(alice)] })
  reader = await devToken("reader")
  aliceToken = reader
})
afterAll(() => node.close())

describe("offline signing with the Wallet SDK", () => {
  it("an external party made with the SDK's keys taps and transfers: prepare, SDK decode and hash check, SDK signature, execute", async () => {
    const sdk = await connect("participant_admin")
    const keys = createKeyPair()
    const party = await sdk.party.external.create(keys.publicKey, { partyHint: "sdk-ivan" }).sign(keys.privateKey).execute()
    expect(party.partyId).toBe(`sdk-ivan::${await sdk.keys.fingerprint(keys.publicKey)}`)
    // The SDK's own combined hash of the topology transactions is the node's multiHash.
    expect(await sdk.utils.hash.topologyTransaction(party.topologyTransactions)).toBe(party.multiHash)
    const ivan = party.partyId

    /** prepare -> the SDK decodes and re-hashes -> the SDK signs -> executeAndWait. */
    const offline = async (commands: ReadonlyArray<unknown>) => {
      const prepared = sdk.ledger.prepare({ partyId: ivan, commands: commands as never, disclosedContracts: facts.disclosed as never })
      const { response } = await prepared.toJSON()
      // No null placeholders: optional fields the node does not set are absent, as upstream.
      expect(Object.keys(response).sort()).toEqual(["hashingSchemeVersion", "preparedTransaction", "preparedTransactionHash"])
      const decoded = await prepared.decode()
      expect(decoded.metadata?.submitterInfo?.actAs).toEqual([ivan])
      expect((await sdk.utils.hash.preparedTransaction(response.preparedTransaction!)).toBase64()).toBe(response.preparedTransactionHash)
      expect(await hashPreparedTransaction(decoded, "base64")).toBe(response.preparedTransactionHash)
      // Offline: the signature is made apart from the SDK's ledger session, then handed back.
      const signature = signTransactionHash(response.preparedTransactionHash!, keys.privateKey)
      return sdk.ledger.execute(sdk.ledger.fromSignature(response, signature), { partyId: ivan })
    }

    const tapped = await offline([
      exercise(facts.coinRules.created.contractId, "CoinRules_DevNet_Tap", { receiver: ivan, amount: "50.0", openRound: facts.openRound.created.contractId }, CoinRules.nameReference)
    ])
    expect(tapped).toMatchObject({ updateId: expect.stringMatching(/^1220[0-9a-f]{64}$/) })
    expect(await coinTotal(ivan)).toBe(50)

    // A two-step transfer to alice: the external party offers (signed offline), alice accepts,
    // the external party completes it with its coin (signed offline).
    const aliceBefore = await coinTotal(alice)
    await offline([createOffer(ivan, alice, facts.dso, "sdk-transfer")])
    const offer = (await contractsOf(ivan, ":Splice.Wallet.TransferOffer:TransferOffer"))[0]!
    const accepted = await post(node, "/v2/commands/submit-and-wait", aliceToken, {
      commands: [exercise(offer.contractId, "TransferOffer_Accept", {})],
      commandId: "alice-accepts",
      actAs: [alice]
    })
    expect(accepted.status, accepted.text).toBe(200)
    const acceptedOffer = (await contractsOf(ivan, ":Splice.Wallet.TransferOffer:AcceptedTransferOffer"))[0]!
    const coin = (await contractsOf(ivan, ":Splice.Coin:Coin"))[0]!
    await offline([
      exercise(
        acceptedOffer.contractId,
        "AcceptedTransferOffer_Complete",
        {
          inputs: [{ tag: "InputCoin", value: coin.contractId }],
          transferContext: { coinRules: facts.coinRules.created.contractId, context: { openMiningRound: facts.openRound.created.contractId, featuredAppRight: null } },
          walletProvider: ivan
        },
        ACCEPTED_TRANSFER_OFFER
      )
    ])
    expect(await coinTotal(alice)).toBe(aliceBefore + 10)
    // The sender paid the 10 plus the network's fees out of its 50.
    const ivanAfter = await coinTotal(ivan)
    expect(ivanAfter).toBeLessThanOrEqual(40)
    expect(ivanAfter).toBeGreaterThan(30)
    expect(await contractsOf(ivan, ":Splice.Wallet.TransferOffer:AcceptedTransferOffer")).toEqual([])
  })

  it("a signature by another key is refused and nothing commits", async () => {
    const sdk = await connect("participant_admin")
    const keys = createKeyPair()
    const party = await sdk.party.external.create(keys.publicKey, { partyHint: "sdk-judy" }).sign(keys.privateKey).execute()
    const prepared = sdk.ledger.prepare({
      partyId: party.partyId,
      commands: [
        exercise(facts.coinRules.created.contractId, "CoinRules_DevNet_Tap", { receiver: party.partyId, amount: "5.0", openRound: facts.openRound.created.contractId }, CoinRules.nameReference)
      ] as never,
      disclosedContracts: facts.disclosed as never
    })
    const { response } = await prepared.toJSON()
    const forged = signTransactionHash(response.preparedTransactionHash!, createKeyPair().privateKey)
    const refused = await sdk.ledger.execute(sdk.ledger.fromSignature(response, forged), { partyId: party.partyId }).then(
      () => "executed",
      (error: unknown) => JSON.stringify(error)
    )
    expect(refused).toContain("INVALID_ARGUMENT")
    expect(refused).toContain("not authorized")
    expect(await coinTotal(party.partyId)).toBe(0)
  })
})
