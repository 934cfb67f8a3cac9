/**
 * The wallet of one validator node: its users (a fresh party per onboarded user; the operator's
 * party tied to `validatorWalletUser`), their balances, holdings and history (derived from the
 * participant's ledger), and the commands a user can issue.
 *
 * `WalletNode` is the facade: it builds the wallet from its journal and the node's ledger, starts
 * following the ledger, and answers each operation through the module that holds its role:
 * reads.ts (queries), history.ts, coin-selection.ts, tracking.ts (exactly-once tracking ids),
 * follower.ts (what each committed update and completion does), submission.ts, and commands/
 * (users, offers, one-step and token-standard transfers, traffic, devnet, delegations).
 *
 * Commands never wait: each returns an Outcome (outcome.ts) as soon as the participant accepted
 * the submission. Lifecycles of what the wallet created (offers, instructions, buy-traffic
 * requests) and of the users' delegations are XState snapshots stored in journaled records.
 */
import type { Effect, Either } from "effect"
import type { ActiveContract, Amount, ContractId, Micros, PartyId } from "@sandnet/core"
import type { CoinNetwork, ValidatorNode } from "../coin-network.ts"
import type { Command } from "../ledger/interpreter.ts"
import type { ContractJson } from "../scan/json/contracts.ts"
import type * as Api from "./api.ts"
import { selectCoins, spendable } from "./coin-selection.ts"
import * as Delegations from "./commands/delegations.ts"
import * as DevNet from "./commands/devnet.ts"
import * as Offers from "./commands/offers.ts"
import * as Preapprovals from "./commands/preapprovals.ts"
import * as TokenTransfers from "./commands/token-transfers.ts"
import * as Traffic from "./commands/traffic.ts"
import * as Users from "./commands/users.ts"
import type { WalletConfig } from "./config.ts"
import { WalletContext } from "./context.ts"
import type { DsoNotReady, InsufficientFunds, WalletCommandFailed, WalletError } from "./errors.ts"
import { followLedger } from "./follower.ts"
import { indexHistory, listTransactions } from "./history.ts"
import { restoreWalletState, type TrackedKind, type WalletEvent } from "./journal.ts"
import { checkWalletCheckpoint, restoreHistoryIndex, type WalletCheckpoint } from "./checkpoint.ts"
import type { Outcome } from "./outcome.ts"
import * as Reads from "./reads.ts"
import { reference, submit } from "./submission.ts"
import { reconcile } from "./tracking.ts"

type Op<A> = Effect.Effect<Outcome<A>, WalletError>

export class WalletNode extends WalletContext {
  /** With a checkpoint, `journal` holds the events after it (wallet checkpoint.ts). */
  constructor(network: CoinNetwork, validator: ValidatorNode, config: WalletConfig, journal: ReadonlyArray<WalletEvent> = [], svIndex = 0, checkpoint?: WalletCheckpoint) {
    super(network, validator, config, svIndex)
    if (checkpoint !== undefined) {
      checkWalletCheckpoint(checkpoint)
      restoreWalletState(this.state, checkpoint.state)
    }
    for (const event of journal) this.apply(event, true)
    if (!this.state.users.has(config.validatorWalletUser)) {
      this.apply({ _tag: "UserOnboarded", user: config.validatorWalletUser, party: this.operator, at: 0 })
    }
    // History is derived from the ledger: rebuild it from what the node already committed.
    if (checkpoint !== undefined) restoreHistoryIndex(this, checkpoint)
    else for (const entry of this.participant.logic.log) indexHistory(this, entry)
    followLedger(this)
    reconcile(this)
  }

  // ---------------------------------------------------------------- users

  onboardUser(request: Api.OnboardUserRequest): Op<Api.OnboardUserResponse> {
    return Users.onboardUser(this, request)
  }

  offboardUser(user: string): Op<void> {
    return Users.offboardUser(this, user)
  }

  listUsers(): Api.ListUsersResponse {
    return Reads.listUsers(this)
  }

  userStatus(user: string): Either.Either<Api.UserStatusResponse, WalletError> {
    return Reads.userStatus(this, user)
  }

  // ---------------------------------------------------------------- reads

  /** The round fees are computed at: the newest open round. */
  currentRound(now: Micros): number {
    return Reads.currentRound(this, now)
  }

  /** The party's balance: sum of its holdings' current amounts, with the holding fees they accrued. */
  balanceOf(party: PartyId, now: Micros): { readonly round: number; readonly unlocked: Amount; readonly locked: Amount; readonly holdingFees: Amount } {
    return Reads.balanceOf(this, party, now)
  }

  getBalance(user: string, now: Micros): Either.Either<Api.GetBalanceResponse, WalletError> {
    return Reads.getBalance(this, user, now)
  }

  listHoldings(user: string, now: Micros): Either.Either<Api.ListHoldingsResponse, WalletError> {
    return Reads.listHoldings(this, user, now)
  }

  /** Active contracts of a template where the party is a stakeholder and `filter` holds. */
  contractsOf(templateId: string, party: PartyId, filter?: (payload: unknown) => boolean): ReadonlyArray<ContractJson> {
    return Reads.contractsOf(this, templateId, party, filter)
  }

  listTransferOffers(user: string): Either.Either<Api.ListTransferOffersResponse, WalletError> {
    return Reads.listTransferOffers(this, user)
  }

  listAcceptedTransferOffers(user: string): Either.Either<Api.ListAcceptedTransferOffersResponse, WalletError> {
    return Reads.listAcceptedTransferOffers(this, user)
  }

  listTokenStandardTransfers(user: string): Either.Either<Api.ListTokenStandardTransfersResponse, WalletError> {
    return Reads.listTokenStandardTransfers(this, user)
  }

  listAppRewardCoupons(user: string): Either.Either<Api.ListAppRewardCouponsResponse, WalletError> {
    return Reads.listAppRewardCoupons(this, user)
  }

  listValidatorRewardCoupons(user: string): Either.Either<Api.ListValidatorRewardCouponsResponse, WalletError> {
    return Reads.listValidatorRewardCoupons(this, user)
  }

  listValidatorLivenessActivityRecords(user: string): Either.Either<Api.ListValidatorLivenessActivityRecordsResponse, WalletError> {
    return Reads.listValidatorLivenessActivityRecords(this, user)
  }

  listMintingDelegationProposals(user: string, page: Api.PageRequest): Either.Either<Api.ListMintingDelegationProposalsResponse, WalletError> {
    return Reads.listMintingDelegationProposals(this, user, page)
  }

  listMintingDelegations(user: string, page: Api.PageRequest): Either.Either<Api.ListMintingDelegationsResponse, WalletError> {
    return Reads.listMintingDelegations(this, user, page)
  }

  /** The user's history, newest first; `begin_after_id` is the event id of the previous page's last item. */
  listTransactions(user: string, request: Api.ListTransactionsRequest): Either.Either<Api.ListTransactionsResponse, WalletError> {
    return listTransactions(this, user, request)
  }

  getTransferOfferStatus(user: string, trackingId: string): Either.Either<Api.GetTransferOfferStatusResponse, WalletError> {
    return Reads.getTransferOfferStatus(this, user, trackingId)
  }

  getBuyTrafficRequestStatus(user: string, trackingId: string): Either.Either<Api.GetBuyTrafficRequestStatusResponse, WalletError> {
    return Reads.getBuyTrafficRequestStatus(this, user, trackingId)
  }

  /** The lifecycle state of a tracked offer (for tests and diagnostics). */
  offerState(party: PartyId, trackingId: string): string | undefined {
    return Reads.offerState(this, party, trackingId)
  }

  /** The lifecycle state of a tracking id ("free", "inProgress", "created"). */
  trackingState(party: PartyId, kind: TrackedKind, trackingId: string): string | undefined {
    return Reads.trackingState(this, party, kind, trackingId)
  }

  /** Accepted offers the wallet's users sent, for the completion automation. */
  acceptedOffersToComplete(): ReadonlyArray<ActiveContract> {
    return Reads.acceptedOffersToComplete(this)
  }

  /** The owner's active MergeDelegation contract, if any. */
  mergeDelegationOf(owner: PartyId): ContractId | undefined {
    return Reads.mergeDelegationOf(this, owner)
  }

  // ---------------------------------------------------------------- submission

  /** Spendable coins of a party on the default synchronizer, largest first (ties by contract id). */
  spendable(party: PartyId, round: number): ReadonlyArray<{ readonly contract: ActiveContract; readonly value: Amount }> {
    return spendable(this, party, round)
  }

  /** Coins covering `amount` (largest first, at most 100). */
  selectCoins(party: PartyId, amount: Amount, round: number): Either.Either<ReadonlyArray<ContractId>, InsufficientFunds> {
    return selectCoins(this, party, amount, round)
  }

  /** Reserves contracts for a command submitted outside the wallet (released on its completion). */
  reserveFor(commandId: string, contractIds: ReadonlyArray<ContractId>): void {
    this.reservations.reserve(commandId, contractIds)
  }

  /** The DSO contracts a transfer needs right now. */
  reference(now: Micros): Either.Either<{ readonly rules: ActiveContract; readonly round: ActiveContract; readonly roundNumber: number; readonly isDevNet: boolean }, DsoNotReady> {
    return reference(this, now)
  }

  /** Submits a command; interpretation errors and refusals become WalletCommandFailed. */
  submit(
    actAs: ReadonlyArray<PartyId>,
    readAs: ReadonlyArray<PartyId>,
    commandId: string,
    commands: ReadonlyArray<Command>,
    disclosed: ReadonlyArray<ActiveContract>,
    inputs: ReadonlyArray<ContractId>
  ): Effect.Effect<string, WalletCommandFailed> {
    return submit(this, actAs, readAs, commandId, commands, disclosed, inputs)
  }

  // ---------------------------------------------------------------- commands

  createTransferOffer(user: string, request: Api.CreateTransferOfferRequest): Op<Api.CreateTransferOfferResponse> {
    return Offers.createTransferOffer(this, user, request)
  }

  acceptTransferOffer(user: string, contractId: ContractId): Op<Api.AcceptTransferOfferResponse> {
    return Offers.acceptTransferOffer(this, user, contractId)
  }

  rejectTransferOffer(user: string, contractId: ContractId): Op<void> {
    return Offers.rejectTransferOffer(this, user, contractId)
  }

  withdrawTransferOffer(user: string, contractId: ContractId, reason?: string): Op<void> {
    return Offers.withdrawTransferOffer(this, user, contractId, reason)
  }

  createTransferPreapproval(user: string): Op<Api.CreateTransferPreapprovalResponse> {
    return Preapprovals.createTransferPreapproval(this, user)
  }

  /** One-step transfer through the receiver's preapproval; featured when its provider has a FeaturedAppRight. */
  transferPreapprovalSend(user: string, request: Api.TransferPreapprovalSendRequest): Op<Api.TransferPreapprovalSendResponse> {
    return Preapprovals.transferPreapprovalSend(this, user, request)
  }

  createTokenStandardTransfer(user: string, request: Api.CreateTokenStandardTransferRequest): Op<Api.TransferInstructionResultResponse> {
    return TokenTransfers.createTokenStandardTransfer(this, user, request)
  }

  /** Accept, reject (receiver) or withdraw (sender) a token-standard transfer. */
  decideTokenStandardTransfer(user: string, contractId: ContractId, decision: "accept" | "reject" | "withdraw"): Op<Api.TransferInstructionResultResponse> {
    return TokenTransfers.decideTokenStandardTransfer(this, user, contractId, decision)
  }

  createBuyTrafficRequest(user: string, request: Api.CreateBuyTrafficRequest): Op<Api.CreateBuyTrafficRequestResponse> {
    return Traffic.createBuyTrafficRequest(this, user, request)
  }

  tap(user: string, request: Api.TapRequest): Op<Api.TapResponse> {
    return DevNet.tap(this, user, request)
  }

  selfGrantFeaturedAppRight(user: string): Op<Api.SelfGrantFeaturedAppRightResponse> {
    return DevNet.selfGrantFeaturedAppRight(this, user)
  }

  decideMintingDelegationProposal(user: string, contractId: ContractId, decision: "accept" | "reject"): Op<Api.AcceptMintingDelegationProposalResponse | void> {
    return Delegations.decideMintingDelegationProposal(this, user, contractId, decision)
  }

  rejectMintingDelegation(user: string, contractId: ContractId): Op<void> {
    return Delegations.rejectMintingDelegation(this, user, contractId)
  }
}
