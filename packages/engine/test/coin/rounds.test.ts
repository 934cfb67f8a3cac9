import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { micros } from "@sandnet/core"
import {
  ClosedMiningRound,
  DsoView,
  IssuingMiningRound,
  OpenMiningRound,
  SummarizingMiningRound,
  startDsoAutomation,
  type IssuingMiningRoundPayload
} from "../../src/index.ts"
import { makeHarness } from "../support.ts"

describe("mining rounds", () => {
  it.effect("advance open -> summarizing -> issuing -> closed on the tick, with two rounds open at any time", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 4, validators: 1 })
      const automations = yield* h.run(startDsoAutomation(h.network))
      const tick = h.network.config.tickDuration
      const start = h.clock.now
      const view = DsoView.of(h.network)
      const count = (templateId: string) => [...h.network.superValidators[0]!.participant.logic.acs.ofTemplate(templateId, h.network.dso)].length
      const history: Array<string> = []
      for (let k = 1; k <= 8; k++) {
        yield* h.driver.runUntil(start + k * tick + micros.seconds(30))
        const open = view.openRounds().filter((r) => Date.parse(r.payload.opensAt) * 1000 <= h.clock.now)
        expect(open.length).toBe(2)
        history.push(`${view.latestOpenRound(h.clock.now)!.payload.round.number}:${count(SummarizingMiningRound.templateId)}/${count(IssuingMiningRound.templateId)}/${count(ClosedMiningRound.templateId)}`)
      }
      expect(count(OpenMiningRound.templateId)).toBe(3)
      // Every SV took its turn as the delegate.
      expect(automations.map((a) => a.stats.commandsSubmitted).every((n) => n > 0)).toBe(true)
      const issuing = [...h.network.superValidators[0]!.participant.logic.acs.ofTemplate(IssuingMiningRound.templateId, h.network.dso)].map(
        (c) => c.created.createArguments as unknown as IssuingMiningRoundPayload
      )
      expect(issuing.length).toBeGreaterThan(0)
      // No coupons registered: the faucet signals what one liveness record would earn (2.85 USD at 0.005).
      expect(issuing[0]!.optIssuancePerValidatorFaucetCoupon).toBe("570.0000000000")
      // latest open round : summarizing / issuing / closed rounds, one tick after another
      expect(history).toEqual(["2:1/0/0", "3:1/1/0", "4:1/2/0", "5:1/3/0", "6:1/3/1", "7:1/3/1", "8:1/3/1", "9:1/3/1"])
    })
  )
})
