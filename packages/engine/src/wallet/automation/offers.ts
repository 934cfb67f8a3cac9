/**
 * Transfer-offer automations: accept offers for receivers that auto-accept their sender, and pay
 * the accepted offers the wallet's users sent (or abort them when the sender lacks coin).
 */
import { Effect, Either } from "effect"
import { amountOf, divAmount, type ContractId, type Micros, type PartyId } from "@sandnet/core"
import {
  AcceptedTransferOffer_Abort,
  AcceptedTransferOffer_Complete,
  TransferOffer_Accept,
  type AcceptedTransferOfferPayload,
  type TransferOfferPayload
} from "../../coin/index.ts"
import { expiryOf, isExpired } from "../../coin/expiry.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { refusalOf } from "../../machines/lifecycle.ts"
import { payloadOf } from "../context.ts"
import { offerLifecycle } from "../lifecycles.ts"
import { ok, type AutomationState, type Reference } from "./state.ts"

/** Files a new offer: to accept when its receiver auto-accepts its sender, to expire when a user sent it. Whether to act at once. */
export const fileOffer = (auto: AutomationState, contractId: ContractId, p: TransferOfferPayload): boolean => {
  let urgent = false
  if (auto.hosts(p.receiver) && autoAccepts(auto, p.receiver, p.sender)) {
    auto.acceptQueue.add(contractId)
    urgent = true
  }
  if (auto.hosts(p.sender)) auto.fileExpiry(expiryOf(p.expiresAt), { contractId, kind: "offer", actor: p.sender })
  return urgent
}

/** Files an accepted offer a user sent: to pay (when configured) and to expire. Whether to act at once. */
export const fileAcceptedOffer = (auto: AutomationState, contractId: ContractId, p: AcceptedTransferOfferPayload): boolean => {
  if (!auto.hosts(p.sender)) return false
  let urgent = false
  if (auto.config.completeAcceptedOffers) {
    auto.completeQueue.add(contractId)
    urgent = true
  }
  auto.fileExpiry(expiryOf(p.expiresAt), { contractId, kind: "accepted", actor: p.sender })
  return urgent
}

const autoAccepts = (auto: AutomationState, receiver: PartyId, sender: PartyId): boolean =>
  auto.config.autoAcceptTransfers.some((e) => e.receiver === receiver && e.fromParties.some((p) => p === "*" || p === sender))

/** Accepts the queued offers that are still open. */
export const acceptOffers = (auto: AutomationState, now: Micros): Effect.Effect<void> =>
  Effect.gen(function* () {
    const acs = auto.wallet.participant.logic.acs
    for (const cid of [...auto.acceptQueue]) {
      auto.acceptQueue.delete(cid)
      const c = acs.get(cid)
      if (c === undefined) continue
      const p = payloadOf<TransferOfferPayload>(c)
      // An offer its lifecycle no longer lets be accepted (past its expiry) is left to expire.
      if (refusalOf(offerLifecycle(auto.wallet, c), { type: "accept", ledgerTime: now }) !== undefined) continue
      yield* auto.run([p.receiver], [], `auto:accept:${cid}`, [Commands.exercise(TransferOffer_Accept, cid, {})], [], [], ok(() => auto.stats.offersAutoAccepted++))
    }
  })

/** Pays an accepted offer a user sent, or aborts it when the sender cannot pay. */
export const completeAccepted = (auto: AutomationState, cid: ContractId, now: Micros, ref: Reference): Effect.Effect<void> =>
  Effect.gen(function* () {
    const c = auto.wallet.participant.logic.acs.get(cid)
    if (c === undefined) return void auto.completeQueue.delete(cid)
    const p = payloadOf<AcceptedTransferOfferPayload>(c)
    // Past its expiry it can only expire (the expiry automation does it).
    if (isExpired(expiryOf(p.expiresAt), now)) return void auto.completeQueue.delete(cid)
    const round = auto.wallet.dso.latestOpenRound(now)!.payload
    const amount = p.amount.unit === "CoinUnit" ? amountOf(p.amount.amount) : divAmount(amountOf(p.amount.amount), amountOf(round.coinPrice))
    const selected = auto.wallet.selectCoins(p.sender, amount, ref.roundNumber)
    if (Either.isLeft(selected)) {
      // Coin held by commands in flight may come back: wait. Otherwise the sender cannot pay.
      if (auto.wallet.balanceOf(p.sender, now).unlocked >= amount) return
      auto.completeQueue.delete(cid)
      yield* auto.run([p.sender], [], `auto:abort:${cid}`, [Commands.exercise(AcceptedTransferOffer_Abort, cid, { reason: `insufficient funds: ${selected.left.available} available, ${selected.left.required} needed` })], [], [], ok(() => auto.stats.acceptedOffersAborted++))
      return
    }
    auto.completeQueue.delete(cid)
    yield* auto.run(
      [p.sender, auto.operator],
      [],
      `auto:complete:${cid}`,
      [
        Commands.exercise(AcceptedTransferOffer_Complete, cid, {
          inputs: selected.right.map((value) => ({ tag: "InputCoin" as const, value })),
          transferContext: auto.context(ref),
          walletProvider: auto.operator
        })
      ],
      [ref.rules, ref.round],
      selected.right,
      (completion) => {
        if (completion._tag === "Succeeded") auto.stats.acceptedOffersCompleted++
        // A lost race for a coin: try again on the next wake.
        else auto.completeQueue.add(cid)
      }
    )
  })
