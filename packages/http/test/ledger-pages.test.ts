/**
 * The paged readers over real HTTP: `get-updates-page` (ascending, descending, tailing, tokens
 * bound to their request) and `active-contracts-page` (a snapshot at one offset across pages, the
 * deprecated GET form with a JSON body), against the list forms of the same ranges.
 */
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { actAs, allocateParty, createOffer, engineFacts, get, post, startLedgerNode, userWith, type LedgerTestNode } from "./ledger-support.ts"

type Json = Record<string, unknown>
interface UpdatesPage {
  readonly updates: ReadonlyArray<{ readonly update: Record<string, { readonly value: { readonly offset: number } }> }>
  readonly lowestPageOffsetExclusive: number
  readonly highestPageOffsetInclusive: number
  readonly nextPageToken?: string
}
interface AcsPage {
  readonly activeAtOffset: number
  readonly activeContracts: ReadonlyArray<{ readonly contractEntry: { readonly JsActiveContract: { readonly createdEvent: { readonly contractId: string } } } }>
  readonly nextPageToken?: string
}

let node: LedgerTestNode
let alice: string
let bob: string
let aliceToken: string
let bobToken: string
let dso: string

const acsFormat = (party: string) => ({
  includeTransactions: { eventFormat: { filtersByParty: { [party]: {} } }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" }
})
const ledgerEnd = async () => ((await get(node, "/v2/state/ledger-end", aliceToken)).json as { offset: number }).offset
const offer = async (commandId: string) => {
  const answer = await post(node, "/v2/commands/submit-and-wait", aliceToken, { commands: [createOffer(alice, bob, dso, commandId)], commandId, actAs: [alice] })
  expect(answer.status, answer.text).toBe(200)
}
const page = async (body: Json, token = aliceToken): Promise<UpdatesPage> => {
  const answer = await post(node, "/v2/updates/get-updates-page", token, body)
  expect(answer.status, answer.text).toBe(200)
  return answer.json as UpdatesPage
}
const offsetsOf = (p: UpdatesPage) => p.updates.map((u) => Object.values(u.update)[0]!.value.offset)

beforeAll(async () => {
  node = await startLedgerNode()
  dso = (await engineFacts(node)).dso
  alice = await allocateParty(node, "alice")
  bob = await allocateParty(node, "bob")
  aliceToken = await userWith(node, "alice", [actAs(alice)])
  bobToken = await userWith(node, "bob", [actAs(bob)])
  for (const id of ["p-1", "p-2", "p-3", "p-4", "p-5"]) await offer(id)
})
afterAll(() => node.close())

describe("POST /v2/updates/get-updates-page", () => {
  it("ascending pages of a bounded range add up to the list form's updates, each page continuing after the last", async () => {
    const end = await ledgerEnd()
    const listed = (await post(node, "/v2/updates", aliceToken, { beginExclusive: 0, endInclusive: end, updateFormat: acsFormat(alice) })).json as ReadonlyArray<{
      update: Record<string, { value: { offset: number } }>
    }>
    const expected = listed.filter((i) => !("OffsetCheckpoint" in i.update)).map((i) => Object.values(i.update)[0]!.value.offset)
    expect(expected).toHaveLength(5)
    const request = { beginOffsetExclusive: 0, endOffsetInclusive: end, maxPageSize: 2, updateFormat: acsFormat(alice) }
    const seen: Array<number> = []
    let lowest = 0
    let token: string | undefined
    for (let i = 0; i < 5; i++) {
      const p = await page({ ...request, ...(token === undefined ? {} : { pageToken: token }) })
      expect(p.lowestPageOffsetExclusive).toBe(lowest)
      seen.push(...offsetsOf(p))
      lowest = p.highestPageOffsetInclusive
      token = p.nextPageToken
      if (token === undefined) break
    }
    expect(seen).toEqual(expected)
    expect(lowest).toBe(end)
    expect(token).toBeUndefined()
  })

  it("descending pages from the end down", async () => {
    const end = await ledgerEnd()
    const first = await page({ endOffsetInclusive: end, maxPageSize: 3, descendingOrder: true, updateFormat: acsFormat(alice) })
    expect(first.highestPageOffsetInclusive).toBe(end)
    expect(first.nextPageToken).toBeDefined()
    const second = await page({ endOffsetInclusive: end, maxPageSize: 3, descendingOrder: true, updateFormat: acsFormat(alice), pageToken: first.nextPageToken })
    expect(second.highestPageOffsetInclusive).toBe(first.lowestPageOffsetExclusive)
    expect(second.nextPageToken).toBeUndefined()
    const all = [...offsetsOf(first), ...offsetsOf(second)]
    expect(all).toHaveLength(5)
    expect([...all].sort((a, b) => b - a)).toEqual(all)
  })

  it("without an end, ascending: the token is always set and tails the ledger", async () => {
    const request = { updateFormat: acsFormat(alice), maxPageSize: 100 }
    const first = await page(request)
    expect(offsetsOf(first)).toHaveLength(5)
    expect(first.nextPageToken).toBeDefined()
    const empty = await page({ ...request, pageToken: first.nextPageToken })
    expect(empty.updates).toEqual([])
    await offer("p-6")
    const next = await page({ ...request, pageToken: empty.nextPageToken })
    expect(offsetsOf(next)).toEqual([await ledgerEnd()])
  })

  it("a token of another request, a token that is none, an end before the begin: 400; missing rights: 403", async () => {
    const first = await page({ maxPageSize: 1, updateFormat: acsFormat(alice) })
    const other = await post(node, "/v2/updates/get-updates-page", aliceToken, { maxPageSize: 1, beginOffsetExclusive: 1, updateFormat: acsFormat(alice), pageToken: first.nextPageToken })
    expect(other.status).toBe(400)
    expect(other.text).toContain("pageToken")
    const garbage = await post(node, "/v2/updates/get-updates-page", aliceToken, { updateFormat: acsFormat(alice), pageToken: "not-a-token" })
    expect(garbage.status).toBe(400)
    expect(garbage.text).toContain("pageToken")
    const backwards = await post(node, "/v2/updates/get-updates-page", aliceToken, { beginOffsetExclusive: 3, endOffsetInclusive: 2, updateFormat: acsFormat(alice) })
    expect(backwards.status).toBe(400)
    expect((await post(node, "/v2/updates/get-updates-page", aliceToken, { maxPageSize: 0, updateFormat: acsFormat(alice) })).status).toBe(400)
    expect((await post(node, "/v2/updates/get-updates-page", bobToken, { updateFormat: acsFormat(alice) })).status).toBe(403)
    const after = await post(node, "/v2/updates/get-updates-page", aliceToken, { endOffsetInclusive: (await ledgerEnd()) + 5, updateFormat: acsFormat(alice) })
    expect((after.json as { code: string }).code).toBe("OFFSET_AFTER_LEDGER_END")
  })

  it("a token of this request whose position lies after the ledger end or before the range: 400 naming pageToken", async () => {
    const request = { beginOffsetExclusive: 2, maxPageSize: 1, updateFormat: acsFormat(alice) }
    const first = await page(request)
    const moved = (at: number) => {
      const token = JSON.parse(Buffer.from(first.nextPageToken!, "base64url").toString("utf8")) as Json
      return Buffer.from(JSON.stringify({ ...token, at }), "utf8").toString("base64url")
    }
    for (const at of [(await ledgerEnd()) + 1, 1]) {
      const answer = await post(node, "/v2/updates/get-updates-page", aliceToken, { ...request, pageToken: moved(at) })
      expect(answer.status).toBe(400)
      expect(answer.text).toContain("pageToken: is not a page token of this node")
    }
    expect((await post(node, "/v2/updates/get-updates-page", aliceToken, { ...request, pageToken: moved(3) })).status).toBe(200)
  })
})

const acsPage = async (body: Json): Promise<AcsPage> => {
  const answer = await post(node, "/v2/state/active-contracts-page", aliceToken, body)
  expect(answer.status, answer.text).toBe(200)
  return answer.json as AcsPage
}
const idsOf = (p: AcsPage) => p.activeContracts.map((c) => c.contractEntry.JsActiveContract.createdEvent.contractId)

describe("POST /v2/state/active-contracts-page", () => {
  it("pages of the snapshot at the ledger end add up to the list form's; new contracts do not move a started snapshot", async () => {
    const format = { filtersByParty: { [alice]: {} } }
    const end = await ledgerEnd()
    const listed = (await post(node, "/v2/state/active-contracts", aliceToken, { activeAtOffset: end, eventFormat: format })).json as ReadonlyArray<{
      contractEntry: { JsActiveContract: { createdEvent: { contractId: string } } }
    }>
    const first = await acsPage({ eventFormat: format, maxPageSize: 4 })
    expect(first.activeAtOffset).toBe(end)
    expect(first.nextPageToken).toBeDefined()
    await offer("p-7")
    const second = await acsPage({ eventFormat: format, maxPageSize: 4, pageToken: first.nextPageToken })
    expect(second.activeAtOffset).toBe(end)
    expect(second.nextPageToken).toBeUndefined()
    expect([...idsOf(first), ...idsOf(second)]).toEqual(listed.map((c) => c.contractEntry.JsActiveContract.createdEvent.contractId))
    // At offset 0: nothing.
    expect(await acsPage({ eventFormat: format, activeAtOffset: 0 })).toEqual({ activeAtOffset: 0, activeContracts: [] })
  })

  it("the deprecated GET form takes the same JSON body; rights and invalid requests", async () => {
    const body = JSON.stringify({ eventFormat: { filtersByParty: { [alice]: {} } }, maxPageSize: 2 })
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const url = new URL(`${node.url}/v2/state/active-contracts-page`)
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: "GET", headers: { authorization: `Bearer ${aliceToken}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
        (res) => {
          let text = ""
          res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
        }
      )
      req.on("error", reject)
      req.end(body)
    })
    expect(answer.status, answer.text).toBe(200)
    expect((JSON.parse(answer.text) as AcsPage).activeContracts).toHaveLength(2)
    expect((await post(node, "/v2/state/active-contracts-page", bobToken, { eventFormat: { filtersByParty: { [alice]: {} } } })).status).toBe(403)
    const missing = await post(node, "/v2/state/active-contracts-page", aliceToken, { maxPageSize: 2 })
    expect(missing.status).toBe(400)
    expect(missing.text).toContain("eventFormat")
    const wrongToken = await post(node, "/v2/state/active-contracts-page", aliceToken, { eventFormat: { filtersByParty: { [alice]: {} } }, pageToken: "eyJ2IjoxfQ" })
    expect(wrongToken.status).toBe(400)
    expect(wrongToken.text).toContain("pageToken")
  })
})
