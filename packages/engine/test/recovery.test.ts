import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { Coin, CoinRules_DevNet_Tap, Commands, LedgerApi, ParticipantLogic, dsoReference, makeParticipant } from "../src/index.ts"
import { makeHarness } from "./support.ts"

describe("crash recovery", () => {
  it.effect("a participant rebuilt from its journal has the same ledger end, ACS and command outcomes", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const v1 = h.network.validators[0]!
      const alice = yield* h.run(v1.participant.allocateParty("alice"))
      const ref = dsoReference(h.network, h.clock.now)!
      for (const i of [1, 2, 3]) {
        yield* h.run(
          v1.participant.submit({
            actAs: [alice],
            commandId: `tap-${i}`,
            commands: [Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: alice, amount: "5", openRound: ref.openRound.created.contractId })],
            disclosedContracts: [ref.coinRules, ref.openRound]
          })
        )
      }
      yield* h.driver.runUntilIdle()
      const before = v1.participant.logic
      const { logic, timers } = ParticipantLogic.recover(before, h.clock.now)
      expect(timers).toEqual([])
      expect(logic.ledgerEnd).toBe(before.ledgerEnd)
      expect([...logic.log]).toEqual([...before.log])
      const coins = (l: ParticipantLogic) => [...l.acs.ofTemplate(Coin.templateId, alice)].map((c) => c.created.contractId)
      expect(coins(logic)).toEqual(coins(before))
      expect(coins(logic)).toHaveLength(3)
      expect(logic.completionOf("tap-2", [alice])).toEqual(before.completionOf("tap-2", [alice]))
      // The recovered node still refuses a duplicate of an accepted command.
      const node = yield* h.run(makeParticipant(logic.config, h.network.registry, logic))
      const again = yield* Effect.either(
        node.submit({
          actAs: [alice],
          commandId: "tap-1",
          commands: [Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: alice, amount: "5", openRound: ref.openRound.created.contractId })],
          disclosedContracts: [ref.coinRules, ref.openRound]
        })
      )
      expect(again._tag === "Left" && again.left._tag === "CommandRejected" ? again.left.code : "").toBe("DUPLICATE_COMMAND")
    })
  )
})

describe("executing a prepared transaction", () => {
  it.effect("creates exactly the prepared contracts, and refuses one that no longer interprets to what was signed", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const v1 = h.network.validators[0]!
      const alice = yield* h.run(v1.participant.allocateParty("alice"))
      const ref = dsoReference(h.network, h.clock.now)!
      const commands = [
        Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: alice, amount: "5", openRound: ref.openRound.created.contractId })
      ]
      const input = { commandId: "tap", actAs: [alice], readAs: [], commands, disclosedContracts: [ref.coinRules, ref.openRound] }
      const prepared = Either.getOrThrow(LedgerApi.prepareSubmission(v1.participant, input, h.clock.now))
      const decoded = Either.getOrThrow(LedgerApi.decodePreparedTransaction(prepared.encoded, "preparedTransaction"))
      const replayed = Either.getOrThrow(LedgerApi.replayPreparedTransaction(v1.participant, decoded, "preparedTransaction"))
      const asPrepared = { transactionSeed: decoded.transactionSeed, ledgerTime: decoded.ledgerTime, nodes: replayed.nodes }
      // Signed nodes that differ from what the commands give now: refused, nothing submitted.
      const tampered = { ...asPrepared, nodes: [] as never }
      const stale = yield* Effect.either(h.run(v1.participant.submit({ ...input, commandId: "tap-stale", prepared: tampered })))
      expect(stale._tag === "Left" && stale.left._tag === "CommandRejected" ? stale.left.code : "").toBe("INTERPRETATION_PREPARED_TRANSACTION_STALE")
      // As prepared: accepted, and the coin has the contract id the parties saw when they signed.
      yield* h.run(v1.participant.submit({ ...input, prepared: asPrepared }))
      yield* h.driver.runUntilIdle()
      expect(v1.participant.logic.completionOf("tap", [alice])?._tag).toBe("Succeeded")
      const coins = [...v1.participant.logic.acs.ofTemplate(Coin.templateId, alice)].map((c) => c.created.contractId)
      expect(coins).toEqual(prepared.transaction.createdContractIds)
    })
  )
})
