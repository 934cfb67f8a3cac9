/**
 * Optional fields of the ledger JSON API are left out when absent, never `null` (upstream's schemas
 * declare traceContext, externalTransactionHash, paidTrafficCost, interfaceId, contractKey,
 * assignmentExclusivity, streamContinuationToken, created / archived ... optional, not nullable).
 * Real answers of the transaction, update, state and event endpoints are walked for a null outside
 * Daml values (where null is Daml's `None`).
 */
import { CoinRules } from "@sandnet/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  actAs,
  allocateParty,
  createOffer,
  engineFacts,
  exercise,
  get,
  post,
  startLedgerNode,
  userWith,
  type LedgerTestNode
} from "./ledger-support.ts"

/** Fields holding Daml values, where null is a value (Optional's None), not an absent field. */
const DAML_VALUES = new Set(["createArgument", "choiceArgument", "exerciseResult", "viewValue", "contractKey"])

/** The JSON paths of the nulls in an answer, outside Daml values. */
const nullsIn = (value: unknown, path = "$"): ReadonlyArray<string> => {
  if (value === null) return [path]
  if (Array.isArray(value)) return value.flatMap((item, i) => nullsIn(item, `${path}[${i}]`))
  if (typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => (DAML_VALUES.has(key) ? [] : nullsIn(item, `${path}.${key}`)))
  }
  return []
}

let node: LedgerTestNode
let alice: string
let bob: string
let aliceToken: string
let bobToken: string
let offerId: string
let coinId: string
const answers: Array<{ readonly endpoint: string; readonly json: unknown }> = []

const call = async (token: string, path: string, body: unknown) => {
  const answer = await post(node, path, token, body)
  expect(answer.status, answer.text).toBe(200)
  answers.push({ endpoint: path, json: answer.json })
  return answer.json
}

const wildcard = (party: string) => ({ filtersByParty: { [party]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }] } } })
const effects = (party: string) => ({ eventFormat: wildcard(party), transactionShape: "TRANSACTION_SHAPE_LEDGER_EFFECTS" })

const submit = async (token: string, party: string, commandId: string, commands: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => {
  const json = (await call(token, "/v2/commands/submit-and-wait-for-transaction", { commands: { commands, commandId, actAs: [party], ...extra }, transactionFormat: effects(party) })) as {
    transaction: { events: Array<Record<string, { contractId: string; templateId: string }>> }
  }
  return json.transaction.events.flatMap((e) => (e["CreatedEvent"] === undefined ? [] : [e["CreatedEvent"]]))
}

beforeAll(async () => {
  node = await startLedgerNode()
  const facts = await engineFacts(node)
  alice = await allocateParty(node, "alice")
  bob = await allocateParty(node, "bob")
  aliceToken = await userWith(node, "alice", [actAs(alice)])
  bobToken = await userWith(node, "bob", [actAs(bob)])
  offerId = (await submit(aliceToken, alice, "offer-1", [createOffer(alice, bob, facts.dso, "track-1")]))[0]!.contractId
  await submit(bobToken, bob, "accept-1", [exercise(offerId, "TransferOffer_Accept", {})])
  const tapped = await submit(
    aliceToken,
    alice,
    "tap-1",
    [exercise(facts.coinRules.created.contractId, "CoinRules_DevNet_Tap", { receiver: alice, amount: "100.0", openRound: facts.openRound.created.contractId }, CoinRules.nameReference)],
    { disclosedContracts: facts.disclosed }
  )
  coinId = tapped.find((c) => c.templateId.endsWith(":Coin"))!.contractId
})
afterAll(() => node.close())

describe("absent optional fields of the ledger JSON API", () => {
  it("are left out of transactions, updates (both shapes, with topology), active contracts and events by contract id", async () => {
    const end = ((await get(node, "/v2/state/ledger-end", aliceToken)).json as { offset: number }).offset
    for (const [token, party] of [[aliceToken, alice], [bobToken, bob]] as const) {
      for (const transactionShape of ["TRANSACTION_SHAPE_ACS_DELTA", "TRANSACTION_SHAPE_LEDGER_EFFECTS"]) {
        await call(token, "/v2/updates", {
          beginExclusive: 0,
          endInclusive: end,
          updateFormat: { includeTransactions: { eventFormat: wildcard(party), transactionShape }, includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [party] } } }
        })
      }
      await call(token, "/v2/state/active-contracts", { activeAtOffset: end, eventFormat: wildcard(party) })
    }
    // The offer is archived (created and archived), the coin active (created only).
    await call(bobToken, "/v2/events/events-by-contract-id", { contractId: offerId, eventFormat: wildcard(bob) })
    await call(aliceToken, "/v2/events/events-by-contract-id", { contractId: coinId, eventFormat: wildcard(alice) })

    // The walk saw what it is meant to: exercised events, topology transactions, an absent archive.
    const seen = JSON.stringify(answers.map((a) => a.json))
    for (const shape of ["ExercisedEvent", "TopologyTransaction", "JsActiveContract", "interfaceViews"]) expect(seen).toContain(shape)
    expect(answers.map((a) => a.endpoint)).toEqual(expect.arrayContaining(["/v2/updates", "/v2/commands/submit-and-wait-for-transaction", "/v2/state/active-contracts", "/v2/events/events-by-contract-id"]))
    expect(answers.flatMap((a) => nullsIn(a.json).map((path) => `${a.endpoint} ${path}`))).toEqual([])
  })

  it("are left out of completions and of error bodies (no null correlationId, traceId, retryInfo)", async () => {
    const completions = await post(node, "/v2/commands/completions", aliceToken, { parties: [alice], beginExclusive: 0 })
    const bobCompletions = await post(node, "/v2/commands/completions", bobToken, { parties: [bob], beginExclusive: 0 })
    type Item = { completionResponse: { Completion?: { value: { commandId: string } } } }
    const commandIds = [completions, bobCompletions].flatMap((c) => (c.json as ReadonlyArray<Item>).flatMap((i) => i.completionResponse.Completion?.value.commandId ?? []))
    expect(commandIds.sort()).toEqual(["accept-1", "offer-1", "tap-1"])
    // An error body (accepting the archived offer again), in Canton's JsCantonError shape.
    const failed = await post(node, "/v2/commands/async/submit", bobToken, { commands: [exercise(offerId, "TransferOffer_Accept", {})], commandId: "accept-again", actAs: [bob] })
    expect(failed.status).toBe(404)
    expect(failed.json).toMatchObject({ code: "CONTRACT_NOT_FOUND" })
    for (const field of ["correlationId", "traceId", "retryInfo"]) expect(Object.keys(failed.json as object)).not.toContain(field)
    expect([completions.json, bobCompletions.json, failed.json].flatMap((json) => nullsIn(json))).toEqual([])
  })

  it("an exercise by template has no interfaceId, a transaction not signed externally no externalTransactionHash, none a traceContext", () => {
    type Tx = { readonly events: ReadonlyArray<{ readonly ExercisedEvent?: Record<string, unknown> }> } & Record<string, unknown>
    const transactions = answers
      .filter((a) => a.endpoint === "/v2/commands/submit-and-wait-for-transaction")
      .map((a) => (a.json as { transaction: Tx }).transaction)
    expect(transactions.length).toBeGreaterThan(0)
    const exercised = transactions.flatMap((t) => t.events.flatMap((e) => (e.ExercisedEvent === undefined ? [] : [e.ExercisedEvent])))
    expect(exercised.length).toBeGreaterThan(0)
    for (const e of exercised) expect(Object.keys(e)).not.toContain("interfaceId")
    for (const t of transactions) expect(Object.keys(t).filter((k) => k === "externalTransactionHash" || k === "traceContext")).toEqual([])
  })

  it("the walk finds a null where one is", () => {
    expect(nullsIn({ update: { Transaction: { value: { traceContext: null, events: [{ CreatedEvent: { createArgument: { x: null } } }] } } } })).toEqual([
      "$.update.Transaction.value.traceContext"
    ])
  })
})
