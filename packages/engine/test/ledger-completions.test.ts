/**
 * The ledger API's contract lookups and command completions over a participant: the create and
 * archive events of a contract (visible only to stakeholders the format asks for), and the
 * completion records (user, offsets, failures) that a rebuilt node replays identically.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { micros } from "@sandnet/core"
import { Commands, LedgerApi, ParticipantLogic, TransferOffer, TransferOffer_Withdraw, type ParticipantNode } from "../src/index.ts"
import { makeHarness, type Harness } from "./support.ts"

const offer = (sender: string, receiver: string, dso: string, trackingId: string) =>
  Commands.create(TransferOffer, {
    sender,
    receiver,
    dso,
    amount: { amount: "10.0000000000", unit: "CoinUnit" },
    description: "lunch",
    expiresAt: "2027-01-01T00:00:00.000000Z",
    trackingId
  } as never)

const formatFor = (h: Harness, parties: ReadonlyArray<string>) =>
  Either.getOrThrow(
    LedgerApi.resolveEventFormat(
      LedgerApi.knownPackages(h.network),
      { filtersByParty: parties.map((p) => [p, { cumulative: [] }] as const), verbose: false },
      "eventFormat"
    )
  )

const setup = Effect.gen(function* () {
  const h = yield* makeHarness({ superValidators: 1, validators: 1 })
  const v1 = h.network.validators[0]!.participant
  h.clock.advanceTo(h.clock.now + micros.seconds(1))
  const alice = yield* h.run(v1.allocateParty("alice"))
  const bob = yield* h.run(v1.allocateParty("bob"))
  const carol = yield* h.run(v1.allocateParty("carol"))
  return { h, v1, alice, bob, carol }
})

const submitAndRun = (h: Harness, v1: ParticipantNode, request: Parameters<ParticipantNode["submit"]>[0]) =>
  Effect.gen(function* () {
    const { updateId } = yield* h.run(v1.submit(request))
    yield* h.driver.runUntilIdle()
    return updateId
  })

describe("events by contract id", () => {
  it.effect("an active contract has its create event; an archived one both; only stakeholders the format names see them", () =>
    Effect.gen(function* () {
      const { h, v1, alice, bob, carol } = yield* setup
      yield* submitAndRun(h, v1, { userId: "alice-user", actAs: [alice], commandId: "create-1", commands: [offer(alice, bob, h.network.dso, "t1")] })
      const createdAt = v1.logic.ledgerEnd
      const contract = [...v1.logic.acs.all()].find((c) => c.created.templateId === TransferOffer.templateId)!
      const contractId = contract.created.contractId

      const active = Either.getOrThrow(LedgerApi.eventsByContractId(v1, contractId, formatFor(h, [bob])))
      expect(active.archived).toBeUndefined()
      expect(active.created?.event).toMatchObject({ offset: createdAt, witnessParties: [bob], acsDelta: true })
      expect(active.created?.synchronizerId).toBe(h.network.synchronizers[0]!.info.synchronizerId)

      yield* submitAndRun(h, v1, {
        userId: "alice-user",
        actAs: [alice],
        commandId: "withdraw-1",
        commands: [Commands.exercise(TransferOffer_Withdraw, contractId, { reason: "changed my mind" })]
      })
      const both = Either.getOrThrow(LedgerApi.eventsByContractId(v1, contractId, formatFor(h, [alice, bob])))
      expect(both.created?.event.offset).toBe(createdAt)
      expect(both.archived?.event).toMatchObject({ kind: "archived", offset: v1.logic.ledgerEnd, witnessParties: [alice, bob] })

      // carol is no stakeholder; an unknown id is nothing.
      expect(Either.getLeft(LedgerApi.eventsByContractId(v1, contractId, formatFor(h, [carol])))._tag).toBe("Some")
      expect(Either.isLeft(LedgerApi.eventsByContractId(v1, `00${"ab".repeat(32)}`, formatFor(h, [alice])))).toBe(true)
      // The contract service finds it for a stakeholder (archived too), not for others.
      expect(Either.getOrThrow(LedgerApi.contractById(v1, contractId, [bob, carol])).witnessParties).toEqual([bob])
      expect(Either.getOrThrow(LedgerApi.contractById(v1, contractId, [])).witnessParties).toEqual([alice, bob])
      expect(Either.isLeft(LedgerApi.contractById(v1, contractId, [carol]))).toBe(true)
    })
  )
})

describe("command completions", () => {
  it.effect("a completion per command, with its user; failures carry the ledger end; a rebuilt node replays the same records", () =>
    Effect.gen(function* () {
      const { h, v1, alice, bob } = yield* setup
      const beginning = v1.logic.completions.length
      const ok = yield* submitAndRun(h, v1, { userId: "alice-user", actAs: [alice], commandId: "create-1", commands: [offer(alice, bob, h.network.dso, "t1")] })
      const okOffset = v1.logic.ledgerEnd
      const contract = [...v1.logic.acs.all()].find((c) => c.created.templateId === TransferOffer.templateId)!
      yield* submitAndRun(h, v1, {
        userId: "bob-user",
        actAs: [bob],
        commandId: "create-2",
        submissionId: "sub-2",
        commands: [offer(bob, alice, h.network.dso, "t2")]
      })
      yield* submitAndRun(h, v1, {
        userId: "alice-user",
        actAs: [alice],
        commandId: "withdraw-1",
        commands: [Commands.exercise(TransferOffer_Withdraw, contract.created.contractId, { reason: "no" })]
      })
      const endBeforeFailure = v1.logic.ledgerEnd
      // The same withdrawal again, with the (now archived) offer disclosed: interpreted, then rejected by the confirmers.
      yield* submitAndRun(h, v1, {
        userId: "alice-user",
        actAs: [alice],
        commandId: "withdraw-again",
        commands: [Commands.exercise(TransferOffer_Withdraw, contract.created.contractId, { reason: "no" })],
        disclosedContracts: [contract]
      })
      expect(v1.logic.ledgerEnd).toBe(endBeforeFailure)

      const records = v1.logic.completions.slice(beginning)
      expect(records.map((r) => [r.completion.commandId, r.userId, r.completion._tag])).toEqual([
        ["create-1", "alice-user", "Succeeded"],
        ["create-2", "bob-user", "Succeeded"],
        ["withdraw-1", "alice-user", "Succeeded"],
        ["withdraw-again", "alice-user", "Failed"]
      ])
      expect(records[0]).toMatchObject({ offset: okOffset, completion: { updateId: ok } })
      expect(records[1]?.submissionId).toBe("sub-2")
      const failed = records[3]!
      expect(failed.offset).toBe(endBeforeFailure)
      expect(failed.completion).toMatchObject({ _tag: "Failed", code: "LOCAL_VERDICT_INACTIVE_CONTRACTS" })

      // The stream: alice's user, alice's commands; then a checkpoint only when the ledger end is past them.
      const read = (userId: string | undefined, parties: ReadonlyArray<string>, begin: number) =>
        LedgerApi.readCompletions(v1, { userId, parties }, LedgerApi.completionsFrom(v1, begin), 100).items
      const alices = read("alice-user", [alice], 0)
      expect(alices.map((i) => (i.kind === "completion" ? i.record.completion.commandId : "checkpoint"))).toEqual(["create-1", "withdraw-1", "withdraw-again"])
      expect(read("alice-user", [bob], 0).map((i) => i.kind)).toEqual(["checkpoint"])
      expect(read(undefined, [bob], 0).map((i) => (i.kind === "completion" ? i.record.completion.commandId : "checkpoint"))).toEqual(["create-2", "checkpoint"])
      expect(read("alice-user", [alice], okOffset).map((i) => (i.kind === "completion" ? i.record.completion.commandId : "checkpoint"))).toEqual([
        "withdraw-1",
        "withdraw-again"
      ])
      // A limit cuts the page; the cursor continues where it stopped.
      const page = LedgerApi.readCompletions(v1, { userId: "alice-user", parties: [alice] }, LedgerApi.completionsFrom(v1, 0), 1)
      expect(page.truncated).toBe(true)
      const rest = LedgerApi.readCompletions(v1, { userId: "alice-user", parties: [alice] }, page.cursor, 100)
      expect([...page.items, ...rest.items]).toEqual(alices)

      // A node rebuilt from its journal has the same completion records.
      const rebuilt = ParticipantLogic.recover(v1.logic, h.clock.now).logic
      expect(rebuilt.completions).toEqual(v1.logic.completions)
    })
  )
})

describe("pages", () => {
  it.effect("update pages cover the range without gaps in both directions; active contract pages split the snapshot", () =>
    Effect.gen(function* () {
      const { h, v1, alice, bob } = yield* setup
      const start = v1.logic.ledgerEnd
      for (const id of ["a", "b", "c"]) {
        yield* submitAndRun(h, v1, { actAs: [alice], commandId: id, commands: [offer(alice, bob, h.network.dso, id)] })
      }
      const end = v1.logic.ledgerEnd
      const format: LedgerApi.ResolvedUpdateFormat = {
        transactions: { eventFormat: formatFor(h, [alice]), shape: "ACS_DELTA" },
        reassignments: undefined,
        topologyParties: undefined
      }
      const first = LedgerApi.readUpdatesPage(v1, { beginExclusive: start, endInclusive: end, descending: false, maxItems: 2, format })
      expect(first).toMatchObject({ lowestExclusive: start, highestInclusive: start + 2, more: true })
      const second = LedgerApi.readUpdatesPage(v1, { beginExclusive: first.highestInclusive, endInclusive: end, descending: false, maxItems: 2, format })
      expect(second).toMatchObject({ lowestExclusive: start + 2, highestInclusive: end, more: false })
      expect([...first.updates, ...second.updates].map((u) => u.offset)).toEqual([start + 1, start + 2, start + 3])
      const down = LedgerApi.readUpdatesPage(v1, { beginExclusive: start, endInclusive: end, descending: true, maxItems: 2, format })
      expect(down).toMatchObject({ lowestExclusive: start + 1, highestInclusive: end, more: true })
      expect(down.updates.map((u) => u.offset)).toEqual([end, end - 1])
      const rest = LedgerApi.readUpdatesPage(v1, { beginExclusive: start, endInclusive: down.lowestExclusive, descending: true, maxItems: 2, format })
      expect(rest).toMatchObject({ lowestExclusive: start, more: false })
      expect(rest.updates.map((u) => u.offset)).toEqual([start + 1])

      const acs = LedgerApi.activeContractsAt(v1, end, formatFor(h, [alice]))
      const pageOf = (from: number) => Either.getOrThrow(LedgerApi.activeContractsPage(v1, { activeAtOffset: end, format: formatFor(h, [alice]), from, maxItems: 2 }))
      const p1 = pageOf(0)
      expect(p1.next).toBe(2)
      const p2 = pageOf(p1.next!)
      expect(p2.next).toBeUndefined()
      expect([...p1.contracts, ...p2.contracts]).toEqual(acs)
    })
  )
})
