/**
 * Issue 15: a transfer whose sum leaves Numeric 10's range is Daml's ArithmeticError: the
 * command is rejected with the interpretation error and the engine goes on (no defect).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type PartyId } from "@sandnet/core"
import { Coin, CoinRules_DevNet_Tap, CoinRules_Transfer, Commands, dsoReference, type ParticipantNode } from "../src/index.ts"
import { makeHarness, type Harness } from "./support.ts"

const HUGE = "9999999999999999999999999999"

const submitAndSettle = (h: Harness, node: ParticipantNode, party: PartyId, commandId: string, command: ReturnType<typeof Commands.exercise>) =>
  Effect.gen(function* () {
    const ref = dsoReference(h.network, h.clock.now)!
    const submitted = yield* Effect.either(h.run(node.submit({ actAs: [party], commandId, commands: [command], disclosedContracts: [ref.coinRules, ref.openRound] })))
    yield* h.driver.runUntilIdle()
    return submitted._tag === "Left" ? { _tag: "Rejected" as const, message: String(submitted.left.message ?? submitted.left) } : node.logic.completionOf(commandId, [party])
  })

describe("Numeric 10 overflow", () => {
  it.effect("rejects a merge whose sum overflows with an ArithmeticError and keeps the holdings", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const v1 = h.network.validators[0]!
      const whale = yield* h.run(v1.participant.allocateParty("whale"))
      const ref = dsoReference(h.network, h.clock.now)!
      const tap = Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: whale, amount: HUGE, openRound: ref.openRound.created.contractId })
      expect((yield* submitAndSettle(h, v1.participant, whale, "tap-1", tap))?._tag).toBe("Succeeded")
      expect((yield* submitAndSettle(h, v1.participant, whale, "tap-2", tap))?._tag).toBe("Succeeded")
      const coins = [...v1.participant.logic.acs.ofTemplate(Coin.templateId, whale)].map((c) => c.created.contractId)
      expect(coins).toHaveLength(2)
      const merge = Commands.exercise(CoinRules_Transfer, ref.coinRules.created.contractId, {
        transfer: { sender: whale, provider: whale, inputs: coins.map((value) => ({ tag: "InputCoin" as const, value })), outputs: [], beneficiaries: null },
        context: { openMiningRound: ref.openRound.created.contractId, featuredAppRight: null },
        expectedDso: null
      })
      const outcome = yield* submitAndSettle(h, v1.participant, whale, "merge", merge)
      expect(JSON.stringify(outcome)).toContain("ArithmeticError")
      expect([...v1.participant.logic.acs.ofTemplate(Coin.templateId, whale)].map((c) => c.created.contractId)).toEqual(coins)
      // The engine goes on: a small tap still works.
      const small = Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: whale, amount: "1", openRound: ref.openRound.created.contractId })
      expect((yield* submitAndSettle(h, v1.participant, whale, "tap-3", small))?._tag).toBe("Succeeded")
    })
  )
})
