/**
 * The state the wallet's automations share: the queues and heaps of pending work (filled by
 * work.ts from the commit listener, drained by each automation), what each submitted command does
 * on its completion, and fire-and-forget submission. Nothing scans the whole ACS: every pending
 * piece of work sits in a queue or a heap keyed by when it falls due.
 */
import { Effect, type Either } from "effect"
import type { ActiveContract, ContractId, Micros, PartyId } from "@sandnet/core"
import { MinHeap } from "../../dso/heap.ts"
import type { Command } from "../../ledger/interpreter.ts"
import type { Completion } from "../../participant/index.ts"
import type { WalletConfig } from "../config.ts"
import type { WalletNode } from "../wallet.ts"
import { emptyStats } from "./stats.ts"

/** A contract the automation expires once it is due (its actor is the party that exercises the expiry). */
export type Expiring = { readonly contractId: ContractId; readonly kind: "offer" | "accepted" | "instruction" | "buyTraffic"; readonly actor: PartyId }

/** The expiry heap is not compacted below this size. */
const EXPIRY_COMPACTION_FLOOR = 256
/**
 * The expiry heap is compacted when it has grown by this factor since the last compaction left it:
 * each compaction walks it once (an ACS lookup an entry), so about five lookups a filed expiry,
 * and dead entries are at most a quarter of it. At 2 they were a third of a 5-minute soak's heap
 * entries (about 70 bytes per transaction more).
 */
const EXPIRY_COMPACTION_GROWTH = 1.25

export type CouponKind = "app" | "validator" | "liveness"

export interface Coupon {
  readonly contractId: ContractId
  readonly kind: CouponKind
  readonly round: number
  /** The party that mints it: the operator for validator coupons and liveness, else the app reward's owner. */
  readonly collector: PartyId
  /** The party whose node-visibility the collector needs (the coupon's user), if not the collector. */
  readonly readAs: PartyId | undefined
}

/** What a command's completion does (stats, retries). */
export type StatsUpdate = (completion: Completion) => void

/** The DSO contracts a command needs now (WalletNode.reference). */
export type Reference = ReturnType<WalletNode["reference"]> extends Either.Either<infer R, unknown> ? R : never

export class AutomationState {
  readonly stats = emptyStats()
  /** Offers to accept for their receivers (auto-accept). */
  readonly acceptQueue = new Set<ContractId>()
  /** Accepted offers the users sent, to pay (or abort). */
  readonly completeQueue = new Set<ContractId>()
  /** Buy-traffic requests of the users, to pay (or reject). */
  readonly trafficQueue = new Set<ContractId>()
  /** Merge-delegation proposals to the operator, to accept. */
  readonly proposalQueue = new Set<ContractId>()
  /** What the users sent, by when it expires (`fileExpiry`). */
  readonly expiry = new MinHeap<Expiring>()
  /** The expiry heap's size at which `fileExpiry` next drops what is gone. */
  private expiryCompactionAt = EXPIRY_COMPACTION_FLOOR
  /** Preapproval proposals to the operator, to accept. */
  readonly preapprovalProposals = new Set<ContractId>()
  /** Preapprovals the operator provides, by when they are due for renewal. */
  readonly renewals = new MinHeap<ContractId>()
  /** Parties whose holdings changed since the last merge. */
  readonly mergeDirty = new Set<PartyId>()
  /** Reward coupons and liveness records to collect, once their round is issuing. */
  readonly coupons = new Map<ContractId, Coupon>()
  private readonly onDone = new Map<string, StatsUpdate>()

  constructor(readonly wallet: WalletNode) {}

  get config(): WalletConfig {
    return this.wallet.config
  }

  get operator(): PartyId {
    return this.wallet.operator
  }

  hosts(party: PartyId): boolean {
    return this.wallet.isUserParty(party)
  }

  /**
   * Files a contract to expire at `at`. Most are archived well before (offers accepted, instructions
   * taken): each time the heap has grown by a quarter, the entries of contracts that are gone for good are dropped
   * (they would be skipped when due), so that it holds about the live ones. Without it, a 5-minute
   * soak kept about 250 bytes per transaction here, for each offer's expiry (an hour ahead).
   */
  fileExpiry(at: Micros, expiring: Expiring): void {
    this.expiry.push(at, expiring)
    if (this.expiry.size < this.expiryCompactionAt) return
    const node = this.wallet.participant.logic
    // gone for good: not active, not in a reassignment, never reassigned (a reassigned contract may come back)
    this.expiry.retain((e) => node.acs.has(e.contractId) || node.acs.inFlightOf(e.contractId) !== undefined || node.reassigned.has(e.contractId))
    this.expiryCompactionAt = Math.max(EXPIRY_COMPACTION_FLOOR, Math.ceil(EXPIRY_COMPACTION_GROWTH * this.expiry.size))
  }

  /** Fire-and-forget submission; `update` runs on the completion (stats). */
  run(
    actAs: ReadonlyArray<PartyId>,
    readAs: ReadonlyArray<PartyId>,
    commandId: string,
    commands: ReadonlyArray<Command>,
    disclosed: ReadonlyArray<ActiveContract>,
    inputs: ReadonlyArray<ContractId>,
    update: StatsUpdate = () => undefined
  ): Effect.Effect<boolean> {
    if (this.wallet.participant.logic.isInFlight(commandId, actAs)) return Effect.succeed(false)
    return this.wallet.submit(actAs, readAs, commandId, commands, disclosed, inputs).pipe(
      Effect.map(() => {
        this.onDone.set(commandId, update)
        return true
      }),
      Effect.catchAll(() => Effect.sync(() => (this.stats.commandsFailed++, false)))
    )
  }

  /** A command of the automation completed: count a failure, run what it asked for. */
  onCompletion(completion: Completion): void {
    const update = this.onDone.get(completion.commandId)
    if (update === undefined) return
    this.onDone.delete(completion.commandId)
    if (completion._tag === "Failed") this.stats.commandsFailed++
    update(completion)
  }

  /** The transfer context of a command that needs no featured app right. */
  context(ref: { readonly rules: ActiveContract; readonly round: ActiveContract }) {
    return { coinRules: ref.rules.created.contractId, context: { openMiningRound: ref.round.created.contractId, featuredAppRight: null } }
  }
}

/** A StatsUpdate that runs `f` when the command succeeded. */
export const ok =
  (f: () => void): StatsUpdate =>
  (completion) => {
    if (completion._tag === "Succeeded") f()
  }
