import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { zeroDelayLink, type LinkModel } from "../src/index.ts"
import { makeHarness, submitTap } from "./support.ts"

/**
 * A confirmation request the mediator receives again after it decided the first (a network that
 * duplicates a message) is rejected as a duplicate of its update id: the first verdict stands,
 * the transaction is committed once, and every scan keeps the accepted verdict.
 */
describe("a mediator request received again after its verdict", () => {
  it.effect("is rejected as a duplicate; the first verdict stands", () =>
    Effect.gen(function* () {
      let duplicating = false
      const link: LinkModel = {
        route: (from, to, message, now, ordered) => {
          const routes = zeroDelayLink.route(from, to, message, now, ordered)
          return duplicating && to.startsWith("MED::") ? [...routes, now + 2_000_000] : routes
        }
      }
      const h = yield* makeHarness({ superValidators: 1, validators: 1 }, link)
      const v1 = h.network.validators[0]!
      const alice = yield* h.run(v1.participant.allocateParty("alice"))
      const mediator = h.network.synchronizers[0]!.mediator.logic
      const before = { ...mediator.stats }
      duplicating = true
      const { updateId } = yield* submitTap(h, v1.participant, alice, "10", "tap")
      yield* h.driver.runUntil(h.clock.now + 10_000_000)
      duplicating = false
      yield* h.driver.runUntilIdle()

      expect(mediator.stats.duplicates - before.duplicates).toBeGreaterThan(0)
      expect(v1.participant.logic.completionOf("tap", [alice])?._tag).toBe("Succeeded")
      const committed = [...v1.participant.logic.log].filter((entry) => entry.update.updateId === updateId)
      expect(committed).toHaveLength(1)
      expect(h.network.superValidators[0]!.scan.verdictOf(updateId)?.verdict.result).toBe("VERDICT_RESULT_ACCEPTED")
    })
  )
})
