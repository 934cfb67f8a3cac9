/**
 * Issue 15: one automation's failure stays with that automation (logged, counted, backed off in
 * engine time) and the tick and the other automations go on; and no sequence of taps, transfers
 * and merges makes an amount outside Numeric 10's range (coin is conserved).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { formatAmount, inNumericRange, MAX_HOLDING_TOTAL, micros, parseAmount } from "@sandnet/core"
import { Coin, type CoinPayload } from "../../src/index.ts"
import { makeEconomy, op } from "../wallet/support.ts"

describe("automation isolation", () => {
  it.effect("a step that throws leaves the others and the tick working, and shows in the status", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 }, () => ({ rewardCollection: false }))
      const w = e.wallets[0]!
      const automation = w.automation!
      let attempts = 0
      automation.extraSteps.push({
        name: "injected",
        run: () =>
          Effect.sync(() => {
            attempts++
            throw new Error("injected failure")
          })
      })
      const alice = yield* op(e, w.onboardUser({ name: "alice" }))
      for (let i = 0; i < 12; i++) yield* op(e, w.tap("alice", { amount: "1", command_id: `t${i}` }))
      yield* e.advance(micros.minutes(20))
      // The merge automation still ran (12 holdings become at most 10).
      const acs = e.network.validators[0]!.participant.logic.acs
      expect([...acs.ofTemplate(Coin.templateId, alice.party_id)].length).toBeLessThanOrEqual(10)
      expect(automation.stats.mergeTransactions).toBeGreaterThan(0)
      const injected = automation.status().find((s) => s.step === "injected")
      expect(injected).toMatchObject({ failures: attempts, lastError: expect.stringContaining("injected failure") })
      expect(injected!.retryAt).toBeGreaterThan(0)
      // Backoff: far fewer attempts than polls in twenty minutes.
      expect(attempts).toBeGreaterThan(1)
      expect(attempts).toBeLessThan(micros.minutes(20) / automation.config.pollInterval / 2)
      // Other requests keep working.
      yield* op(e, w.tap("alice", { amount: "1", command_id: "after" }))
    })
  )

  it("no sequence of taps, transfers and merges leaves Numeric 10's range; coin is conserved", async () => {
    const big = fc.oneof(fc.bigInt({ min: 1n, max: MAX_HOLDING_TOTAL }), fc.constantFrom(MAX_HOLDING_TOTAL, MAX_HOLDING_TOTAL / 2n + 1n, 10n ** 37n - 1n))
    const action = fc.record({ user: fc.constantFrom("alice", "bob"), amount: big, transfer: fc.boolean() })
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 14 }), (actions) =>
        Effect.runPromise(
          Effect.gen(function* () {
            const e = yield* makeEconomy({ validators: 1 }, () => ({ rewardCollection: false, merge: { enabled: true, maxHoldings: 2, batchSize: 100 } }))
            const w = e.wallets[0]!
            const parties = { alice: (yield* op(e, w.onboardUser({ name: "alice" }))).party_id, bob: (yield* op(e, w.onboardUser({ name: "bob" }))).party_id }
            const acs = e.network.validators[0]!.participant.logic.acs
            const coins = () => [parties.alice, parties.bob].flatMap((p) => [...acs.ofTemplate(Coin.templateId, p)]).map((c) => (c.created.createArguments as unknown as CoinPayload).amount.initialAmount)
            let tapped = 0n
            for (const [i, a] of actions.entries()) {
              const amount = formatAmount(a.amount)
              if (a.transfer) {
                const [receiver, receiverParty] = a.user === "alice" ? (["bob", parties.bob] as const) : (["alice", parties.alice] as const)
                const offer = yield* Effect.either(
                  op(e, w.createTransferOffer(a.user, { receiver_party_id: receiverParty, amount, description: "p", expires_at: e.clock.now + micros.minutes(10), tracking_id: `o${i}` }))
                )
                if (Either.isRight(offer)) yield* Effect.either(op(e, w.acceptTransferOffer(receiver, offer.right.offer_contract_id)))
              } else {
                const tap = yield* Effect.either(op(e, w.tap(a.user, { amount, command_id: `t${i}` })))
                if (Either.isRight(tap)) tapped += a.amount
              }
              yield* e.advance(micros.seconds(30))
              for (const c of coins()) expect(inNumericRange(parseAmount(c)!)).toBe(true)
            }
            // Conservation: the initial amounts of the coins never exceed what was tapped.
            expect(coins().reduce((n, c) => n + parseAmount(c)!, 0n)).toBeLessThanOrEqual(tapped)
          })
        )
      ),
      { numRuns: 8 }
    )
  }, 180_000)
})
