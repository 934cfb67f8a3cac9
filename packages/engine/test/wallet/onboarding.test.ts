import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ValidatorRight, type WalletError } from "../../src/index.ts"
import { makeEconomy, op } from "./support.ts"

describe("onboarding", () => {
  it.effect("a second user of a party submits nothing; a party onboarded again after offboarding gets its wallet contracts again", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 }, () => ({}), { automation: false })
      const w = e.wallets[0]!
      const rights = (party: string) =>
        [...e.network.validators[0]!.participant.logic.acs.ofTemplate(ValidatorRight.templateId, party)].filter((c) => (c.created.createArguments as { user: string }).user === party)
      const alice = yield* op(e, w.onboardUser({ name: "alice" }))
      expect(rights(alice.party_id)).toHaveLength(1)
      // A second user on the same party.
      expect(yield* op(e, w.onboardUser({ name: "alice-2", party_id: alice.party_id }))).toEqual(alice)
      expect(rights(alice.party_id)).toHaveLength(1)
      expect((yield* w.listUsers()).usernames).toEqual(["alice", "alice-2", "operator"])
      // Offboarding archives the right; onboarding the party again recreates it.
      yield* op(e, w.offboardUser("alice"))
      yield* op(e, w.offboardUser("alice-2"))
      expect(rights(alice.party_id)).toHaveLength(0)
      expect(yield* op(e, w.onboardUser({ name: "alice", party_id: alice.party_id }))).toEqual(alice)
      expect(rights(alice.party_id)).toHaveLength(1)
    })
  )

  it.effect("offers and token-standard transfers to a party nobody hosts are invalid", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 }, () => ({}), { automation: false })
      const w = e.wallets[0]!
      yield* op(e, w.onboardUser({ name: "alice" }))
      yield* op(e, w.tap("alice", { amount: "10" }))
      const ghost = `ghost::1220${"ab".repeat(32)}`
      const request = { receiver_party_id: ghost, amount: "1", description: "", expires_at: e.clock.now + 3_600_000_000, tracking_id: "g" }
      const attempts: ReadonlyArray<Effect.Effect<unknown, WalletError>> = [w.createTransferOffer("alice", request), w.createTokenStandardTransfer("alice", request)]
      for (const attempt of attempts) {
        const failed = yield* Effect.either(op(e, attempt))
        expect(failed._tag === "Left" && failed.left._tag === "InvalidArgument" && failed.left.field).toBe("receiver_party_id")
      }
    })
  )
})
