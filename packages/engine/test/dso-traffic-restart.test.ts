/**
 * The DSO automation sends every member's traffic limit as genesis grant plus everything bought.
 * An automation started after purchases (a node restart) counts the MemberTraffic contracts
 * already on the ledger, so a later purchase raises the limit by its own amount instead of
 * setting a lower one (which the sequencer ignores: the purchase would be lost).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Commands, MemberTraffic, startDsoAutomation } from "../src/index.ts"
import { makeHarness } from "./support.ts"

describe("DSO automation after a restart", () => {
  it.effect("counts the traffic bought before it started", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const network = h.network
      const sv1 = network.superValidators[0]!
      const member = network.validators[0]!.participant.logic.uid
      const synchronizer = network.synchronizers[0]!
      const purchase = (commandId: string, bytes: number) =>
        Effect.gen(function* () {
          yield* h.run(
            sv1.participant.submit({
              actAs: [network.dso],
              commandId,
              commands: [
                Commands.create(MemberTraffic, {
                  dso: network.dso,
                  memberId: member,
                  synchronizerId: synchronizer.info.synchronizerId,
                  migrationId: "0",
                  totalPurchased: String(bytes),
                  numPurchases: "1",
                  coinSpent: "1.0000000000",
                  usdSpent: "1.0000000000"
                })
              ]
            })
          )
          yield* h.driver.runUntilIdle(h.clock.now)
        })
      const limit = () => synchronizer.sequencer.logic.traffic.get(member)?.extraTrafficLimit
      const grant = network.config.initialExtraTraffic.validator
      // bought while no automation ran (as before a restart)
      yield* purchase("buy-1", 1000)
      expect(limit()).toBe(grant)
      yield* h.run(startDsoAutomation(network))
      yield* purchase("buy-2", 500)
      expect(limit()).toBe(grant + 1500)
    }))
})
