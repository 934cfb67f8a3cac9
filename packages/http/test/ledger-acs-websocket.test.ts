/**
 * The websocket form of `/v2/state/active-contracts`: the snapshot's items, as the list form
 * answers them, then the node closes the stream; errors as one message. Over real HTTP.
 */
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { actAs, allocateParty, call, createOffer, engineFacts, get, post, startLedgerNode, userWith, websocket, type LedgerTestNode } from "./ledger-support.ts"

let node: LedgerTestNode
let alice: string
let bob: string
let aliceToken: string

beforeAll(async () => {
  // A small list limit: the websocket form has none.
  node = await startLedgerNode({ ledger: { maxListElements: 2 } })
  alice = await allocateParty(node, "alice")
  bob = await allocateParty(node, "bob")
  aliceToken = await userWith(node, "alice", [actAs(alice)])
  const dso = (await engineFacts(node)).dso
  for (const id of ["a-1", "a-2", "a-3"]) {
    const answer = await post(node, "/v2/commands/submit-and-wait", aliceToken, { commands: [createOffer(alice, alice, dso, id)], commandId: id, actAs: [alice] })
    expect(answer.status).toBe(200)
  }
})
afterAll(() => node.close())

const format = (party: string) => ({ eventFormat: { filtersByParty: { [party]: {} }, verbose: true } })

describe("active contracts over a websocket", () => {
  it("sends the snapshot at the offset (the list form's items, beyond its limit) and completes", async () => {
    const end = ((await get(node, "/v2/state/ledger-end", aliceToken)).json as { offset: number }).offset
    const messages = await websocket(node, "/v2/state/active-contracts", aliceToken, { ...format(alice), activeAtOffset: end })
    expect(Either.isRight(messages)).toBe(true)
    const items = Either.getOrElse(messages, () => []) as ReadonlyArray<{ contractEntry: { JsActiveContract: { createdEvent: { offset: number } } } }>
    expect(items).toHaveLength(3)
    // The list form over the same snapshot (limit=2 pages it through the `limit` parameter).
    const listed = (await post(node, "/v2/state/active-contracts?limit=2", aliceToken, { ...format(alice), activeAtOffset: end })).json
    expect(items.slice(0, 2)).toEqual(listed)
    const tooMany = await post(node, "/v2/state/active-contracts", aliceToken, { ...format(alice), activeAtOffset: end })
    expect(tooMany.status).toBe(413)
    // At an earlier offset: fewer contracts.
    const first = items[0]!.contractEntry.JsActiveContract.createdEvent.offset
    const early = await websocket(node, "/v2/state/active-contracts", aliceToken, { ...format(alice), activeAtOffset: first })
    expect(Either.getOrElse(early, () => [])).toHaveLength(1)
  })

  it("errors: one message (missing right, malformed request, offset after the ledger end); no token; a GET without upgrade", async () => {
    const denied = await websocket(node, "/v2/state/active-contracts", aliceToken, { ...format(bob), activeAtOffset: 1 })
    expect(Either.getOrElse(denied, () => [])).toEqual([expect.objectContaining({ code: "PERMISSION_DENIED" })])
    const invalid = await websocket(node, "/v2/state/active-contracts", aliceToken, { activeAtOffset: "soon" })
    expect(Either.getOrElse(invalid, () => [])).toEqual([expect.objectContaining({ code: "INVALID_ARGUMENT" })])
    const missing = await websocket(node, "/v2/state/active-contracts", aliceToken, { activeAtOffset: 1 })
    expect(Either.getOrElse(missing, () => [])).toEqual([expect.objectContaining({ code: "INVALID_ARGUMENT", cause: expect.stringContaining("eventFormat") })])
    const after = await websocket(node, "/v2/state/active-contracts", aliceToken, { ...format(alice), activeAtOffset: 1_000_000 })
    expect(Either.getOrElse(after, () => [])).toEqual([expect.objectContaining({ code: "OFFSET_AFTER_LEDGER_END" })])
    const anonymous = await websocket(node, "/v2/state/active-contracts", undefined, { ...format(alice), activeAtOffset: 1 })
    expect(Either.isLeft(anonymous)).toBe(true)
    const plain = await call(`${node.url}/v2/state/active-contracts`, { token: aliceToken })
    expect(plain.status).toBe(400)
  })
})
