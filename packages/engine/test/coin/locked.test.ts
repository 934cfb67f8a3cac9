import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { micros } from "@sandnet/core"
import { CoinRules_Transfer, Commands, DsoView, LockedCoin, type LockedCoinPayload } from "../../src/index.ts"
import { makeEconomy, op } from "../wallet/support.ts"

describe("locked coin", () => {
  it("is never spendable while locked, and comes back whole when the transfer is withdrawn, rejected or expires", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("withdraw" as const, "reject" as const, "expire" as const), fc.integer({ min: 1, max: 400 }), (ending, amount) =>
        Effect.runPromise(
          Effect.gen(function* () {
            const e = yield* makeEconomy()
            const [w1, w2] = e.wallets
            const alice = yield* op(e, w1!.onboardUser({ name: "alice" }))
            const bob = yield* op(e, w2!.onboardUser({ name: "bob" }))
            yield* op(e, w1!.tap("alice", { amount: "500" }))
            const created = yield* op(
              e,
              w1!.createTokenStandardTransfer("alice", { receiver_party_id: bob.party_id, amount: String(amount), description: "", expires_at: e.clock.now + micros.minutes(20), tracking_id: "i" })
            )
            const cid = "transfer_instruction_cid" in created.output ? created.output.transfer_instruction_cid : ""
            const acs = e.network.validators[0]!.participant.logic.acs
            const locked = [...acs.ofTemplate(LockedCoin.templateId, alice.party_id)]
            expect(locked).toHaveLength(1)
            const lockedId = locked[0]!.created.contractId
            const lockedAmount = (locked[0]!.created.createArguments as unknown as LockedCoinPayload).coin.amount.initialAmount
            // The wallet never offers it as an input...
            expect(w1!.node.spendable(alice.party_id, 0).map((c) => c.contract.created.contractId)).not.toContain(lockedId)
            // ...and the rules refuse it: it is not a Coin.
            const view = DsoView.of(e.network)
            const rules = view.coinRules()!.contract
            const round = view.latestOpenRound(e.clock.now)!.contract
            const spend = yield* Effect.either(
              e.run(
                e.network.validators[0]!.participant.submit({
                  actAs: [alice.party_id],
                  commandId: "spend-locked",
                  commands: [
                    Commands.exercise(CoinRules_Transfer, rules.created.contractId, {
                      transfer: { sender: alice.party_id, provider: alice.party_id, inputs: [{ tag: "InputCoin", value: lockedId }], outputs: [], beneficiaries: null },
                      context: { openMiningRound: round.created.contractId, featuredAppRight: null },
                      expectedDso: null
                    })
                  ],
                  disclosedContracts: [rules, round]
                })
              )
            )
            expect(Either.isLeft(spend)).toBe(true)
            if (ending === "withdraw") yield* op(e, w1!.withdrawTokenStandardTransfer("alice", cid))
            else if (ending === "reject") yield* op(e, w2!.rejectTokenStandardTransfer("bob", cid))
            else yield* e.advance(micros.minutes(22))
            expect([...acs.ofTemplate(LockedCoin.templateId, alice.party_id)]).toHaveLength(0)
            // The unlocked coin carries the locked amount unchanged (same creation round, same fee rate).
            const holdings = yield* op(e, w1!.listHoldings("alice"))
            expect(holdings.coins.map((c) => (c.contract.contract.payload as { amount: { initialAmount: string } }).amount.initialAmount)).toContain(lockedAmount)
            expect((yield* op(e, w2!.getBalance("bob"))).effective_unlocked_qty).toBe("0.0000000000")
          })
        )
      ),
      { numRuns: 12 }
    )
  }, 120_000)
})
