/**
 * Request and reply shapes of the wallet service, named and shaped like the upstream wallet API
 * (splice-wallet-external.yaml, splice-wallet-internal.yaml, splice-validator-internal.yaml),
 * with the product name replaced by "coin" (`/v0/wallet/coins` lists `coins` / `locked_coins`).
 * Requests are Schemas (the HTTP layer decodes bodies with them); replies are plain JSON types.
 *
 * Amounts are decimal strings: requests accept up to 10 fractional digits ("12", "12.5"); replies
 * always carry 10 ("12.5000000000"). Times in requests (expires_at) are microseconds since the
 * epoch; times in replies are ISO-8601 with microseconds. Rounds are integers.
 */
import { Schema } from "effect"
import type { Json } from "@sandnet/core"
import type { ContractJson, ContractWithStateJson } from "../scan/json/contracts.ts"

const Amount = Schema.String.annotations({ description: "decimal, at most 10 fractional digits" })
const Int64Micros = Schema.Int.annotations({ description: "unix timestamp in microseconds" })

// ---------------------------------------------------------------- users (validator admin API)

export const OnboardUserRequest = Schema.Struct({
  name: Schema.String,
  party_id: Schema.optional(Schema.String),
  createPartyIfMissing: Schema.optional(Schema.Boolean)
})
export type OnboardUserRequest = typeof OnboardUserRequest.Type
export interface OnboardUserResponse {
  readonly party_id: string
}
export interface ListUsersResponse {
  readonly usernames: ReadonlyArray<string>
}
export interface UserStatusResponse {
  readonly party_id: string
  readonly user_onboarded: boolean
  readonly user_wallet_installed: boolean
  readonly has_featured_app_right: boolean
}

// ---------------------------------------------------------------- balance, holdings, history

export interface GetBalanceResponse {
  readonly round: number
  readonly effective_unlocked_qty: string
  readonly effective_locked_qty: string
  readonly total_holding_fees: string
}

export interface CoinPosition {
  readonly contract: ContractWithStateJson
  readonly round: number
  readonly accrued_holding_fee: string
  readonly effective_amount: string
}
export interface ListHoldingsResponse {
  readonly coins: ReadonlyArray<CoinPosition>
  readonly locked_coins: ReadonlyArray<CoinPosition>
}

export const ListTransactionsRequest = Schema.Struct({
  begin_after_id: Schema.optional(Schema.String),
  page_size: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))
})
export type ListTransactionsRequest = typeof ListTransactionsRequest.Type

export interface PartyAndAmount {
  readonly party: string
  readonly amount: string
}
export interface TransactionSubtype {
  readonly template_id: string
  readonly choice: string
  readonly coin_operation?: string
  readonly interface_id?: string
}
interface BaseTransactionItem {
  readonly transaction_subtype: TransactionSubtype
  /** `<update id>:<node id>`; pass it as begin_after_id for the next (older) page. */
  readonly event_id: string
  readonly date: string
}
export interface TransferItem extends BaseTransactionItem {
  readonly transaction_type: "transfer"
  readonly sender: PartyAndAmount
  readonly receivers: ReadonlyArray<PartyAndAmount>
  readonly holding_fees: string
  readonly app_rewards_used: string
  readonly validator_rewards_used: string
  readonly sv_rewards_used: string
  readonly development_fund_coupons_used: string
  readonly transfer_instruction_receiver?: string
  readonly transfer_instruction_amount?: string
  readonly transfer_instruction_cid?: string
  readonly description?: string
}
export interface BalanceChangeItem extends BaseTransactionItem {
  readonly transaction_type: "balance_change"
  readonly receivers: ReadonlyArray<PartyAndAmount>
  readonly transfer_instruction_cid?: string
}
export interface NotificationItem extends BaseTransactionItem {
  readonly transaction_type: "notification"
  readonly details: string
}
export type TransactionItem = TransferItem | BalanceChangeItem | NotificationItem
export interface ListTransactionsResponse {
  readonly items: ReadonlyArray<TransactionItem>
}

// ---------------------------------------------------------------- legacy transfer offers

export const CreateTransferOfferRequest = Schema.Struct({
  receiver_party_id: Schema.String,
  amount: Amount,
  description: Schema.String,
  expires_at: Int64Micros,
  tracking_id: Schema.String
})
export type CreateTransferOfferRequest = typeof CreateTransferOfferRequest.Type
export interface CreateTransferOfferResponse {
  readonly offer_contract_id: string
}

/** POST /v0/wallet/transfer-offers/{tracking_id}/status, discriminated by `status`. */
export type GetTransferOfferStatusResponse =
  | { readonly status: "created"; readonly transaction_id: string; readonly contract_id: string }
  | { readonly status: "accepted"; readonly transaction_id: string; readonly contract_id: string }
  | { readonly status: "completed"; readonly transaction_id: string; readonly contract_id: string }
  | { readonly status: "failed"; readonly failure_kind: "expired" | "rejected" | "withdrawn"; readonly withdrawn_reason?: string }

export interface ListTransferOffersResponse {
  readonly offers: ReadonlyArray<ContractJson>
}
export interface ListAcceptedTransferOffersResponse {
  readonly accepted_offers: ReadonlyArray<ContractJson>
}
export interface AcceptTransferOfferResponse {
  readonly accepted_offer_contract_id: string
}

// ---------------------------------------------------------------- preapprovals (one-step)

export interface CreateTransferPreapprovalResponse {
  readonly transfer_preapproval_contract_id: string
}
export const TransferPreapprovalSendRequest = Schema.Struct({
  receiver_party_id: Schema.String,
  amount: Amount,
  /** Only one successful transfer with this id within the deduplication period (24h upstream; the ledger's 7 days here). */
  deduplication_id: Schema.String,
  description: Schema.optional(Schema.String)
})
export type TransferPreapprovalSendRequest = typeof TransferPreapprovalSendRequest.Type
export interface TransferPreapprovalSendResponse {
  readonly update_id: string
  /** Whether the provider's FeaturedAppRight made it a featured transfer (an app reward for the provider). */
  readonly featured: boolean
}

// ---------------------------------------------------------------- token-standard transfers

export const CreateTokenStandardTransferRequest = CreateTransferOfferRequest
export type CreateTokenStandardTransferRequest = CreateTransferOfferRequest

export type TransferInstructionResultOutput =
  | { readonly transfer_instruction_cid: string }
  | { readonly receiver_holding_cids: ReadonlyArray<string> }
  | { readonly dummy?: Json }
export interface TransferInstructionResultResponse {
  readonly output: TransferInstructionResultOutput
  readonly sender_change_cids: ReadonlyArray<string>
  readonly meta: Readonly<Record<string, string>>
}
export interface ListTokenStandardTransfersResponse {
  readonly transfers: ReadonlyArray<ContractJson>
}

// ---------------------------------------------------------------- traffic

export const CreateBuyTrafficRequest = Schema.Struct({
  receiving_validator_party_id: Schema.String,
  domain_id: Schema.String,
  traffic_amount: Schema.Int,
  tracking_id: Schema.String,
  expires_at: Int64Micros
})
export type CreateBuyTrafficRequest = typeof CreateBuyTrafficRequest.Type
export interface CreateBuyTrafficRequestResponse {
  readonly request_contract_id: string
}
export type GetBuyTrafficRequestStatusResponse =
  | { readonly status: "created" }
  | { readonly status: "completed"; readonly transaction_id: string }
  | { readonly status: "failed"; readonly failure_reason: "expired" | "rejected"; readonly rejection_reason?: string }

// ---------------------------------------------------------------- devnet, rewards, delegations

export const TapRequest = Schema.Struct({ amount: Amount, command_id: Schema.optional(Schema.String) })
export type TapRequest = typeof TapRequest.Type
export interface TapResponse {
  readonly contract_id: string
}
export interface SelfGrantFeaturedAppRightResponse {
  readonly contract_id: string
}
export interface ListAppRewardCouponsResponse {
  readonly app_reward_coupons: ReadonlyArray<ContractJson>
}
export interface ListValidatorRewardCouponsResponse {
  readonly validator_reward_coupons: ReadonlyArray<ContractJson>
}
export interface ListValidatorLivenessActivityRecordsResponse {
  readonly validator_liveness_activity_records: ReadonlyArray<ContractJson>
}

export const PageRequest = Schema.Struct({
  after: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
  limit: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)))
})
export type PageRequest = typeof PageRequest.Type
/** A minting delegation (or proposal) with whether its beneficiary is hosted on the wallet's validator. */
export interface MintingDelegationWithStatus {
  readonly contract: ContractJson
  readonly beneficiary_hosted: boolean
}
export interface ListMintingDelegationProposalsResponse {
  readonly proposals: ReadonlyArray<MintingDelegationWithStatus>
  readonly next_page_token?: number
}
export interface ListMintingDelegationsResponse {
  readonly delegations: ReadonlyArray<MintingDelegationWithStatus>
  readonly next_page_token?: number
}
export interface AcceptMintingDelegationProposalResponse {
  readonly contract_id: string
}
