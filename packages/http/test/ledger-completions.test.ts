/**
 * The command completion service over real HTTP: a submitted command's completion (offset, update
 * id, status 0), a command rejected by the confirmers with its error status (at the ledger end),
 * filtering by user and parties, beginExclusive paging, limits, the websocket form, rights and
 * invalid requests, and the same completions after a restart on persistent storage.
 */
import { EventStore, makeMemoryBacking } from "@sandnet/store"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  actAs,
  allocateParty,
  createOffer,
  engineFacts,
  exercise,
  get,
  post,
  readAs,
  readAsAnyParty,
  startLedgerNode,
  userWith,
  websocket,
  type LedgerTestNode
} from "./ledger-support.ts"
import { startStoredNode } from "./persistence-support.ts"

type Json = Record<string, unknown>
interface CompletionJson {
  readonly commandId: string
  readonly status: { readonly code: number; readonly message: string; readonly details: ReadonlyArray<unknown> }
  readonly updateId: string
  readonly userId: string
  readonly actAs: ReadonlyArray<string>
  readonly submissionId: string
  readonly offset: number
  readonly synchronizerTime: { readonly synchronizerId: string; readonly recordTime: string }
  readonly paidTrafficCost?: number
}
type Item = { readonly completionResponse: { readonly Completion?: { readonly value: CompletionJson }; readonly OffsetCheckpoint?: { readonly value: { offset: number } } } }

const completionsOf = (items: ReadonlyArray<Item>): ReadonlyArray<CompletionJson> =>
  items.flatMap((i) => (i.completionResponse.Completion === undefined ? [] : [i.completionResponse.Completion.value]))

const ledgerEndOf = async (node: LedgerTestNode, token: string) => ((await get(node, "/v2/state/ledger-end", token)).json as { offset: number }).offset

const readCompletions = async (node: LedgerTestNode, token: string, body: Json, query = "?stream_idle_timeout_ms=0") => {
  const answer = await post(node, `/v2/commands/completions${query}`, token, body)
  expect(answer.status, answer.text).toBe(200)
  return answer.json as ReadonlyArray<Item>
}

/**
 * Creates an offer, withdraws it, then withdraws it again with the archived offer disclosed: the
 * second withdrawal interprets, and the confirming participant rejects it (inactive contract).
 */
const failingWithdrawal = async (node: LedgerTestNode, token: string, sender: string, receiver: string, dso: string, prefix: string) => {
  const created = await post(node, "/v2/commands/submit-and-wait-for-transaction", token, {
    commands: { commands: [createOffer(sender, receiver, dso, `${prefix}-offer`)], commandId: `${prefix}-offer`, actAs: [sender] },
    transactionFormat: {
      eventFormat: { filtersByParty: { [sender]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }] } } },
      transactionShape: "TRANSACTION_SHAPE_ACS_DELTA"
    }
  })
  expect(created.status, created.text).toBe(200)
  const event = ((created.json as { transaction: { events: Array<{ CreatedEvent: Json }> } }).transaction.events[0]!.CreatedEvent) as {
    contractId: string
    templateId: string
    createdEventBlob: string
  }
  const withdraw = (commandId: string, extra: Json = {}) =>
    post(node, "/v2/commands/submit-and-wait", token, {
      commands: [exercise(event.contractId, "TransferOffer_Withdraw", { reason: "no" })],
      commandId,
      actAs: [sender],
      ...extra
    })
  expect((await withdraw(`${prefix}-withdraw`)).status).toBe(200)
  const again = await withdraw(`${prefix}-again`, {
    disclosedContracts: [{ contractId: event.contractId, templateId: event.templateId, createdEventBlob: event.createdEventBlob }]
  })
  return again
}

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

describe("POST /v2/commands/completions", () => {
  let first: { updateId: string; completionOffset: number }
  let failedAt: number

  it("a successful command: its update's offset and id, status 0, the user and actAs", async () => {
    const answer = await post(node, "/v2/commands/submit-and-wait", aliceToken, {
      commands: [createOffer(alice, bob, facts.dso, "ok-1")],
      commandId: "ok-1",
      submissionId: "sub-1",
      actAs: [alice]
    })
    expect(answer.status, answer.text).toBe(200)
    first = answer.json as typeof first
    const items = await readCompletions(node, aliceToken, { parties: [alice] })
    expect(items).toEqual([
      {
        completionResponse: {
          Completion: {
            value: {
              commandId: "ok-1",
              status: { code: 0, message: "", details: [] },
              updateId: first.updateId,
              userId: "alice",
              actAs: [alice],
              submissionId: "sub-1",
              deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 604800, nanos: 0 } } },
              offset: first.completionOffset,
              synchronizerTime: { synchronizerId: facts.synchronizerId, recordTime: expect.stringMatching(/^2026-01-01T00:00:00\.\d{6}Z$/) },
              paidTrafficCost: expect.any(Number)
            }
          }
        }
      }
    ])
  })

  it("a command the confirmers reject: its error status, no update id, the ledger end as offset", async () => {
    const rejected = await failingWithdrawal(node, aliceToken, alice, bob, facts.dso, "f")
    expect(rejected.status).toBe(404)
    expect((rejected.json as { code: string }).code).toBe("LOCAL_VERDICT_INACTIVE_CONTRACTS")
    failedAt = await ledgerEndOf(node, aliceToken)
    const completions = completionsOf(await readCompletions(node, aliceToken, { parties: [alice] }))
    expect(completions.map((c) => c.commandId)).toEqual(["ok-1", "f-offer", "f-withdraw", "f-again"])
    const failed = completions[3]!
    expect(failed).toMatchObject({ commandId: "f-again", updateId: "", userId: "alice", actAs: [alice], offset: failedAt })
    expect(Object.keys(failed)).not.toContain("paidTrafficCost")
    expect(failed.status.code).toBe(5)
    expect(failed.status.message).toMatch(/^LOCAL_VERDICT_INACTIVE_CONTRACTS\(11,[0-9a-f]{8}\): /)
    // The failure changed no ledger state: the withdrawal before it holds the ledger end.
    expect(completions[2]!.offset).toBe(failedAt)
  })

  it("only the user's commands acting for a listed party; beginExclusive pages; a checkpoint closes at the ledger end", async () => {
    const bobs = await post(node, "/v2/commands/submit-and-wait", bobToken, { commands: [createOffer(bob, alice, facts.dso, "b-1")], commandId: "b-1", actAs: [bob] })
    expect(bobs.status).toBe(200)
    const end = await ledgerEndOf(node, aliceToken)
    // alice's user: not bob's command; a checkpoint at the ledger end follows its last completion.
    const alices = await readCompletions(node, aliceToken, { userId: "alice", parties: [alice] })
    expect(completionsOf(alices).map((c) => c.commandId)).toEqual(["ok-1", "f-offer", "f-withdraw", "f-again"])
    expect(alices[alices.length - 1]).toEqual({
      completionResponse: { OffsetCheckpoint: { value: { offset: end, synchronizerTimes: [{ synchronizerId: facts.synchronizerId, recordTime: expect.any(String) }] } } }
    })
    // bob's user reads alice's party too, but never submitted for her.
    expect(completionsOf(await readCompletions(node, bobToken, { parties: [alice] }))).toEqual([])
    expect(completionsOf(await readCompletions(node, bobToken, { parties: [alice, bob] })).map((c) => c.commandId)).toEqual(["b-1"])
    // Paging: after the first completion's offset.
    const later = completionsOf(await readCompletions(node, aliceToken, { parties: [alice], beginExclusive: first.completionOffset }))
    expect(later.map((c) => c.commandId)).toEqual(["f-offer", "f-withdraw", "f-again"])
    expect(completionsOf(await readCompletions(node, aliceToken, { parties: [alice], beginExclusive: failedAt }))).toEqual([])
    // limit cuts the list.
    const limited = await readCompletions(node, aliceToken, { parties: [alice] }, "?limit=2")
    expect(completionsOf(limited).map((c) => c.commandId)).toEqual(["ok-1", "f-offer"])
    expect(limited).toHaveLength(2)
  })

  it("an open-ended list waits for completions that arrive within the idle timeout", async () => {
    const pending = post(node, "/v2/commands/completions?stream_idle_timeout_ms=5000&limit=1", aliceToken, { parties: [alice], beginExclusive: await ledgerEndOf(node, aliceToken) })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const submitted = await post(node, "/v2/commands/async/submit", aliceToken, { commands: [createOffer(alice, bob, facts.dso, "late")], commandId: "late", actAs: [alice] })
    expect(submitted.status).toBe(200)
    const answer = await pending
    expect(answer.status).toBe(200)
    expect(completionsOf(answer.json as ReadonlyArray<Item>).map((c) => c.commandId)).toEqual(["late"])
  })

  it("command-completions: any user's commands of the listed parties; every party needs CanReadAsAnyParty", async () => {
    const reader = await userWith(node, "completions-reader", [readAsAnyParty])
    const answer = await post(node, "/v2/commands/command-completions?stream_idle_timeout_ms=0", reader, { parties: [] })
    expect(answer.status, answer.text).toBe(200)
    const ids = completionsOf(answer.json as ReadonlyArray<Item>).map((c) => c.commandId)
    expect(ids).toEqual(expect.arrayContaining(["ok-1", "f-again", "b-1", "late"]))
    const forBob = await post(node, "/v2/commands/command-completions?stream_idle_timeout_ms=0", bobToken, { parties: [bob] })
    expect(completionsOf(forBob.json as ReadonlyArray<Item>).map((c) => c.commandId)).toEqual(["b-1"])
    expect((await post(node, "/v2/commands/command-completions", aliceToken, {})).status).toBe(403)
  })

  it("rights and invalid requests", async () => {
    // Another user's completions, or a party the user cannot read: 403.
    expect((await post(node, "/v2/commands/completions", bobToken, { userId: "alice", parties: [alice] })).status).toBe(403)
    expect((await post(node, "/v2/commands/completions", aliceToken, { parties: [bob] })).status).toBe(403)
    expect((await post(node, "/v2/commands/completions", undefined, { parties: [alice] })).status).toBe(401)
    const empty = await post(node, "/v2/commands/completions", aliceToken, { parties: [] })
    expect(empty.status).toBe(400)
    expect(empty.text).toContain("parties")
    const missing = await post(node, "/v2/commands/completions", aliceToken, { beginExclusive: 0 })
    expect(missing.status).toBe(400)
    expect(missing.contentType).toMatch(/text\/plain/)
    expect(missing.text).toContain("parties")
    const negative = await post(node, "/v2/commands/completions", aliceToken, { parties: [alice], beginExclusive: -1 })
    expect(negative.status).toBe(400)
    expect(negative.text).toContain("beginExclusive")
    const after = await post(node, "/v2/commands/completions", aliceToken, { parties: [alice], beginExclusive: (await ledgerEndOf(node, aliceToken)) + 10 })
    expect(after.status).toBe(400)
    expect((after.json as { code: string }).code).toBe("OFFSET_AFTER_LEDGER_END")
  })
})

describe("GET /v2/commands/completions (websocket)", () => {
  it("delivers the same completions as the list form, then new ones", async () => {
    const listedItems = await readCompletions(node, aliceToken, { parties: [alice] })
    const listed = completionsOf(listedItems)
    // What the list form answers, then the new command's completion (at the new ledger end: no checkpoint after it).
    const pending = websocket(node, "/v2/commands/completions", aliceToken, { parties: [alice], beginExclusive: 0 }, { count: listedItems.length + 1 })
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect((await post(node, "/v2/commands/submit-and-wait", aliceToken, { commands: [createOffer(alice, bob, facts.dso, "ws-1")], commandId: "ws-1", actAs: [alice] })).status).toBe(200)
    const messages = await pending
    expect(Either.isRight(messages)).toBe(true)
    const items = Either.getOrElse(messages, () => []) as ReadonlyArray<Item>
    expect(items.slice(0, listedItems.length)).toEqual(listedItems)
    const completions = completionsOf(items)
    expect(completions.slice(0, listed.length)).toEqual(listed)
    expect(completions[listed.length]?.commandId).toBe("ws-1")
  })

  it("command-completions: the same items as its list form", async () => {
    const listed = (await post(node, "/v2/commands/command-completions?stream_idle_timeout_ms=0", bobToken, { parties: [bob] })).json as ReadonlyArray<Item>
    const messages = await websocket(node, "/v2/commands/command-completions", bobToken, { parties: [bob] }, { count: listed.length })
    expect(Either.getOrElse(messages, () => [])).toEqual(listed)
  })

  it("an invalid request or missing rights: one error message", async () => {
    const denied = await websocket(node, "/v2/commands/completions", aliceToken, { parties: [bob] })
    expect(Either.getOrElse(denied, () => [])).toEqual([expect.objectContaining({ code: "PERMISSION_DENIED" })])
    const invalid = await websocket(node, "/v2/commands/completions", aliceToken, { parties: "alice" })
    expect(Either.getOrElse(invalid, () => [])).toEqual([expect.objectContaining({ code: "INVALID_ARGUMENT" })])
  })
})

describe("completions after a restart on persistent storage", () => {
  it("the same completions, offsets and statuses; new ones continue after them", async () => {
    const backing = makeMemoryBacking()
    const firstNode = await startStoredNode(EventStore.memoryWith(backing))
    const carol = await allocateParty(firstNode, "carol")
    const dave = await allocateParty(firstNode, "dave")
    const token = await userWith(firstNode, "carol", [actAs(carol)])
    const dso = (await engineFacts(firstNode)).dso
    expect((await failingWithdrawal(firstNode, token, carol, dave, dso, "r")).status).toBe(404)
    const before = await readCompletions(firstNode, token, { parties: [carol] })
    expect(completionsOf(before).map((c) => [c.commandId, c.status.code])).toEqual([
      ["r-offer", 0],
      ["r-withdraw", 0],
      ["r-again", 5]
    ])
    await firstNode.close()

    const second = await startStoredNode(EventStore.memoryWith(backing))
    try {
      expect(await readCompletions(second, token, { parties: [carol] })).toEqual(before)
      const more = await post(second, "/v2/commands/submit-and-wait", token, { commands: [createOffer(carol, dave, dso, "r-next")], commandId: "r-next", actAs: [carol] })
      expect(more.status).toBe(200)
      const after = completionsOf(await readCompletions(second, token, { parties: [carol] }))
      expect(after.map((c) => c.commandId)).toEqual(["r-offer", "r-withdraw", "r-again", "r-next"])
      expect(after[3]!.offset).toBe((more.json as { completionOffset: number }).completionOffset)
    } finally {
      await second.close()
    }
  })
})
