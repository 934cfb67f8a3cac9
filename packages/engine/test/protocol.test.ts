import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { amountOf, formatAmount, micros, toIso, type PartyId } from "@sandnet/core"
import {
  Coin,
  CoinRules_CreateTransferPreapproval,
  CoinRules_DevNet_Tap,
  CoinRules_Transfer,
  Commands,
  TransferPreapproval,
  TransferPreapproval_Send,
  currentAmount,
  dsoReference,
  type CoinPayload,
  type ParticipantNode
} from "../src/index.ts"
import { makeHarness, type Harness } from "./support.ts"

const balanceOf = (node: ParticipantNode, party: PartyId, round = 0): string => {
  let total = 0n
  for (const c of node.logic.acs.ofTemplate(Coin.templateId, party)) {
    total += currentAmount((c.created.createArguments as unknown as CoinPayload).amount, round)
  }
  return formatAmount(total)
}

const coinsOf = (node: ParticipantNode, party: PartyId) => [...node.logic.acs.ofTemplate(Coin.templateId, party)]

const tap = (h: Harness, node: ParticipantNode, party: PartyId, amount: string, commandId: string) =>
  Effect.gen(function* () {
    const ref = dsoReference(h.network, h.clock.now)!
    yield* h.run(
      node.submit({
        actAs: [party],
        commandId,
        commands: [Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: party, amount, openRound: ref.openRound.created.contractId })],
        disclosedContracts: [ref.coinRules, ref.openRound]
      })
    )
    yield* h.driver.runUntilIdle()
    const completion = node.logic.completionOf(commandId, [party])
    expect(completion?._tag).toBe("Succeeded")
  })

describe("the transaction protocol", () => {
  it.effect("bootstraps the DSO's contracts on every super validator", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 4, validators: 1 })
      for (const sv of h.network.superValidators) {
        expect(dsoReference(h.network, h.clock.now, h.network.superValidators.indexOf(sv))).toBeDefined()
        expect(sv.scan.updates.length).toBe(1)
      }
      const ids = h.network.superValidators.map((sv) => sv.scan.updates.at(0)!.update.updateId)
      expect(new Set(ids).size).toBe(1)
    })
  )

  it.effect("moves coin between parties on different validators through a preapproval", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 2, validators: 2 })
      const [v1, v2] = h.network.validators
      const alice = yield* h.run(v1!.participant.allocateParty("alice"))
      const bob = yield* h.run(v2!.participant.allocateParty("bob"))
      yield* tap(h, v1!.participant, alice, "100", "tap-alice")
      expect(balanceOf(v1!.participant, alice)).toBe("100.0000000000")

      const ref = dsoReference(h.network, h.clock.now)!
      yield* h.run(
        v2!.participant.submit({
          actAs: [bob, v2!.operator],
          commandId: "preapproval-bob",
          commands: [
            Commands.exercise(CoinRules_CreateTransferPreapproval, ref.coinRules.created.contractId, {
              receiver: bob,
              provider: v2!.operator,
              expiresAt: toIso(h.clock.now + micros.days(90))
            })
          ],
          disclosedContracts: [ref.coinRules]
        })
      )
      yield* h.driver.runUntilIdle()
      expect(v2!.participant.logic.completionOf("preapproval-bob", [bob, v2!.operator])?._tag).toBe("Succeeded")
      // Alice's node does not see the preapproval; she gets it disclosed (as from scan).
      const preapproval = [...h.network.superValidators[0]!.participant.logic.acs.ofTemplate(TransferPreapproval.templateId, bob)][0]!
      const coin = coinsOf(v1!.participant, alice)[0]!
      yield* h.run(
        v1!.participant.submit({
          actAs: [alice],
          commandId: "send-1",
          commands: [
            Commands.exercise(TransferPreapproval_Send, preapproval.created.contractId, {
              sender: alice,
              coinRules: ref.coinRules.created.contractId,
              context: { openMiningRound: ref.openRound.created.contractId, featuredAppRight: null },
              inputs: [{ tag: "InputCoin", value: coin.created.contractId }],
              amount: "30",
              description: "rent"
            })
          ],
          disclosedContracts: [ref.coinRules, ref.openRound, preapproval]
        })
      )
      yield* h.driver.runUntilIdle()
      const completion = v1!.participant.logic.completionOf("send-1", [alice])
      expect(completion?._tag).toBe("Succeeded")
      expect(balanceOf(v1!.participant, alice)).toBe("70.0000000000")
      expect(balanceOf(v2!.participant, bob)).toBe("30.0000000000")
      // The super validators see the same update, at their own offsets.
      const updateId = completion?._tag === "Succeeded" ? completion.updateId : ""
      for (const sv of h.network.superValidators) {
        expect(sv.scan.updateById(updateId)).toBeDefined()
        expect(sv.scan.verdictOf(updateId)?.verdict.result).toBe("VERDICT_RESULT_ACCEPTED")
      }
    })
  )

  it.effect("never lets two concurrent transactions consume the same coin", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const v1 = h.network.validators[0]!
      const alice = yield* h.run(v1.participant.allocateParty("alice"))
      yield* tap(h, v1.participant, alice, "10", "tap")
      const ref = dsoReference(h.network, h.clock.now)!
      const coin = coinsOf(v1.participant, alice)[0]!
      const spend = (commandId: string, amount: string) =>
        h.run(
          v1.participant.submit({
            actAs: [alice],
            commandId,
            commands: [
              Commands.exercise(CoinRules_Transfer, ref.coinRules.created.contractId, {
                transfer: {
                  sender: alice,
                  provider: alice,
                  inputs: [{ tag: "InputCoin", value: coin.created.contractId }],
                  outputs: [{ receiver: alice, receiverFeeRatio: "0", amount }],
                  beneficiaries: null
                },
                context: { openMiningRound: ref.openRound.created.contractId, featuredAppRight: null },
                expectedDso: null
              })
            ],
            disclosedContracts: [ref.coinRules, ref.openRound]
          })
        )
      // Both are interpreted against the same ACS before either is sequenced.
      yield* spend("a", "4")
      yield* spend("b", "5")
      yield* h.driver.runUntilIdle()
      const results = ["a", "b"].map((id) => v1.participant.logic.completionOf(id, [alice])?._tag)
      expect(results.filter((r) => r === "Succeeded")).toHaveLength(1)
      expect(results.filter((r) => r === "Failed")).toHaveLength(1)
      expect(amountOf(balanceOf(v1.participant, alice))).toBe(amountOf("10"))
    })
  )

  it.effect("rejects a transfer with more than 100 inputs with a clear error", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const v1 = h.network.validators[0]!
      const alice = yield* h.run(v1.participant.allocateParty("alice"))
      const ref = dsoReference(h.network, h.clock.now)!
      const inputs = Array.from({ length: 101 }, (_, i) => ({ tag: "InputCoin" as const, value: "00" + i.toString(16).padStart(64, "0") }))
      const result = yield* Effect.either(
        h.run(
          v1.participant.submit({
            actAs: [alice],
            commandId: "too-many",
            commands: [
              Commands.exercise(CoinRules_Transfer, ref.coinRules.created.contractId, {
                transfer: { sender: alice, provider: alice, inputs, outputs: [{ receiver: alice, receiverFeeRatio: "0", amount: "1" }], beneficiaries: null },
                context: { openMiningRound: ref.openRound.created.contractId, featuredAppRight: null },
                expectedDso: null
              })
            ],
            disclosedContracts: [ref.coinRules, ref.openRound]
          })
        )
      )
      expect(result._tag).toBe("Left")
      if (result._tag === "Left") expect(String(result.left.message ?? result.left)).toContain("at most 100 inputs")
    })
  )
})
