/**
 * Wallet and validator administration surface (`/api/validator`): the validator's wallet service
 * (packages/engine/src/wallet) over HTTP. Every call needs a bearer JWT whose `sub` is the wallet's
 * ledger user (401 `{error}` without or with a bad one); a user that is not onboarded gets 404
 * "wallet not found". Shapes: splice-wallet-external.yaml, splice-wallet-internal.yaml and
 * splice-validator-internal.yaml, with "coin" for "amulet" (see encoding.ts and docs/api.md).
 *
 *   external API   POST /v0/wallet/transfer-offers (W1), GET /v0/wallet/transfer-offers,
 *                  POST /v0/wallet/transfer-offers/{tracking_id}/status,
 *                  POST /v0/wallet/buy-traffic-requests, POST /v0/wallet/buy-traffic-requests/{tracking_id}/status
 *   internal API   balance, coins (and amulets), transactions, offers accept / reject / withdraw
 *                  (contract id in the body or in the path), accepted offers, user-status, tap,
 *                  featured app right, preapprovals, token-standard transfers, reward coupons,
 *                  minting delegations, /v0/register, /v0/validator-user
 *   administration admin.ts (/v0/admin/...)
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import type { Outcome, WalletError } from "@sandnet/engine"
import { Effect } from "effect"
import { annotateEndpoint, bind, surfaceNotFound, Surfaces, mergeRoutes } from "../surface.ts"
import { readRoute, type ReadRoute } from "../read-routes.ts"
import { bindWritable, type WriteInput, type WriteRoute } from "../write-routes.ts"
import type { AuthenticatedSubject } from "../auth.ts"
import type { HandlerError } from "../errors.ts"
import { AdminGroup, AdminRoutes } from "./admin.ts"
import {
  checkUserName,
  ensureLedgerUser,
  mapOutcome,
  walletCommand,
  walletRead,
  namingExistingPreapproval,
  walletReadNow,
  walletUser,
  withWallet,
  type WalletView
} from "./context.ts"
import * as S from "./encoding.ts"

// ---------------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------------

/** Annotates an endpoint with its description (for the OpenAPI document). */
const describe = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E, description: string): E => annotateEndpoint(endpoint, { description })

// External API (backward compatible)
export const CreateTransferOffer = describe(
  HttpApiEndpoint.post("createTransferOffer", "/v0/wallet/transfer-offers").setPayload(S.CreateTransferOfferRequest).addSuccess(S.CreateTransferOfferResponse),
  "W1. Creates an offer to transfer coin to another party (coin is not locked). 400 invalid request, 404 wallet not found, 409 an offer with this tracking id was created (check the status), 429 one is being processed (retry with back-off); a failed submission frees the tracking id."
)
export const ListTransferOffers = describe(
  HttpApiEndpoint.get("listTransferOffers", "/v0/wallet/transfer-offers").addSuccess(S.ListTransferOffersResponse),
  "Open transfer offers where the user is sender or receiver."
)
export const GetTransferOfferStatus = describe(
  HttpApiEndpoint.post("getTransferOfferStatus", "/v0/wallet/transfer-offers/:tracking_id/status").setPath(S.TrackingIdPath).addSuccess(S.GetTransferOfferStatusResponse),
  "Status of the offer the user created with this tracking id: created, accepted, completed or failed (expired, rejected, withdrawn). 404 when none is known."
)
export const CreateBuyTrafficRequest = describe(
  HttpApiEndpoint.post("createBuyTrafficRequest", "/v0/wallet/buy-traffic-requests").setPayload(S.CreateBuyTrafficRequest).addSuccess(S.CreateBuyTrafficRequestResponse),
  "Creates a request to buy traffic for the validator hosting the party; the wallet automation pays it. Tracking ids as W1 (409, 429)."
)
export const GetBuyTrafficRequestStatus = describe(
  HttpApiEndpoint.post("getBuyTrafficRequestStatus", "/v0/wallet/buy-traffic-requests/:tracking_id/status").setPath(S.TrackingIdPath).addSuccess(S.GetBuyTrafficRequestStatusResponse),
  "Status of a buy-traffic request: created, completed or failed (expired, rejected)."
)

// Internal API (wallet UI)
export const GetUserStatus = describe(
  HttpApiEndpoint.get("getUserStatus", "/v0/wallet/user-status").addSuccess(S.UserStatusResponse),
  "The user's onboarding status; a user that is not onboarded gets user_onboarded false (and party_id \"\")."
)
export const GetBalance = HttpApiEndpoint.get("getBalance", "/v0/wallet/balance").addSuccess(S.GetBalanceResponse)
export const ListCoins = describe(HttpApiEndpoint.get("listCoins", "/v0/wallet/coins").addSuccess(S.ListCoinsResponse), "The user's holdings (UTXOs), unlocked and locked.")
export const ListAmulets = describe(HttpApiEndpoint.get("listAmulets", "/v0/wallet/amulets").addSuccess(S.ListAmuletsResponse), "Upstream name of /v0/wallet/coins.")
export const ListTransactions = describe(
  HttpApiEndpoint.post("listTransactions", "/v0/wallet/transactions").setPayload(S.ListTransactionsRequest).addSuccess(S.ListTransactionsResponse),
  "The user's history, newest first; pass the last item's event_id as begin_after_id for the next page."
)
export const AcceptTransferOfferBody = describe(
  HttpApiEndpoint.post("acceptTransferOfferByBody", "/v0/wallet/transfer-offers/accept").setPayload(S.ContractIdRequest).addSuccess(S.AcceptTransferOfferResponse),
  "Accepts an offer to the user (the spec's form; the upstream form has the contract id in the path). 409 when the offer expired."
)
export const RejectTransferOfferBody = HttpApiEndpoint.post("rejectTransferOfferByBody", "/v0/wallet/transfer-offers/reject").setPayload(S.ContractIdRequest).addSuccess(S.Ok)
export const WithdrawTransferOfferBody = HttpApiEndpoint.post("withdrawTransferOfferByBody", "/v0/wallet/transfer-offers/withdraw").setPayload(S.ContractIdRequest).addSuccess(S.Ok)
export const AcceptTransferOffer = HttpApiEndpoint.post("acceptTransferOffer", "/v0/wallet/transfer-offers/:contract_id/accept").setPath(S.ContractIdPath).addSuccess(S.AcceptTransferOfferResponse)
export const RejectTransferOffer = HttpApiEndpoint.post("rejectTransferOffer", "/v0/wallet/transfer-offers/:contract_id/reject").setPath(S.ContractIdPath).addSuccess(S.Ok)
export const WithdrawTransferOffer = HttpApiEndpoint.post("withdrawTransferOffer", "/v0/wallet/transfer-offers/:contract_id/withdraw").setPath(S.ContractIdPath).addSuccess(S.Ok)
export const ListAcceptedTransferOffers = HttpApiEndpoint.get("listAcceptedTransferOffers", "/v0/wallet/accepted-transfer-offers").addSuccess(S.ListAcceptedTransferOffersResponse)
export const Tap = describe(
  HttpApiEndpoint.post("tap", "/v0/wallet/tap").setPayload(S.TapRequest).addSuccess(S.ContractIdResponse("TapResponse")),
  "Development networks only: mints coin for the user."
)
export const SelfGrantFeaturedAppRight = describe(
  HttpApiEndpoint.post("selfGrantFeatureAppRight", "/v0/wallet/self-grant-feature-app-right").addSuccess(S.ContractIdResponse("SelfGrantFeaturedAppRightResponse")),
  "Development networks only: the user's FeaturedAppRight (the existing one if any). The body is ignored."
)
export const ListAppRewardCoupons = HttpApiEndpoint.get("listAppRewardCoupons", "/v0/wallet/app-reward-coupons").addSuccess(S.ListAppRewardCouponsResponse)
export const ListValidatorRewardCoupons = HttpApiEndpoint.get("listValidatorRewardCoupons", "/v0/wallet/validator-reward-coupons").addSuccess(S.ListValidatorRewardCouponsResponse)
export const ListValidatorLivenessActivityRecords = HttpApiEndpoint.get("listValidatorLivenessActivityRecords", "/v0/wallet/validator-liveness-activity-records").addSuccess(
  S.ListValidatorLivenessActivityRecordsResponse
)
export const CreateTransferPreapproval = describe(
  HttpApiEndpoint.post("createTransferPreapproval", "/v0/wallet/transfer-preapproval").addSuccess(S.CreateTransferPreapprovalResponse),
  "The user's TransferPreapproval (provider: the validator operator). 409 when one exists (the message names it)."
)
export const TransferPreapprovalSend = describe(
  HttpApiEndpoint.post("transferPreapprovalSend", "/v0/wallet/transfer-preapproval/send").setPayload(S.TransferPreapprovalSendRequest).addSuccess(S.TransferPreapprovalSendResponse),
  "One-step transfer through the receiver's preapproval. 404 when the receiver has none, 400 when the user cannot pay."
)
export const CreateTokenStandardTransfer = describe(
  HttpApiEndpoint.post("createTokenStandardTransfer", "/v0/wallet/token-standard/transfers").setPayload(S.CreateTokenStandardTransferRequest).addSuccess(S.TransferInstructionResultResponse),
  "Token-standard transfer offer: locks the amount (and a holding-fee reserve) until expires_at. Tracking ids as W1."
)
export const ListTokenStandardTransfers = HttpApiEndpoint.get("listTokenStandardTransfers", "/v0/wallet/token-standard/transfers").addSuccess(S.ListTokenStandardTransfersResponse)
const tokenTransferDecision = (name: string, path: `/${string}`) =>
  HttpApiEndpoint.post(name, path).setPath(S.ContractIdPath).addSuccess(S.TransferInstructionResultResponse)
export const AcceptTokenStandardTransfer = tokenTransferDecision("acceptTokenStandardTransfer", "/v0/wallet/token-standard/transfers/:contract_id/accept")
export const RejectTokenStandardTransfer = tokenTransferDecision("rejectTokenStandardTransfer", "/v0/wallet/token-standard/transfers/:contract_id/reject")
export const WithdrawTokenStandardTransfer = tokenTransferDecision("withdrawTokenStandardTransfer", "/v0/wallet/token-standard/transfers/:contract_id/withdraw")
export const ListMintingDelegationProposals = HttpApiEndpoint.get("listMintingDelegationProposals", "/v0/wallet/minting-delegation-proposals")
  .setUrlParams(S.PageQuery)
  .addSuccess(S.ListMintingDelegationProposalsResponse)
export const AcceptMintingDelegationProposal = HttpApiEndpoint.post("acceptMintingDelegationProposal", "/v0/wallet/minting-delegation-proposals/:contract_id/accept")
  .setPath(S.ContractIdPath)
  .addSuccess(S.ContractIdResponse("AcceptMintingDelegationProposalResponse"))
export const RejectMintingDelegationProposal = HttpApiEndpoint.post("rejectMintingDelegationProposal", "/v0/wallet/minting-delegation-proposals/:contract_id/reject")
  .setPath(S.ContractIdPath)
  .addSuccess(S.Ok)
export const ListMintingDelegations = HttpApiEndpoint.get("listMintingDelegations", "/v0/wallet/minting-delegations").setUrlParams(S.PageQuery).addSuccess(S.ListMintingDelegationsResponse)
export const RejectMintingDelegation = HttpApiEndpoint.post("rejectMintingDelegation", "/v0/wallet/minting-delegations/:contract_id/reject").setPath(S.ContractIdPath).addSuccess(S.Ok)
export const Register = describe(
  HttpApiEndpoint.post("register", "/v0/register").addSuccess(S.RegistrationResponse),
  "Onboards the token's user (a fresh party, its ledger user with CanActAs); its party when onboarded already. The body is ignored."
)
export const GetValidatorUserInfo = describe(
  HttpApiEndpoint.get("getValidatorUserInfo", "/v0/validator-user").addSuccess(S.GetValidatorUserInfoResponse),
  "Public information about the validator operator (no token needed)."
)

const ENDPOINTS = [
  CreateTransferOffer,
  ListTransferOffers,
  GetTransferOfferStatus,
  CreateBuyTrafficRequest,
  GetBuyTrafficRequestStatus,
  GetUserStatus,
  GetBalance,
  ListCoins,
  ListAmulets,
  ListTransactions,
  AcceptTransferOfferBody,
  RejectTransferOfferBody,
  WithdrawTransferOfferBody,
  AcceptTransferOffer,
  RejectTransferOffer,
  WithdrawTransferOffer,
  ListAcceptedTransferOffers,
  Tap,
  SelfGrantFeaturedAppRight,
  ListAppRewardCoupons,
  ListValidatorRewardCoupons,
  ListValidatorLivenessActivityRecords,
  CreateTransferPreapproval,
  TransferPreapprovalSend,
  CreateTokenStandardTransfer,
  ListTokenStandardTransfers,
  AcceptTokenStandardTransfer,
  RejectTokenStandardTransfer,
  WithdrawTokenStandardTransfer,
  ListMintingDelegationProposals,
  AcceptMintingDelegationProposal,
  RejectMintingDelegationProposal,
  ListMintingDelegations,
  RejectMintingDelegation,
  Register,
  GetValidatorUserInfo
] as const

export const WalletGroup = ENDPOINTS.reduce(
  (group, endpoint) => group.add(endpoint) as unknown as HttpApiGroup.HttpApiGroup<"wallet", HttpApiEndpoint.HttpApiEndpoint.Any>,
  HttpApiGroup.make("wallet") as unknown as HttpApiGroup.HttpApiGroup<"wallet", HttpApiEndpoint.HttpApiEndpoint.Any>
).annotate(OpenApi.Title, "Wallet")

/** The wallet surface's API declaration (for the OpenAPI document; servers: /api/validator). */
export const WalletApi = HttpApi.make("wallet")
  .add(WalletGroup)
  .add(AdminGroup)
  .annotate(OpenApi.Title, "Wallet and validator API (Sandnet)")
  .annotate(OpenApi.Servers, [{ url: Surfaces.wallet.mount }])

// ---------------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------------

const w = Surfaces.wallet

/** A read for the token's user. */
const read = <A>(f: (view: WalletView, user: string) => Effect.Effect<A, WalletError>) =>
  Effect.flatMap(walletUser, (user) => walletRead((view) => f(view, user)))

/** A command for the token's user. */
const command = <A>(f: (view: WalletView, user: string) => Effect.Effect<Outcome<A>, WalletError>) =>
  Effect.flatMap(walletUser, (user) => walletCommand((view) => f(view, user)))

/** The wallet's commands that are write routes too (write-routes.ts), made by `bindCommand`. */
const commandWriteRoutes: Array<WriteRoute> = []

/**
 * Binds a wallet command and declares it a write route with the same handler: the node answers a
 * plain request of a known caller without the platform's request pipeline, and `bind` everything else.
 */
const bindCommand = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  endpoint: E,
  handler: (request: WriteInput<E>) => Effect.Effect<HttpApiEndpoint.HttpApiEndpoint.Success<E>, HandlerError, AuthenticatedSubject>
) => {
  const routes = bindWritable(w, endpoint, handler)
  commandWriteRoutes.push(routes.write)
  return routes.bound
}

const notOnboarded = { party_id: "", user_onboarded: false, user_wallet_installed: false, has_featured_app_right: false }

const WalletHandlers = mergeRoutes(
  bindCommand(CreateTransferOffer, ({ payload }) => command((view, user) => view.node.createTransferOffer(user, payload))),
  bind(w, ListTransferOffers, () => read((view, user) => view.wallet.listTransferOffers(user))),
  bind(w, GetTransferOfferStatus, ({ path }) => read((view, user) => view.wallet.getTransferOfferStatus(user, path.tracking_id))),
  bindCommand(CreateBuyTrafficRequest, ({ payload }) => command((view, user) => view.node.createBuyTrafficRequest(user, payload))),
  bind(w, GetBuyTrafficRequestStatus, ({ path }) => read((view, user) => view.wallet.getBuyTrafficRequestStatus(user, path.tracking_id))),
  bind(w, GetUserStatus, () =>
    read((view, user) => Effect.catchTag(view.wallet.userStatus(user), "WalletNotFound", () => Effect.succeed(notOnboarded)))
  ),
  bind(w, GetBalance, () => read((view, user) => view.wallet.getBalance(user))),
  bind(w, ListCoins, () => read((view, user) => view.wallet.listHoldings(user))),
  bind(w, ListAmulets, () =>
    read((view, user) => Effect.map(view.wallet.listHoldings(user), (h) => ({ amulets: h.coins, locked_amulets: h.locked_coins })))
  ),
  bind(w, ListTransactions, ({ payload }) => read((view, user) => view.wallet.listTransactions(user, payload))),
  bindCommand(AcceptTransferOfferBody, ({ payload }) => command((view, user) => view.node.acceptTransferOffer(user, payload.contract_id))),
  bindCommand(RejectTransferOfferBody, ({ payload }) => command((view, user) => view.node.rejectTransferOffer(user, payload.contract_id))),
  bindCommand(WithdrawTransferOfferBody, ({ payload }) => command((view, user) => view.node.withdrawTransferOffer(user, payload.contract_id))),
  bindCommand(AcceptTransferOffer, ({ path }) => command((view, user) => view.node.acceptTransferOffer(user, path.contract_id))),
  bindCommand(RejectTransferOffer, ({ path }) => command((view, user) => view.node.rejectTransferOffer(user, path.contract_id))),
  bindCommand(WithdrawTransferOffer, ({ path }) => command((view, user) => view.node.withdrawTransferOffer(user, path.contract_id))),
  bind(w, ListAcceptedTransferOffers, () => read((view, user) => view.wallet.listAcceptedTransferOffers(user))),
  bindCommand(Tap, ({ payload }) => command((view, user) => view.node.tap(user, payload))),
  bindCommand(SelfGrantFeaturedAppRight, () => command((view, user) => view.node.selfGrantFeaturedAppRight(user))),
  bind(w, ListAppRewardCoupons, () => read((view, user) => view.wallet.listAppRewardCoupons(user))),
  bind(w, ListValidatorRewardCoupons, () => read((view, user) => view.wallet.listValidatorRewardCoupons(user))),
  bind(w, ListValidatorLivenessActivityRecords, () => read((view, user) => view.wallet.listValidatorLivenessActivityRecords(user))),
  bindCommand(CreateTransferPreapproval, () => Effect.mapError(command((view, user) => view.node.createTransferPreapproval(user)), namingExistingPreapproval)),
  bindCommand(TransferPreapprovalSend, ({ payload }) => command((view, user) => view.node.transferPreapprovalSend(user, payload))),
  bindCommand(CreateTokenStandardTransfer, ({ payload }) => command((view, user) => view.node.createTokenStandardTransfer(user, payload))),
  bind(w, ListTokenStandardTransfers, () => read((view, user) => view.wallet.listTokenStandardTransfers(user))),
  bindCommand(AcceptTokenStandardTransfer, ({ path }) => command((view, user) => view.node.decideTokenStandardTransfer(user, path.contract_id, "accept"))),
  bindCommand(RejectTokenStandardTransfer, ({ path }) => command((view, user) => view.node.decideTokenStandardTransfer(user, path.contract_id, "reject"))),
  bindCommand(WithdrawTokenStandardTransfer, ({ path }) => command((view, user) => view.node.decideTokenStandardTransfer(user, path.contract_id, "withdraw"))),
  bind(w, ListMintingDelegationProposals, ({ urlParams }) => read((view, user) => view.wallet.listMintingDelegationProposals(user, urlParams))),
  bindCommand(AcceptMintingDelegationProposal, ({ path }) =>
    command((view, user) =>
      Effect.map(view.node.decideMintingDelegationProposal(user, path.contract_id, "accept"), (outcome) =>
        mapOutcome(outcome, (reply) => reply ?? { contract_id: "" })
      )
    )
  ),
  bindCommand(RejectMintingDelegationProposal, ({ path }) => Effect.asVoid(command((view, user) => view.node.decideMintingDelegationProposal(user, path.contract_id, "reject")))),
  bind(w, ListMintingDelegations, ({ urlParams }) => read((view, user) => view.wallet.listMintingDelegations(user, urlParams))),
  bindCommand(RejectMintingDelegation, ({ path }) => command((view, user) => view.node.rejectMintingDelegation(user, path.contract_id))),
  bind(w, Register, () =>
    Effect.gen(function* () {
      const user = yield* walletUser
      yield* checkUserName(user, "sub")
      const reply = yield* walletCommand((view) => view.node.onboardUser({ name: user }))
      yield* ensureLedgerUser(user, reply.party_id)
      return reply
    })
  ),
  bind(
    w,
    GetValidatorUserInfo,
    () =>
      withWallet((view) =>
        Effect.succeed({
          party_id: view.node.operator,
          user_name: view.node.config.validatorWalletUser,
          featured: view.node.dso.featuredAppRightOf(view.node.operator) !== undefined
        })
      ),
    { auth: "open" }
  )
)


export const WalletRoutes = mergeRoutes(surfaceNotFound(Surfaces.wallet), WalletHandlers, AdminRoutes)

/**
 * The wallet reads answered without a fiber (read-routes.ts), for a caller whose token was verified
 * before: the same engine reads as their `bind` above (WalletApi's reads are these WalletNode reads
 * at the engine's time); any error (wallet not found, ...) is answered by `WalletRoutes`.
 */
export const WalletReadRoutes: ReadonlyArray<ReadRoute> = [
  readRoute(w, GetBalance, ({ user }, engine) => walletReadNow(engine, (view) => view.node.getBalance(user, view.now))),
  readRoute(w, ListTransferOffers, ({ user }, engine) => walletReadNow(engine, (view) => view.node.listTransferOffers(user))),
  readRoute(w, ListCoins, ({ user }, engine) => walletReadNow(engine, (view) => view.node.listHoldings(user, view.now))),
  readRoute(w, ListAcceptedTransferOffers, ({ user }, engine) => walletReadNow(engine, (view) => view.node.listAcceptedTransferOffers(user))),
  readRoute(w, ListTokenStandardTransfers, ({ user }, engine) => walletReadNow(engine, (view) => view.node.listTokenStandardTransfers(user)))
]

/** The wallet's commands answered without the platform's request pipeline (write-routes.ts); any other request goes to `WalletRoutes`. */
export const WalletWriteRoutes: ReadonlyArray<WriteRoute> = commandWriteRoutes
