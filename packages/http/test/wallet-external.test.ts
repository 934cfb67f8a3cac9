/**
 * Issue 6's external-party flow over real HTTP, as an external wallet does it: an Ed25519 key pair
 * (node:crypto), topology generated through the wallet admin API, signed, submitted; the setup
 * proposal, its acceptance prepared, signed and submitted (the TransferPreapproval exists); coin
 * received through the preapproval; a transfer prepared, signed and submitted, seen in scan and in
 * the ledger stream with its external transaction hash. Bad signatures, other keys and changed
 * transactions are refused (4xx) and change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ExternalPartyWallet, TransferPreapproval } from "@sandnet/engine"
import { call } from "./support.ts"
import {
  expectError,
  newKeys,
  ok,
  onboard,
  seconds,
  startWalletNode,
  tapFor,
  tokenOf,
  wallet,
  type ExternalKeys,
  type WalletTestNode
} from "./wallet-support.ts"

let node: WalletTestNode
let alice: string
let bob: string
let aliceToken: string
let bobToken: string
let keys: ExternalKeys
let party: string

beforeAll(async () => {
  node = await startWalletNode()
  alice = await onboard(node, "alice")
  bob = await onboard(node, "bob")
  aliceToken = await tokenOf("alice")
  bobToken = await tokenOf("bob")
  await tapFor(node, aliceToken, "500")
  ok(await wallet(node, "POST", "/v0/wallet/transfer-preapproval", bobToken))
  keys = newKeys()
})
afterAll(() => node.close())

const admin = (method: "GET" | "POST", path: string, body?: unknown) => wallet(node, method, `/v0/admin/external-party${path}`, node.admin, body)
const scan = (path: string) => call(`${node.url}/api/scan${path}`)

interface Generated {
  readonly party_id: string
  readonly topology_txs: ReadonlyArray<{ readonly topology_tx: string; readonly hash: string }>
}

const signedTxs = (generated: Generated, signer: ExternalKeys) => generated.topology_txs.map((t) => ({ topology_tx: t.topology_tx, signed_hash: signer.sign(t.hash) }))

const balance = async (partyId: string) => ok<{ total_unlocked_coin: string }>(await admin("GET", `/balance?party_id=${encodeURIComponent(partyId)}`)).total_unlocked_coin

const submission = (prepared: { transaction: string; tx_hash: string }, signer: ExternalKeys = keys, overrides: Record<string, unknown> = {}) => ({
  submission: { party_id: party, transaction: prepared.transaction, signed_tx_hash: signer.sign(prepared.tx_hash), public_key: signer.publicHex, ...overrides }
})

/** Changes one value inside the prepared transaction (base64 of canonical JSON). */
const tamper = (transaction: string): string => Buffer.from(Buffer.from(transaction, "base64").toString("utf8").replace(/"ledgerTime":"2026/, '"ledgerTime":"2027'), "utf8").toString("base64")

describe("an external party onboards through the wallet admin API", () => {
  it("generate: the party id from the hint and the key's fingerprint, three transactions to sign; 400 for bad input", async () => {
    const generated = ok<Generated>(await admin("POST", "/topology/generate", { party_hint: "ext-wallet", public_key: keys.publicHex }))
    expect(generated).toEqual({
      party_id: expect.stringMatching(/^ext-wallet::1220[0-9a-f]{64}$/),
      topology_txs: [0, 1, 2].map(() => ({ topology_tx: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/), hash: expect.stringMatching(/^1220[0-9a-f]{64}$/) }))
    })
    // Deterministic: generating again gives the same transactions.
    expect(ok(await admin("POST", "/topology/generate", { party_hint: "ext-wallet", public_key: keys.publicHex }))).toEqual(generated)
    expect(expectError(await admin("POST", "/topology/generate", { party_hint: "ext-wallet", public_key: "zz" }), 400)).toContain("public_key")
    expect(expectError(await admin("POST", "/topology/generate", { party_hint: "ext-wallet", public_key: "00".repeat(31) }), 400)).toContain("public_key")
    expect(expectError(await admin("POST", "/topology/generate", { party_hint: "bad hint!", public_key: keys.publicHex }), 400)).toContain("party_hint")
    expectError(await admin("POST", "/topology/generate", { party_hint: "x" }), 400)
    expectError(await wallet(node, "POST", "/v0/admin/external-party/topology/generate", undefined, { party_hint: "x", public_key: keys.publicHex }), 401)
  })

  it("submit: a bad signature, another key or a changed transaction is 400 and hosts nothing; the signed transactions host the party (409 again)", async () => {
    const generated = ok<Generated>(await admin("POST", "/topology/generate", { party_hint: "ext-wallet", public_key: keys.publicHex }))
    const good = signedTxs(generated, keys)
    const stranger = newKeys()
    const badSignature = good.map((t, i) => (i === 1 ? { ...t, signed_hash: keys.sign("00".repeat(34)) } : t))
    expect(expectError(await admin("POST", "/topology/submit", { public_key: keys.publicHex, signed_topology_txs: badSignature }), 400)).toMatch(/signature/i)
    // Signed by another key (and naming it): the party's namespace is not that key's.
    expectError(await admin("POST", "/topology/submit", { public_key: stranger.publicHex, signed_topology_txs: signedTxs(generated, stranger) }), 400)
    // Another key's signatures under the party's key.
    expectError(await admin("POST", "/topology/submit", { public_key: keys.publicHex, signed_topology_txs: signedTxs(generated, stranger) }), 400)
    const changed = good.map((t, i) => (i === 0 ? { ...t, topology_tx: Buffer.from(Buffer.from(t.topology_tx, "base64").map((b, j) => (j === 20 ? b ^ 1 : b))).toString("base64") } : t))
    expectError(await admin("POST", "/topology/submit", { public_key: keys.publicHex, signed_topology_txs: changed }), 400)
    expect(expectError(await admin("POST", "/topology/submit", { public_key: keys.publicHex, signed_topology_txs: good.map((t) => ({ ...t, signed_hash: "xyz" })) }), 400)).toContain(
      "signed_hash"
    )
    // Nothing was hosted.
    expectError(await admin("GET", `/balance?party_id=${encodeURIComponent(generated.party_id)}`), 404)

    expect(ok(await admin("POST", "/topology/submit", { public_key: keys.publicHex, signed_topology_txs: good }))).toEqual({ party_id: generated.party_id })
    party = generated.party_id
    expectError(await admin("POST", "/topology/submit", { public_key: keys.publicHex, signed_topology_txs: good }), 409)
    const engine = await node.engine()
    expect(ok(await admin("GET", `/balance?party_id=${encodeURIComponent(party)}`))).toEqual({
      party_id: party,
      total_unlocked_coin: "0.0000000000",
      total_locked_coin: "0.0000000000",
      total_coin_holdings: "0.0000000000",
      accumulated_holding_fees_unlocked: "0.0000000000",
      accumulated_holding_fees_locked: "0.0000000000",
      accumulated_holding_fees_total: "0.0000000000",
      total_available_coin: "0.0000000000",
      computed_as_of_round: engine.wallets[0]!.node.currentRound(engine.clock.now)
    })
    // The ledger API lists it as an external party hosted here.
    const parties = await call(`${node.url}/v2/parties/${encodeURIComponent(party)}`, { token: node.admin })
    expect(parties.json).toMatchObject({ partyDetails: [{ party, isLocal: true }] })
  })
})

describe("the setup proposal: the party's TransferPreapproval", () => {
  it("create (404 for parties that are not external parties hosted here, 409 again), list, prepare-accept, submit-accept", async () => {
    expect(expectError(await admin("POST", "/setup-proposal", { user_party_id: alice }), 404)).toContain(alice)
    expectError(await admin("POST", "/setup-proposal", { user_party_id: "nobody::1220ab" }), 404)
    const proposal = ok<{ contract_id: string }>(await admin("POST", "/setup-proposal", { user_party_id: party }))
    expect(proposal).toEqual({ contract_id: expect.stringMatching(/^00/) })
    expect(expectError(await admin("POST", "/setup-proposal", { user_party_id: party }), 409)).toContain(proposal.contract_id)
    const listed = ok<{ contracts: Array<{ contract: { contract_id: string; template_id: string; payload: unknown }; domain_id: string }> }>(await admin("GET", "/setup-proposal"))
    const operator = (await node.engine()).network.validators[0]!.operator
    expect(listed.contracts).toEqual([
      {
        contract: expect.objectContaining({
          contract_id: proposal.contract_id,
          template_id: ExternalPartyWallet.ExternalPartySetupProposal.templateId,
          payload: expect.objectContaining({ validator: operator, user: party })
        }),
        domain_id: expect.any(String)
      }
    ])

    expect(expectError(await admin("POST", "/setup-proposal/prepare-accept", { contract_id: "00ab", user_party_id: party }), 400)).toMatch(/does not match/)
    expectError(await admin("POST", "/setup-proposal/prepare-accept", { contract_id: proposal.contract_id, user_party_id: alice }), 404)
    const prepared = ok<{ transaction: string; tx_hash: string; hashing_details?: string }>(
      await admin("POST", "/setup-proposal/prepare-accept", { contract_id: proposal.contract_id, user_party_id: party, verbose_hashing: true })
    )
    expect(prepared).toEqual({
      transaction: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
      tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      hashing_details: expect.stringContaining(prepared.tx_hash)
    })

    // Refused, and nothing happens: another key, a bad signature, a changed transaction.
    const stranger = newKeys()
    expect(expectError(await admin("POST", "/setup-proposal/submit-accept", submission(prepared, stranger)), 400)).toMatch(/not a signing key/)
    expect(expectError(await admin("POST", "/setup-proposal/submit-accept", submission(prepared, keys, { signed_tx_hash: keys.sign("00".repeat(32)) })), 400)).toMatch(/does not verify/)
    expectError(await admin("POST", "/setup-proposal/submit-accept", submission({ ...prepared, transaction: tamper(prepared.transaction) })), 400)
    expectError(await admin("POST", "/setup-proposal/submit-accept", submission(prepared, keys, { party_id: alice })), 404)
    expectError(await admin("POST", "/setup-proposal/submit-accept", { submission: { party_id: party } }), 400)
    expect((await scan(`/v0/transfer-preapprovals/by-party/${encodeURIComponent(party)}`)).status).toBe(404)

    const accepted = ok<{ transfer_preapproval_contract_id: string; update_id: string }>(await admin("POST", "/setup-proposal/submit-accept", submission(prepared)))
    expect(accepted).toEqual({ transfer_preapproval_contract_id: expect.stringMatching(/^00/), update_id: expect.stringMatching(/^1220/) })
    const preapproval = ok<{ transfer_preapproval: { contract: { contract_id: string; template_id: string; payload: unknown } } }>(
      await scan(`/v0/transfer-preapprovals/by-party/${encodeURIComponent(party)}`)
    )
    expect(preapproval.transfer_preapproval.contract).toMatchObject({
      contract_id: accepted.transfer_preapproval_contract_id,
      template_id: TransferPreapproval.templateId,
      payload: { receiver: party, provider: operator }
    })
    // The accepting transaction carries the signed hash.
    expect(ok<{ update: { external_transaction_hash?: string } }>(await scan(`/v0/events/${accepted.update_id}`)).update.external_transaction_hash).toBe(prepared.tx_hash)
    expect(ok(await admin("GET", "/setup-proposal"))).toEqual({ contracts: [] })
    // The same signed transaction again is a duplicate; a new proposal conflicts with the preapproval.
    expectError(await admin("POST", "/setup-proposal/submit-accept", submission(prepared)), 409)
    expect(expectError(await admin("POST", "/setup-proposal", { user_party_id: party }), 409)).toContain(accepted.transfer_preapproval_contract_id)
  })
})

describe("coin in and out of the external party", () => {
  it("receives through its preapproval, then sends: prepare-send, sign, submit-send; scan and the ledger stream show the external hash", async () => {
    ok(await wallet(node, "POST", "/v0/wallet/transfer-preapproval/send", aliceToken, { receiver_party_id: party, amount: "40", deduplication_id: "to-external" }))
    expect(await balance(party)).toBe("40.0000000000")

    const expiresAt = new Date(Number((await node.now()) / 1000) + 600_000).toISOString()
    const request = { sender_party_id: party, receiver_party_id: bob, amount: 15, expires_at: expiresAt, nonce: 0, description: "from outside" }
    expect(expectError(await admin("POST", "/transfer-preapproval/prepare-send", { ...request, receiver_party_id: alice }), 400)).toMatch(/TransferPreapproval/)
    expect(expectError(await admin("POST", "/transfer-preapproval/prepare-send", { ...request, amount: 1000 }), 400)).toMatch(/insufficient funds/)
    expect(expectError(await admin("POST", "/transfer-preapproval/prepare-send", { ...request, amount: "1.00000000001" }), 400)).toContain("amount")
    expect(expectError(await admin("POST", "/transfer-preapproval/prepare-send", { ...request, expires_at: "2020-01-01T00:00:00Z" }), 400)).toContain("expires_at")
    expectError(await admin("POST", "/transfer-preapproval/prepare-send", { ...request, sender_party_id: alice }), 404)
    const prepared = ok<{ transaction: string; tx_hash: string; transfer_command_contract_id_prefix: string }>(await admin("POST", "/transfer-preapproval/prepare-send", request))
    expect(prepared).toEqual({
      transaction: expect.any(String),
      tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      transfer_command_contract_id_prefix: expect.stringMatching(/^00/)
    })

    // A bad signature or another key: 400, and no coin moves.
    expectError(await admin("POST", "/transfer-preapproval/submit-send", submission(prepared, newKeys())), 400)
    expectError(await admin("POST", "/transfer-preapproval/submit-send", submission(prepared, keys, { signed_tx_hash: keys.sign(prepared.tx_hash.replace(/^../, "ff")) })), 400)
    expectError(await admin("POST", "/transfer-preapproval/submit-send", submission({ ...prepared, transaction: tamper(prepared.transaction) })), 400)
    // A send transaction is not an acceptance.
    expect(expectError(await admin("POST", "/setup-proposal/submit-accept", submission(prepared)), 400)).toMatch(/ExternalPartySetupProposal_Accept/)
    expect(await balance(party)).toBe("40.0000000000")

    const bobBefore = ((await wallet(node, "GET", "/v0/wallet/balance", bobToken)).json as { effective_unlocked_qty: string }).effective_unlocked_qty
    const sent = ok<{ update_id: string }>(await admin("POST", "/transfer-preapproval/submit-send", submission(prepared)))
    expect(sent).toEqual({ update_id: expect.stringMatching(/^1220[0-9a-f]{64}$/) })
    expect(await balance(party)).toBe("25.0000000000")
    const bobAfter = ((await wallet(node, "GET", "/v0/wallet/balance", bobToken)).json as { effective_unlocked_qty: string }).effective_unlocked_qty
    expect(Number(bobAfter) - Number(bobBefore)).toBeCloseTo(15, 10)
    // The receiver's coin is the one announced at preparation (it executed as prepared).
    const bobCoins = ok<{ coins: Array<{ contract: { contract: { contract_id: string } } }> }>(await wallet(node, "GET", "/v0/wallet/coins", bobToken))
    expect(bobCoins.coins.map((c) => c.contract.contract.contract_id)).toContain(prepared.transfer_command_contract_id_prefix)

    // Scan: S3 and S2 show the update with its external transaction hash.
    const event = ok<{ update: { update_id: string; external_transaction_hash: string } }>(await scan(`/v0/events/${sent.update_id}`))
    expect(event.update).toMatchObject({ update_id: sent.update_id, external_transaction_hash: prepared.tx_hash })
    expect(ok(await scan(`/v1/updates/${sent.update_id}`))).toMatchObject({ update_id: sent.update_id, external_transaction_hash: prepared.tx_hash })
    // The ledger stream (bob's view) shows the same update with the same hash (base64 there).
    const stream = await call(`${node.url}/v2/updates`, {
      token: bobToken,
      body: {
        beginExclusive: 0,
        updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [bob]: {} } }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" } }
      }
    })
    expect(stream.status).toBe(200)
    const transactions = (stream.json as Array<{ update: { Transaction?: { value: { updateId: string; externalTransactionHash: string | null } } } }>).flatMap((i) =>
      i.update.Transaction === undefined ? [] : [i.update.Transaction.value]
    )
    expect(transactions.find((t) => t.updateId === sent.update_id)?.externalTransactionHash).toBe(Buffer.from(prepared.tx_hash, "hex").toString("base64"))

    // Once only (the nonce deduplicates).
    expectError(await admin("POST", "/transfer-preapproval/submit-send", submission(prepared)), 409)
    expect(await balance(party)).toBe("25.0000000000")
  })

  it("a prepared transfer whose coin was spent since is stale (409); one past expires_at is refused (400)", async () => {
    const later = new Date(Number((await node.now()) / 1000) + 600_000).toISOString()
    const first = ok<{ transaction: string; tx_hash: string }>(
      await admin("POST", "/transfer-preapproval/prepare-send", { sender_party_id: party, receiver_party_id: bob, amount: "1", expires_at: later, nonce: 1 })
    )
    const second = ok<{ transaction: string; tx_hash: string }>(
      await admin("POST", "/transfer-preapproval/prepare-send", { sender_party_id: party, receiver_party_id: bob, amount: "2", expires_at: later, nonce: 2 })
    )
    // Both spend the party's only coin: the first submitted wins, the other no longer interprets as signed.
    ok(await admin("POST", "/transfer-preapproval/submit-send", submission(second)))
    expect(expectError(await admin("POST", "/transfer-preapproval/submit-send", submission(first)), 409)).toMatch(/STALE/)
    expect(await balance(party)).toBe("23.0000000000")

    const soon = new Date(Number((await node.now()) / 1000) + 5_000).toISOString()
    const expiring = ok<{ transaction: string; tx_hash: string }>(
      await admin("POST", "/transfer-preapproval/prepare-send", { sender_party_id: party, receiver_party_id: bob, amount: "1", expires_at: soon, nonce: 3 })
    )
    await node.advance(seconds(10))
    expect(expectError(await admin("POST", "/transfer-preapproval/submit-send", submission(expiring)), 400)).toMatch(/expired/)
    expect(await balance(party)).toBe("23.0000000000")
  })
})
