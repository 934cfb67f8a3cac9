/**
 * Legacy transfer offers (POST /v0/wallet/transfer-offers): the sender creates one under a
 * tracking id; the receiver accepts or rejects it, the sender withdraws it. The sender's wallet
 * automation pays accepted offers (automation/).
 */
import { Effect, Either } from "effect"
import { InvalidArgument, formatAmount, toIso, type ActiveContract, type ContractId, type PartyId } from "@sandnet/core"
import { TransferOffer, TransferOffer_Accept, TransferOffer_Reject, TransferOffer_Withdraw, type TransferOfferPayload } from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { transferOfferMachine } from "../../machines/transfer-offer.ts"
import type * as Api from "../api.ts"
import { payloadOf, type WalletContext } from "../context.ts"
import { OfferNotFound, type WalletError } from "../errors.ts"
import { allowed, offerLifecycle } from "../lifecycles.ts"
import { submitted, type Outcome } from "../outcome.ts"
import { expectSuccess, knownReceiver, nowMicros, submit, validAmount, validReceiver, withinHoldingLimit } from "../submission.ts"
import { decide, submitTracked } from "../tracking.ts"

export const createTransferOffer = (wallet: WalletContext, user: string, request: Api.CreateTransferOfferRequest): Effect.Effect<Outcome<Api.CreateTransferOfferResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const now = yield* nowMicros
    const amount = yield* validAmount(request.amount)
    yield* validReceiver(request.receiver_party_id, party)
    yield* withinHoldingLimit(wallet, request.receiver_party_id as PartyId, amount, now)
    yield* knownReceiver(wallet, request.receiver_party_id)
    if (request.description.length >= 280) return yield* new InvalidArgument({ field: "description", message: "must be shorter than 280 characters" })
    if (!Number.isSafeInteger(request.expires_at) || request.expires_at <= now) return yield* new InvalidArgument({ field: "expires_at", message: "must be a time in the future, in microseconds" })
    const key = yield* decide(wallet, "transferOffer", party, request.tracking_id)
    const commandId = `wallet:transfer-offer:${request.tracking_id}`
    const payload: TransferOfferPayload = {
      sender: party,
      receiver: request.receiver_party_id,
      dso: wallet.network.dso,
      amount: { amount: formatAmount(amount), unit: "CoinUnit" },
      description: request.description,
      expiresAt: toIso(request.expires_at),
      trackingId: request.tracking_id
    }
    yield* submitTracked(wallet, party, "transferOffer", request.tracking_id, key, [party], commandId, [Commands.create(TransferOffer, payload)], [], [])
    return submitted({ commandId, actAs: [party], finish: (c) => expectSuccess(c, (results) => ({ offer_contract_id: String(results[0]) })) })
  })

const offerFor = (wallet: WalletContext, party: PartyId, contractId: ContractId, role: "sender" | "receiver"): Either.Either<{ readonly contract: ActiveContract; readonly payload: TransferOfferPayload }, OfferNotFound> => {
  const contract = wallet.participant.logic.visibleContract(contractId, new Set([party]))
  if (contract === undefined || contract.created.templateId !== TransferOffer.templateId) return Either.left(new OfferNotFound({ contractId }))
  const payload = payloadOf<TransferOfferPayload>(contract)
  return payload[role] === party ? Either.right({ contract, payload }) : Either.left(new OfferNotFound({ contractId }))
}

export const acceptTransferOffer = (wallet: WalletContext, user: string, contractId: ContractId): Effect.Effect<Outcome<Api.AcceptTransferOfferResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const now = yield* nowMicros
    const { contract, payload } = yield* offerFor(wallet, party, contractId, "receiver")
    // At the ledger time the accepting transaction will get (now): the expiry rule the contract checks.
    yield* allowed(transferOfferMachine, offerLifecycle(wallet, contract), { type: "accept", ledgerTime: now }, contractId, payload.expiresAt)
    const commandId = `wallet:accept:${contractId}`
    yield* submit(wallet, [party], [], commandId, [Commands.exercise(TransferOffer_Accept, contractId, {})], [], [])
    return submitted({
      commandId,
      actAs: [party],
      finish: (c) => expectSuccess(c, (results) => ({ accepted_offer_contract_id: String((results[0] as { acceptedTransferOffer?: string } | null)?.acceptedTransferOffer ?? "") }))
    })
  })

export const rejectTransferOffer = (wallet: WalletContext, user: string, contractId: ContractId): Effect.Effect<Outcome<void>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const { contract, payload } = yield* offerFor(wallet, party, contractId, "receiver")
    yield* allowed(transferOfferMachine, offerLifecycle(wallet, contract), { type: "reject" }, contractId, payload.expiresAt)
    const commandId = `wallet:reject:${contractId}`
    yield* submit(wallet, [party], [], commandId, [Commands.exercise(TransferOffer_Reject, contractId, {})], [], [])
    return submitted({ commandId, actAs: [party], finish: (c) => expectSuccess(c, () => undefined) })
  })

export const withdrawTransferOffer = (wallet: WalletContext, user: string, contractId: ContractId, reason = "withdrawn by the sender"): Effect.Effect<Outcome<void>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const { contract, payload } = yield* offerFor(wallet, party, contractId, "sender")
    yield* allowed(transferOfferMachine, offerLifecycle(wallet, contract), { type: "withdraw" }, contractId, payload.expiresAt)
    const commandId = `wallet:withdraw:${contractId}`
    yield* submit(wallet, [party], [], commandId, [Commands.exercise(TransferOffer_Withdraw, contractId, { reason })], [], [])
    return submitted({ commandId, actAs: [party], finish: (c) => expectSuccess(c, () => undefined) })
  })

