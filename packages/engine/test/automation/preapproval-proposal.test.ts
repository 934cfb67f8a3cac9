/**
 * A receiver's TransferPreapprovalProposal to its validator operator: the operator's automation
 * accepts it (TransferPreapprovalProposal_Accept), which creates the TransferPreapproval through
 * the rules and pays the preapproval fee from the operator's coin, as Splice's validator does for
 * the Wallet SDK's preapproval flow. An operator without coin leaves the proposal waiting and
 * accepts it on a later poll once it can pay.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { amountOf, formatAmount, micros, toIso } from "@sandnet/core"
import {
  Coin,
  Commands,
  DsoView,
  TransferPreapprovalProposal,
  TransferPreapprovalProposal_Accept,
  defaultWalletConfig,
  transferPreapprovalFee,
  type TransferPreapprovalPayload
} from "../../src/index.ts"
import { makeEconomy, op } from "../wallet/support.ts"

describe("transfer preapproval proposals", () => {
  it.effect("the provider's automation accepts a proposal made to it, creating the receiver's preapproval; one to a party that is no operator stays", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy()
      const [w1, w2] = e.wallets
      const bob = (yield* op(e, w1!.onboardUser({ name: "bob" }))).party_id
      const carol = (yield* op(e, w1!.onboardUser({ name: "carol" }))).party_id
      const dave = (yield* op(e, w2!.onboardUser({ name: "dave" }))).party_id
      const participant = e.network.validators[0]!.participant
      const propose = (receiver: string, provider: string) =>
        e.run(
          participant.submit({
            actAs: [receiver],
            commandId: `propose-${receiver}`,
            commands: [Commands.create(TransferPreapprovalProposal, { receiver, provider, expectedDso: e.network.dso })],
            disclosedContracts: []
          })
        )
      yield* propose(bob, w1!.node.operator)
      yield* propose(carol, dave)
      yield* e.advance(micros.seconds(5))
      // The operator has no coin for the fee yet: the proposal waits.
      expect(DsoView.of(e.network).preapprovalOf(bob, e.clock.now)).toBeUndefined()
      expect(w1!.automation!.stats.preapprovalProposalsUnpaid).toBeGreaterThan(0)
      expect([...participant.logic.acs.ofTemplate(TransferPreapprovalProposal.templateId, bob)]).toHaveLength(1)
      // Once the operator holds coin, the next poll accepts it and burns the fee.
      yield* op(e, w1!.tap(defaultWalletConfig.validatorWalletUser, { amount: "100" }))
      yield* e.advance(defaultWalletConfig.pollInterval + micros.seconds(1))
      const price = DsoView.of(e.network).latestOpenRound(e.clock.now)!.payload.coinPrice
      const fee = transferPreapprovalFee(defaultWalletConfig.transferPreapproval.preapprovalLifetime, price)
      expect(fee).toBeGreaterThan(0n)
      expect((yield* op(e, w1!.getBalance(defaultWalletConfig.validatorWalletUser))).effective_unlocked_qty).toBe(formatAmount(amountOf("100") - fee))
      const preapproval = DsoView.of(e.network).preapprovalOf(bob, e.clock.now)
      expect(preapproval?.payload).toMatchObject({ receiver: bob, provider: w1!.node.operator, dso: e.network.dso } satisfies Partial<TransferPreapprovalPayload>)
      expect(w1!.automation!.stats.preapprovalProposalsAccepted).toBe(1)
      const proposalsLeft = [...participant.logic.acs.ofTemplate(TransferPreapprovalProposal.templateId, carol)].map((c) => c.created.createArguments)
      expect(proposalsLeft).toEqual([{ receiver: carol, provider: dave, expectedDso: e.network.dso }])
      expect(DsoView.of(e.network).preapprovalOf(carol, e.clock.now)).toBeUndefined()
    })
  )

  it.effect("the accept refuses a past expiry and rules of another DSO than the proposal expects", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 }, () => ({}), { automation: false })
      const w = e.wallets[0]!
      const bob = (yield* op(e, w.onboardUser({ name: "bob" }))).party_id
      const participant = e.network.validators[0]!.participant
      const view = DsoView.of(e.network)
      const rules = view.coinRules()!.contract
      const round = view.latestOpenRound(e.clock.now)!.contract
      const context = { coinRules: rules.created.contractId, context: { openMiningRound: round.created.contractId, featuredAppRight: null } }
      yield* op(e, w.tap(defaultWalletConfig.validatorWalletUser, { amount: "100" }))
      const inputs = [...participant.logic.acs.ofTemplate(Coin.templateId, w.node.operator)].map((c) => ({ tag: "InputCoin" as const, value: c.created.contractId }))
      const attempt = (expectedDso: string | null, expiresAt: string, commandId: string) =>
        Effect.either(
          e.run(
            participant.submit({
              actAs: [bob, w.node.operator],
              commandId,
              commands: [Commands.createAndExercise(TransferPreapprovalProposal_Accept, { receiver: bob, provider: w.node.operator, expectedDso }, { context, inputs, expiresAt })],
              disclosedContracts: [rules, round]
            })
          )
        )
      const later = toIso(e.clock.now + micros.hours(1))
      expect(yield* attempt(e.network.dso, toIso(e.clock.now - 1), "past")).toMatchObject({ left: { _tag: "ChoiceFailed", message: "expiresAt is not in the past" } })
      expect(yield* attempt(bob, later, "other-dso")).toMatchObject({ left: { _tag: "ChoiceFailed" } })
      const accepted = yield* attempt(null, later, "no-expectation")
      expect(Either.isRight(accepted)).toBe(true)
    })
  )
})
