import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { micros, type CommittedUpdate } from "@sandnet/core"
import { Coin, CoinRules_DevNet_Tap, Commands, LedgerApi, ParticipantLogic, dsoReference } from "../src/index.ts"
import { makeHarness, type Harness } from "./support.ts"

const topologyEntries = (log: ReadonlyArray<CommittedUpdate>) => log.filter((e) => e.update.kind === "topology")

const allParties: LedgerApi.ResolvedUpdateFormat = { transactions: undefined, reassignments: undefined, topologyParties: [] }

const allocateAlice = (h: Harness) =>
  Effect.gen(function* () {
    const v1 = h.network.validators[0]!.participant
    h.clock.advanceTo(h.clock.now + micros.seconds(5))
    const before = v1.logic.ledgerEnd
    const alice = yield* h.run(v1.allocateParty("alice"))
    return { v1, alice, before }
  })

describe("participant authorization topology updates", () => {
  it.effect("genesis: every participant's log starts with the hosting of its operator (and of the DSO on super validators)", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 2, validators: 1 })
      for (const sv of h.network.superValidators) {
        const [first, second] = [...sv.participant.logic.log]
        expect(first?.update.kind === "topology" ? first.update.events : undefined).toEqual([
          { kind: "authorizationAdded", partyId: sv.operator, participantId: sv.participant.logic.uid, permission: "Submission" }
        ])
        expect(second?.update.kind === "topology" ? second.update.events[0]?.partyId : undefined).toBe(h.network.dso)
      }
      // One topology transaction hosts the DSO on every super validator: the same update id everywhere.
      const dsoIds = h.network.superValidators.map((sv) => sv.participant.logic.log.at(1)!.update.updateId)
      expect(new Set(dsoIds).size).toBe(1)
      const validator = h.network.validators[0]!
      expect(topologyEntries([...validator.participant.logic.log]).map((e) => e.offset)).toEqual([1])
      // Scans never ingest topology updates; their offsets skip them.
      const scan = h.network.superValidators[0]!.scan
      expect(scan.updates.length).toBeGreaterThan(0)
      expect([...scan.updates].every((e) => e.offset > 2)).toBe(true)
    })
  )

  it.effect("hosting a party appends exactly one topology update at the next offset, with the ledger clock's time", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const { v1, alice, before } = yield* allocateAlice(h)
      expect(v1.logic.ledgerEnd).toBe(before + 1)
      const entry = v1.logic.updateAtOffset(before + 1)!
      expect(entry.update).toEqual({
        kind: "topology",
        updateId: entry.update.updateId,
        synchronizerId: h.network.synchronizers[0]!.info.synchronizerId,
        recordTime: h.clock.now,
        events: [{ kind: "authorizationAdded", partyId: alice, participantId: v1.logic.uid, permission: "Submission" }]
      })
      expect(entry.update.updateId).toMatch(/^1220[0-9a-f]{64}$/)
      expect(v1.logic.updateById(entry.update.updateId)).toBe(entry)
      // Other participants' logs do not change.
      const sv1 = h.network.superValidators[0]!.participant.logic
      expect(topologyEntries([...sv1.log]).map((e) => e.update.kind === "topology" && e.update.events[0]?.partyId)).not.toContain(alice)
    })
  )

  it.effect("update ids are deterministic: the same run gives the same ids, another party another id", () =>
    Effect.gen(function* () {
      const idsOf = Effect.gen(function* () {
        const h = yield* makeHarness({ superValidators: 1, validators: 1 })
        yield* allocateAlice(h)
        const v1 = h.network.validators[0]!.participant
        yield* h.run(v1.allocateParty("bob"))
        return topologyEntries([...v1.logic.log]).map((e) => `${e.offset}:${e.update.updateId}`)
      })
      const first = yield* idsOf
      const second = yield* idsOf
      expect(first).toEqual(second)
      expect(new Set(first.map((s) => s.split(":")[1])).size).toBe(first.length)
    })
  )

  it.effect("an explicit hosting records this participant's permission", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const v1 = h.network.validators[0]!.participant.logic
      const sv1 = h.network.superValidators[0]!.participant.logic
      const party = "observed::1220" + "ab".repeat(32)
      const hosted = v1.hostParty(
        {
          party,
          participants: [
            { participantUid: sv1.uid, permission: "Confirmation" },
            { participantUid: v1.uid, permission: "Observation" }
          ],
          threshold: 1,
          external: true
        },
        h.clock.now
      )
      expect(Either.isRight(hosted)).toBe(true)
      const last = v1.log.last()!.update
      expect(last.kind === "topology" ? last.events : []).toEqual([{ kind: "authorizationAdded", partyId: party, participantId: v1.uid, permission: "Observation" }])
      expect(Either.isLeft(v1.hostParty({ party, participants: [{ participantUid: v1.uid, permission: "Submission" }], threshold: 1, external: false }, h.clock.now))).toBe(
        true
      )
    })
  )

  it.effect("the ledger API shows them only when asked, for the listed parties; lookups and ACS at their offsets work", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const { v1, alice, before } = yield* allocateAlice(h)
      const bob = yield* h.run(v1.allocateParty("bob"))
      const logic = v1.logic
      const read = (format: LedgerApi.ResolvedUpdateFormat) =>
        LedgerApi.readUpdates(v1, { beginExclusive: before, descending: false, maxItems: 100, format }).items
      const forAll = read(allParties)
      expect(forAll.map((i) => (i.kind === "topology" ? i.events.map((e) => e.partyId) : i.kind))).toEqual([[alice], [bob]])
      expect(read({ ...allParties, topologyParties: [bob] }).map((i) => i.offset)).toEqual([before + 2])
      const withoutTopology = read({ ...allParties, topologyParties: undefined })
      expect(withoutTopology.map((i) => i.kind)).toEqual(["checkpoint"])

      const aliceUpdate = logic.updateAtOffset(before + 1)!.update.updateId
      expect(Either.isRight(LedgerApi.updateById(v1, aliceUpdate, allParties))).toBe(true)
      expect(Either.isLeft(LedgerApi.updateById(v1, aliceUpdate, { ...allParties, topologyParties: [bob] }))).toBe(true)
      expect(Either.isLeft(LedgerApi.updateByOffset(v1, before + 1, { ...allParties, topologyParties: undefined }))).toBe(true)

      // A transaction after the topology updates, and the ACS as of each offset.
      const ref = dsoReference(h.network, h.clock.now)!
      yield* h.run(
        v1.submit({
          actAs: [alice],
          commandId: "tap",
          commands: [Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: alice, amount: "5", openRound: ref.openRound.created.contractId })],
          disclosedContracts: [ref.coinRules, ref.openRound]
        })
      )
      yield* h.driver.runUntilIdle()
      expect(logic.ledgerEnd).toBe(before + 3)
      const format = Either.getOrThrow(
        LedgerApi.resolveEventFormat(LedgerApi.knownPackages(h.network), { filtersByParty: [[alice, { cumulative: [] }]], verbose: false }, "eventFormat")
      )
      const coinsAt = (offset: number) =>
        LedgerApi.activeContractsAt(v1, offset, format)
          .filter((c) => c.created.node.templateId === Coin.templateId)
          .map((c) => c.created.node.contractId)
      expect(coinsAt(before + 2)).toEqual([])
      expect(coinsAt(before + 3)).toHaveLength(1)
    })
  )

  it.effect("a participant rebuilt from its journal has the same topology updates at the same offsets", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const { v1 } = yield* allocateAlice(h)
      const { logic } = ParticipantLogic.recover(v1.logic, h.clock.now)
      expect([...logic.log]).toEqual([...v1.logic.log])
      expect(topologyEntries([...logic.log])).toHaveLength(2)
    })
  )
})
