/**
 * The wallet's legacy transfer offers (package splice-wallet) and buy-traffic requests.
 *
 * A TransferOffer does not lock coin: the receiver accepts it before expiresAt (ledger time), which
 * creates an AcceptedTransferOffer signed by both; the sender's wallet automation then completes it
 * with a CoinRules_Transfer whose provider is the sender's wallet provider (the validator operator).
 * Legacy transfers are never featured. If the sender lacks coin at that time the automation aborts
 * the accepted offer (the transfer failed).
 */
import { Schema } from "effect"
import { ContractIdRef, Int64, Numeric, Party, Text, Timestamp, amountOf, formatAmount, type Json } from "@sandnet/core"
import { defineChoice, defineTemplate, type ContractView, type UpdateContext } from "../ledger/template.ts"
import { expiryOf, isExpired } from "./expiry.ts"
import { WalletPackage } from "./packages.ts"
import { CoinRules_Transfer, OpenMiningRound_Fetch, TransferContext, TransferInput, usdToCoin, type OpenMiningRoundPayload } from "./rules.ts"
import { CoinRules_BuyMemberTraffic } from "./traffic.ts"

export const PaymentAmount = Schema.Struct({ amount: Numeric, unit: Schema.Literal("CoinUnit", "USDUnit") })
export type PaymentAmount = typeof PaymentAmount.Type

/** The rules and the transfer context an automation passes to pay (Splice's PaymentTransferContext). */
export const PaymentTransferContext = Schema.Struct({ coinRules: ContractIdRef, context: TransferContext })
export type PaymentTransferContext = typeof PaymentTransferContext.Type

const TrackingInfo = (p: { readonly trackingId: string; readonly sender: string; readonly receiver: string }): Json => ({
  trackingId: p.trackingId,
  sender: p.sender,
  receiver: p.receiver
})

const requireExpired = (ctx: UpdateContext, expiresAt: string): void =>
  ctx.require(isExpired(expiryOf(expiresAt), ctx.ledgerTime), "Contract has expired")

const requireNotExpired = (ctx: UpdateContext, expiresAt: string): void =>
  ctx.require(!isExpired(expiryOf(expiresAt), ctx.ledgerTime), "Offer has not expired")

const requireStakeholder = <P>(ctx: UpdateContext, self: ContractView<P>, actor: string): void =>
  ctx.require([...self.signatories, ...self.observers].includes(actor), "Actor is a stakeholder")

export const TransferOfferPayload = Schema.Struct({
  sender: Party,
  receiver: Party,
  dso: Party,
  amount: PaymentAmount,
  description: Text,
  expiresAt: Timestamp,
  /** Deduplicates creation and names the offer in status queries. */
  trackingId: Text
})
export type TransferOfferPayload = typeof TransferOfferPayload.Type

export const TransferOffer = defineTemplate({
  pkg: WalletPackage,
  module: "Splice.Wallet.TransferOffer",
  entity: "TransferOffer",
  payload: TransferOfferPayload,
  signatories: (p) => [p.sender],
  observers: (p) => [p.receiver],
  ensure: (p) => {
    if (p.description.length >= 280) return "the description is shorter than 280 characters"
    if (p.trackingId.length >= 280) return "the tracking id is shorter than 280 characters"
    return amountOf(p.amount.amount) > 0n ? undefined : "the amount must be positive"
  }
})

export const AcceptedTransferOfferPayload = Schema.Struct({
  sender: Party,
  receiver: Party,
  dso: Party,
  amount: PaymentAmount,
  expiresAt: Timestamp,
  trackingId: Text
})
export type AcceptedTransferOfferPayload = typeof AcceptedTransferOfferPayload.Type

export const AcceptedTransferOffer = defineTemplate({
  pkg: WalletPackage,
  module: "Splice.Wallet.TransferOffer",
  entity: "AcceptedTransferOffer",
  payload: AcceptedTransferOfferPayload,
  signatories: (p) => [p.sender, p.receiver]
})

export const TransferOffer_Accept = defineChoice(TransferOffer, {
  name: "TransferOffer_Accept",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.receiver],
  body: (ctx, self): Json => {
    requireNotExpired(ctx, self.payload.expiresAt)
    const { sender, receiver, dso, amount, expiresAt, trackingId } = self.payload
    return { acceptedTransferOffer: ctx.create(AcceptedTransferOffer, { sender, receiver, dso, amount, expiresAt, trackingId }) }
  }
})

export const TransferOffer_Reject = defineChoice(TransferOffer, {
  name: "TransferOffer_Reject",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.receiver],
  body: (_ctx, self): Json => ({ trackingInfo: TrackingInfo(self.payload) })
})

export const TransferOffer_Withdraw = defineChoice(TransferOffer, {
  name: "TransferOffer_Withdraw",
  consuming: true,
  argument: Schema.Struct({ reason: Text }),
  controllers: (p) => [p.sender],
  body: (_ctx, self): Json => ({ trackingInfo: TrackingInfo(self.payload) })
})

export const TransferOffer_Expire = defineChoice(TransferOffer, {
  name: "TransferOffer_Expire",
  consuming: true,
  argument: Schema.Struct({ actor: Party }),
  controllers: (_p, arg) => [arg.actor],
  body: (ctx, self, arg): Json => {
    requireExpired(ctx, self.payload.expiresAt)
    requireStakeholder(ctx, self, arg.actor)
    return { trackingInfo: TrackingInfo(self.payload) }
  }
})

export const AcceptedTransferOffer_Complete = defineChoice(AcceptedTransferOffer, {
  name: "AcceptedTransferOffer_Complete",
  consuming: true,
  argument: Schema.Struct({ inputs: Schema.Array(TransferInput), transferContext: PaymentTransferContext, walletProvider: Party }),
  controllers: (p, arg) => [p.sender, arg.walletProvider],
  body: (ctx, self, arg): Json => {
    requireNotExpired(ctx, self.payload.expiresAt)
    const amount =
      self.payload.amount.unit === "CoinUnit"
        ? amountOf(self.payload.amount.amount)
        : usdToCoin(
            amountOf(self.payload.amount.amount),
            ctx.exercise(OpenMiningRound_Fetch, arg.transferContext.context.openMiningRound, { p: self.payload.sender }) as unknown as OpenMiningRoundPayload
          )
    const transferResult = ctx.exercise(CoinRules_Transfer, arg.transferContext.coinRules, {
      transfer: {
        sender: self.payload.sender,
        // The sender's wallet provider is the provider; legacy transfers are never featured.
        provider: arg.walletProvider,
        inputs: arg.inputs,
        outputs: [{ receiver: self.payload.receiver, receiverFeeRatio: "0.0000000000", amount: formatAmount(amount) }],
        beneficiaries: null
      },
      context: { ...arg.transferContext.context, featuredAppRight: null },
      expectedDso: self.payload.dso
    }) as { senderChangeCoin: Json }
    return { transferResult, trackingInfo: TrackingInfo(self.payload), senderChangeCoin: transferResult.senderChangeCoin }
  }
})

/** The receiver takes back its acceptance. */
export const AcceptedTransferOffer_Withdraw = defineChoice(AcceptedTransferOffer, {
  name: "AcceptedTransferOffer_Withdraw",
  consuming: true,
  argument: Schema.Struct({ reason: Text }),
  controllers: (p) => [p.receiver],
  body: (_ctx, self): Json => ({ trackingInfo: TrackingInfo(self.payload) })
})

/** The sender gives up, e.g. it lacks the coin to pay. */
export const AcceptedTransferOffer_Abort = defineChoice(AcceptedTransferOffer, {
  name: "AcceptedTransferOffer_Abort",
  consuming: true,
  argument: Schema.Struct({ reason: Text }),
  controllers: (p) => [p.sender],
  body: (_ctx, self): Json => ({ trackingInfo: TrackingInfo(self.payload) })
})

export const AcceptedTransferOffer_Expire = defineChoice(AcceptedTransferOffer, {
  name: "AcceptedTransferOffer_Expire",
  consuming: true,
  argument: Schema.Struct({ actor: Party }),
  controllers: (_p, arg) => [arg.actor],
  body: (ctx, self, arg): Json => {
    requireExpired(ctx, self.payload.expiresAt)
    requireStakeholder(ctx, self, arg.actor)
    return { trackingInfo: TrackingInfo(self.payload) }
  }
})

// ---------------------------------------------------------------- buy-traffic requests

export const BuyTrafficRequestPayload = Schema.Struct({
  dso: Party,
  endUserParty: Party,
  expiresAt: Timestamp,
  trackingId: Text,
  trafficAmount: Int64,
  memberId: Text,
  synchronizerId: Text,
  migrationId: Int64
})
export type BuyTrafficRequestPayload = typeof BuyTrafficRequestPayload.Type

/** A wallet user's request to buy traffic; the wallet automation pays it before it expires. */
export const BuyTrafficRequest = defineTemplate({
  pkg: WalletPackage,
  module: "Splice.Wallet.BuyTrafficRequest",
  entity: "BuyTrafficRequest",
  payload: BuyTrafficRequestPayload,
  signatories: (p) => [p.endUserParty],
  ensure: (p) => (Number(p.trafficAmount) > 0 ? undefined : "the traffic amount must be positive")
})

export const BuyTrafficRequest_Complete = defineChoice(BuyTrafficRequest, {
  name: "BuyTrafficRequest_Complete",
  consuming: true,
  argument: Schema.Struct({ inputs: Schema.Array(TransferInput), context: PaymentTransferContext }),
  controllers: (p) => [p.endUserParty],
  body: (ctx, self, arg): Json => {
    requireNotExpired(ctx, self.payload.expiresAt)
    const result = ctx.exercise(CoinRules_BuyMemberTraffic, arg.context.coinRules, {
      inputs: arg.inputs,
      context: arg.context.context,
      provider: self.payload.endUserParty,
      memberId: self.payload.memberId,
      synchronizerId: self.payload.synchronizerId,
      migrationId: self.payload.migrationId,
      trafficAmount: self.payload.trafficAmount
    }) as { purchasedTraffic: Json; senderChangeCoin: Json }
    return { purchasedTraffic: result.purchasedTraffic, senderChangeCoin: result.senderChangeCoin, trackingId: self.payload.trackingId }
  }
})

export const BuyTrafficRequest_Cancel = defineChoice(BuyTrafficRequest, {
  name: "BuyTrafficRequest_Cancel",
  consuming: true,
  argument: Schema.Struct({ reason: Text }),
  controllers: (p) => [p.endUserParty],
  body: (_ctx, self): Json => ({ trackingId: self.payload.trackingId })
})

export const BuyTrafficRequest_Expire = defineChoice(BuyTrafficRequest, {
  name: "BuyTrafficRequest_Expire",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.endUserParty],
  body: (ctx, self): Json => {
    requireExpired(ctx, self.payload.expiresAt)
    return { trackingId: self.payload.trackingId }
  }
})
