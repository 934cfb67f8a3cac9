/**
 * Traffic purchases: coin is burned and a MemberTraffic contract records the extra traffic bought
 * for a member (a participant) on a synchronizer. The super validators watch MemberTraffic
 * contracts and tell the synchronizer's sequencer the member's new extra-traffic limit
 * (SetExtraTrafficLimit), which only ever grows.
 *
 * Price: trafficAmount bytes cost trafficAmount / 1e6 * extraTrafficPrice USD (USD per MB),
 * converted to coin at the open round's price. At least minTopupAmount bytes per purchase.
 */
import { Schema } from "effect"
import { Int64, Numeric, Party, Text, amountOf, divAmount, formatAmount, type Amount, type Json } from "@sandnet/core"
import { defineChoice, defineTemplate } from "../ledger/template.ts"
import { Coin } from "./coin.ts"
import { CoinPackage } from "./packages.ts"
import { CoinRules, CoinRules_Transfer, TransferContext, TransferInput, configAt, requireOpenRound, type CoinConfig } from "./rules.ts"

export const MemberTrafficPayload = Schema.Struct({
  dso: Party,
  /** The member's uid (e.g. PAR::validator1::1220...). */
  memberId: Text,
  synchronizerId: Text,
  migrationId: Int64,
  /** Bytes of extra traffic bought by this purchase. */
  totalPurchased: Int64,
  numPurchases: Int64,
  coinSpent: Numeric,
  usdSpent: Numeric
})
export type MemberTrafficPayload = typeof MemberTrafficPayload.Type

export const MemberTraffic = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.DecentralizedSynchronizer",
  entity: "MemberTraffic",
  payload: MemberTrafficPayload,
  signatories: (p) => [p.dso]
})

/** USD cost of `bytes` of extra traffic. */
export const trafficCostUsd = (config: CoinConfig, bytes: number): Amount =>
  divAmount(BigInt(bytes) * amountOf(config.decentralizedSynchronizer.fees.extraTrafficPrice), 1_000_000n * 10_000_000_000n)

export const BuyMemberTrafficArgument = Schema.Struct({
  inputs: Schema.Array(TransferInput),
  context: TransferContext,
  provider: Party,
  memberId: Text,
  synchronizerId: Text,
  migrationId: Int64,
  trafficAmount: Int64
})
export type BuyMemberTrafficArgument = typeof BuyMemberTrafficArgument.Type

export const CoinRules_BuyMemberTraffic = defineChoice(CoinRules, {
  name: "CoinRules_BuyMemberTraffic",
  consuming: false,
  argument: BuyMemberTrafficArgument,
  controllers: (_p, arg) => [arg.provider],
  body: (ctx, self, arg): Json => {
    const config = configAt(self.payload, ctx.ledgerTime)
    const bytes = Number(arg.trafficAmount)
    const min = Number(config.decentralizedSynchronizer.fees.minTopupAmount)
    ctx.require(bytes >= min, `a traffic purchase buys at least ${min} bytes, got ${bytes}`)
    ctx.require(arg.memberId.length > 0 && arg.synchronizerId.length > 0, "member and synchronizer are required")
    const round = requireOpenRound(ctx, arg.context.openMiningRound)
    const usd = trafficCostUsd(config, bytes)
    const coin = divAmount(usd, amountOf(round.coinPrice))
    ctx.require(coin > 0n, "the traffic costs nothing")
    // Split the price off into a coin of the provider's and burn it (Splice's splitAndBurn).
    const transfer = ctx.exercise(CoinRules_Transfer, self.contractId, {
      transfer: {
        sender: arg.provider,
        provider: arg.provider,
        inputs: arg.inputs,
        outputs: [{ receiver: arg.provider, receiverFeeRatio: "0.0000000000", amount: formatAmount(coin) }],
        beneficiaries: null
      },
      context: { ...arg.context, featuredAppRight: null },
      expectedDso: self.payload.dso
    }) as { createdCoins: ReadonlyArray<{ value: string }>; senderChangeCoin: string | null }
    const burnCid = transfer.createdCoins[0]?.value
    if (burnCid === undefined) return ctx.fail("the transfer created no coin to burn")
    ctx.archive(Coin, burnCid)
    const purchasedTraffic = ctx.create(MemberTraffic, {
      dso: self.payload.dso,
      memberId: arg.memberId,
      synchronizerId: arg.synchronizerId,
      migrationId: arg.migrationId,
      totalPurchased: String(bytes),
      numPurchases: "1",
      coinSpent: formatAmount(coin),
      usdSpent: formatAmount(usd)
    })
    return { coinPaid: formatAmount(coin), purchasedTraffic, senderChangeCoin: transfer.senderChangeCoin }
  }
})

