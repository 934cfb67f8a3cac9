import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type PartyId } from "@sandnet/core"
import { Coin, CoinRules_DevNet_Tap, Commands, dsoReference, zeroDelayLink, type LinkModel, type ParticipantNode } from "../src/index.ts"
import { makeHarness, type Harness } from "./support.ts"

/** Taps coin; with `quick`, only until the submitter has it (slower nodes may not have it yet). */
const tap = (h: Harness, node: ParticipantNode, party: PartyId, quick: boolean) =>
  Effect.gen(function* () {
    const ref = dsoReference(h.network, h.clock.now)!
    yield* h.run(
      node.submit({
        actAs: [party],
        commandId: "tap",
        commands: [Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: party, amount: "10", openRound: ref.openRound.created.contractId })],
        disclosedContracts: [ref.coinRules, ref.openRound]
      })
    )
    if (quick) yield* h.driver.runUntil(h.clock.now + 1_000_000)
    else yield* h.driver.runUntilIdle()
  })

/**
 * A participant connected to two synchronizers sees their events in whatever order its
 * subscriptions deliver them, so the assign of a reassignment (on the target) can reach it before
 * the unassign (on the source), or even before the creation of the contract. Found by the simulator (faults-network: delayed deliveries): the
 * node kept the contract active on the source when the assign came first, then marked it in flight
 * for ever when the late unassign arrived, and its ACS no longer agreed with anyone's.
 */
describe("a reassignment seen out of order", () => {
  it.effect.each([
    ["the assign before the unassign", false, ["assign", "unassign"]],
    ["the assign before the contract's creation and its unassign", true, ["assign", "unassign"]]
  ] as const)("leaves the contract active on the target: %s", ([, lagFromCreation, order]) =>
    Effect.gen(function* () {
      // sv3's subscription to the first synchronizer lags 20 seconds behind while `lagging` is set.
      let lagging = false
      const link: LinkModel = {
        route: (from, to, message, now, ordered) =>
          lagging && from.startsWith("SEQ::sync-1") && to.startsWith("PAR::sv3") ? [now + 20_000_000] : zeroDelayLink.route(from, to, message, now, ordered)
      }
      const h = yield* makeHarness({ superValidators: 3, validators: 1, synchronizers: [{ name: "sync-1" }, { name: "sync-2" }] }, link)
      const v1 = h.network.validators[0]!
      const alice = yield* h.run(v1.participant.allocateParty("alice"))
      lagging = lagFromCreation
      yield* tap(h, v1.participant, alice, lagFromCreation)
      const coin = [...v1.participant.logic.acs.ofTemplate(Coin.templateId, alice)][0]!.created.contractId
      const [, sync2] = h.network.synchronizers
      lagging = true
      yield* h.run(v1.participant.reassign({ submitter: alice, commandId: "move", contractId: coin, targetSynchronizer: sync2!.info.synchronizerId }))
      yield* h.driver.runUntilIdle()
      expect(v1.participant.logic.completionOf("move:assign", [alice])?._tag).toBe("Succeeded")

      const sv3 = h.network.superValidators[2]!.participant.logic
      const kinds = [...sv3.log].flatMap(({ update }) => (update.kind === "reassignment" ? [update.event.kind] : []))
      expect(kinds).toEqual(order)
      if (lagFromCreation) {
        // sv3 committed the assign before the transaction that created the coin.
        const createdAt = [...sv3.log].findIndex(({ update }) => update.kind === "transaction" && update.nodes.some((n) => n.kind === "created" && n.contractId === coin))
        const assignedAt = [...sv3.log].findIndex(({ update }) => update.kind === "reassignment" && update.event.kind === "assign")
        expect(assignedAt).toBeLessThan(createdAt)
      }
      for (const node of h.network.participants) {
        const active = node.logic.acs.get(coin)
        expect(node.logic.acs.inFlightOf(coin)).toBeUndefined()
        expect(active?.synchronizerId).toBe(sync2!.info.synchronizerId)
        expect(active?.reassignmentCounter).toBe(1)
      }
    })
  )
})
