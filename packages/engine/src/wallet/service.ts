/**
 * The wallet as an Effect service: what the HTTP layer's wallet surface calls. Each operation
 * validates, submits (WalletNode), lets the engine settle, and answers the outcome as a typed reply
 * or a precise tagged error (errors.ts gives each its HTTP status).
 *
 * `settle` is the driver's "deliver everything due now": on the node's zero-delay network it
 * decides a submitted command before the operation answers (the node runtime passes its catch-up,
 * tests pass `driver.runUntilIdle()`). If the command is still undecided after settling (a network
 * with latency), the operation waits for its completion, which needs a driver running alongside.
 */
import type { WalletCheckpoint } from "./checkpoint.ts"
import { Clock, Context, Effect, Either, Layer } from "effect"
import { micros, type Micros } from "@sandnet/core"
import type { CoinNetwork, ValidatorNode } from "../coin-network.ts"
import { Network } from "../network/network.ts"
import type * as Api from "./api.ts"
import { startWalletAutomation, type WalletAutomation } from "./automation/automation.ts"
import { defaultWalletConfig, type WalletConfig } from "./config.ts"
import type { WalletError } from "./errors.ts"
import type { WalletEvent } from "./journal.ts"
import type { Outcome } from "./outcome.ts"
import { WalletNode } from "./wallet.ts"

type Op<A> = Effect.Effect<A, WalletError>

export interface WalletApi {
  readonly node: WalletNode
  readonly automation: WalletAutomation | undefined

  // users (validator admin API: /v0/admin/users, /v0/wallet/user-status)
  readonly onboardUser: (request: Api.OnboardUserRequest) => Op<Api.OnboardUserResponse>
  readonly offboardUser: (user: string) => Op<void>
  readonly listUsers: () => Effect.Effect<Api.ListUsersResponse>
  readonly userStatus: (user: string) => Op<Api.UserStatusResponse>

  // balance, holdings, history
  readonly getBalance: (user: string) => Op<Api.GetBalanceResponse>
  readonly listHoldings: (user: string) => Op<Api.ListHoldingsResponse>
  readonly listTransactions: (user: string, request: Api.ListTransactionsRequest) => Op<Api.ListTransactionsResponse>

  // legacy transfer offers (W1, W2)
  readonly createTransferOffer: (user: string, request: Api.CreateTransferOfferRequest) => Op<Api.CreateTransferOfferResponse>
  readonly getTransferOfferStatus: (user: string, trackingId: string) => Op<Api.GetTransferOfferStatusResponse>
  readonly listTransferOffers: (user: string) => Op<Api.ListTransferOffersResponse>
  readonly listAcceptedTransferOffers: (user: string) => Op<Api.ListAcceptedTransferOffersResponse>
  readonly acceptTransferOffer: (user: string, contractId: string) => Op<Api.AcceptTransferOfferResponse>
  readonly rejectTransferOffer: (user: string, contractId: string) => Op<void>
  readonly withdrawTransferOffer: (user: string, contractId: string) => Op<void>

  // one-step transfers
  readonly createTransferPreapproval: (user: string) => Op<Api.CreateTransferPreapprovalResponse>
  readonly transferPreapprovalSend: (user: string, request: Api.TransferPreapprovalSendRequest) => Op<Api.TransferPreapprovalSendResponse>

  // token-standard transfers
  readonly createTokenStandardTransfer: (user: string, request: Api.CreateTokenStandardTransferRequest) => Op<Api.TransferInstructionResultResponse>
  readonly listTokenStandardTransfers: (user: string) => Op<Api.ListTokenStandardTransfersResponse>
  readonly acceptTokenStandardTransfer: (user: string, contractId: string) => Op<Api.TransferInstructionResultResponse>
  readonly rejectTokenStandardTransfer: (user: string, contractId: string) => Op<Api.TransferInstructionResultResponse>
  readonly withdrawTokenStandardTransfer: (user: string, contractId: string) => Op<Api.TransferInstructionResultResponse>

  // traffic
  readonly createBuyTrafficRequest: (user: string, request: Api.CreateBuyTrafficRequest) => Op<Api.CreateBuyTrafficRequestResponse>
  readonly getBuyTrafficRequestStatus: (user: string, trackingId: string) => Op<Api.GetBuyTrafficRequestStatusResponse>

  // devnet, rewards
  readonly tap: (user: string, request: Api.TapRequest) => Op<Api.TapResponse>
  readonly selfGrantFeaturedAppRight: (user: string) => Op<Api.SelfGrantFeaturedAppRightResponse>
  readonly listAppRewardCoupons: (user: string) => Op<Api.ListAppRewardCouponsResponse>
  readonly listValidatorRewardCoupons: (user: string) => Op<Api.ListValidatorRewardCouponsResponse>
  readonly listValidatorLivenessActivityRecords: (user: string) => Op<Api.ListValidatorLivenessActivityRecordsResponse>

  // minting delegations
  readonly listMintingDelegationProposals: (user: string, page: Api.PageRequest) => Op<Api.ListMintingDelegationProposalsResponse>
  readonly acceptMintingDelegationProposal: (user: string, contractId: string) => Op<Api.AcceptMintingDelegationProposalResponse>
  readonly rejectMintingDelegationProposal: (user: string, contractId: string) => Op<void>
  readonly listMintingDelegations: (user: string, page: Api.PageRequest) => Op<Api.ListMintingDelegationsResponse>
  readonly rejectMintingDelegation: (user: string, contractId: string) => Op<void>
}

export class Wallet extends Context.Tag("@sandnet/engine/Wallet")<Wallet, WalletApi>() {}

const now: Effect.Effect<Micros> = Effect.map(Clock.currentTimeNanos, micros.fromNanos)

/**
 * The outcome's answer when it is known now, without waiting: a reply that needed no command, or
 * one whose command has completed already (what `awaitOutcome` would answer at once); else
 * undefined. A node's command usually completes within its own operation (the node delivers what an
 * operation set in motion before it ends), so its caller can skip arming a completion timeout.
 */
export const outcomeNow = <A>(node: WalletNode, result: Outcome<A>): Either.Either<A, WalletError> | undefined => {
  if (result._tag === "Done") return Either.right(result.value)
  const completion = node.participant.completionNow(result.pending.commandId, result.pending.actAs)
  return completion === undefined ? undefined : result.pending.finish(completion)
}

/**
 * Waits for a submitted command's outcome and turns it into the reply: `settle` first (deliver
 * what is due), then the completion if it is there, else wait for it (a driver must run alongside:
 * the node's ticker, or whoever advances time). A host that runs commands under a lock (the HTTP
 * node) calls the WalletNode command under the lock and this outside it, with `Effect.void`.
 */
export const awaitOutcome =
  (node: WalletNode, settle: Effect.Effect<void>) =>
  <A>(result: Outcome<A>): Op<A> => {
    if (result._tag === "Done") return Effect.succeed(result.value)
    const { pending } = result
    return Effect.gen(function* () {
      yield* settle
      // answers at once when the command is decided already
      const completion = yield* node.participant.awaitCompletion(pending.commandId, pending.actAs)
      return yield* pending.finish(completion)
    })
  }

/** The service over a wallet node. */
export const makeWalletApi = (node: WalletNode, settle: Effect.Effect<void>, automation?: WalletAutomation): WalletApi => {
  const outcome = awaitOutcome(node, settle)
  const command = <A>(effect: Effect.Effect<Outcome<A>, WalletError>): Op<A> => Effect.flatMap(effect, outcome)
  const read = <A>(f: (t: Micros) => Either.Either<A, WalletError>): Op<A> => Effect.flatMap(now, (t) => f(t))
  return {
    node,
    automation,
    onboardUser: (request) => command(node.onboardUser(request)),
    offboardUser: (user) => command(node.offboardUser(user)),
    listUsers: () => Effect.sync(() => node.listUsers()),
    userStatus: (user) => read(() => node.userStatus(user)),
    getBalance: (user) => read((t) => node.getBalance(user, t)),
    listHoldings: (user) => read((t) => node.listHoldings(user, t)),
    listTransactions: (user, request) => read(() => node.listTransactions(user, request)),
    createTransferOffer: (user, request) => command(node.createTransferOffer(user, request)),
    getTransferOfferStatus: (user, trackingId) => read(() => node.getTransferOfferStatus(user, trackingId)),
    listTransferOffers: (user) => read(() => node.listTransferOffers(user)),
    listAcceptedTransferOffers: (user) => read(() => node.listAcceptedTransferOffers(user)),
    acceptTransferOffer: (user, contractId) => command(node.acceptTransferOffer(user, contractId)),
    rejectTransferOffer: (user, contractId) => command(node.rejectTransferOffer(user, contractId)),
    withdrawTransferOffer: (user, contractId) => command(node.withdrawTransferOffer(user, contractId)),
    createTransferPreapproval: (user) => command(node.createTransferPreapproval(user)),
    transferPreapprovalSend: (user, request) => command(node.transferPreapprovalSend(user, request)),
    createTokenStandardTransfer: (user, request) => command(node.createTokenStandardTransfer(user, request)),
    listTokenStandardTransfers: (user) => read(() => node.listTokenStandardTransfers(user)),
    acceptTokenStandardTransfer: (user, contractId) => command(node.decideTokenStandardTransfer(user, contractId, "accept")),
    rejectTokenStandardTransfer: (user, contractId) => command(node.decideTokenStandardTransfer(user, contractId, "reject")),
    withdrawTokenStandardTransfer: (user, contractId) => command(node.decideTokenStandardTransfer(user, contractId, "withdraw")),
    createBuyTrafficRequest: (user, request) => command(node.createBuyTrafficRequest(user, request)),
    getBuyTrafficRequestStatus: (user, trackingId) => read(() => node.getBuyTrafficRequestStatus(user, trackingId)),
    tap: (user, request) => command(node.tap(user, request)),
    selfGrantFeaturedAppRight: (user) => command(node.selfGrantFeaturedAppRight(user)),
    listAppRewardCoupons: (user) => read(() => node.listAppRewardCoupons(user)),
    listValidatorRewardCoupons: (user) => read(() => node.listValidatorRewardCoupons(user)),
    listValidatorLivenessActivityRecords: (user) => read(() => node.listValidatorLivenessActivityRecords(user)),
    listMintingDelegationProposals: (user, page) => read(() => node.listMintingDelegationProposals(user, page)),
    acceptMintingDelegationProposal: (user, contractId) =>
      Effect.map(command(node.decideMintingDelegationProposal(user, contractId, "accept")), (r) => r ?? { contract_id: "" }),
    rejectMintingDelegationProposal: (user, contractId) => Effect.asVoid(command(node.decideMintingDelegationProposal(user, contractId, "reject"))),
    listMintingDelegations: (user, page) => read(() => node.listMintingDelegations(user, page)),
    rejectMintingDelegation: (user, contractId) => command(node.rejectMintingDelegation(user, contractId))
  }
}

export interface WalletOptions {
  readonly config?: WalletConfig
  /** A stored journal to restore the wallet from (with a checkpoint: the events after it). */
  readonly journal?: ReadonlyArray<WalletEvent>
  /** A checkpoint of the wallet, taken before `journal` (wallet checkpoint.ts). */
  readonly checkpoint?: WalletCheckpoint
  /** Run the automations (default true). */
  readonly automation?: boolean
  /** Which super validator's ACS the wallet reads DSO contracts from (default the first). */
  readonly svIndex?: number
}

/** Builds a validator's wallet (and starts its automations). */
export const makeWallet = (network: CoinNetwork, validator: ValidatorNode, options: WalletOptions = {}): Effect.Effect<{ readonly node: WalletNode; readonly automation: WalletAutomation | undefined }, never, Network> =>
  Effect.gen(function* () {
    const node = new WalletNode(network, validator, options.config ?? defaultWalletConfig, options.journal ?? [], options.svIndex ?? 0, options.checkpoint)
    const automation = options.automation === false ? undefined : yield* startWalletAutomation(node)
    return { node, automation }
  })

/** A layer providing the Wallet service of one validator. */
export const walletLayer = (network: CoinNetwork, validator: ValidatorNode, settle: Effect.Effect<void>, options: WalletOptions = {}): Layer.Layer<Wallet, never, Network> =>
  Layer.effect(
    Wallet,
    Effect.map(makeWallet(network, validator, options), ({ node, automation }) => makeWalletApi(node, settle, automation))
  )
