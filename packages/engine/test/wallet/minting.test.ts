import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { micros, toIso } from "@sandnet/core"
import { Commands, MintingDelegationProposal, MintingDelegationProposal_Withdraw } from "../../src/index.ts"
import { makeEconomy, op } from "./support.ts"

describe("minting-delegation proposals", () => {
  it.effect("the delegate accepts (replacing an older delegation) or rejects; the beneficiary withdraws; lifecycles follow", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 })
      const w = e.wallets[0]!
      const bob = yield* op(e, w.onboardUser({ name: "bob" }))
      // The beneficiary stands in for an external party (its proposals are its own signed commands).
      const beneficiary = yield* e.run(e.network.validators[0]!.participant.allocateParty("external-1"))
      const propose = (n: number) =>
        Effect.gen(function* () {
          const { transaction } = yield* e.run(
            e.network.validators[0]!.participant.submit({
              actAs: [beneficiary],
              commandId: `propose-${n}`,
              commands: [
                Commands.create(MintingDelegationProposal, {
                  delegation: { beneficiary, delegate: bob.party_id, dso: e.network.dso, expiresAt: toIso(e.clock.now + micros.days(30)), coinMergeLimit: "10" }
                })
              ]
            })
          )
          yield* e.settle
          return transaction.createdContractIds[0]!
        })
      const first = yield* propose(1)
      const second = yield* propose(2)
      const third = yield* propose(3)
      expect((yield* op(e, w.listMintingDelegationProposals("bob", {}))).proposals).toHaveLength(3)
      const accepted = yield* op(e, w.acceptMintingDelegationProposal("bob", first))
      // Accepting a second proposal of the same beneficiary replaces the first delegation.
      yield* op(e, w.acceptMintingDelegationProposal("bob", second))
      const delegations = (yield* op(e, w.listMintingDelegations("bob", {}))).delegations
      expect(delegations).toHaveLength(1)
      expect(delegations[0]!.contract.contract_id).not.toBe(accepted.contract_id)
      yield* e.run(e.network.validators[0]!.participant.submit({ actAs: [beneficiary], commandId: "withdraw-3", commands: [Commands.exercise(MintingDelegationProposal_Withdraw, third, {})] }))
      yield* e.settle
      const states = [...w.node.state.mintingDelegations.values()].map((r) => r.delegation.state)
      expect(states).toEqual(["accepted", "accepted", "withdrawn"])
      yield* op(e, w.rejectMintingDelegation("bob", delegations[0]!.contract.contract_id))
      expect((yield* op(e, w.listMintingDelegations("bob", {}))).delegations).toHaveLength(0)
      const missing = yield* Effect.either(op(e, w.acceptMintingDelegationProposal("bob", third)))
      expect(Either.isLeft(missing) && missing.left._tag).toBe("DelegationNotFound")
    })
  )
})
