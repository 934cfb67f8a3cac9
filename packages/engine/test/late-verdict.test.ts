import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ErrorCodes, zeroDelayLink, type LinkModel } from "../src/index.ts"
import { makeHarness, submitTap } from "./support.ts"

/**
 * A mediator that is unavailable for longer than the participants wait for a verdict (the
 * confirmation response timeout plus the mediator reaction timeout) must not get a verdict
 * sequenced when it comes back: the participants have timed the request out by then. Found by the
 * simulator (a mediator outage of 70-120s in faults-crash): the returning mediator processed the
 * held request and its confirmations, sequenced an ACCEPTED verdict, and every super validator's
 * scan recorded an accepted transaction that no participant committed.
 */
describe("a verdict after the participants' decision time", () => {
  it.effect("is never sequenced; the submitter's command times out and no scan records it", () =>
    Effect.gen(function* () {
      // Everything sent to the mediator while `down` arrives 90 seconds later (held by the sequencer).
      let down = false
      const link: LinkModel = {
        route: (from, to, message, now, ordered) => (down && to.startsWith("MED::") ? [now + 90_000_000] : zeroDelayLink.route(from, to, message, now, ordered))
      }
      const h = yield* makeHarness({ superValidators: 1, validators: 1 }, link)
      const v1 = h.network.validators[0]!
      const alice = yield* h.run(v1.participant.allocateParty("alice"))
      down = true
      const { updateId } = yield* submitTap(h, v1.participant, alice, "10", "tap")
      yield* h.driver.runUntil(h.clock.now + 5_000_000)
      down = false
      yield* h.driver.runUntilIdle()

      const completion = v1.participant.logic.completionOf("tap", [alice])
      expect(completion?._tag === "Failed" ? completion.code : completion?._tag).toBe(ErrorCodes.localVerdictTimeout)
      for (const node of h.network.participants) expect(node.logic.updateById(updateId)).toBeUndefined()
      const scan = h.network.superValidators[0]!.scan
      expect(scan.verdictOf(updateId)).toBeUndefined()
      expect(h.network.synchronizers[0]!.sequencer.logic.stats.expired).toBeGreaterThan(0)
    })
  )
})
