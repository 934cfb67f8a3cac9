import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { amountOf, micros, namespaceOf } from "@sandnet/core"
import { makeEconomy, op } from "../wallet/support.ts"

const party = (hint: string, validator: string) => `${hint}::${namespaceOf(`sandnet:participant:${validator}`)}`

describe("sweep and preapproval renewal", () => {
  it.effect("sweeps a sender's excess to its receiver through the receiver's preapproval, down to the minimum", () =>
    Effect.gen(function* () {
      const alice = party("alice", "validator1")
      const bob = party("bob", "validator2")
      const e = yield* makeEconomy({}, (i) => (i === 0 ? { sweep: [{ sender: alice, receiver: bob, maxBalanceUSD: 2, minBalanceUSD: 1 }] } : {}))
      const [w1, w2] = e.wallets
      expect((yield* op(e, w1!.onboardUser({ name: "alice" }))).party_id).toBe(alice)
      expect((yield* op(e, w2!.onboardUser({ name: "bob" }))).party_id).toBe(bob)
      yield* op(e, w2!.createTransferPreapproval("bob"))
      // 1000 coin is worth 5 USD: over the 2 USD maximum; 200 coin (1 USD) stay.
      yield* op(e, w1!.tap("alice", { amount: "1000" }))
      yield* e.advance(micros.minutes(2))
      expect(w1!.automation!.stats.sweeps).toBe(1)
      expect(amountOf((yield* op(e, w2!.getBalance("bob"))).effective_unlocked_qty)).toBe(amountOf("800"))
      expect(amountOf((yield* op(e, w1!.getBalance("alice"))).effective_unlocked_qty)).toBe(amountOf("200"))
    })
  )

  it.effect("the provider renews the preapprovals it provides before they expire", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 }, () => ({ transferPreapproval: { preapprovalLifetime: "2h", renewalDuration: "30m" } }))
      const w = e.wallets[0]!
      yield* op(e, w.onboardUser({ name: "bob" }))
      yield* op(e, w.createTransferPreapproval("bob"))
      yield* e.advance(micros.hours(3))
      expect(w.automation!.stats.preapprovalsRenewed).toBeGreaterThanOrEqual(2)
      const bob = (yield* op(e, w.userStatus("bob"))).party_id
      expect(w.node.dso.preapprovalOf(bob, e.clock.now)).toBeDefined()
    })
  )
})
