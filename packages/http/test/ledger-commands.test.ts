/**
 * The command service over real HTTP: submit-and-wait and its variants, commands checked against
 * the templates' Schemas, interpretation and submission errors with Canton's codes, rights.
 */
import { TransferOffer } from "@sandnet/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  actAs,
  allocateParty,
  createOffer,
  engineFacts,
  exercise,
  get,
  offerArguments,
  post,
  readAs,
  startLedgerNode,
  TRANSFER_OFFER,
  userWith,
  type LedgerTestNode
} from "./ledger-support.ts"

type Json = Record<string, unknown>

let node: LedgerTestNode
let facts: Awaited<ReturnType<typeof engineFacts>>
let alice: string
let bob: string
let aliceToken: string
let bobToken: string

beforeAll(async () => {
  node = await startLedgerNode()
  facts = await engineFacts(node)
  alice = await allocateParty(node, "alice")
  bob = await allocateParty(node, "bob")
  aliceToken = await userWith(node, "alice", [actAs(alice)])
  bobToken = await userWith(node, "bob", [actAs(bob), readAs(alice)])
})
afterAll(() => node.close())

const submitAndWait = (token: string | undefined, body: Json) => post(node, "/v2/commands/submit-and-wait", token, body)
const offerCommand = (commandId: string, extra: Json = {}) => ({
  commands: [createOffer(alice, bob, facts.dso, commandId)],
  commandId,
  actAs: [alice],
  ...extra
})
const ledgerEnd = async () => ((await get(node, "/v2/state/ledger-end", aliceToken)).json as { offset: number }).offset

describe("submitting commands", () => {
  it("submit-and-wait answers the update id and the completion offset", async () => {
    const answer = await submitAndWait(aliceToken, offerCommand("c-1"))
    expect(answer.status).toBe(200)
    const end = await ledgerEnd()
    expect(answer.json).toEqual({ updateId: expect.stringMatching(/^1220[0-9a-f]{64}$/), completionOffset: end })
    const seen = await post(node, "/v2/updates/update-by-offset", aliceToken, {
      offset: end,
      updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [alice]: {} } }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" } }
    })
    expect((seen.json as { update: { Transaction: { value: { updateId: string; commandId: string } } } }).update.Transaction.value).toMatchObject({
      updateId: (answer.json as { updateId: string }).updateId,
      commandId: "c-1"
    })
  })

  it("submit-and-wait-for-transaction: the default format is the ACS delta of actAs and readAs, wildcard", async () => {
    const answer = await post(node, "/v2/commands/submit-and-wait-for-transaction", aliceToken, { commands: offerCommand("c-2", { workflowId: "wf-1" }) })
    expect(answer.status).toBe(200)
    const tx = (answer.json as { transaction: Json }).transaction
    expect(tx).toEqual({
      updateId: expect.stringMatching(/^1220/),
      commandId: "c-2",
      workflowId: "wf-1",
      effectiveAt: "2026-01-01T00:00:00.000000Z",
      events: [
        {
          CreatedEvent: {
            offset: await ledgerEnd(),
            nodeId: 0,
            contractId: expect.stringMatching(/^00[0-9a-f]{64}/),
            templateId: TransferOffer.templateId,
            createArgument: offerArguments(alice, bob, facts.dso, "c-2"),
            createdEventBlob: "",
            interfaceViews: [],
            witnessParties: [alice],
            signatories: [alice],
            observers: [bob],
            createdAt: "2026-01-01T00:00:00.000000Z",
            packageName: "splice-wallet",
            representativePackageId: TransferOffer.pkg.id,
            acsDelta: true
          }
        }
      ],
      offset: await ledgerEnd(),
      synchronizerId: facts.synchronizerId,
      recordTime: expect.stringMatching(/^2026-01-01T00:00:00\.\d{6}Z$/),
      paidTrafficCost: expect.any(Number)
    })
  })

  it("submit-and-wait-for-transaction-tree and async submit", async () => {
    const tree = await post(node, "/v2/commands/submit-and-wait-for-transaction-tree", aliceToken, offerCommand("c-3"))
    expect(tree.status).toBe(200)
    const value = (tree.json as { transactionTree: { commandId: string; eventsById: Record<string, Json> } }).transactionTree
    expect(value.commandId).toBe("c-3")
    expect(Object.keys(value.eventsById)).toEqual(["0"])
    expect(value.eventsById["0"]).toEqual({ CreatedTreeEvent: { value: expect.objectContaining({ acsDelta: true, witnessParties: [alice] }) } })

    const before = await ledgerEnd()
    const async = await post(node, "/v2/commands/async/submit", aliceToken, offerCommand("c-4"))
    expect(async.status).toBe(200)
    expect(async.json).toEqual({})
    expect(await ledgerEnd()).toBe(before + 1)
  })

  it("readAs parties may be read, created contracts can be exercised by their controllers", async () => {
    const created = await post(node, "/v2/commands/submit-and-wait-for-transaction", aliceToken, { commands: offerCommand("c-5") })
    const offerId = ((created.json as { transaction: { events: Array<{ CreatedEvent: { contractId: string } }> } }).transaction.events[0]!.CreatedEvent.contractId)
    const accepted = await post(node, "/v2/commands/submit-and-wait-for-transaction", bobToken, {
      commands: { commands: [exercise(offerId, "TransferOffer_Accept", {})], commandId: "accept-5", actAs: [bob], readAs: [alice] },
      transactionFormat: { eventFormat: { filtersByParty: { [bob]: {} } }, transactionShape: "TRANSACTION_SHAPE_LEDGER_EFFECTS" }
    })
    expect(accepted.status).toBe(200)
    const events = (accepted.json as { transaction: { events: Array<Json> } }).transaction.events
    expect(events.map((e) => Object.keys(e)[0])).toEqual(["ExercisedEvent", "CreatedEvent"])

    // the offer is archived now: exercising it again finds no contract
    const again = await submitAndWait(bobToken, { commands: [exercise(offerId, "TransferOffer_Accept", {})], commandId: "accept-5b", actAs: [bob] })
    expect(again.status).toBe(404)
    expect(again.json).toMatchObject({ code: "CONTRACT_NOT_FOUND", errorCategory: 11, resources: [["CONTRACT_ID", offerId]] })
  })
})

describe("command errors", () => {
  const expectText = async (body: Json, text: string) => {
    const answer = await submitAndWait(aliceToken, body)
    expect(answer.status, answer.text).toBe(400)
    expect(answer.contentType).toMatch(/text\/plain/)
    expect(answer.text).toBe(`Invalid value for: body (${text})`)
  }

  it("invalid requests are 400 text/plain naming the field", async () => {
    await expectText(offerCommand("e-1", { actAs: [] }), "actAs: must name at least one party")
    await expectText(offerCommand("bad id!"), 'commandId: "bad id!" is not a valid LedgerString (1 to 255 of letters, digits, ._:-#/ and space)')
    await expectText({ ...offerCommand("e-2"), commands: [] }, "commands: must not be empty")
    await expectText(
      { ...offerCommand("e-3"), commands: [{ CreateCommand: { templateId: TRANSFER_OFFER, createArguments: { ...offerArguments(alice, bob, facts.dso, "e-3"), amount: { amount: "ten", unit: "CoinUnit" } } } }] },
      "commands[0].CreateCommand.createArguments: amount.amount: a decimal with at most 10 fractional digits"
    )
    await expectText(
      { ...offerCommand("e-4"), commands: [exercise("00" + "ab".repeat(32), "TransferOffer_Fly", {})] },
      "commands[0].ExerciseCommand.choice: template #splice-wallet:Splice.Wallet.TransferOffer:TransferOffer has no choice TransferOffer_Fly"
    )
    await expectText(
      { ...offerCommand("e-5"), commands: [{ CreateCommand: { templateId: "TransferOffer", createArguments: {} } }] },
      'commands[0].CreateCommand.templateId: "TransferOffer" is not a valid template identifier'
    )
    await expectText(
      { ...offerCommand("e-6"), commands: [{ ExerciseByKeyCommand: { templateId: TRANSFER_OFFER, contractKey: {}, choice: "Archive", choiceArgument: {} } }] },
      "commands[0].ExerciseByKeyCommand: contract keys are not supported by this node (its templates define no keys)"
    )
    await expectText(offerCommand("e-7", { disclosedContracts: [{ createdEventBlob: "bm90IGEgYmxvYg==" }] }), "disclosedContracts[0].createdEventBlob: is not a created event blob of this network")
    const malformed = await post(node, "/v2/commands/submit-and-wait", aliceToken, { commands: "nope", commandId: "e-8", actAs: [alice] })
    expect(malformed.status).toBe(400)
    expect(malformed.text).toMatch(/^Invalid value for: body \(commands: Expected ReadonlyArray/)
  })

  it("interpretation errors keep Canton's codes", async () => {
    const unknownTemplate = await submitAndWait(aliceToken, { ...offerCommand("e-10"), commands: [{ CreateCommand: { templateId: "#splice-wallet:Splice.Wallet.TransferOffer:Nope", createArguments: {} } }] })
    expect(unknownTemplate.status).toBe(404)
    expect(unknownTemplate.json).toMatchObject({ code: "TEMPLATES_OR_INTERFACES_NOT_FOUND", errorCategory: 11 })

    const missing = "00" + "cd".repeat(32)
    const notFound = await submitAndWait(aliceToken, { ...offerCommand("e-11"), commands: [exercise(missing, "TransferOffer_Withdraw", { reason: "x" })] })
    expect(notFound.status).toBe(404)
    expect(notFound.json).toMatchObject({ code: "CONTRACT_NOT_FOUND", cause: `contract ${missing} not found`, resources: [["CONTRACT_ID", missing]] })

    const unauthorized = await submitAndWait(aliceToken, { ...offerCommand("e-12"), commands: [createOffer(bob, alice, facts.dso, "e-12")] })
    expect(unauthorized.status).toBe(400)
    expect(unauthorized.json).toMatchObject({
      code: "DAML_AUTHORIZATION_ERROR",
      errorCategory: 8,
      grpcCodeValue: 3,
      cause: `Interpretation error: Error: create of TransferOffer requires authorizers ${bob}`,
      context: { missing: bob }
    })

    const failing = await submitAndWait(aliceToken, {
      ...offerCommand("e-13"),
      commands: [{ CreateCommand: { templateId: TRANSFER_OFFER, createArguments: { ...offerArguments(alice, bob, facts.dso, "e-13"), amount: { amount: "0.0", unit: "CoinUnit" } } } }]
    })
    expect(failing.status).toBe(400)
    expect(failing.json).toMatchObject({
      code: "DAML_INTERPRETATION_ERROR",
      errorCategory: 9,
      grpcCodeValue: 9,
      cause: expect.stringContaining("template precondition violated: the amount must be positive")
    })
  })

  it("a repeated command id is DUPLICATE_COMMAND (409)", async () => {
    expect((await submitAndWait(aliceToken, offerCommand("dup-1"))).status).toBe(200)
    const duplicate = await submitAndWait(aliceToken, offerCommand("dup-1"))
    expect(duplicate.status).toBe(409)
    expect(duplicate.json).toMatchObject({ code: "DUPLICATE_COMMAND", errorCategory: 10, grpcCodeValue: 6 })
  })

  it("rights: actAs needs CanActAs, readAs CanReadAs, userId the caller; no token 401", async () => {
    const asBob = await submitAndWait(aliceToken, { commands: [createOffer(bob, alice, facts.dso, "r-1")], commandId: "r-1", actAs: [bob] })
    expect(asBob.status).toBe(403)
    expect(asBob.json).toMatchObject({ code: "PERMISSION_DENIED", cause: expect.stringContaining(`the CanActAs right for ${bob} is required`) })
    const readingBob = await submitAndWait(aliceToken, offerCommand("r-2", { readAs: [bob] }))
    expect(readingBob.status).toBe(403)
    const otherUser = await submitAndWait(aliceToken, offerCommand("r-3", { userId: "bob" }))
    expect(otherUser.status).toBe(403)
    expect(otherUser.json).toMatchObject({ code: "PERMISSION_DENIED", cause: expect.stringContaining('userId "bob" is not the authenticated user "alice"') })
    expect((await submitAndWait(aliceToken, offerCommand("r-4", { userId: "alice" }))).status).toBe(200)
    const anonymous = await submitAndWait(undefined, offerCommand("r-5"))
    expect(anonymous.status).toBe(401)
    const forTransaction = await post(node, "/v2/commands/submit-and-wait-for-transaction", aliceToken, {
      commands: offerCommand("r-6"),
      transactionFormat: { eventFormat: { filtersByParty: { [bob]: {} } }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" }
    })
    expect(forTransaction.status).toBe(403)
  })
})
