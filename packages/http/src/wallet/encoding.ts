/**
 * Request and reply Schemas of the wallet surface: the shapes of splice-wallet-external.yaml,
 * splice-wallet-internal.yaml and splice-validator-internal.yaml with "coin" for "amulet" (the
 * upstream names are served too where they differ: `/v0/wallet/amulets` answers `amulets` and
 * `locked_amulets`). They decode the requests, encode the replies and make the OpenAPI document.
 */
import { HttpApiSchema } from "@effect/platform"
import { ExternalPartyWallet, WalletTypes } from "@sandnet/engine"
import { Schema } from "effect"
import { Contract, ContractWithState, JsonValue } from "../scan/index.ts"

const Amount = Schema.String.annotations({
  description:
    "A positive decimal string: digits, optionally a dot and 1 to 10 fractional digits (`12`, `12.5`, `0.0000000001`); no sign, exponent or grouping. Replies always carry 10 fractional digits."
})
const Micros = Schema.Int.annotations({ description: "Unix time in microseconds (int64), compared with the ledger effective time" })
const TrackingId = Schema.String.annotations({ description: "Exactly-once submission key (non-empty), per user" })

/** 200 without a body (the upstream "ok"). */
export const Ok = HttpApiSchema.Empty(200)

// ---------------------------------------------------------------- external API

/** W1. */
export const CreateTransferOfferRequest = Schema.Struct({
  receiver_party_id: Schema.String.annotations({ description: "The party id of the receiver" }),
  amount: Amount,
  description: Schema.String.annotations({ description: "Shown to the receiver; shorter than 280 characters" }),
  expires_at: Micros,
  tracking_id: TrackingId
}).annotations({ identifier: "CreateTransferOfferRequest" })

export const CreateTransferOfferResponse = Schema.Struct({ offer_contract_id: Schema.String }).annotations({
  identifier: "CreateTransferOfferResponse"
})

const statusWith = <S extends string>(status: S, identifier: string) =>
  Schema.Struct({ status: Schema.Literal(status), transaction_id: Schema.String, contract_id: Schema.String }).annotations({ identifier })

export const GetTransferOfferStatusResponse = Schema.Union(
  statusWith("created", "TransferOfferCreatedResponse"),
  statusWith("accepted", "TransferOfferAcceptedResponse"),
  statusWith("completed", "TransferOfferCompletedResponse"),
  Schema.Struct({
    status: Schema.Literal("failed"),
    failure_kind: Schema.Literal("expired", "rejected", "withdrawn"),
    withdrawn_reason: Schema.optional(Schema.String)
  }).annotations({ identifier: "TransferOfferFailedResponse" })
).annotations({ identifier: "GetTransferOfferStatusResponse" })

export const ListTransferOffersResponse = Schema.Struct({ offers: Schema.Array(Contract) }).annotations({ identifier: "ListTransferOffersResponse" })

export const CreateBuyTrafficRequest = Schema.Struct({
  receiving_validator_party_id: Schema.String,
  domain_id: Schema.String,
  traffic_amount: Schema.Int.annotations({ description: "Bytes, at least the synchronizer's minimum top-up (200,000)" }),
  tracking_id: TrackingId,
  expires_at: Micros
}).annotations({ identifier: "CreateBuyTrafficRequest" })

export const CreateBuyTrafficRequestResponse = Schema.Struct({ request_contract_id: Schema.String }).annotations({
  identifier: "CreateBuyTrafficRequestResponse"
})

export const GetBuyTrafficRequestStatusResponse = Schema.Union(
  Schema.Struct({ status: Schema.Literal("created") }).annotations({ identifier: "BuyTrafficRequestCreatedResponse" }),
  Schema.Struct({ status: Schema.Literal("completed"), transaction_id: Schema.String }).annotations({ identifier: "BuyTrafficRequestCompletedResponse" }),
  Schema.Struct({
    status: Schema.Literal("failed"),
    failure_reason: Schema.Literal("expired", "rejected"),
    rejection_reason: Schema.optional(Schema.String)
  }).annotations({ identifier: "BuyTrafficRequestFailedResponse" })
).annotations({ identifier: "GetBuyTrafficRequestStatusResponse" })

// ---------------------------------------------------------------- internal API

export const UserStatusResponse = Schema.Struct({
  party_id: Schema.String,
  user_onboarded: Schema.Boolean,
  user_wallet_installed: Schema.Boolean,
  has_featured_app_right: Schema.Boolean
}).annotations({ identifier: "UserStatusResponse" })

export const GetBalanceResponse = Schema.Struct({
  round: Schema.Int,
  effective_unlocked_qty: Schema.String,
  effective_locked_qty: Schema.String,
  total_holding_fees: Schema.String
}).annotations({ identifier: "GetBalanceResponse" })

export const CoinPosition = Schema.Struct({
  contract: ContractWithState,
  round: Schema.Int,
  accrued_holding_fee: Schema.String,
  effective_amount: Schema.String
}).annotations({ identifier: "CoinPosition" })

export const ListCoinsResponse = Schema.Struct({ coins: Schema.Array(CoinPosition), locked_coins: Schema.Array(CoinPosition) }).annotations({
  identifier: "ListCoinsResponse"
})

/** Upstream's `ListResponse` of `/v0/wallet/amulets`. */
export const ListAmuletsResponse = Schema.Struct({ amulets: Schema.Array(CoinPosition), locked_amulets: Schema.Array(CoinPosition) }).annotations({
  identifier: "ListResponse"
})

export const ListTransactionsRequest = Schema.Struct({
  begin_after_id: Schema.optional(Schema.String.annotations({ description: "The event_id of the previous page's last item" })),
  page_size: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({ description: "Items per page, at least 1" })
}).annotations({ identifier: "ListTransactionsRequest" })

const PartyAndAmount = Schema.Struct({ party: Schema.String, amount: Schema.String }).annotations({ identifier: "PartyAndAmount" })

const TransactionSubtype = Schema.Struct({
  template_id: Schema.String,
  choice: Schema.String,
  coin_operation: Schema.optional(Schema.String),
  interface_id: Schema.optional(Schema.String)
}).annotations({ identifier: "TransactionSubtype" })

const itemBase = { transaction_subtype: TransactionSubtype, event_id: Schema.String, date: Schema.String }

export const TransactionItem = Schema.Union(
  Schema.Struct({
    transaction_type: Schema.Literal("transfer"),
    ...itemBase,
    sender: PartyAndAmount,
    receivers: Schema.Array(PartyAndAmount),
    holding_fees: Schema.String,
    app_rewards_used: Schema.String,
    validator_rewards_used: Schema.String,
    sv_rewards_used: Schema.String,
    development_fund_coupons_used: Schema.String,
    transfer_instruction_receiver: Schema.optional(Schema.String),
    transfer_instruction_amount: Schema.optional(Schema.String),
    transfer_instruction_cid: Schema.optional(Schema.String),
    description: Schema.optional(Schema.String)
  }).annotations({ identifier: "TransferResponseItem" }),
  Schema.Struct({
    transaction_type: Schema.Literal("balance_change"),
    ...itemBase,
    receivers: Schema.Array(PartyAndAmount),
    transfer_instruction_cid: Schema.optional(Schema.String)
  }).annotations({ identifier: "BalanceChangeResponseItem" }),
  Schema.Struct({ transaction_type: Schema.Literal("notification"), ...itemBase, details: Schema.String }).annotations({
    identifier: "NotificationResponseItem"
  })
).annotations({ identifier: "ListTransactionsResponseItem" })

export const ListTransactionsResponse = Schema.Struct({ items: Schema.Array(TransactionItem) }).annotations({ identifier: "ListTransactionsResponse" })

/** The spec's form of accept / reject / withdraw: the offer's contract id in the body. */
export const ContractIdRequest = Schema.Struct({ contract_id: Schema.String }).annotations({ identifier: "ContractIdRequest" })
export const ContractIdPath = Schema.Struct({ contract_id: Schema.String })
export const TrackingIdPath = Schema.Struct({ tracking_id: Schema.String })

export const AcceptTransferOfferResponse = Schema.Struct({ accepted_offer_contract_id: Schema.String }).annotations({
  identifier: "AcceptTransferOfferResponse"
})
export const ListAcceptedTransferOffersResponse = Schema.Struct({ accepted_offers: Schema.Array(Contract) }).annotations({
  identifier: "ListAcceptedTransferOffersResponse"
})

export const TapRequest = Schema.Struct({
  amount: Amount,
  command_id: Schema.optional(Schema.String.annotations({ description: "Deduplication key; a fresh one when absent" }))
}).annotations({ identifier: "TapRequest" })
export const ContractIdResponse = (identifier: string) => Schema.Struct({ contract_id: Schema.String }).annotations({ identifier })

export const CreateTransferPreapprovalResponse = Schema.Struct({ transfer_preapproval_contract_id: Schema.String }).annotations({
  identifier: "CreateTransferPreapprovalResponse"
})
export const TransferPreapprovalSendRequest = Schema.Struct({
  receiver_party_id: Schema.String,
  amount: Amount,
  deduplication_id: Schema.String.annotations({ description: "Only one successful transfer per id within the ledger's deduplication period (7 days)" }),
  description: Schema.optional(Schema.String)
}).annotations({ identifier: "TransferPreapprovalSendRequest" })
export const TransferPreapprovalSendResponse = Schema.Struct({
  update_id: Schema.String,
  featured: Schema.Boolean.annotations({ description: "Whether the provider's FeaturedAppRight made it a featured transfer" })
}).annotations({ identifier: "TransferPreapprovalSendResponse", description: "Sandnet answers the transfer's update id (upstream: no body)" })

export const CreateTokenStandardTransferRequest = CreateTransferOfferRequest.annotations({ identifier: "CreateTokenStandardTransferRequest" })

export const TransferInstructionResultResponse = Schema.Struct({
  output: Schema.Union(
    Schema.Struct({ transfer_instruction_cid: Schema.String }).annotations({ identifier: "TransferInstructionPending" }),
    Schema.Struct({ receiver_holding_cids: Schema.Array(Schema.String) }).annotations({ identifier: "TransferInstructionCompleted" }),
    Schema.Struct({ dummy: Schema.optional(JsonValue) }).annotations({ identifier: "TransferInstructionFailed" })
  ).annotations({ identifier: "TransferInstructionResultOutput" }),
  sender_change_cids: Schema.Array(Schema.String),
  meta: Schema.Record({ key: Schema.String, value: Schema.String })
}).annotations({ identifier: "TransferInstructionResultResponse" })

export const ListTokenStandardTransfersResponse = Schema.Struct({ transfers: Schema.Array(Contract) }).annotations({
  identifier: "ListTokenStandardTransfersResponse"
})

export const ListAppRewardCouponsResponse = Schema.Struct({ app_reward_coupons: Schema.Array(Contract) }).annotations({
  identifier: "ListAppRewardCouponsResponse"
})
export const ListValidatorRewardCouponsResponse = Schema.Struct({ validator_reward_coupons: Schema.Array(Contract) }).annotations({
  identifier: "ListValidatorRewardCouponsResponse"
})
export const ListValidatorLivenessActivityRecordsResponse = Schema.Struct({ validator_liveness_activity_records: Schema.Array(Contract) }).annotations({
  identifier: "ListValidatorLivenessActivityRecordsResponse"
})

const IntFromString = Schema.NumberFromString.pipe(Schema.int())
export const PageQuery = Schema.Struct({
  after: Schema.optional(IntFromString.pipe(Schema.nonNegative())),
  limit: Schema.optional(IntFromString.pipe(Schema.positive()))
})

const WithStatus = (identifier: string) =>
  Schema.Struct({
    contract: Contract,
    beneficiary_hosted: Schema.Boolean.annotations({ description: "Whether the beneficiary party is hosted on this validator" })
  }).annotations({ identifier })

export const ListMintingDelegationProposalsResponse = Schema.Struct({
  proposals: Schema.Array(WithStatus("MintingDelegationProposalWithStatus")),
  next_page_token: Schema.optional(Schema.Int)
}).annotations({ identifier: "ListMintingDelegationProposalsResponse" })
export const ListMintingDelegationsResponse = Schema.Struct({
  delegations: Schema.Array(WithStatus("MintingDelegationWithStatus")),
  next_page_token: Schema.optional(Schema.Int)
}).annotations({ identifier: "ListMintingDelegationsResponse" })

export const RegistrationResponse = Schema.Struct({ party_id: Schema.String }).annotations({ identifier: "RegistrationResponse" })
export const GetValidatorUserInfoResponse = Schema.Struct({ party_id: Schema.String, user_name: Schema.String, featured: Schema.Boolean }).annotations({
  identifier: "GetValidatorUserInfoResponse"
})

// ---------------------------------------------------------------- validator administration

export const OnboardUserRequest = WalletTypes.OnboardUserRequest.annotations({ identifier: "OnboardUserRequest" })
export const OnboardUserResponse = Schema.Struct({ party_id: Schema.String }).annotations({ identifier: "OnboardUserResponse" })
export const ListUsersResponse = Schema.Struct({ usernames: Schema.Array(Schema.String) }).annotations({ identifier: "ListUsersResponse" })
export const UsernameQuery = Schema.Struct({ username: Schema.String })

const Hex = (description: string) => Schema.String.annotations({ description })

export const GenerateExternalPartyTopologyRequest = Schema.Struct({
  party_hint: Schema.String,
  public_key: Hex("hex-encoded raw 32-byte Ed25519 public key")
}).annotations({ identifier: "GenerateExternalPartyTopologyRequest" })
export const GenerateExternalPartyTopologyResponse = Schema.Struct({
  party_id: Schema.String,
  topology_txs: Schema.Array(
    Schema.Struct({
      topology_tx: Schema.String.annotations({ description: "base64 of the serialized topology transaction" }),
      hash: Hex("hex of the transaction's hash (multihash, 34 bytes): what to sign")
    }).annotations({ identifier: "TopologyTx" })
  )
}).annotations({ identifier: "GenerateExternalPartyTopologyResponse" })
export const SubmitExternalPartyTopologyRequest = Schema.Struct({
  public_key: Hex("hex-encoded raw 32-byte Ed25519 public key"),
  signed_topology_txs: Schema.Array(
    Schema.Struct({
      topology_tx: Schema.String,
      signed_hash: Hex("hex of the Ed25519 signature `r || s` over the 34 bytes of `hash`")
    }).annotations({ identifier: "SignedTopologyTx" })
  )
}).annotations({ identifier: "SubmitExternalPartyTopologyRequest" })
export const SubmitExternalPartyTopologyResponse = Schema.Struct({ party_id: Schema.String }).annotations({ identifier: "SubmitExternalPartyTopologyResponse" })

export const CreateExternalPartySetupProposalRequest = ExternalPartyWallet.CreateExternalPartySetupProposalRequest.annotations({
  identifier: "CreateExternalPartySetupProposalRequest"
})
export const CreateExternalPartySetupProposalResponse = ContractIdResponse("CreateExternalPartySetupProposalResponse")
export const ListContractsWithStateResponse = (identifier: string) =>
  Schema.Struct({ contracts: Schema.Array(ContractWithState) }).annotations({ identifier })

export const PrepareAcceptExternalPartySetupProposalRequest = ExternalPartyWallet.PrepareAcceptExternalPartySetupProposalRequest.annotations({
  identifier: "PrepareAcceptExternalPartySetupProposalRequest"
})

const preparedFields = {
  transaction: Schema.String.annotations({ description: "base64 of the prepared transaction (Canton's protobuf PreparedTransaction), to be sent back unchanged" }),
  tx_hash: Hex("hex of the 32-byte hash (Canton's hashing scheme V2) the party signs with Ed25519"),
  hashing_details: Schema.optional(Schema.String)
}
export const PrepareAcceptExternalPartySetupProposalResponse = Schema.Struct(preparedFields).annotations({
  identifier: "PrepareAcceptExternalPartySetupProposalResponse"
})

export const ExternalPartySubmission = ExternalPartyWallet.ExternalPartySubmission.annotations({ identifier: "ExternalPartySubmission" })
export const SubmitExternalRequest = (identifier: string) => Schema.Struct({ submission: ExternalPartySubmission }).annotations({ identifier })

export const SubmitAcceptExternalPartySetupProposalResponse = Schema.Struct({
  transfer_preapproval_contract_id: Schema.String,
  update_id: Schema.String
}).annotations({ identifier: "SubmitAcceptExternalPartySetupProposalResponse" })

export const PrepareTransferPreapprovalSendRequest = ExternalPartyWallet.PrepareTransferPreapprovalSendRequest.annotations({
  identifier: "PrepareTransferPreapprovalSendRequest"
})
export const PrepareTransferPreapprovalSendResponse = Schema.Struct({
  ...preparedFields,
  transfer_command_contract_id_prefix: Schema.String.annotations({
    description: "Sandnet has no TransferCommand: the contract id of the receiver's coin the prepared transfer creates"
  })
}).annotations({ identifier: "PrepareTransferPreapprovalSendResponse" })
export const SubmitTransferPreapprovalSendResponse = Schema.Struct({ update_id: Schema.String }).annotations({
  identifier: "SubmitTransferPreapprovalSendResponse"
})

export const PartyIdQuery = Schema.Struct({ party_id: Schema.String })
export const ExternalPartyBalanceResponse = Schema.Struct({
  party_id: Schema.String,
  total_unlocked_coin: Schema.String,
  total_locked_coin: Schema.String,
  total_coin_holdings: Schema.String,
  accumulated_holding_fees_unlocked: Schema.String,
  accumulated_holding_fees_locked: Schema.String,
  accumulated_holding_fees_total: Schema.String,
  total_available_coin: Schema.String,
  computed_as_of_round: Schema.Int
}).annotations({ identifier: "ExternalPartyBalanceResponse" })

export const ReceiverPartyPath = Schema.Struct({ receiver_party: Schema.String })
export const LookupTransferPreapprovalByPartyResponse = Schema.Struct({ transfer_preapproval: ContractWithState }).annotations({
  identifier: "LookupTransferPreapprovalByPartyResponse"
})
