/**
 * Invariants checked while the run goes, after every delivery, so that a failure is known to the
 * delivery (its number and simulated time) that broke it. Only what a delivery can change is looked
 * at: the new entries of the receiving participant's update log and, for a super validator, of its
 * scan; the cost per delivery is a map lookup when nothing was committed. The full checks of
 * invariants.ts and convergence.ts still run at the end (they are the authority); these are their
 * incremental twins:
 *
 * - offsets-increase: each node's offsets are 1, 2, 3...
 * - no-double-spend: a contract is consumed by one update only, at every node (one map for the
 *   whole network: update ids agree across nodes);
 * - exactly-once: a command (its submitters and command id) is committed at most once by the
 *   participant that submitted it;
 * - verdicts-deduplicated: every update a scan ingests has the ACCEPTED verdict;
 * - conservation: per transaction on the first super validator's scan, coin created minus coin
 *   consumed equals coin minted minus coin burned.
 */
import { amountOf, formatAmount, type CommittedUpdate, type ContractId, type Micros, type TransactionUpdate } from "@sandnet/core"
import { accruedHoldingFee, Coin, commandKeyOf, LockedCoin, type ArchivedLog, type CoinNetwork, type CoinPayload, type LockedCoinPayload, type ParticipantNode, type ScanStore } from "@sandnet/engine"
import { coinFlowRules } from "./invariants.ts"
import type { InvariantName } from "./scenario.ts"

export interface Violation {
  readonly invariant: string
  readonly message: string
  /** The delivery after which it was seen (its number in the run, from 1), and when. */
  readonly delivery: number
  readonly at: Micros
}

interface Watched {
  readonly node: ParticipantNode
  readonly name: string
  logCursor: number
  readonly scan: ScanStore | undefined
  scanCursor: number
  /** Whether this scan is the one conservation is checked on. */
  readonly conservation: boolean
}

const MAX_RECORDED = 200

export class Monitor {
  readonly violations: Array<Violation> = []
  /** Violations seen (the list keeps the first MAX_RECORDED). */
  count = 0
  private readonly watched = new Map<string, Watched>()
  private readonly consumedIn = new Map<ContractId, string>()
  private readonly committedCommands = new Map<string, string>()
  private readonly coins = new Map<ContractId, CoinPayload["amount"]>()
  private readonly check: Readonly<Record<"offsets" | "spend" | "once" | "verdicts" | "conservation", boolean>>
  private readonly coinTemplate = Coin.templateId
  private readonly lockedTemplate = LockedCoin.templateId

  constructor(
    network: CoinNetwork,
    invariants: ReadonlyArray<InvariantName>
  ) {
    const has = (name: InvariantName) => invariants.includes(name)
    this.check = {
      offsets: has("offsets-increase"),
      spend: has("no-double-spend"),
      once: has("exactly-once"),
      verdicts: has("verdicts-deduplicated"),
      conservation: has("conservation")
    }
    const scans = new Map(network.superValidators.map((sv, i) => [sv.participant, { scan: sv.scan, first: i === 0 }]))
    for (const node of [...network.superValidators, ...network.validators]) {
      const scan = scans.get(node.participant)
      this.watched.set(node.participant.address, {
        node: node.participant,
        name: node.name,
        logCursor: 0,
        scan: scan?.scan,
        scanCursor: 0,
        conservation: scan?.first === true
      })
    }
  }

  get first(): Violation | undefined {
    return this.violations[0]
  }

  private report(invariant: string, message: string, delivery: number, at: Micros): void {
    this.count++
    if (this.violations.length < MAX_RECORDED) this.violations.push({ invariant, message, delivery, at })
  }

  /** Checks what the delivery to `to` may have changed. */
  afterDelivery(to: string, delivery: number, at: Micros): void {
    const w = this.watched.get(to)
    if (w === undefined) return
    const log = w.node.logic.log
    if (log.length > w.logCursor) this.checkLog(w, log, delivery, at)
    if (w.scan !== undefined && w.scan.updates.length > w.scanCursor) this.checkScan(w, w.scan, delivery, at)
  }

  /** Checks every node (after something other than a delivery changed state, e.g. a restart). */
  checkAll(delivery: number, at: Micros): void {
    for (const address of this.watched.keys()) this.afterDelivery(address, delivery, at)
  }

  private checkLog(w: Watched, log: ArchivedLog<CommittedUpdate>, delivery: number, at: Micros): void {
    const uid = w.node.logic.uid
    for (let i = w.logCursor; i < log.length; i++) {
      const entry = log.at(i)!
      const update = entry.update
      if (this.check.offsets && entry.offset !== i + 1) this.report("offsets-increase", `${w.name}: update ${update.updateId} has offset ${entry.offset}, expected ${i + 1}`, delivery, at)
      if (this.check.spend && update.kind === "transaction") {
        for (const node of update.nodes) {
          if (node.kind !== "exercised" || !node.consuming) continue
          const earlier = this.consumedIn.get(node.contractId)
          if (earlier === undefined) this.consumedIn.set(node.contractId, update.updateId)
          else if (earlier !== update.updateId) {
            this.report("no-double-spend", `${w.name}: contract ${node.contractId} consumed in ${earlier} and again in ${update.updateId}`, delivery, at)
          }
        }
      }
      // topology updates have no command
      if (this.check.once && update.kind !== "topology" && update.submittingParticipant === uid) {
        const submitters = update.kind === "transaction" ? update.submitters : [update.submitter]
        const key = commandKeyOf(update.commandId, submitters)
        const earlier = this.committedCommands.get(key)
        if (earlier === undefined) this.committedCommands.set(key, update.updateId)
        else if (earlier !== update.updateId) {
          this.report("exactly-once", `${w.name}: command ${update.commandId} of ${submitters.join(", ")} committed twice, in ${earlier} and in ${update.updateId}`, delivery, at)
        }
      }
    }
    w.logCursor = log.length
  }

  private checkScan(w: Watched, scan: ScanStore, delivery: number, at: Micros): void {
    const updates = scan.updates
    for (let i = w.scanCursor; i < updates.length; i++) {
      const update = updates.at(i)!.update
      if (this.check.verdicts) {
        const verdict = scan.verdictOf(update.updateId)
        if (verdict === undefined) this.report("verdicts-deduplicated", `${w.name} scan ingested update ${update.updateId} without a verdict`, delivery, at)
        else if (verdict.verdict.result !== "VERDICT_RESULT_ACCEPTED") {
          this.report("verdicts-deduplicated", `${w.name} scan's verdict for committed update ${update.updateId} is ${verdict.verdict.result}`, delivery, at)
        }
      }
      if (this.check.conservation && w.conservation && update.kind === "transaction") this.checkConservation(w, update, delivery, at)
    }
    w.scanCursor = updates.length
  }

  private holdingAmount(templateId: string, payload: unknown): CoinPayload["amount"] | undefined {
    if (templateId === this.coinTemplate) return (payload as CoinPayload).amount
    if (templateId === this.lockedTemplate) return (payload as LockedCoinPayload).coin.amount
    return undefined
  }

  private checkConservation(w: Watched, tx: TransactionUpdate, delivery: number, at: Micros): void {
    let delta = 0n
    let minted = 0n
    let burned = 0n
    const parentRound = new Map<number, number | undefined>()
    for (const node of tx.nodes) {
      if (node.kind === "created") {
        const amount = this.holdingAmount(node.templateId, node.createArguments)
        if (amount !== undefined) {
          this.coins.set(node.contractId, amount)
          delta += amountOf(amount.initialAmount)
        }
        continue
      }
      const rule = coinFlowRules.get(node.choice)
      if (rule?.minted !== undefined) minted += rule.minted(node)
      if (rule?.burned !== undefined) burned += rule.burned(node)
      const result = node.exerciseResult as { round?: { number?: string } } | null
      const round = result?.round?.number === undefined ? undefined : Number(result.round.number)
      for (const child of node.childNodeIds) parentRound.set(child, round ?? parentRound.get(node.nodeId))
      if (node.consuming && (node.templateId === this.coinTemplate || node.templateId === this.lockedTemplate)) {
        const amount = this.coins.get(node.contractId)
        if (amount === undefined) {
          this.report("conservation", `${w.name} scan: update ${tx.updateId} consumes coin ${node.contractId} that the DSO never saw created (or saw consumed)`, delivery, at)
          continue
        }
        this.coins.delete(node.contractId)
        delta -= amountOf(amount.initialAmount)
        const feeRound = parentRound.get(node.nodeId)
        if (feeRound !== undefined) burned += accruedHoldingFee(amount, feeRound)
      }
    }
    if (delta !== minted - burned) {
      this.report(
        "conservation",
        `${w.name} scan: update ${tx.updateId} creates minus consumes ${formatAmount(delta)} coin but mints minus burns ${formatAmount(minted - burned)}`,
        delivery,
        at
      )
    }
  }
}
