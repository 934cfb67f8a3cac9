/**
 * The Wallet SDK's documented flows that do not depend on the names a node speaks
 * (docs/wallet-integration-guide/examples/scripts of splice-wallet-kernel: 03-parties, 09-multi-user-setup,
 * 10-init-with-ledger-provider, 11-hashing, 12-subscribe-to-events, 14-offline-signing), each run
 * against a node in LocalNet's layout and against a plain node (spec names, one port). The flows
 * that need Amulet (tap, transfers) run against --localnet only.
 */
import { LedgerProvider, SDK, signTransactionHash } from "@canton-network/wallet-sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectSdk, ensureSdkEnvironment, quietLogs, sdkConfig, selfSignedAuth } from "./localnet-sdk-support.ts"
import { localNetToken, requestWithHost, startLocalNet, type LocalNetNode } from "./localnet-support.ts"
import { startWalletNode, type WalletTestNode } from "./wallet-support.ts"

const PING = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"

/** Where a flow runs: a ledger JSON API and the user that operates it (LocalNet's `ledger-api-user`, a plain node's `participant_admin`). */
interface Target {
  readonly ledgerClientUrl: URL
  readonly operatorUser: string
  /** A second participant's ledger API (LocalNet's super validator on 3975), where there is one. */
  readonly otherParticipantUrl?: URL
}

const sdkAs = (target: Target, user: string = target.operatorUser) =>
  SDK.create({ auth: selfSignedAuth(user), ledgerClientUrl: target.ledgerClientUrl, logAdapter: quietLogs })

type Sdk = Awaited<ReturnType<typeof sdkAs>>

const externalParty = async (sdk: Sdk, partyHint: string) => {
  const keys = sdk.keys.generate()
  const party = await sdk.party.external.create(keys.publicKey, { partyHint }).sign(keys.privateKey).execute()
  return { partyId: party.partyId, keys }
}

/** 09-multi-user-setup: users with rights; each user sees the parties it has rights on. */
const multiUserSetup = async (target: Target) => {
  const operator = await sdkAs(target)
  const users = await Promise.all(
    ["alice", "bob", "master"].map(async (name) => {
      const primaryParty = await operator.party.internal.allocate({ partyHint: `v1-09-${name}` })
      return operator.user.create({ userId: `${name}-user`, primaryParty, userRights: { participantAdmin: true } })
    })
  )
  expect(users.map((u) => u.id)).toEqual(["alice-user", "bob-user", "master-user"])
  await operator.user.rights.grant({ userId: "master-user", userRights: { canExecuteAsAnyParty: true, canReadAsAnyParty: true } })

  const aliceSdk = await sdkAs(target, "alice-user")
  const bobSdk = await sdkAs(target, "bob-user")
  const masterSdk = await sdkAs(target, "master-user")
  const alice = await externalParty(aliceSdk, "v1-09-alice")
  const bob = await externalParty(bobSdk, "v1-09-bob")
  expect(await masterSdk.party.list()).toEqual(expect.arrayContaining([alice.partyId, bob.partyId]))
  expect(await aliceSdk.party.list()).not.toContain(bob.partyId)
  expect(await bobSdk.party.list()).not.toContain(alice.partyId)

  await bobSdk.user.rights.grant({ userRights: { readAs: [alice.partyId] } })
  expect(await bobSdk.party.list()).toContain(alice.partyId)
  const rights = (await bobSdk.user.rights.list()).rights ?? []
  expect(rights).toContainEqual({ kind: { CanReadAs: { value: { party: alice.partyId } } } })
  await bobSdk.user.rights.revoke({ userRights: { readAs: [alice.partyId] } })
  expect(await bobSdk.party.list()).not.toContain(alice.partyId)
}

/** 10-init-with-ledger-provider: the SDK over a LedgerProvider; parties signed online and offline, Ping online and offline. */
const initWithLedgerProvider = async (target: Target) => {
  const accessTokenProvider = {
    getAccessToken: () => localNetToken(target.operatorUser),
    getAuthContext: async () => ({ userId: target.operatorUser, accessToken: await localNetToken(target.operatorUser) })
  }
  const ledgerProvider = new LedgerProvider({ baseUrl: target.ledgerClientUrl, accessTokenProvider })
  const sdk = await SDK.create({ ledgerProvider, logAdapter: quietLogs })
  const sender = await externalParty(sdk, "v1-10-alice")
  const receiverKeys = sdk.keys.generate()
  const receiverCreation = sdk.party.external.create(receiverKeys.publicKey, { partyHint: "v1-10-bob" })
  const unsigned = await receiverCreation.topology()
  const receiver = await receiverCreation.execute(signTransactionHash(unsigned.multiHash, receiverKeys.privateKey))
  expect(await sdk.party.list()).toEqual(expect.arrayContaining([sender.partyId, receiver.partyId]))
  const ping = (id: string) => [{ CreateCommand: { templateId: PING, createArguments: { id, initiator: sender.partyId, responder: sender.partyId } } }]
  await sdk.ledger.prepare({ partyId: sender.partyId, commands: ping("online"), disclosedContracts: [] }).sign(sender.keys.privateKey).execute({ partyId: sender.partyId })
  const prepared = await sdk.ledger.prepare({ partyId: sender.partyId, commands: ping("offline"), disclosedContracts: [] }).preparedPromise
  await sdk.ledger.execute(sdk.ledger.fromSignature(prepared, signTransactionHash(prepared.preparedTransactionHash, sender.keys.privateKey)), { partyId: sender.partyId })
  const pings = await sdk.ledger.acs.read({ parties: [sender.partyId], templateIds: [PING], filterByParty: true })
  expect(pings.map((p) => (p.createArgument as { id: string }).id).sort()).toEqual(["offline", "online"])
}

/** 11-hashing and 14-offline-signing without Amulet: an offline SDK recomputes the topology multi-hash and a prepared Ping's hash. */
const offlineHashing = async (target: Target) => {
  const online = await sdkAs(target)
  const offline = SDK.createOffline()
  const keys = offline.keys.generate()
  const creation = online.party.external.create(keys.publicKey, { partyHint: "v1-14-alice" })
  const topology = await creation.topology()
  expect(await offline.utils.hash.topologyTransaction(topology.topologyTransactions)).toBe(topology.multiHash)
  const party = await creation.execute(signTransactionHash(topology.multiHash, keys.privateKey))
  const ping = [{ CreateCommand: { templateId: PING, createArguments: { id: "hashed", initiator: party.partyId, responder: party.partyId } } }]
  const { response } = await online.ledger.prepare({ partyId: party.partyId, commands: ping, disclosedContracts: [] }).toJSON()
  expect((await offline.utils.hash.preparedTransacation(response.preparedTransaction)).toBase64()).toBe(response.preparedTransactionHash)
  await online.ledger.execute(online.ledger.fromSignature(response, signTransactionHash(response.preparedTransactionHash, keys.privateKey)), { partyId: party.partyId })
  expect((await online.ledger.acs.read({ parties: [party.partyId], templateIds: [PING], filterByParty: true })).length).toBe(1)
}

/** 12-subscribe-to-events without Amulet: a party's Ping over the ledger's websocket, filtered by template id. */
const subscribeToPings = async (target: Target) => {
  const sdk = await SDK.create({
    auth: selfSignedAuth(target.operatorUser),
    ledgerClientUrl: target.ledgerClientUrl,
    events: { websocketURL: `ws://${target.ledgerClientUrl.host}`, auth: selfSignedAuth(target.operatorUser) },
    logAdapter: quietLogs
  })
  const party = await sdk.party.internal.allocate({ partyHint: "v1-12-carol" })
  await sdk.ledger.internal.submit({ commands: [{ CreateCommand: { templateId: PING, createArguments: { id: "event", initiator: party, responder: party } } }], actAs: [party] })
  const updates = sdk.events.updates({ partyId: party, beginOffset: 0, templateIds: [PING] })
  try {
    const first = await updates.next()
    type Created = { readonly templateId: string; readonly createArgument: { readonly id: string } }
    const update = (first.value as { update: { Transaction?: { value: { events: ReadonlyArray<{ CreatedEvent?: Created }> } } } }).update
    const created = (update.Transaction?.value.events ?? []).flatMap((e) => (e.CreatedEvent === undefined ? [] : [e.CreatedEvent]))
    expect(created.map((c) => [c.templateId.split(":").slice(1).join(":"), c.createArgument.id])).toEqual([["Canton.Internal.Ping:Ping", "event"]])
  } finally {
    await updates.return?.(undefined)
  }
}

describe("the Wallet SDK's party and user flows against --localnet", () => {
  let node: LocalNetNode
  let target: Target
  beforeAll(async () => {
    ensureSdkEnvironment()
    node = await startLocalNet(3)
    target = {
      ledgerClientUrl: sdkConfig(node).ledgerClientUrl,
      operatorUser: "ledger-api-user",
      otherParticipantUrl: new URL(`http://127.0.0.1:${node.ports.svLedger}`)
    }
  })
  afterAll(() => node.close())

  it("03: lists allocated external parties, grants the featured app right, and hosts a party on the super validator's participant too", async () => {
    const sdk = await connectSdk(node)
    const parties = await Promise.all(["v1-03-alice", "v1-03-bob"].map((hint) => externalParty(sdk, hint)))
    expect(await sdk.party.list()).toEqual(expect.arrayContaining(parties.map((p) => p.partyId)))
    expect(await sdk.amulet.featuredApp.grant({ maxRetries: 20, delayMs: 100 })).toBeDefined()
    const endpoints = [{ url: target.otherParticipantUrl!, tokenProviderConfig: selfSignedAuth() }]
    for (const [hint, options] of [
      ["v1-03-charlie", { confirmingParticipantEndpoints: endpoints }],
      ["v1-03-observingCharlie", { observingParticipantEndpoints: endpoints }]
    ] as const) {
      const keys = sdk.keys.generate()
      const party = await sdk.party.external.create(keys.publicKey, { partyHint: hint, ...options }).sign(keys.privateKey).execute()
      await sdk.ledger
        .prepare({ partyId: party.partyId, commands: sdk.utils.ping.create([{ initiator: party.partyId, responder: party.partyId }]) })
        .sign(keys.privateKey)
        .execute({ partyId: party.partyId })
      // The super validator's participant hosts it too.
      const onSv = await requestWithHost(node.ports.svLedger, "localhost", `/v2/parties/${encodeURIComponent(party.partyId)}`, { token: await localNetToken() })
      expect(onSv.json).toMatchObject({ partyDetails: [{ party: party.partyId, isLocal: true }] })
    }
  })

  it("09: users with rights see the parties they have rights on", () => multiUserSetup(target))
  it("10: the SDK over a LedgerProvider", () => initWithLedgerProvider(target))
  it("11/14: an offline SDK recomputes the topology multi-hash and a prepared transaction's hash", () => offlineHashing(target))
  it("12: subscribes to a party's Pings over the websocket", () => subscribeToPings(target))

  it("14: offline signing of tap, transfer and accept, each hash recomputed offline", async () => {
    const online = await connectSdk(node)
    const offline = SDK.createOffline()
    const { registryUrl } = sdkConfig(node)
    const newParty = async (hint: string) => {
      const keys = offline.keys.generate()
      const creation = online.party.external.create(keys.publicKey, { partyHint: hint })
      const topology = await creation.topology()
      expect(await offline.utils.hash.topologyTransaction(topology.topologyTransactions)).toBe(topology.multiHash)
      const party = await creation.execute(signTransactionHash(topology.multiHash, keys.privateKey))
      return { partyId: party.partyId, keys }
    }
    const sender = await newParty("v1-14-alice")
    const receiver = await newParty("v1-14-bob")
    type Prepare = Parameters<typeof online.ledger.prepare>[0]
    const signOffline = async (party: { partyId: string; keys: { privateKey: string } }, commands: Prepare["commands"], disclosedContracts: NonNullable<Prepare["disclosedContracts"]>) => {
      const { response } = await online.ledger.prepare({ partyId: party.partyId, commands, disclosedContracts }).toJSON()
      expect((await offline.utils.hash.preparedTransacation(response.preparedTransaction)).toBase64()).toBe(response.preparedTransactionHash)
      await online.ledger.execute(online.ledger.fromSignature(response, signTransactionHash(response.preparedTransactionHash, party.keys.privateKey)), { partyId: party.partyId })
    }
    const [tap, tapDisclosed] = await online.amulet.tap(sender.partyId, "10000")
    await signOffline(sender, tap, tapDisclosed)
    const [transfer, transferDisclosed] = await online.token.transfer.create({ sender: sender.partyId, recipient: receiver.partyId, instrumentId: "Amulet", registryUrl, amount: "100" })
    await signOffline(sender, transfer, transferDisclosed)
    const pending = await online.token.transfer.pending(receiver.partyId)
    expect(pending.length).toBe(1)
    const [accept, acceptDisclosed] = await online.token.transfer.accept({ transferInstructionCid: pending[0]!.contractId, registryUrl })
    await signOffline(receiver, accept, acceptDisclosed)
    const received = await online.token.utxos.list({ partyId: receiver.partyId })
    expect(received.map((u) => u.interfaceViewValue.amount)).toEqual(["100.0000000000"])
  })
})

describe("the Wallet SDK's party and user flows against a plain node (spec names, one port)", () => {
  let node: WalletTestNode
  let target: Target
  beforeAll(async () => {
    ensureSdkEnvironment()
    node = await startWalletNode()
    target = { ledgerClientUrl: new URL(node.url), operatorUser: "participant_admin" }
  })
  afterAll(() => node.close())

  it("09: users with rights see the parties they have rights on", () => multiUserSetup(target))
  it("10: the SDK over a LedgerProvider", () => initWithLedgerProvider(target))
  it("11/14: an offline SDK recomputes the topology multi-hash and a prepared transaction's hash", () => offlineHashing(target))
  it("12: subscribes to a party's Pings over the websocket", () => subscribeToPings(target))
})
