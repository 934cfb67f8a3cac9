import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type PartyId } from "@sandnet/core"
import {
  CoinRules_DevNet_Tap,
  Commands,
  dsoReference,
  makeParticipant,
  ParticipantLogic,
  zeroDelayLink,
  type LinkModel,
  type ParticipantEvent,
  type ValidatorNode
} from "../src/index.ts"
import { makeHarness, type Harness } from "./support.ts"

/**
 * A command that failed may be submitted again under the same command id. Its journal then holds
 * both attempts, and a node rebuilt from it must not let the first attempt's deadline fail the
 * second. Found by the simulator (an aggressive fault mix, seed 58): validator3 restarted while
 * the second attempt of a tap was sequenced and pending; the first attempt's re-armed deadline
 * failed the command with NOT_SEQUENCED_TIMEOUT, the client submitted it a third time, and the
 * tap was committed twice (the exactly-once invariant broke).
 */
describe("a command resubmitted after a failure, on a node that restarts", () => {
  it.effect("completes once, with the outcome of its latest attempt", () =>
    Effect.gen(function* () {
      // The first submission of validator1 is lost; verdicts reach it 20s late while `slow` is set.
      let lost = 0
      let slow = false
      const link: LinkModel = {
        route: (from, to, message, now, ordered) => {
          if (from.startsWith("PAR::validator1") && to.startsWith("SEQ::") && message._tag === "SubmissionRequest" && lost++ === 0) return []
          if (slow && from.startsWith("SEQ::") && to.startsWith("PAR::validator1")) return [now + 20_000_000]
          return zeroDelayLink.route(from, to, message, now, ordered)
        }
      }
      const h = yield* makeHarness({ superValidators: 1, validators: 1 }, link)
      const v1 = h.network.validators[0]!
      const alice = yield* h.run(v1.participant.allocateParty("alice"))
      yield* tap(h, v1, alice)
      yield* h.driver.runUntilIdle()
      expect(v1.participant.logic.completionOf("tap", [alice])).toMatchObject({ _tag: "Failed", code: "NOT_SEQUENCED_TIMEOUT" })

      // Again, with the same command id: sequenced at once, its outcome 20s away when the node crashes.
      slow = true
      const { updateId } = yield* tap(h, v1, alice)
      yield* h.driver.runUntil(h.clock.now + 1_000_000)
      const crashed = v1.participant.logic
      h.queue.queue.removeWhere((d) => d.to === crashed.uid && d.from === crashed.uid)
      const { logic, timers } = ParticipantLogic.recover(crashed, h.clock.now)
      const node = yield* h.run(makeParticipant(crashed.config, crashed.registry, logic))
      h.queue.replace(node)
      yield* h.queue.sendAll(timers)
      yield* h.driver.runUntilIdle()

      expect(logic.completionOf("tap", [alice])).toMatchObject({ _tag: "Succeeded", updateId })
      const completions = logic.journal.events().filter((e): e is Extract<ParticipantEvent, { _tag: "CommandCompleted" }> => e._tag === "CommandCompleted")
      expect(completions.map((e) => e.completion._tag)).toEqual(["Failed", "Succeeded"])
    })
  )
})

const tap = (h: Harness, v: ValidatorNode, party: PartyId) =>
  Effect.gen(function* () {
    const ref = dsoReference(h.network, h.clock.now)!
    return yield* h.run(
      v.participant.submit({
        actAs: [party],
        commandId: "tap",
        commands: [Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: party, amount: "5", openRound: ref.openRound.created.contractId })],
        disclosedContracts: [ref.coinRules, ref.openRound]
      })
    )
  })
