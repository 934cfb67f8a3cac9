/**
 * Traffic automations: pay the users' buy-traffic requests (or reject them when the user lacks
 * coin), and top up the participant's own traffic on each synchronizer when it runs low (tapping
 * on a development network when the operator has no coin).
 */
import { Effect, Either } from "effect"
import { amountOf, divAmount, formatAmount, type ActiveContract, type Amount, type ContractId, type Micros } from "@sandnet/core"
import {
  BuyTrafficRequest_Cancel,
  BuyTrafficRequest_Complete,
  CoinRules_BuyMemberTraffic,
  CoinRules_DevNet_Tap,
  configAt,
  trafficCostUsd,
  type BuyTrafficRequestPayload
} from "../../coin/index.ts"
import { expiryOf, isExpired } from "../../coin/expiry.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { payloadOf } from "../context.ts"
import { ok, type AutomationState, type Reference } from "./state.ts"

/** Files a user's buy-traffic request: to pay (when configured) and to expire. Whether to act at once. */
export const fileBuyTrafficRequest = (auto: AutomationState, contractId: ContractId, p: BuyTrafficRequestPayload): boolean => {
  if (!auto.hosts(p.endUserParty)) return false
  let urgent = false
  if (auto.config.completeBuyTrafficRequests) {
    auto.trafficQueue.add(contractId)
    urgent = true
  }
  auto.fileExpiry(expiryOf(p.expiresAt), { contractId, kind: "buyTraffic", actor: p.endUserParty })
  return urgent
}

/** Pays a user's buy-traffic request, or rejects it when the user cannot pay. */
export const completeBuyTraffic = (auto: AutomationState, cid: ContractId, now: Micros, ref: Reference): Effect.Effect<void> =>
  Effect.gen(function* () {
    const c = auto.wallet.participant.logic.acs.get(cid)
    if (c === undefined) return void auto.trafficQueue.delete(cid)
    const p = payloadOf<BuyTrafficRequestPayload>(c)
    if (isExpired(expiryOf(p.expiresAt), now)) return void auto.trafficQueue.delete(cid)
    const rules = auto.wallet.dso.coinRules()!.payload
    const round = auto.wallet.dso.latestOpenRound(now)!.payload
    const cost = divAmount(trafficCostUsd(configAt(rules, now), Number(p.trafficAmount)), amountOf(round.coinPrice))
    const selected = auto.wallet.selectCoins(p.endUserParty, cost, ref.roundNumber)
    if (Either.isLeft(selected)) {
      if (auto.wallet.balanceOf(p.endUserParty, now).unlocked >= cost) return
      auto.trafficQueue.delete(cid)
      yield* auto.run([p.endUserParty], [], `auto:buy-traffic-reject:${cid}`, [Commands.exercise(BuyTrafficRequest_Cancel, cid, { reason: `insufficient funds: ${selected.left.available} available, ${selected.left.required} needed` })], [], [], ok(() => auto.stats.buyTrafficRequestsRejected++))
      return
    }
    auto.trafficQueue.delete(cid)
    yield* auto.run(
      [p.endUserParty],
      [],
      `auto:buy-traffic:${cid}`,
      [Commands.exercise(BuyTrafficRequest_Complete, cid, { inputs: selected.right.map((value) => ({ tag: "InputCoin" as const, value })), context: auto.context(ref) })],
      [ref.rules, ref.round],
      selected.right,
      (completion) => {
        if (completion._tag === "Succeeded") {
          auto.stats.buyTrafficRequestsCompleted++
          noteTraffic(auto, Number(p.trafficAmount), cost)
        } else auto.trafficQueue.add(cid)
      }
    )
  })

const noteTraffic = (auto: AutomationState, bytes: number, coin: Amount): void => {
  auto.stats.trafficPurchases++
  auto.stats.trafficBytesBought += bytes
  auto.stats.trafficCoinBurned += coin
}

/** Buys traffic for the participant on each synchronizer where its extra traffic runs low. */
export const topUp = (auto: AutomationState, now: Micros, ref: { readonly rules: ActiveContract; readonly round: ActiveContract; readonly roundNumber: number; readonly isDevNet: boolean }): Effect.Effect<void> =>
  Effect.gen(function* () {
    const { targetThroughput, minTopupInterval, tapOnDevNet } = auto.config.buyExtraTraffic
    const rules = auto.wallet.dso.coinRules()!.payload
    const config = configAt(rules, now)
    const min = Number(config.decentralizedSynchronizer.fees.minTopupAmount)
    const bytes = Math.max(min, Math.ceil((targetThroughput * minTopupInterval) / 1_000_000))
    const member = auto.wallet.participant.logic.uid
    const price = amountOf(auto.wallet.dso.latestOpenRound(now)!.payload.coinPrice)
    for (const s of auto.wallet.network.synchronizers) {
      const synchronizerId = s.info.synchronizerId
      const last = auto.wallet.state.lastTopup.get(synchronizerId)
      if (last !== undefined && now - last < minTopupInterval) continue
      const traffic = s.sequencer.logic.trafficOf(member, now)
      if (traffic.extraTrafficLimit - traffic.extraTrafficConsumed >= bytes) continue
      const cost = divAmount(trafficCostUsd(config, bytes), price)
      const selected = auto.wallet.selectCoins(auto.operator, cost, ref.roundNumber)
      if (Either.isLeft(selected)) {
        if (ref.isDevNet && tapOnDevNet) {
          yield* auto.run(
            [auto.operator],
            [],
            `auto:topup-tap:${synchronizerId}:${now}`,
            [Commands.exercise(CoinRules_DevNet_Tap, ref.rules.created.contractId, { receiver: auto.operator, amount: formatAmount(cost * 2n), openRound: ref.round.created.contractId })],
            [ref.rules, ref.round],
            [],
            ok(() => auto.stats.taps++)
          )
        }
        continue
      }
      auto.wallet.apply({ _tag: "TopupRecorded", synchronizerId, at: now })
      yield* auto.run(
        [auto.operator],
        [],
        `auto:topup:${synchronizerId}:${now}`,
        [
          Commands.exercise(CoinRules_BuyMemberTraffic, ref.rules.created.contractId, {
            inputs: selected.right.map((value) => ({ tag: "InputCoin" as const, value })),
            context: { openMiningRound: ref.round.created.contractId, featuredAppRight: null },
            provider: auto.operator,
            memberId: member,
            synchronizerId,
            migrationId: String(s.info.migrationId),
            trafficAmount: String(bytes)
          })
        ],
        [ref.rules, ref.round],
        selected.right,
        ok(() => noteTraffic(auto, bytes, cost))
      )
    }
  })
