/**
 * What the wallet of one validator node is and holds, shared by its roles (reads, history, coin
 * selection, tracking ids, the ledger follower, the commands): its users and journaled records
 * (WalletState), the node and DSO view it reads, the coins its commands in flight hold, the
 * history index, and its stats. Every journaled change goes through `apply`.
 */
import { Either } from "effect"
import type { ActiveContract, ContractId, Micros, PartyId } from "@sandnet/core"
import type { CoinNetwork, ValidatorNode } from "../coin-network.ts"
import { DsoView } from "../dso/view.ts"
import type { Completion, ParticipantNode } from "../participant/index.ts"
import type { WalletConfig } from "./config.ts"
import { WalletNotFound } from "./errors.ts"
import { WalletState, applyWalletEvent, type WalletEvent } from "./journal.ts"
import { CoinReservations } from "./reservations.ts"

export interface WalletStats {
  usersOnboarded: number
  offersCreated: number
  offersAccepted: number
  offersCompleted: number
  offersFailed: number
  offersExpired: number
  tokenTransfersCreated: number
  tokenTransfersCompleted: number
  tokenTransfersClosed: number
  oneStepTransfers: number
  featuredTransfers: number
  buyTrafficRequests: number
  commandsFailed: number
}

export class WalletContext {
  readonly state: WalletState
  readonly dso: DsoView
  readonly participant: ParticipantNode
  readonly operator: PartyId
  readonly stats: WalletStats = {
    usersOnboarded: 0,
    offersCreated: 0,
    offersAccepted: 0,
    offersCompleted: 0,
    offersFailed: 0,
    offersExpired: 0,
    tokenTransfersCreated: 0,
    tokenTransfersCompleted: 0,
    tokenTransfersClosed: 0,
    oneStepTransfers: 0,
    featuredTransfers: 0,
    buyTrafficRequests: 0,
    commandsFailed: 0
  }
  /** Where journal events go (the store); replay does not call it. */
  journalSink: ((event: WalletEvent) => void) | undefined = undefined
  /** Coins used by commands in flight (released on completion), so two commands never pick the same coin. */
  readonly reservations = new CoinReservations()
  /** Offsets of the committed transactions each local party witnessed, oldest first. */
  readonly historyOffsets = new Map<PartyId, Array<number>>()
  /** One-step transfers in flight that are featured (counted when they succeed). */
  readonly featuredCommands = new Set<string>()
  readonly completionHooks: Array<(completion: Completion, now: Micros) => void> = []
  private counter = 0

  constructor(
    readonly network: CoinNetwork,
    readonly validator: ValidatorNode,
    readonly config: WalletConfig,
    svIndex: number
  ) {
    this.participant = validator.participant
    this.operator = validator.operator
    this.dso = DsoView.of(network, svIndex)
    this.state = new WalletState(network.keeping.historyLimits)
    network.attachedHistory.push(...this.state.finishedLogs())
  }

  apply(event: WalletEvent, replaying = false): void {
    applyWalletEvent(this.state, event)
    if (!replaying) this.journalSink?.(event)
  }

  onCompletionHook(hook: (completion: Completion, now: Micros) => void): void {
    this.completionHooks.push(hook)
  }

  partyOf(user: string): Either.Either<PartyId, WalletNotFound> {
    const entry = this.state.users.get(user)
    return entry === undefined ? Either.left(new WalletNotFound({ user })) : Either.right(entry.party)
  }

  /** Parties of the wallet's users, in onboarding order. */
  userParties(): ReadonlyArray<PartyId> {
    return [...this.state.users.values()].map((u) => u.party)
  }

  isUserParty(party: PartyId): boolean {
    return this.state.userOfParty.has(party)
  }

  isReserved(contractId: ContractId): boolean {
    return this.reservations.has(contractId)
  }

  nextId(): number {
    return ++this.counter
  }
}

/** A contract's payload, typed as the caller knows its template to be. */
export const payloadOf = <P>(c: ActiveContract): P => c.created.createArguments as unknown as P
