import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { amountOf, formatAmount, micros } from "@sandnet/core"
import { Coin, currentAmount, type CoinPayload } from "../../src/index.ts"
import { makeEconomy, op } from "../wallet/support.ts"

describe("merge and dust automations", () => {
  it("merging a party's holdings never changes its balance (beyond holding fees)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 100, max: 5_000_000 }), { minLength: 11, maxLength: 60 }), (cents) =>
        Effect.runPromise(
          Effect.gen(function* () {
            const e = yield* makeEconomy({ validators: 1 }, () => ({ rewardCollection: false }))
            const w = e.wallets[0]!
            const alice = yield* op(e, w.onboardUser({ name: "alice" }))
            for (const [i, c] of cents.entries()) yield* op(e, w.tap("alice", { amount: formatAmount(BigInt(c) * 100_000_000n), command_id: `t${i}` }))
            const acs = e.network.validators[0]!.participant.logic.acs
            const coins = () => [...acs.ofTemplate(Coin.templateId, alice.party_id)].map((c) => (c.created.createArguments as unknown as CoinPayload).amount)
            const original = coins()
            expect(original.length).toBe(cents.length)
            yield* e.advance(micros.minutes(5))
            const merged = coins()
            expect(merged.length).toBeLessThanOrEqual(10)
            // Compared in the round the merge ran in: the holding fees accrued so far are burned, the
            // value moves unchanged. (Later the merged holding pays one holding's fee instead of many.)
            const mergeRound = Math.max(...merged.map((a) => Number(a.createdAt.number)))
            const valueAt = (amounts: ReadonlyArray<CoinPayload["amount"]>) => amounts.reduce((n, a) => n + currentAmount(a, mergeRound), 0n)
            expect(valueAt(merged)).toBe(valueAt(original))
            expect(w.automation!.stats.holdingsMerged).toBeGreaterThanOrEqual(cents.length - 10)
          })
        )
      ),
      { numRuns: 10 }
    )
  }, 120_000)

  it.effect("a holding whose initial amount falls below its accrued holding fee expires as dust", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 }, () => ({ merge: { enabled: false } }))
      const w = e.wallets[0]!
      const alice = yield* op(e, w.onboardUser({ name: "alice" }))
      // 0.001 coin pays 1/52560 USD / 0.005 = 0.0038 coin a round: dust after one round.
      yield* op(e, w.tap("alice", { amount: "0.001", command_id: "dust" }))
      yield* op(e, w.tap("alice", { amount: "5", command_id: "keep" }))
      const acs = e.network.validators[0]!.participant.logic.acs
      expect([...acs.ofTemplate(Coin.templateId, alice.party_id)]).toHaveLength(2)
      yield* e.advance(micros.minutes(25))
      const left = [...acs.ofTemplate(Coin.templateId, alice.party_id)].map((c) => (c.created.createArguments as unknown as CoinPayload).amount.initialAmount)
      expect(left).toEqual(["5.0000000000"])
      const dso = e.dso.reduce((n, a) => n + a.stats.dustExpired, 0)
      expect(dso).toBe(1)
      const history = yield* op(e, w.listTransactions("alice", { page_size: 10 }))
      expect(history.items[0]).toMatchObject({ transaction_type: "balance_change", receivers: [{ party: alice.party_id, amount: "-0.0010000000" }] })
      expect(amountOf((yield* op(e, w.getBalance("alice"))).effective_unlocked_qty)).toBeLessThan(amountOf("5"))
    })
  )
})
