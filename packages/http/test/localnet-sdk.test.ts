/**
 * The official Wallet SDK (@canton-network/wallet-sdk 1.4.0) against a node in LocalNet's layout,
 * configured as its documented examples configure LocalNet (docs/wallet-integration-guide/examples:
 * the self-signed `unsafe` token of `ledger-api-user` with LocalNet's audience and an empty scope,
 * the registry through the validator's scan proxy) with only the ports shifted.
 */
import { SDK, signTransactionHash, type TokenProviderConfig } from "@canton-network/wallet-sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureGlobalWebSocket, quietLogs, sdkConfig, shortFeaturedAppLookups, shortSdkPauses } from "./localnet-sdk-support.ts"
import { localNetToken, requestWithHost, startLocalNet, type LocalNetNode } from "./localnet-support.ts"
import { startWalletNode, type WalletTestNode } from "./wallet-support.ts"

describe("the Wallet SDK against --localnet", () => {
  let node: LocalNetNode
  beforeAll(async () => {
    ensureGlobalWebSocket()
    shortSdkPauses()
    node = await startLocalNet(1)
  })
  afterAll(() => node.close())

  /** A party's exercised events, read over the ledger API as Canton renders them (ledger effects). */
  const exercisedEventsOf = async (party: string) => {
    const token = await localNetToken()
    const filter = { filtersByParty: { [party]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] } } }
    const reply = await requestWithHost(node.ports.appUserLedger, "localhost", "/v2/updates", {
      token,
      body: { beginExclusive: 0, verbose: false, updateFormat: { includeTransactions: { eventFormat: filter, transactionShape: "TRANSACTION_SHAPE_LEDGER_EFFECTS" } } }
    })
    expect(reply.status).toBe(200)
    type Exercised = { readonly choice: string; readonly templateId: string; readonly interfaceId?: string | null }
    const updates = reply.json as ReadonlyArray<{ update: { Transaction?: { value: { events: ReadonlyArray<{ ExercisedEvent?: Exercised }> } } } }>
    return updates.flatMap((u) => (u.update.Transaction?.value.events ?? []).flatMap((e) => (e.ExercisedEvent === undefined ? [] : [e.ExercisedEvent])))
  }

  const connect = async () => {
    const config = sdkConfig(node)
    return shortFeaturedAppLookups(
      await SDK.create({ auth: config.auth, ledgerClientUrl: config.ledgerClientUrl, token: config.token, amulet: config.amulet, logAdapter: config.logAdapter })
    )
  }

  it("01: connects and lists the parties of the app user's participant", async () => {
    const sdk = await connect()
    const parties = await sdk.party.list()
    expect(parties).toContain(node.operator)
    expect(await sdk.ledger.ledgerEnd()).toBeGreaterThan(0)
  })

  it("01: submits Canton's built-in Ping for an internal party", async () => {
    const sdk = await connect()
    const party = await sdk.party.internal.allocate({ partyHint: "pinger" })
    const templateId = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
    await sdk.ledger.internal.submit({
      commands: [{ CreateCommand: { templateId, createArguments: { id: "ping-1", initiator: party, responder: party } } }],
      actAs: [party]
    })
    const pings = await sdk.ledger.acs.read({ parties: [party], templateIds: [templateId], filterByParty: true })
    expect(pings.map((p) => p.createArgument)).toEqual([{ id: "ping-1", initiator: party, responder: party }])
  })

  it("01-init: external parties (signed online and offline), Ping online and offline signed, tap and the Amulet holding", async () => {
    const sdk = await connect()
    const senderKeys = sdk.keys.generate()
    const sender = await sdk.party.external.create(senderKeys.publicKey, { partyHint: "v1-01-alice" }).sign(senderKeys.privateKey).execute()
    expect(sender.publicKeyFingerprint).toBe(await sdk.keys.fingerprint(senderKeys.publicKey))
    const receiverKeys = sdk.keys.generate()
    const receiverCreation = sdk.party.external.create(receiverKeys.publicKey, { partyHint: "v1-01-bob" })
    const unsignedReceiver = await receiverCreation.topology()
    const receiver = await receiverCreation.execute(signTransactionHash(unsignedReceiver.multiHash, receiverKeys.privateKey))
    expect(await sdk.party.list()).toEqual(expect.arrayContaining([sender.partyId, receiver.partyId]))

    const templateId = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
    const ping = (id: string) => [{ CreateCommand: { templateId, createArguments: { id, initiator: sender.partyId, responder: sender.partyId } } }]
    await sdk.ledger.prepare({ partyId: sender.partyId, commands: ping("online"), disclosedContracts: [] }).sign(senderKeys.privateKey).execute({ partyId: sender.partyId })
    const { response } = await sdk.ledger.prepare({ partyId: sender.partyId, commands: ping("offline"), disclosedContracts: [] }).toJSON()
    const signed = sdk.ledger.fromSignature(response, signTransactionHash(response.preparedTransactionHash, senderKeys.privateKey))
    await sdk.ledger.execute(signed, { partyId: sender.partyId })
    const pings = await sdk.ledger.acs.read({ parties: [sender.partyId], templateIds: [templateId], filterByParty: true })
    expect(pings.map((p) => (p.createArgument as { id: string }).id).sort()).toEqual(["offline", "online"])

    const [tap, tapDisclosed] = await sdk.amulet.tap(sender.partyId, "10000")
    await sdk.ledger.prepare({ partyId: sender.partyId, commands: tap, disclosedContracts: tapDisclosed }).sign(senderKeys.privateKey).execute({ partyId: sender.partyId })
    const utxos = await sdk.token.utxos.list({ partyId: sender.partyId })
    expect(utxos.filter((u) => u.interfaceViewValue.amount === "10000.0000000000" && u.interfaceViewValue.instrumentId.id === "Amulet").length).toBe(1)
  })

  it("02 (set-up, internal party): allocates an internal party and taps Amulet for it", async () => {
    const sdk = await connect()
    const alice = await sdk.party.internal.allocate({ partyHint: "alice" })
    await sdk.amulet.tapInternal("10000", { partyId: alice })
    const utxos = await sdk.token.utxos.list({ partyId: alice })
    const amulets = utxos.filter((u) => u.interfaceViewValue.amount === "10000.0000000000" && u.interfaceViewValue.instrumentId.id === "Amulet")
    expect(amulets.length).toBe(1)
  })

  it("03 (featured app right): grants the validator a featured app right and finds it through the scan proxy", async () => {
    const sdk = await connect()
    expect(await sdk.amulet.featuredApp.rights({ partyId: node.operator, maxRetries: 1, delayMs: 10 })).toBeUndefined()
    const right = await sdk.amulet.featuredApp.grant({ maxRetries: 20, delayMs: 100 })
    expect(right?.template_id).toMatch(/:Splice\.Amulet:FeaturedAppRight$/)
    expect(right?.payload).toMatchObject({ provider: node.operator })
  })

  it("12: subscribes over the ledger's websocket to a party's updates filtered by an upstream template id", async () => {
    const config = sdkConfig(node)
    const sdk = await SDK.create({
      auth: config.auth,
      ledgerClientUrl: config.ledgerClientUrl,
      amulet: config.amulet,
      events: { websocketURL: `ws://${config.ledgerClientUrl.host}`, auth: config.auth },
      logAdapter: config.logAdapter
    })
    const carol = await sdk.party.internal.allocate({ partyHint: "carol" })
    await sdk.amulet.tapInternal("7", { partyId: carol })
    const updates = sdk.events.updates({ partyId: carol, beginOffset: 0, templateIds: ["#splice-amulet:Splice.Amulet:Amulet"] })
    try {
      const first = await updates.next()
      const update = (first.value as { update: { Transaction?: { value: { events: ReadonlyArray<{ CreatedEvent?: { templateId: string; packageName: string; createArgument: { amount: { initialAmount: string } } } }> } } } }).update
      const created = (update.Transaction?.value.events ?? []).flatMap((e) => (e.CreatedEvent === undefined ? [] : [e.CreatedEvent]))
      expect(created.map((c) => [c.packageName, c.templateId.split(":").slice(1).join(":"), c.createArgument.amount.initialAmount])).toEqual([
        ["splice-amulet", "Splice.Amulet:Amulet", "7.0000000000"]
      ])
    } finally {
      await updates.return?.(undefined)
    }
  })

  // The prepared transaction is Canton's protobuf with the V2 hash (issue 12, item 6), so the SDK's
  // own hash of the bytes must equal the hash Sandnet returned.
  it("11-hashing: the SDK recomputes the prepared tap's hash", async () => {
    const sdk = await connect()
    const keys = sdk.keys.generate()
    const sender = await sdk.party.external.create(keys.publicKey, { partyHint: "v1-11-alice" }).sign(keys.privateKey).execute()
    const [tap, tapDisclosed] = await sdk.amulet.tap(sender.partyId, "10000")
    const prepared = sdk.ledger.prepare({ partyId: sender.partyId, commands: tap, disclosedContracts: tapDisclosed })
    const { response } = await prepared.toJSON()
    const hash = await sdk.utils.hash.preparedTransacation(response.preparedTransaction)
    expect(hash.toBase64()).toBe(response.preparedTransactionHash)
  })

  // The SDK exercises TransferFactory_Transfer and TransferInstruction_Accept by their token-standard
  // interface ids (`#splice-api-token-transfer-instruction-v1:...`); the ledger records the interface.
  it("02 (accept, internal parties): transfers Amulet in two steps: offer, then accept", async () => {
    const sdk = await connect()
    const { registryUrl } = sdkConfig(node)
    const sender = await sdk.party.internal.allocate({ partyHint: "sender" })
    const receiver = await sdk.party.internal.allocate({ partyHint: "receiver" })
    await sdk.amulet.tapInternal("5000", { partyId: sender })
    const [transfer, transferDisclosed] = await sdk.token.transfer.create({ sender, recipient: receiver, instrumentId: "Amulet", registryUrl, amount: "2000" })
    await sdk.ledger.internal.submit({ commands: [transfer], disclosedContracts: transferDisclosed, actAs: [sender] })
    const pending = await sdk.token.transfer.pending(receiver)
    expect(pending.length).toBe(1)
    const [accept, acceptDisclosed] = await sdk.token.transfer.accept({ transferInstructionCid: pending[0]!.contractId, registryUrl })
    await sdk.ledger.internal.submit({ commands: [accept], disclosedContracts: acceptDisclosed, actAs: [receiver] })
    const received = await sdk.token.utxos.list({ partyId: receiver })
    expect(received.map((u) => [u.interfaceViewValue.instrumentId.id, u.interfaceViewValue.amount])).toEqual([["Amulet", "2000.0000000000"]])
    expect(await sdk.token.transfer.pending(receiver)).toEqual([])
    const exercised = await exercisedEventsOf(receiver)
    const accepted = exercised.filter((e) => e.choice === "TransferInstruction_Accept")
    expect(accepted.map((e) => [e.templateId.split(":").slice(1).join(":"), e.interfaceId])).toEqual([
      ["Splice.AmuletTransferInstruction:AmuletTransferInstruction", expect.stringMatching(/^[0-9a-f]{64}:Splice\.Api\.Token\.TransferInstructionV1:TransferInstruction$/)]
    ])
  })
  // The 05 example: the receiver proposes a preapproval (TransferPreapprovalProposal, signed
  // externally); the validator operator, its provider, accepts it as Splice's validator does,
  // paying the preapproval fee: the example first taps the operator (tapInternal) for it.
  it("05: an external party's preapproval proposal is accepted by its validator and shows in the scan proxy", async () => {
    const sdk = await connect()
    await sdk.amulet.tapInternal("1000")
    const bobKeys = sdk.keys.generate()
    const bob = await sdk.party.external.create(bobKeys.publicKey, { partyHint: "v1-05-bob" }).sign(bobKeys.privateKey).execute()
    const proposal = await sdk.amulet.preapproval.command.create({ parties: { receiver: bob.partyId } })
    await sdk.ledger.prepare({ partyId: bob.partyId, commands: proposal }).sign(bobKeys.privateKey).execute({ partyId: bob.partyId })
    const status = await sdk.amulet.preapproval.fetchStatus(bob.partyId, { intervalMs: 50, timeoutMs: 30_000 })
    expect(status?.templateId).toMatch(/:Splice\.AmuletRules:TransferPreapproval$/)
    expect(status?.expiresAt.getTime()).toBeGreaterThan(Date.now())
    const preapprovals = await sdk.ledger.acs.read({ parties: [bob.partyId], templateIds: ["#splice-amulet:Splice.AmuletRules:TransferPreapproval"], filterByParty: true })
    expect(preapprovals.map((c) => [c.contractId, (c.createArgument as { provider: string }).provider])).toEqual([[status?.contractId, node.operator]])
    const proposals = await sdk.ledger.acs.read({ parties: [bob.partyId], templateIds: ["#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal"], filterByParty: true })
    expect(proposals).toEqual([])
  })
})

describe("the Wallet SDK against a plain node (spec names, one port)", () => {
  let node: WalletTestNode
  beforeAll(async () => {
    shortSdkPauses()
    node = await startWalletNode()
  })
  afterAll(() => node.close())

  it("allocates an external party and submits Ping signed online and offline", async () => {
    const auth: TokenProviderConfig = {
      method: "self_signed",
      issuer: "unsafe-auth",
      credentials: { clientId: "participant_admin", clientSecret: "unsafe", audience: "https://canton.network.global", scope: "" }
    }
    const sdk = await SDK.create({ auth, ledgerClientUrl: new URL(node.url), logAdapter: quietLogs })
    const keys = sdk.keys.generate()
    const party = await sdk.party.external.create(keys.publicKey, { partyHint: "plain-alice" }).sign(keys.privateKey).execute()
    expect(await sdk.party.list()).toContain(party.partyId)
    const templateId = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
    const ping = (id: string) => [{ CreateCommand: { templateId, createArguments: { id, initiator: party.partyId, responder: party.partyId } } }]
    await sdk.ledger.prepare({ partyId: party.partyId, commands: ping("online"), disclosedContracts: [] }).sign(keys.privateKey).execute({ partyId: party.partyId })
    const { response } = await sdk.ledger.prepare({ partyId: party.partyId, commands: ping("offline"), disclosedContracts: [] }).toJSON()
    await sdk.ledger.execute(sdk.ledger.fromSignature(response, signTransactionHash(response.preparedTransactionHash, keys.privateKey)), { partyId: party.partyId })
    const pings = await sdk.ledger.acs.read({ parties: [party.partyId], templateIds: [templateId], filterByParty: true })
    expect(pings.map((p) => (p.createArgument as { id: string }).id).sort()).toEqual(["offline", "online"])
  })
})
