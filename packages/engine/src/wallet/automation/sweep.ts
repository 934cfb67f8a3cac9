/**
 * Sweeping: a configured sender's balance above its maximum goes to its receiver, down to the
 * minimum, through the receiver's preapproval when there is one and it is configured, else as a
 * transfer offer (one sweep offer open at a time).
 */
import { Effect, Either } from "effect"
import { amountOf, divAmount, formatAmount, micros as microsOf, type ActiveContract, type Amount, type Micros } from "@sandnet/core"
import { AcceptedTransferOffer, TransferOffer, TransferPreapproval_Send } from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { ok, type AutomationState } from "./state.ts"

export const sweep = (auto: AutomationState, now: Micros, ref: { readonly rules: ActiveContract; readonly round: ActiveContract; readonly roundNumber: number }): Effect.Effect<void> =>
  Effect.gen(function* () {
    const price = amountOf(auto.wallet.dso.latestOpenRound(now)!.payload.coinPrice)
    const usd = (value: number): Amount => amountOf(value.toFixed(10))
    for (const entry of auto.config.sweep) {
      if (!auto.hosts(entry.sender)) continue
      const balance = auto.wallet.balanceOf(entry.sender, now).unlocked
      const worth = (balance * price) / 10_000_000_000n
      if (worth <= usd(entry.maxBalanceUSD)) continue
      const amount = balance - divAmount(usd(entry.minBalanceUSD), price)
      if (amount <= 0n) continue
      // One sweep at a time: wait while an earlier sweep offer is open.
      const acs = auto.wallet.participant.logic.acs
      const pending = [...acs.ofTemplate(TransferOffer.templateId, entry.sender), ...acs.ofTemplate(AcceptedTransferOffer.templateId, entry.sender)].some((c) =>
        (c.created.createArguments as { trackingId?: string }).trackingId?.startsWith(`sweep:${entry.sender}:`)
      )
      if (pending) continue
      const preapproval = entry.useTransferPreapproval ? auto.wallet.dso.preapprovalOf(entry.receiver, now) : undefined
      const selected = auto.wallet.selectCoins(entry.sender, amount, ref.roundNumber)
      if (Either.isLeft(selected)) continue
      if (preapproval !== undefined) {
        const featured = auto.wallet.dso.featuredAppRightOf(preapproval.payload.provider)
        yield* auto.run(
          [entry.sender],
          [],
          `auto:sweep:${entry.sender}:${now}`,
          [
            Commands.exercise(TransferPreapproval_Send, preapproval.contract.created.contractId, {
              sender: entry.sender,
              coinRules: ref.rules.created.contractId,
              context: { openMiningRound: ref.round.created.contractId, featuredAppRight: featured?.contract.created.contractId ?? null },
              inputs: selected.right.map((value) => ({ tag: "InputCoin" as const, value })),
              amount: formatAmount(amount),
              description: "sweep"
            })
          ],
          [ref.rules, ref.round, preapproval.contract, ...(featured === undefined ? [] : [featured.contract])],
          selected.right,
          ok(() => auto.stats.sweeps++)
        )
        continue
      }
      const user = auto.wallet.state.userOfParty.get(entry.sender)
      if (user === undefined) continue
      const created = yield* Effect.either(
        auto.wallet.createTransferOffer(user, {
          receiver_party_id: entry.receiver,
          amount: formatAmount(amount),
          description: "sweep",
          expires_at: now + microsOf.days(1),
          tracking_id: `sweep:${entry.sender}:${now}`
        })
      )
      if (Either.isRight(created)) auto.stats.sweeps++
    }
  })
