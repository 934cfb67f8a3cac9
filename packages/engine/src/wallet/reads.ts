/**
 * The wallet's reads: users, balances and holdings, the contracts a user sees (offers, transfers,
 * reward coupons, delegations), and the status of what the wallet tracks (offers, buy-traffic
 * requests, tracking ids, delegations). Pure queries of the node's ledger and the wallet's records.
 */
import { Either } from "effect"
import { amountOf, formatAmount, type ActiveContract, type ContractId, type Micros, type PartyId } from "@sandnet/core"
import {
  AcceptedTransferOffer,
  AppRewardCoupon,
  Coin,
  CoinTransferInstruction,
  LockedCoin,
  MintingDelegation,
  MintingDelegationProposal,
  TransferOffer,
  ValidatorLivenessActivityRecord,
  ValidatorRewardCoupon,
  currentAmount,
  type AcceptedTransferOfferPayload,
  type CoinPayload,
  type LockedCoinPayload,
  type MintingDelegationPayload
} from "../coin/index.ts"
import { buyTrafficRequestMachine, buyTrafficRequestStatus } from "../machines/buy-traffic-request.ts"
import { stateOf } from "../machines/lifecycle.ts"
import { transferOfferMachine } from "../machines/transfer-offer.ts"
import { renderContract, type ContractJson } from "../scan/json/contracts.ts"
import type * as Api from "./api.ts"
import { payloadOf, type WalletContext } from "./context.ts"
import { holdingTotalsOf, type HoldingTotals } from "./holding-totals.ts"
import { TrackingIdNotFound, type WalletError } from "./errors.ts"
import { trackingKey, type TrackedKind } from "./journal.ts"
import { restoreSnapshot } from "./snapshots.ts"

export const listUsers = (wallet: WalletContext): Api.ListUsersResponse => ({ usernames: [...wallet.state.users.keys()].sort() })

export const userStatus = (wallet: WalletContext, user: string): Either.Either<Api.UserStatusResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => ({
    party_id: party,
    user_onboarded: true,
    user_wallet_installed: true,
    has_featured_app_right: wallet.dso.featuredAppRightOf(party) !== undefined
  }))

/** The round fees are computed at: the newest open round. */
export const currentRound = (wallet: WalletContext, now: Micros): number => Number(wallet.dso.latestOpenRound(now)?.payload.round.number ?? 0)

export const coinsOf = (wallet: WalletContext, party: PartyId): ReadonlyArray<ActiveContract> =>
  wallet.participant.logic.acs.listOfTemplate(Coin.templateId, party, (c) => payloadOf<CoinPayload>(c).owner === party)

export const lockedCoinsOf = (wallet: WalletContext, party: PartyId): ReadonlyArray<ActiveContract> =>
  wallet.participant.logic.acs.listOfTemplate(LockedCoin.templateId, party, (c) => payloadOf<LockedCoinPayload>(c).coin.owner === party)

/** The party's balance: sum of its holdings' current amounts, with the holding fees they accrued (kept up to date, holding-totals.ts). */
export const balanceOf = (wallet: WalletContext, party: PartyId, now: Micros): HoldingTotals =>
  holdingTotalsOf(wallet.participant.logic.acs, party, currentRound(wallet, now))

export const getBalance = (wallet: WalletContext, user: string, now: Micros): Either.Either<Api.GetBalanceResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => {
    const b = balanceOf(wallet, party, now)
    return { round: b.round, effective_unlocked_qty: formatAmount(b.unlocked), effective_locked_qty: formatAmount(b.locked), total_holding_fees: formatAmount(b.holdingFees) }
  })

export const listHoldings = (wallet: WalletContext, user: string, now: Micros): Either.Either<Api.ListHoldingsResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => {
    const round = currentRound(wallet, now)
    const position = (c: ActiveContract, amount: CoinPayload["amount"]): Api.CoinPosition => {
      const value = currentAmount(amount, round)
      return {
        contract: { contract: renderContract(c), domain_id: c.synchronizerId },
        round,
        accrued_holding_fee: formatAmount(amountOf(amount.initialAmount) - value),
        effective_amount: formatAmount(value)
      }
    }
    return {
      coins: coinsOf(wallet, party).map((c) => position(c, payloadOf<CoinPayload>(c).amount)),
      locked_coins: lockedCoinsOf(wallet, party).map((c) => position(c, payloadOf<LockedCoinPayload>(c).coin.amount))
    }
  })

/** Active contracts of a template where the party is a stakeholder and `filter` holds. */
export const contractsOf = (wallet: WalletContext, templateId: string, party: PartyId, filter: (payload: unknown) => boolean = () => true): ReadonlyArray<ContractJson> =>
  [...wallet.participant.logic.acs.ofTemplate(templateId, party)].filter((c) => filter(c.created.createArguments)).map((c) => renderContract(c))

export const listTransferOffers = (wallet: WalletContext, user: string): Either.Either<Api.ListTransferOffersResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => ({ offers: contractsOf(wallet, TransferOffer.templateId, party) }))

export const listAcceptedTransferOffers = (wallet: WalletContext, user: string): Either.Either<Api.ListAcceptedTransferOffersResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => ({ accepted_offers: contractsOf(wallet, AcceptedTransferOffer.templateId, party) }))

export const listTokenStandardTransfers = (wallet: WalletContext, user: string): Either.Either<Api.ListTokenStandardTransfersResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => ({ transfers: contractsOf(wallet, CoinTransferInstruction.templateId, party) }))

export const listAppRewardCoupons = (wallet: WalletContext, user: string): Either.Either<Api.ListAppRewardCouponsResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => ({ app_reward_coupons: contractsOf(wallet, AppRewardCoupon.templateId, party).slice(0, 1000) }))

export const listValidatorRewardCoupons = (wallet: WalletContext, user: string): Either.Either<Api.ListValidatorRewardCouponsResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => ({
    validator_reward_coupons: contractsOf(wallet, ValidatorRewardCoupon.templateId, party, (p) => (p as { user: string }).user === party).slice(0, 1000)
  }))

export const listValidatorLivenessActivityRecords = (wallet: WalletContext, user: string): Either.Either<Api.ListValidatorLivenessActivityRecordsResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => ({
    validator_liveness_activity_records: contractsOf(wallet, ValidatorLivenessActivityRecord.templateId, party).slice(0, 1000)
  }))

/** Delegations with whether their beneficiary is hosted on this validator's participant. */
const withBeneficiaryHosted = (
  wallet: WalletContext,
  contracts: ReadonlyArray<ContractJson>,
  beneficiary: (payload: unknown) => PartyId
): ReadonlyArray<Api.MintingDelegationWithStatus> =>
  contracts.map((contract) => ({ contract, beneficiary_hosted: wallet.participant.logic.hosts(beneficiary(contract.payload)) }))

export const listMintingDelegationProposals = (wallet: WalletContext, user: string, page: Api.PageRequest): Either.Either<Api.ListMintingDelegationProposalsResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => {
    const all = contractsOf(wallet, MintingDelegationProposal.templateId, party, (p) => (p as { delegation: MintingDelegationPayload }).delegation.delegate === party)
    const { items, next } = pageOf(all, page)
    const proposals = withBeneficiaryHosted(wallet, items, (p) => (p as { delegation: MintingDelegationPayload }).delegation.beneficiary)
    return { proposals, ...(next === undefined ? {} : { next_page_token: next }) }
  })

export const listMintingDelegations = (wallet: WalletContext, user: string, page: Api.PageRequest): Either.Either<Api.ListMintingDelegationsResponse, WalletError> =>
  Either.map(wallet.partyOf(user), (party) => {
    const all = contractsOf(wallet, MintingDelegation.templateId, party, (p) => (p as MintingDelegationPayload).delegate === party)
    const { items, next } = pageOf(all, page)
    const delegations = withBeneficiaryHosted(wallet, items, (p) => (p as MintingDelegationPayload).beneficiary)
    return { delegations, ...(next === undefined ? {} : { next_page_token: next }) }
  })

export const getTransferOfferStatus = (wallet: WalletContext, user: string, trackingId: string): Either.Either<Api.GetTransferOfferStatusResponse, WalletError> =>
  Either.flatMap(wallet.partyOf(user), (party): Either.Either<Api.GetTransferOfferStatusResponse, WalletError> => {
    const record = wallet.state.offers.get(trackingKey(party, "transferOffer", trackingId))
    if (record === undefined) return Either.left(new TrackingIdNotFound({ trackingId }))
    const state = record.offer.state
    switch (state) {
      case "created":
        return Either.right({ status: "created", transaction_id: record.createdTransactionId, contract_id: record.offerContractId })
      case "accepted":
        return Either.right({ status: "accepted", transaction_id: record.acceptedTransactionId ?? "", contract_id: record.acceptedContractId ?? "" })
      case "completed":
        return Either.right({ status: "completed", transaction_id: record.completedTransactionId ?? "", contract_id: record.completedContractId ?? "" })
      default:
        return Either.right({
          status: "failed",
          failure_kind: record.failureKind ?? (state === "expired" ? "expired" : state === "rejected" ? "rejected" : "withdrawn"),
          ...(record.withdrawnReason === null ? {} : { withdrawn_reason: record.withdrawnReason })
        })
    }
  })

export const getBuyTrafficRequestStatus = (wallet: WalletContext, user: string, trackingId: string): Either.Either<Api.GetBuyTrafficRequestStatusResponse, WalletError> =>
  Either.flatMap(wallet.partyOf(user), (party): Either.Either<Api.GetBuyTrafficRequestStatusResponse, WalletError> => {
    const record = wallet.state.buyTraffic.get(trackingKey(party, "buyTraffic", trackingId))
    if (record === undefined) return Either.left(new TrackingIdNotFound({ trackingId }))
    const status = buyTrafficRequestStatus(restoreSnapshot(buyTrafficRequestMachine, record.request))
    switch (status.status) {
      case "created":
        return Either.right({ status: "created" })
      case "completed":
        return Either.right({ status: "completed", transaction_id: record.completedTransactionId ?? "" })
      case "failed":
        return Either.right({ status: "failed", failure_reason: status.failureReason, ...(status.rejectionReason === null ? {} : { rejection_reason: status.rejectionReason }) })
    }
  })

/** The lifecycle state of a tracked offer (for tests and diagnostics). */
export const offerState = (wallet: WalletContext, party: PartyId, trackingId: string): string | undefined => {
  const record = wallet.state.offers.get(trackingKey(party, "transferOffer", trackingId))
  return record === undefined ? undefined : stateOf(restoreSnapshot(transferOfferMachine, record.offer))
}

/** The lifecycle state of a tracking id ("free", "inProgress", "created"). */
export const trackingState = (wallet: WalletContext, party: PartyId, kind: TrackedKind, trackingId: string): string | undefined =>
  wallet.state.tracking.get(trackingKey(party, kind, trackingId))?.tracking.state

/** Accepted offers the wallet's users sent, for the completion automation. */
export const acceptedOffersToComplete = (wallet: WalletContext): ReadonlyArray<ActiveContract> => {
  const out: Array<ActiveContract> = []
  for (const party of wallet.userParties()) {
    for (const c of wallet.participant.logic.acs.ofTemplate(AcceptedTransferOffer.templateId, party)) if (payloadOf<AcceptedTransferOfferPayload>(c).sender === party) out.push(c)
  }
  return out
}

/** The owner's active MergeDelegation contract, if any. */
export const mergeDelegationOf = (wallet: WalletContext, owner: PartyId): ContractId | undefined => {
  const record = wallet.state.mergeDelegations.get(owner)
  return record !== undefined && record.delegation.state === "active" ? record.contractId : undefined
}


const pageOf = <A>(all: ReadonlyArray<A>, page: Api.PageRequest): { readonly items: ReadonlyArray<A>; readonly next: number | undefined } => {
  const from = page.after ?? 0
  const limit = Math.min(page.limit ?? 1000, 1000)
  const items = all.slice(from, from + limit)
  return { items, next: from + limit < all.length ? from + limit : undefined }
}
