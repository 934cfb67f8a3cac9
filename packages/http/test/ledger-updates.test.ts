/**
 * The update and state services over real HTTP, against a node with its engine on a manual clock:
 * parties allocated and commands submitted through the API, then the update stream read with each
 * filter and shape (and over a websocket), the lookups, the deprecated forms, checkpoints, limits,
 * and every error answer.
 */
import { CoinRules, HoldingInterface, TransferOffer } from "@sandnet/engine"
import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  actAs,
  allocateParty,
  createOffer,
  devToken,
  engineFacts,
  exercise,
  get,
  offerArguments,
  post,
  readAs,
  readAsAnyParty,
  startLedgerNode,
  TRANSFER_OFFER,
  userWith,
  websocket,
  type LedgerTestNode
} from "./ledger-support.ts"

type Json = Record<string, unknown>
type Tx = {
  updateId: string
  commandId: string
  offset: number
  recordTime: string
  effectiveAt: string
  synchronizerId: string
  events: Array<Record<string, Json>>
  paidTrafficCost?: number
}

let node: LedgerTestNode
let facts: Awaited<ReturnType<typeof engineFacts>>
let alice: string
let bob: string
let aliceToken: string
let bobToken: string
let readerToken: string
let strangerToken: string
/** Ledger end before the test's transactions. */
let start: number
/** u1: alice offers to bob; u2: bob accepts; u3: alice creates and withdraws (transient); u4: alice taps coin. */
const u: Array<{ updateId: string; offset: number; tx: Tx }> = []
let offerId: string
let acceptedId: string
let coinId: string

const acsFormat = (filtersByParty: Json) => ({
  includeTransactions: { eventFormat: { filtersByParty }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" }
})
const effectsFormat = (filtersByParty: Json) => ({
  includeTransactions: { eventFormat: { filtersByParty }, transactionShape: "TRANSACTION_SHAPE_LEDGER_EFFECTS" }
})
const templateFilter = (templateId: string, includeCreatedEventBlob = false) => ({
  cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId, includeCreatedEventBlob } } } }]
})

const submitForTransaction = async (token: string, party: string, commandId: string, commands: ReadonlyArray<unknown>, extra: Json = {}) => {
  const answer = await post(node, "/v2/commands/submit-and-wait-for-transaction", token, {
    commands: { commands, commandId, actAs: [party], ...extra },
    transactionFormat: effectsFormat({ [party]: {} }).includeTransactions
  })
  expect(answer.status, answer.text).toBe(200)
  const tx = (answer.json as { transaction: Tx }).transaction
  u.push({ updateId: tx.updateId, offset: tx.offset, tx })
  return tx
}

const messagesOf = <A>(result: Either.Either<ReadonlyArray<unknown>, string>): ReadonlyArray<A> =>
  Either.getOrThrowWith(result, (error) => new Error(error)) as ReadonlyArray<A>

const eventOf = (tx: Tx, kind: string, templateEntity: string) =>
  tx.events.map((e) => e[kind]).find((e) => e !== undefined && String(e["templateId"]).endsWith(`:${templateEntity}`)) as Json

beforeAll(async () => {
  node = await startLedgerNode()
  facts = await engineFacts(node)
  alice = await allocateParty(node, "alice")
  bob = await allocateParty(node, "bob")
  aliceToken = await userWith(node, "alice", [actAs(alice)])
  bobToken = await userWith(node, "bob", [actAs(bob)])
  readerToken = await userWith(node, "reader", [readAsAnyParty])
  strangerToken = await userWith(node, "stranger", [])
  start = ((await get(node, "/v2/state/ledger-end", aliceToken)).json as { offset: number }).offset

  const t1 = await submitForTransaction(aliceToken, alice, "offer-1", [createOffer(alice, bob, facts.dso, "track-1")])
  offerId = eventOf(t1, "CreatedEvent", "TransferOffer")["contractId"] as string
  const t2 = await submitForTransaction(bobToken, bob, "accept-1", [exercise(offerId, "TransferOffer_Accept", {})])
  acceptedId = eventOf(t2, "CreatedEvent", "AcceptedTransferOffer")["contractId"] as string
  await submitForTransaction(aliceToken, alice, "transient-1", [
    {
      CreateAndExerciseCommand: {
        templateId: TRANSFER_OFFER,
        createArguments: offerArguments(alice, bob, facts.dso, "track-2"),
        choice: "TransferOffer_Withdraw",
        choiceArgument: { reason: "changed my mind" }
      }
    }
  ])
  const t4 = await submitForTransaction(
    aliceToken,
    alice,
    "tap-1",
    [exercise(facts.coinRules.created.contractId, "CoinRules_DevNet_Tap", { receiver: alice, amount: "100.0", openRound: facts.openRound.created.contractId }, CoinRules.nameReference)],
    { disclosedContracts: facts.disclosed }
  )
  coinId = eventOf(t4, "CreatedEvent", "Coin")["contractId"] as string
})
afterAll(() => node.close())

const updates = (token: string | undefined, body: Json, query = "") => post(node, `/v2/updates${query}`, token, body)
const itemsOf = (json: unknown) => json as Array<{ update: Record<string, { value: Tx }> }>
const transactionsOf = (json: unknown) => itemsOf(json).flatMap((i) => (i.update["Transaction"] === undefined ? [] : [i.update["Transaction"].value]))

describe("the update stream (POST /v2/updates)", () => {
  it("ACS delta for a party with a wildcard: creates and archives of its contracts, transient contracts left out", async () => {
    const [u1, u2, , u4] = u
    const answer = await updates(aliceToken, { beginExclusive: start, endInclusive: u4!.offset, updateFormat: acsFormat({ [alice]: {} }) })
    expect(answer.status).toBe(200)
    const offerArgs = offerArguments(alice, bob, facts.dso, "track-1")
    expect(answer.json).toEqual([
      {
        update: {
          Transaction: {
            value: {
              updateId: u1!.updateId,
              commandId: "offer-1",
              workflowId: "",
              effectiveAt: u1!.tx.effectiveAt,
              events: [
                {
                  CreatedEvent: {
                    offset: u1!.offset,
                    nodeId: 0,
                    contractId: offerId,
                    templateId: TransferOffer.templateId,
                    createArgument: offerArgs,
                    createdEventBlob: "",
                    interfaceViews: [],
                    witnessParties: [alice],
                    signatories: [alice],
                    observers: [bob],
                    createdAt: u1!.tx.effectiveAt,
                    packageName: "splice-wallet",
                    representativePackageId: TransferOffer.pkg.id,
                    acsDelta: true
                  }
                }
              ],
              offset: u1!.offset,
              synchronizerId: facts.synchronizerId,
              recordTime: u1!.tx.recordTime,
              paidTrafficCost: u1!.tx.paidTrafficCost
            }
          }
        }
      },
      {
        update: {
          Transaction: {
            value: expect.objectContaining({
              updateId: u2!.updateId,
              // bob submitted it: alice sees neither the command id nor the traffic cost
              commandId: "",
              events: [
                {
                  ArchivedEvent: {
                    offset: u2!.offset,
                    nodeId: 0,
                    contractId: offerId,
                    templateId: TransferOffer.templateId,
                    witnessParties: [alice],
                    packageName: "splice-wallet",
                    implementedInterfaces: []
                  }
                },
                {
                  CreatedEvent: expect.objectContaining({
                    offset: u2!.offset,
                    nodeId: 1,
                    contractId: acceptedId,
                    witnessParties: [alice],
                    signatories: [alice, bob].sort(),
                    observers: [],
                    acsDelta: true
                  })
                }
              ]
            })
          }
        }
      },
      { update: { Transaction: { value: expect.objectContaining({ updateId: u4!.updateId, offset: u4!.offset }) } } }
    ])
  })

  it("ledger effects: created and exercised events for witnesses, acsDelta telling which would be in the ACS delta", async () => {
    const [, u2, u3] = u
    const answer = await updates(aliceToken, { beginExclusive: u2!.offset - 1, endInclusive: u3!.offset, updateFormat: effectsFormat({ [alice]: {} }) })
    expect(answer.status).toBe(200)
    const [t2, t3] = transactionsOf(answer.json)
    expect(t2!.events).toEqual([
      {
        ExercisedEvent: {
          offset: u2!.offset,
          nodeId: 0,
          contractId: offerId,
          templateId: TransferOffer.templateId,
          choice: "TransferOffer_Accept",
          choiceArgument: {},
          actingParties: [bob],
          consuming: true,
          witnessParties: [alice],
          lastDescendantNodeId: 1,
          exerciseResult: { acceptedTransferOffer: acceptedId },
          packageName: "splice-wallet",
          implementedInterfaces: [],
          acsDelta: true
        }
      },
      { CreatedEvent: expect.objectContaining({ nodeId: 1, contractId: acceptedId, acsDelta: true }) }
    ])
    // The transient contract: both events are ledger effects, neither is part of the ACS delta.
    expect(t3!.events.map((e) => Object.keys(e)[0])).toEqual(["CreatedEvent", "ExercisedEvent"])
    expect(t3!.events.map((e) => Object.values(e)[0]!["acsDelta"])).toEqual([false, false])
    expect(answer.json).toEqual(itemsOf(answer.json).slice(0, 2))
  })

  it("template filters by package name and package id; a filtered tail ends with an OffsetCheckpoint", async () => {
    const [u1, u2, , u4] = u
    const byName = await updates(aliceToken, {
      beginExclusive: start,
      endInclusive: u4!.offset,
      updateFormat: acsFormat({ [alice]: templateFilter(TRANSFER_OFFER) })
    })
    expect(byName.status).toBe(200)
    const items = itemsOf(byName.json)
    expect(items.map((i) => Object.keys(i.update)[0])).toEqual(["Transaction", "Transaction", "OffsetCheckpoint"])
    expect(transactionsOf(byName.json).map((t) => t.offset)).toEqual([u1!.offset, u2!.offset])
    // u2: only the archive of the offer (the accepted offer is another template)
    expect(transactionsOf(byName.json)[1]!.events.map((e) => Object.keys(e)[0])).toEqual(["ArchivedEvent"])
    expect(items[2]).toEqual({
      update: {
        OffsetCheckpoint: {
          value: { offset: u4!.offset, synchronizerTimes: [{ synchronizerId: facts.synchronizerId, recordTime: u4!.tx.recordTime }] }
        }
      }
    })
    const byId = await updates(aliceToken, {
      beginExclusive: start,
      endInclusive: u4!.offset,
      updateFormat: acsFormat({ [alice]: templateFilter(TransferOffer.templateId, true) })
    })
    expect(itemsOf(byId.json).length).toBe(3)
    const created = transactionsOf(byId.json)[0]!.events[0]!["CreatedEvent"]!
    const blob = JSON.parse(Buffer.from(String(created["createdEventBlob"]), "base64").toString("utf8")) as { contract: { created: { contractId: string } } }
    expect(blob.contract.created.contractId).toBe(offerId)
  })

  it("interface filters match implementing templates and carry the interface view when asked", async () => {
    const [, , , u4] = u
    const answer = await updates(aliceToken, {
      beginExclusive: start,
      endInclusive: u4!.offset,
      updateFormat: acsFormat({
        [alice]: {
          cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: HoldingInterface.nameReference, includeInterfaceView: true } } } }]
        }
      })
    })
    expect(answer.status).toBe(200)
    const [t4] = transactionsOf(answer.json)
    expect(t4!.offset).toBe(u4!.offset)
    expect(t4!.events).toEqual([
      {
        CreatedEvent: expect.objectContaining({
          contractId: coinId,
          witnessParties: [alice],
          interfaceViews: [
            {
              interfaceId: HoldingInterface.interfaceId(),
              viewStatus: { code: 0, message: "", details: [] },
              viewValue: {
                owner: alice,
                instrumentId: { admin: facts.dso, id: "Coin" },
                amount: "100.0000000000",
                lock: null,
                meta: { values: {} }
              },
              implementationPackageId: String(eventOf(u4!.tx, "CreatedEvent", "Coin")["representativePackageId"])
            }
          ]
        })
      }
    ])
  })

  it("filtersForAnyParty (CanReadAsAnyParty) sees every hosted party's events", async () => {
    const [u1] = u
    const answer = await updates(readerToken, {
      beginExclusive: u1!.offset - 1,
      endInclusive: u1!.offset,
      updateFormat: { includeTransactions: { eventFormat: { filtersForAnyParty: {} }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" } }
    })
    expect(answer.status).toBe(200)
    const [t1] = transactionsOf(answer.json)
    expect(t1!.events[0]!["CreatedEvent"]!["witnessParties"]).toEqual([alice, bob].sort())
    // the reader is no submitter: no command id
    expect(t1!.updateId).toBe(u1!.updateId)
  })

  it("descending order (endInclusive required), limit, and the node's list limit (413)", async () => {
    const [u1, u2, , u4] = u
    const body = { beginExclusive: start, endInclusive: u4!.offset, updateFormat: acsFormat({ [alice]: {} }), descendingOrder: true }
    const descending = await updates(aliceToken, body)
    expect(transactionsOf(descending.json).map((t) => t.offset)).toEqual([u4!.offset, u2!.offset, u1!.offset])
    const limited = await updates(aliceToken, { ...body, descendingOrder: false }, "?limit=1")
    expect(transactionsOf(limited.json).map((t) => t.offset)).toEqual([u1!.offset])

    const small = await startLedgerNode({ ledger: { maxListElements: 1 } })
    try {
      const a = await allocateParty(small, "alice")
      const token = await userWith(small, "alice", [actAs(a)])
      for (const id of ["x1", "x2"]) {
        const r = await post(small, "/v2/commands/submit-and-wait", token, { commands: [createOffer(a, a, facts.dso, id)], commandId: id, actAs: [a] })
        expect(r.status).toBe(200)
      }
      const end = ((await get(small, "/v2/state/ledger-end", token)).json as { offset: number }).offset
      const tooMany = await post(small, "/v2/updates", token, { beginExclusive: 0, endInclusive: end, updateFormat: acsFormat({ [a]: {} }) })
      expect(tooMany.status).toBe(413)
      expect(tooMany.json).toMatchObject({
        code: "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
        cause: "The number of matching elements (2) is greater than the node limit (1).",
        errorCategory: 2
      })
      const capped = await post(small, "/v2/updates?limit=1", token, { beginExclusive: 0, endInclusive: end, updateFormat: acsFormat({ [a]: {} }) })
      expect(capped.status).toBe(200)
      expect(itemsOf(capped.json)).toHaveLength(1)
    } finally {
      await small.close()
    }
  })

  it("an open-ended request answers what exists, then waits up to stream_idle_timeout_ms for more", async () => {
    const [, , , u4] = u
    const idle = await updates(aliceToken, { beginExclusive: u4!.offset, updateFormat: acsFormat({ [alice]: {} }) }, "?stream_idle_timeout_ms=50")
    expect(idle.status).toBe(200)
    expect(idle.json).toEqual([])
    const pending = updates(aliceToken, { beginExclusive: u4!.offset, updateFormat: acsFormat({ [alice]: templateFilter(TRANSFER_OFFER) }) }, "?stream_idle_timeout_ms=2000&limit=1")
    await new Promise((resolve) => setTimeout(resolve, 100))
    const later = await post(node, "/v2/commands/submit-and-wait", aliceToken, { commands: [createOffer(alice, bob, facts.dso, "track-later")], commandId: "offer-later", actAs: [alice] })
    expect(later.status).toBe(200)
    const answer = await pending
    expect(transactionsOf(answer.json).map((t) => t.updateId)).toEqual([(later.json as { updateId: string }).updateId])
  })

  it("the deprecated filter: flats equal the ACS delta; trees key events by node id", async () => {
    const [u1, u2] = u
    const range = { beginExclusive: u1!.offset - 1, endInclusive: u2!.offset }
    const flats = await post(node, "/v2/updates/flats", aliceToken, { ...range, filter: { filtersByParty: { [alice]: {} } } })
    const acs = await updates(aliceToken, { ...range, updateFormat: acsFormat({ [alice]: {} }) })
    expect(flats.status).toBe(200)
    expect(flats.json).toEqual(acs.json)
    const trees = await post(node, "/v2/updates/trees", bobToken, { ...range, filter: { filtersByParty: { [bob]: {} } }, verbose: true })
    expect(trees.status).toBe(200)
    const [tree1, tree2] = (trees.json as Array<{ update: { TransactionTree: { value: { offset: number; eventsById: Record<string, Json> } } } }>).map(
      (i) => i.update.TransactionTree.value
    )
    expect(tree1!.offset).toBe(u1!.offset)
    expect(Object.keys(tree1!.eventsById)).toEqual(["0"])
    expect(tree1!.eventsById["0"]).toEqual({ CreatedTreeEvent: { value: expect.objectContaining({ contractId: offerId, witnessParties: [bob] }) } })
    expect(Object.keys(tree2!.eventsById)).toEqual(["0", "1"])
    expect(tree2!.eventsById["0"]).toEqual({ ExercisedTreeEvent: { value: expect.objectContaining({ choice: "TransferOffer_Accept", consuming: true }) } })
  })

  it("over a websocket: the same items for a bounded request, then the node closes", async () => {
    const [, , , u4] = u
    const body = { beginExclusive: start, endInclusive: u4!.offset, updateFormat: acsFormat({ [alice]: templateFilter(TRANSFER_OFFER) }) }
    const list = await updates(aliceToken, body)
    const streamed = await websocket(node, "/v2/updates", aliceToken, body)
    expect(streamed).toEqual(Either.right(list.json))
    const trees = await websocket(node, "/v2/updates/trees", aliceToken, { ...body, updateFormat: undefined, filter: { filtersByParty: { [alice]: {} } } })
    expect(messagesOf<{ update: Json }>(trees).map((i) => Object.keys(i.update)[0])).toContain("TransactionTree")
  })

  it("over a websocket: an open-ended subscription receives later updates", async () => {
    const end = ((await get(node, "/v2/state/ledger-end", bobToken)).json as { offset: number }).offset
    const subscription = websocket(node, "/v2/updates", bobToken, { beginExclusive: end, updateFormat: acsFormat({ [bob]: templateFilter(TRANSFER_OFFER) }) }, { count: 1 })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const offer = await post(node, "/v2/commands/submit-and-wait", aliceToken, { commands: [createOffer(alice, bob, facts.dso, "track-ws")], commandId: "offer-ws", actAs: [alice] })
    const received = await subscription
    expect(received._tag).toBe("Right")
    const [item] = messagesOf<{ update: { Transaction: { value: Tx } } }>(received)
    expect(item!.update.Transaction.value.updateId).toBe((offer.json as { updateId: string }).updateId)
  })

  it("a websocket request that is invalid is answered with a JsCantonError message; no token is refused at the upgrade", async () => {
    const invalid = await websocket(node, "/v2/updates", aliceToken, { beginExclusive: -1, updateFormat: acsFormat({ [alice]: {} }) })
    expect(invalid).toMatchObject({ _tag: "Right", right: [{ code: "INVALID_ARGUMENT", errorCategory: 8 }] })
    expect(messagesOf<{ cause: string }>(invalid)[0]!.cause).toContain("beginExclusive")
    const forbidden = await websocket(node, "/v2/updates", aliceToken, { beginExclusive: 0, updateFormat: acsFormat({ [bob]: {} }) })
    expect(forbidden).toMatchObject({ _tag: "Right", right: [{ code: "PERMISSION_DENIED" }] })
    const anonymous = await websocket(node, "/v2/updates", undefined, { beginExclusive: 0, updateFormat: acsFormat({ [alice]: {} }) })
    expect(anonymous._tag).toBe("Left")
    const plainGet = await get(node, "/v2/updates", aliceToken)
    expect(plainGet.status).toBe(400)
    expect(plainGet.text).toContain("websocket")
  })
})

describe("update stream errors", () => {
  const format = () => acsFormat({ [alice]: {} })
  const expectInvalid = async (body: Json, fragment: string, query = "") => {
    const answer = await updates(aliceToken, body, query)
    expect(answer.status, answer.text).toBe(400)
    expect(answer.contentType).toMatch(/text\/plain/)
    expect(answer.text).toContain(fragment)
  }

  it("invalid values are 400 text/plain naming the field", async () => {
    await expectInvalid({ beginExclusive: -1, updateFormat: format() }, "Invalid value for: body (beginExclusive:")
    await expectInvalid({ updateFormat: format() }, "beginExclusive: is missing")
    await expectInvalid({ beginExclusive: 0 }, "Invalid value for: body (updateFormat: is missing (or the deprecated filter))")
    await expectInvalid({ beginExclusive: 0, descendingOrder: true, updateFormat: format() }, "descendingOrder: requires endInclusive")
    await expectInvalid({ beginExclusive: 3, endInclusive: 2, updateFormat: format() }, "endInclusive: (2) must not be before beginExclusive (3)")
    await expectInvalid({ beginExclusive: 0, filter: { filtersByParty: { [alice]: {} } }, updateFormat: format() }, "filter: must be unset when updateFormat is set")
    await expectInvalid(
      { beginExclusive: 0, updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [alice]: {} } }, transactionShape: "TRANSACTION_SHAPE_UNSPECIFIED" } } },
      "updateFormat.includeTransactions.transactionShape: must be TRANSACTION_SHAPE_ACS_DELTA or TRANSACTION_SHAPE_LEDGER_EFFECTS"
    )
    await expectInvalid(
      { beginExclusive: 0, updateFormat: acsFormat({ [alice]: templateFilter("not-a-template") }) },
      `updateFormat.includeTransactions.eventFormat.filtersByParty.${alice}.cumulative[0].identifierFilter.TemplateFilter.value.templateId`
    )
    await expectInvalid({ beginExclusive: 0, updateFormat: format() }, "Invalid value for: query parameter limit", "?limit=-1")
    await expectInvalid({ beginExclusive: 0, updateFormat: format() }, "Invalid value for: query parameter stream_idle_timeout_ms", "?stream_idle_timeout_ms=x")
  })

  it("unknown templates and package names, offsets after the ledger end", async () => {
    const unknown = await updates(aliceToken, { beginExclusive: 0, endInclusive: 1, updateFormat: acsFormat({ [alice]: templateFilter("#splice-wallet:Splice.Wallet.TransferOffer:Nope") }) })
    expect(unknown.status).toBe(404)
    expect(unknown.json).toMatchObject({
      code: "TEMPLATES_OR_INTERFACES_NOT_FOUND",
      errorCategory: 11,
      resources: [["TEMPLATE_ID", "#splice-wallet:Splice.Wallet.TransferOffer:Nope"]]
    })
    const unknownName = await updates(aliceToken, { beginExclusive: 0, endInclusive: 1, updateFormat: acsFormat({ [alice]: templateFilter("#no-such-package:A:B") }) })
    expect(unknownName.status).toBe(404)
    expect(unknownName.json).toMatchObject({ code: "PACKAGE_NAMES_NOT_FOUND", resources: [["PACKAGE_NAME", "no-such-package"]] })
    const afterEnd = await updates(aliceToken, { beginExclusive: 0, endInclusive: 1_000_000, updateFormat: format() })
    expect(afterEnd.status).toBe(400)
    expect(afterEnd.json).toMatchObject({ code: "OFFSET_AFTER_LEDGER_END", errorCategory: 12, grpcCodeValue: 11 })
  })

  it("authentication and rights: no token 401, reading another party or any party without the right 403", async () => {
    const anonymous = await updates(undefined, { beginExclusive: 0, updateFormat: format() })
    expect(anonymous.status).toBe(401)
    expect(anonymous.json).toMatchObject({ code: "UNAUTHENTICATED" })
    const other = await updates(aliceToken, { beginExclusive: 0, endInclusive: 1, updateFormat: acsFormat({ [bob]: {} }) })
    expect(other.status).toBe(403)
    expect(other.json).toMatchObject({ code: "PERMISSION_DENIED", cause: expect.stringContaining(`CanReadAs right for ${bob}`) })
    const any = await updates(strangerToken, {
      beginExclusive: 0,
      endInclusive: 1,
      updateFormat: { includeTransactions: { eventFormat: { filtersForAnyParty: {} }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" } }
    })
    expect(any.status).toBe(403)
    expect(any.json).toMatchObject({ code: "PERMISSION_DENIED", cause: expect.stringContaining("CanReadAsAnyParty") })
    const readOnly = await userWith(node, "alice-reader", [readAs(alice)])
    expect((await updates(readOnly, { beginExclusive: 0, endInclusive: 1, updateFormat: format() })).status).toBe(200)
    expect((await updates(await devToken("nobody-at-all"), { beginExclusive: 0, updateFormat: format() })).status).toBe(403)
  })
})

describe("lookups", () => {
  it("update-by-id and update-by-offset; UPDATE_NOT_FOUND when absent or filtered out", async () => {
    const [u1, u2, u3] = u
    // the submitting party sees what submit-and-wait-for-transaction answered, command id included
    const byId = await post(node, "/v2/updates/update-by-id", bobToken, { updateId: u2!.updateId, updateFormat: effectsFormat({ [bob]: {} }) })
    expect(byId.status).toBe(200)
    expect(byId.json).toEqual({ update: { Transaction: { value: u2!.tx } } })
    const byOffset = await post(node, "/v2/updates/update-by-offset", aliceToken, { offset: u1!.offset, updateFormat: acsFormat({ [alice]: {} }) })
    expect(byOffset.status).toBe(200)
    expect((byOffset.json as { update: { Transaction: { value: Tx } } }).update.Transaction.value.updateId).toBe(u1!.updateId)

    const transient = await post(node, "/v2/updates/update-by-id", aliceToken, { updateId: u3!.updateId, updateFormat: acsFormat({ [alice]: {} }) })
    expect(transient.status).toBe(404)
    expect(transient.json).toEqual({
      code: "UPDATE_NOT_FOUND",
      cause: `Update not found, or not visible: update id ${u3!.updateId}`,
      context: { category: "11", definite_answer: "false" },
      resources: [["UPDATE_ID", u3!.updateId]],
      errorCategory: 11,
      grpcCodeValue: 5,
      definiteAnswer: false
    })
    const missing = await post(node, "/v2/updates/update-by-offset", aliceToken, { offset: 999_999, updateFormat: acsFormat({ [alice]: {} }) })
    expect(missing.status).toBe(404)
    expect(missing.json).toMatchObject({ code: "UPDATE_NOT_FOUND", resources: [["OFFSET", "999999"]] })
    const invalid = await post(node, "/v2/updates/update-by-offset", aliceToken, { offset: 0, updateFormat: acsFormat({ [alice]: {} }) })
    expect(invalid.status).toBe(400)
    expect(invalid.text).toContain("Invalid value for: body (offset:")
    const noFormat = await post(node, "/v2/updates/update-by-id", aliceToken, { updateId: u1!.updateId })
    expect(noFormat.status).toBe(400)
    expect(noFormat.text).toContain("updateFormat: is missing")
  })

  it("the deprecated transaction lookups: requestingParties or transactionFormat, never both", async () => {
    const [u1, u2] = u
    const byId = await post(node, "/v2/updates/transaction-by-id", aliceToken, { updateId: u1!.updateId, requestingParties: [alice] })
    expect(byId.status).toBe(200)
    const acs = await post(node, "/v2/updates/update-by-id", aliceToken, { updateId: u1!.updateId, updateFormat: acsFormat({ [alice]: {} }) })
    expect(byId.json).toEqual({ transaction: (acs.json as { update: { Transaction: { value: Tx } } }).update.Transaction.value })
    const byOffset = await post(node, "/v2/updates/transaction-by-offset", bobToken, {
      offset: u2!.offset,
      transactionFormat: effectsFormat({ [bob]: {} }).includeTransactions
    })
    expect(byOffset.status).toBe(200)
    expect((byOffset.json as { transaction: Tx }).transaction.commandId).toBe("accept-1")
    const both = await post(node, "/v2/updates/transaction-by-offset", aliceToken, {
      offset: u1!.offset,
      requestingParties: [alice],
      transactionFormat: acsFormat({ [alice]: {} }).includeTransactions
    })
    expect(both.status).toBe(400)
    expect(both.text).toBe("Invalid value for: body (requestingParties: must be unset when transactionFormat is set)")
    const neither = await post(node, "/v2/updates/transaction-by-id", aliceToken, { updateId: u1!.updateId })
    expect(neither.status).toBe(400)
    expect(neither.text).toContain("transactionFormat: is missing")
  })

  it("transaction trees by offset and by id, eventsById keyed by node id", async () => {
    const [, u2] = u
    const byOffset = await get(node, `/v2/updates/transaction-tree-by-offset/${u2!.offset}?parties=${encodeURIComponent(alice)}`, aliceToken)
    expect(byOffset.status).toBe(200)
    const tree = (byOffset.json as { transaction: { updateId: string; offset: number; eventsById: Record<string, Json>; commandId: string } }).transaction
    expect(tree).toMatchObject({ updateId: u2!.updateId, offset: u2!.offset, commandId: "" })
    expect(Object.keys(tree.eventsById)).toEqual(["0", "1"])
    const byId = await get(node, `/v2/updates/transaction-tree-by-id/${u2!.updateId}?parties=${encodeURIComponent(bob)}`, bobToken)
    expect(byId.status).toBe(200)
    expect((byId.json as { transaction: { commandId: string } }).transaction.commandId).toBe("accept-1")
    const badOffset = await get(node, "/v2/updates/transaction-tree-by-offset/abc", aliceToken)
    expect(badOffset.status).toBe(400)
    expect(badOffset.text).toContain("Invalid value for: path parameter offset")
    const forbidden = await get(node, `/v2/updates/transaction-tree-by-id/${u2!.updateId}?parties=${encodeURIComponent(bob)}`, aliceToken)
    expect(forbidden.status).toBe(403)
  })
})

describe("state", () => {
  it("ledger end, latest pruned offsets, connected synchronizers", async () => {
    const end = await get(node, "/v2/state/ledger-end", strangerToken)
    expect(end.status).toBe(200)
    expect((end.json as { offset: number }).offset).toBeGreaterThanOrEqual(u[3]!.offset)
    expect((await get(node, "/v2/state/latest-pruned-offsets", strangerToken)).json).toEqual({
      participantPrunedUpToInclusive: 0,
      allDivulgedContractsPrunedUpToInclusive: 0
    })
    const connected = await get(node, `/v2/state/connected-synchronizers?party=${encodeURIComponent(alice)}`, aliceToken)
    expect(connected.json).toEqual({
      connectedSynchronizers: [
        { synchronizerAlias: "global-synchronizer", synchronizerId: facts.synchronizerId, permission: "PARTICIPANT_PERMISSION_SUBMISSION" }
      ]
    })
    expect((await get(node, "/v2/state/connected-synchronizers", strangerToken)).status).toBe(403)
  })

  it("active contracts at an offset, with the stakeholder rules of the ACS delta", async () => {
    const [u1, , , u4] = u
    const at = (offset: number, token = aliceToken, party = alice) =>
      post(node, "/v2/state/active-contracts", token, { activeAtOffset: offset, eventFormat: { filtersByParty: { [party]: {} } } })
    const early = await at(u1!.offset)
    expect(early.status).toBe(200)
    expect(early.json).toEqual([
      {
        workflowId: "",
        contractEntry: {
          JsActiveContract: {
            createdEvent: eventOf(u1!.tx, "CreatedEvent", "TransferOffer"),
            synchronizerId: facts.synchronizerId,
            reassignmentCounter: 0
          }
        }
      }
    ])
    const later = await at(u4!.offset)
    const ids = (later.json as Array<{ contractEntry: { JsActiveContract: { createdEvent: { contractId: string } } } }>).map(
      (c) => c.contractEntry.JsActiveContract.createdEvent.contractId
    )
    expect(ids).toEqual([acceptedId, coinId])
    expect((await at(0)).json).toEqual([])
    const afterEnd = await at(1_000_000)
    expect(afterEnd.status).toBe(400)
    expect(afterEnd.json).toMatchObject({ code: "OFFSET_AFTER_LEDGER_END" })
    expect((await at(u4!.offset, aliceToken, bob)).status).toBe(403)
    const missing = await post(node, "/v2/state/active-contracts", aliceToken, { activeAtOffset: 1 })
    expect(missing.status).toBe(400)
    expect(missing.text).toContain("eventFormat: is missing")
  })
})

describe("reassignments", () => {
  it("unassign and assign items for the contract's stakeholders (includeReassignments, and the deprecated filter)", async () => {
    const twoSynchronizers = await startLedgerNode({ network: { synchronizers: [{ name: "global-synchronizer" }, { name: "second-synchronizer" }] } })
    try {
      const f = await engineFacts(twoSynchronizers)
      const carol = await allocateParty(twoSynchronizers, "carol")
      const token = await userWith(twoSynchronizers, "carol", [actAs(carol)])
      const created = await post(twoSynchronizers, "/v2/commands/submit-and-wait-for-transaction", token, {
        commands: { commands: [createOffer(carol, carol, f.dso, "move-me")], commandId: "move-me", actAs: [carol] }
      })
      const offer = (created.json as { transaction: { offset: number; events: Array<{ CreatedEvent: Json }> } }).transaction
      const contractId = String(offer.events[0]!.CreatedEvent["contractId"])
      const target = await Effect.runPromise(
        twoSynchronizers.runtime.run((engine) =>
              Effect.gen(function* () {
                const second = engine.network.synchronizers[1]!.info.synchronizerId
                yield* Effect.orDie(
                  engine.network.validators[0]!.participant.reassign({ submitter: carol, commandId: "move-1", contractId, targetSynchronizer: second })
                )
                return second
              })
            )
      )
      const end = ((await get(twoSynchronizers, "/v2/state/ledger-end", token)).json as { offset: number }).offset
      expect(end).toBe(offer.offset + 2)
      const answer = await post(twoSynchronizers, "/v2/updates", token, {
        beginExclusive: offer.offset,
        endInclusive: end,
        updateFormat: { includeReassignments: { filtersByParty: { [carol]: {} } } }
      })
      expect(answer.status, answer.text).toBe(200)
      const [unassign, assign] = answer.json as Array<{ update: { Reassignment: { value: Json & { events: Array<Json> } } } }>
      const unassigned = unassign!.update.Reassignment.value
      expect(unassigned).toMatchObject({ commandId: "move-1", offset: offer.offset + 1, synchronizerId: f.synchronizerId })
      expect(Object.keys(unassigned)).not.toContain("traceContext")
      expect(Object.keys(unassigned)).not.toContain("paidTrafficCost")
      expect(unassigned.events).toEqual([
        {
          JsUnassignedEvent: {
            value: {
              reassignmentId: unassigned["updateId"],
              contractId,
              templateId: TransferOffer.templateId,
              source: f.synchronizerId,
              target,
              submitter: carol,
              reassignmentCounter: 1,
              witnessParties: [carol],
              packageName: "splice-wallet",
              offset: offer.offset + 1,
              nodeId: 0
            }
          }
        }
      ])
      const assigned = assign!.update.Reassignment.value
      expect(assigned).toMatchObject({ commandId: "move-1:assign", offset: offer.offset + 2, synchronizerId: target })
      expect(assigned.events).toEqual([
        {
          JsAssignmentEvent: {
            source: f.synchronizerId,
            target,
            reassignmentId: unassigned["updateId"],
            submitter: carol,
            reassignmentCounter: 1,
            createdEvent: { ...offer.events[0]!.CreatedEvent, offset: offer.offset + 2 }
          }
        }
      ])
      const legacy = await post(twoSynchronizers, "/v2/updates", token, { beginExclusive: offer.offset, endInclusive: end, filter: { filtersByParty: { [carol]: {} } } })
      expect(legacy.json).toEqual(answer.json)
      // transactions only: the reassignments are filtered out, a checkpoint ends the range
      const transactionsOnly = await post(twoSynchronizers, "/v2/updates", token, { beginExclusive: offer.offset, endInclusive: end, updateFormat: acsFormat({ [carol]: {} }) })
      expect(transactionsOnly.json).toEqual([
        {
          update: {
            OffsetCheckpoint: {
              value: {
                offset: end,
                synchronizerTimes: [
                  { synchronizerId: f.synchronizerId, recordTime: expect.any(String) },
                  { synchronizerId: target, recordTime: expect.any(String) }
                ].sort((a, b) => (a.synchronizerId < b.synchronizerId ? -1 : 1))
              }
            }
          }
        }
      ])
    } finally {
      await twoSynchronizers.close()
    }
  })
})
