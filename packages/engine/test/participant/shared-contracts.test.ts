/**
 * The nodes that commit a creation share one active contract object (it is immutable): with twenty
 * super validators each would otherwise hold its own copy of every coin, the DSO being a
 * stakeholder of each.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Coin } from "../../src/index.ts"
import { makeEconomy, op } from "../wallet/support.ts"

describe("active contracts committed by several nodes", () => {
  it.effect("are one object on every node that commits them, with the same content", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ superValidators: 3, validators: 1 })
      const w = e.wallets[0]!
      const alice = yield* op(e, w.onboardUser({ name: "alice" }))
      for (let i = 0; i < 5; i++) yield* op(e, w.tap("alice", { amount: `${i + 1}` }))
      const nodes = [...e.network.superValidators.map((sv) => sv.participant), e.network.validators[0]!.participant]
      const coins = [...nodes[0]!.logic.acs.ofTemplate(Coin.templateId, alice.party_id)]
      expect(coins.length).toBe(5)
      for (const coin of coins) {
        for (const node of nodes) expect(node.logic.acs.get(coin.created.contractId)).toBe(coin)
      }
    })
  )
})
