/**
 * The event query service and the contract service over real HTTP, on a node with wallets: a coin
 * created by a tap and archived by a wallet transfer shows both events; the receiver's new coin
 * only its create event; unknown and invisible contracts are 404, malformed requests 400, missing
 * rights 403. The wallet's commands are completions of its validator user.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { actAs, post, readAs, readAsAnyParty, userWith, type LedgerTestNode } from "./ledger-support.ts"
import { hours, ok, onboard, startWalletNode, tapFor, tokenOf, wallet, type WalletTestNode } from "./wallet-support.ts"

type Json = Record<string, unknown>
interface Events {
  readonly created: { readonly createdEvent: Json & { contractId: string; offset: number; witnessParties: ReadonlyArray<string> }; readonly synchronizerId: string } | null
  readonly archived: { readonly archivedEvent: Json & { offset: number }; readonly synchronizerId: string } | null
}

let node: WalletTestNode
let dave: string
let erin: string
let daveToken: string
let coin: string
let erinCoin: string
let synchronizerId: string

const eventsOf = (token: string, contractId: string, parties: ReadonlyArray<string>) =>
  post(node as unknown as LedgerTestNode, "/v2/events/events-by-contract-id", token, {
    contractId,
    eventFormat: { filtersByParty: Object.fromEntries(parties.map((p) => [p, {}])), verbose: false }
  })

beforeAll(async () => {
  node = await startWalletNode()
  synchronizerId = (await node.engine()).network.synchronizers[0]!.info.synchronizerId
  daveToken = await tokenOf("dave")
  dave = await onboard(node, "dave")
  erin = await onboard(node, "erin")
  coin = await tapFor(node, daveToken, "50")
  const offer = ok<{ offer_contract_id: string }>(
    await wallet(node, "POST", "/v0/wallet/transfer-offers", daveToken, {
      receiver_party_id: erin,
      amount: "20",
      description: "books",
      expires_at: (await node.now()) + hours(1),
      tracking_id: "events-1"
    })
  )
  ok(await wallet(node, "POST", "/v0/wallet/transfer-offers/accept", await tokenOf("erin"), { contract_id: offer.offer_contract_id }))
  const coins = ok<{ coins: Array<{ contract: { contract: { contract_id: string } } }> }>(await wallet(node, "GET", "/v0/wallet/coins", await tokenOf("erin")))
  erinCoin = coins.coins[0]!.contract.contract.contract_id
})
afterAll(() => node.close())

describe("POST /v2/events/events-by-contract-id", () => {
  it("a coin archived by a wallet transfer: its create and its archive event, each with its synchronizer", async () => {
    const answer = await eventsOf(daveToken, coin, [dave])
    expect(answer.status, answer.text).toBe(200)
    const events = answer.json as Events
    expect(events.created).toEqual({
      createdEvent: expect.objectContaining({ contractId: coin, witnessParties: [dave], acsDelta: true, createdEventBlob: "" }),
      synchronizerId
    })
    expect(events.archived).toEqual({
      archivedEvent: {
        offset: expect.any(Number),
        nodeId: expect.any(Number),
        contractId: coin,
        templateId: events.created!.createdEvent["templateId"],
        witnessParties: [dave],
        packageName: events.created!.createdEvent["packageName"],
        implementedInterfaces: []
      },
      synchronizerId
    })
    expect(events.archived!.archivedEvent.offset).toBeGreaterThan(events.created!.createdEvent.offset)
  })

  it("an active coin: only its create event (archived is null); the blob when the filter asks for it", async () => {
    const erinToken = await tokenOf("erin")
    const answer = await post(node as unknown as LedgerTestNode, "/v2/events/events-by-contract-id", erinToken, {
      contractId: erinCoin,
      eventFormat: { filtersByParty: { [erin]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }] } } }
    })
    expect(answer.status, answer.text).toBe(200)
    const events = answer.json as Events
    expect(events.archived).toBeUndefined()
    expect(events.created?.createdEvent).toMatchObject({ contractId: erinCoin, witnessParties: [erin], createdEventBlob: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) })
  })

  it("404 CONTRACT_EVENTS_NOT_FOUND for an unknown contract and for one the requesting parties do not see", async () => {
    const unknown = await eventsOf(daveToken, `00${"ab".repeat(32)}`, [dave])
    expect(unknown.status).toBe(404)
    expect(unknown.json).toMatchObject({ code: "CONTRACT_EVENTS_NOT_FOUND", resources: [["CONTRACT_ID", `00${"ab".repeat(32)}`]] })
    // erin is no stakeholder of dave's coin.
    const invisible = await eventsOf(await tokenOf("erin"), coin, [erin])
    expect(invisible.status).toBe(404)
    expect((invisible.json as { code: string }).code).toBe("CONTRACT_EVENTS_NOT_FOUND")
  })

  it("400 for a malformed body or contract id; 403 without the rights; 401 without a token", async () => {
    const missing = await post(node as unknown as LedgerTestNode, "/v2/events/events-by-contract-id", daveToken, { contractId: coin })
    expect(missing.status).toBe(400)
    expect(missing.contentType).toMatch(/text\/plain/)
    expect(missing.text).toContain("eventFormat")
    const badId = await eventsOf(daveToken, "not-a-contract", [dave])
    expect(badId.status).toBe(400)
    expect(badId.text).toContain("contractId")
    expect((await eventsOf(daveToken, coin, [erin])).status).toBe(403)
    const anyParty = await post(node as unknown as LedgerTestNode, "/v2/events/events-by-contract-id", daveToken, {
      contractId: coin,
      eventFormat: { filtersForAnyParty: {} }
    })
    expect(anyParty.status).toBe(403)
    expect((await eventsOf(undefined as unknown as string, coin, [dave])).status).toBe(401)
  })
})

describe("POST /v2/contracts/contract-by-id", () => {
  it("the created event for a querying stakeholder (archived contracts too); 404 otherwise; rights", async () => {
    const ledger = node as unknown as LedgerTestNode
    const found = await post(ledger, "/v2/contracts/contract-by-id", daveToken, { contractId: coin, queryingParties: [dave] })
    expect(found.status, found.text).toBe(200)
    expect((found.json as { createdEvent: Json }).createdEvent).toMatchObject({
      contractId: coin,
      witnessParties: [dave],
      offset: 0,
      nodeId: 0,
      createdEventBlob: "",
      interfaceViews: [],
      acsDelta: false
    })
    const reader = await userWith(ledger, "contracts-reader", [readAsAnyParty, readAs(erin)])
    const notStakeholder = await post(ledger, "/v2/contracts/contract-by-id", reader, { contractId: coin, queryingParties: [erin] })
    expect(notStakeholder.status).toBe(404)
    expect((notStakeholder.json as { code: string }).code).toBe("CONTRACT_NOT_FOUND")
    const anyone = await post(ledger, "/v2/contracts/contract-by-id", reader, { contractId: coin })
    expect(anyone.status).toBe(200)
    expect((anyone.json as { createdEvent: { witnessParties: ReadonlyArray<string> } }).createdEvent.witnessParties).toContain(dave)
    expect((await post(ledger, "/v2/contracts/contract-by-id", daveToken, { contractId: coin })).status).toBe(403)
    expect((await post(ledger, "/v2/contracts/contract-by-id", daveToken, { contractId: "nope", queryingParties: [dave] })).status).toBe(400)
    expect((await post(ledger, "/v2/contracts/contract-by-id", reader, { contractId: `00${"cd".repeat(32)}` })).status).toBe(404)
  })
})

describe("the wallet's commands", () => {
  it("are completions of the validator's wallet user", async () => {
    const ledger = node as unknown as LedgerTestNode
    const reader = await userWith(ledger, "wallet-completions", [readAsAnyParty, actAs(dave)])
    const answer = await post(ledger, "/v2/commands/command-completions?stream_idle_timeout_ms=0", reader, { parties: [dave] })
    expect(answer.status, answer.text).toBe(200)
    const completions = (answer.json as ReadonlyArray<{ completionResponse: { Completion?: { value: { commandId: string; userId: string } } } }>).flatMap((i) =>
      i.completionResponse.Completion === undefined ? [] : [i.completionResponse.Completion.value]
    )
    expect(completions.map((c) => c.commandId)).toContain("wallet:transfer-offer:events-1")
    expect(new Set(completions.map((c) => c.userId))).toEqual(new Set(["operator"]))
  })
})
