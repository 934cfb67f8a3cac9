/**
 * Invariants checked after (and, for the cheap ones, during) a run. Each returns the violations it
 * found as readable sentences; an empty list means the invariant held.
 */
import { amountOf, formatAmount, type ContractId, type ExercisedNode, type TransactionUpdate } from "@sandnet/core"
import {
  accruedHoldingFee,
  Coin,
  LockedCoin,
  mintedByTransfer,
  type CoinNetwork,
  type CoinPayload,
  type LockedCoinPayload
} from "@sandnet/engine"
import { checkAcsConverge, checkCommandsComplete, checkScansConverge } from "./convergence.ts"
import { MarksById, nodeName } from "./check-tools.ts"
import { exactlyOnceCheck, noDoubleSpendCheck, reassignmentCountersCheck, stakeholdersCommittedCheck, walkLogs, type LogCheck } from "./log-checks.ts"
import type { InvariantName } from "./scenario.ts"

export interface CoinFlowRule {
  /** Coin minted by this exercise (e.g. a tap, a reward minted into coin), in Numeric-10 units. */
  readonly minted?: (node: ExercisedNode) => bigint
  /** Coin burned by this exercise beyond the holding fees of its consumed coins (e.g. traffic purchases). */
  readonly burned?: (node: ExercisedNode) => bigint
}

const resultField = (node: ExercisedNode, ...path: ReadonlyArray<string>): string | undefined => {
  let value: unknown = node.exerciseResult
  for (const key of path) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined
  return typeof value === "string" ? value : undefined
}

/**
 * How each choice mints or burns coin. Holding fees of consumed coins are computed by the checker
 * itself from the coins' payloads and the round the transfer used.
 */
export const coinFlowRules = new Map<string, CoinFlowRule>([
  ["CoinRules_DevNet_Tap", { minted: (node) => amountOf(String((node.choiceArgument as { amount: string }).amount)) }],
  // Reward coupons (app, validator, liveness) minted as transfer inputs, from the transfer's summary.
  ["CoinRules_Transfer", { minted: (node) => mintedByTransfer(node.exerciseResult) }],
  // Traffic purchases burn the price (split off into a coin that is archived in the same choice).
  ["CoinRules_BuyMemberTraffic", { burned: (node) => amountOf(resultField(node, "coinPaid") ?? "0") }],
  // Dust expiry burns the whole (worthless) holding.
  ["Coin_Expire", { burned: (node) => amountOf(resultField(node, "expireSum", "expiredAmount") ?? "0") }],
  ["LockedCoin_ExpireCoin", { burned: (node) => amountOf(resultField(node, "expireSum", "expiredAmount") ?? "0") }]
])

/** The coin a holding (a Coin or a LockedCoin) carries, or undefined for other templates. */
const holdingAmountOf = (templateId: string, payload: unknown): CoinPayload["amount"] | undefined => {
  if (templateId === coinTemplateId()) return (payload as CoinPayload).amount
  if (templateId === lockedCoinTemplateId()) return (payload as LockedCoinPayload).coin.amount
  return undefined
}
const coinTemplateId = (): string => Coin.templateId
const lockedCoinTemplateId = (): string => LockedCoin.templateId

/** Choices whose consumed coins pay holding fees (the round is in their exercise result). */
const roundOfExercise = (node: ExercisedNode): number | undefined => {
  const result = node.exerciseResult as { round?: { number?: string } } | null
  const n = result?.round?.number
  return n === undefined ? undefined : Number(n)
}

export interface ConservationReport {
  readonly minted: bigint
  readonly burned: bigint
  readonly circulating: bigint
  readonly violations: ReadonlyArray<string>
}

/**
 * Coin conservation over the DSO's view (the DSO is a signatory of every coin, locked or not): for
 * every transaction, coin created minus coin consumed equals coin minted minus coin burned; and at
 * the end, the coins the DSO holds active add up to all minted minus all burned.
 */
export const checkConservation = (network: CoinNetwork): ConservationReport => {
  const sv = network.superValidators[0]!
  const violations: Array<string> = []
  const coins = new Map<ContractId, CoinPayload["amount"]>()
  let minted = 0n
  let burned = 0n
  for (const { update } of sv.scan.updates) {
    if (update.kind !== "transaction") continue
    const tx: TransactionUpdate = update
    let delta = 0n
    let txMinted = 0n
    let txBurned = 0n
    const parentRound = new Map<number, number | undefined>()
    for (const node of tx.nodes) {
      if (node.kind === "created") {
        const amount = holdingAmountOf(node.templateId, node.createArguments)
        if (amount !== undefined) {
          coins.set(node.contractId, amount)
          delta += amountOf(amount.initialAmount)
        }
        continue
      }
      const rule = coinFlowRules.get(node.choice)
      if (rule?.minted !== undefined) txMinted += rule.minted(node)
      if (rule?.burned !== undefined) txBurned += rule.burned(node)
      const round = roundOfExercise(node)
      for (const child of node.childNodeIds) parentRound.set(child, round ?? parentRound.get(node.nodeId))
      if (node.consuming && (node.templateId === coinTemplateId() || node.templateId === lockedCoinTemplateId())) {
        const amount = coins.get(node.contractId)
        if (amount === undefined) {
          violations.push(`update ${tx.updateId} consumes coin ${node.contractId} that the DSO never saw created`)
          continue
        }
        coins.delete(node.contractId)
        delta -= amountOf(amount.initialAmount)
        const feeRound = parentRound.get(node.nodeId)
        if (feeRound !== undefined) txBurned += accruedHoldingFee(amount, feeRound)
      }
    }
    if (delta !== txMinted - txBurned) {
      violations.push(
        `update ${tx.updateId}: coin created minus consumed is ${formatAmount(delta)} but minted minus burned is ${formatAmount(txMinted - txBurned)}`
      )
    }
    minted += txMinted
    burned += txBurned
  }
  let circulating = 0n
  for (const template of [coinTemplateId(), lockedCoinTemplateId()]) {
    for (const contract of sv.participant.logic.acs.ofTemplate(template, network.dso)) {
      circulating += amountOf(holdingAmountOf(template, contract.created.createArguments)?.initialAmount ?? "0")
    }
  }
  for (const inFlight of sv.participant.logic.acs.inFlightContracts()) {
    const amount = holdingAmountOf(inFlight.contract.created.templateId, inFlight.contract.created.createArguments)
    if (amount !== undefined) circulating += amountOf(amount.initialAmount)
  }
  if (circulating !== minted - burned) {
    violations.push(`active coin totals ${formatAmount(circulating)} but minted minus burned is ${formatAmount(minted - burned)}`)
  }
  return { minted, burned, circulating, violations }
}

export const checkOffsets = (network: CoinNetwork): ReadonlyArray<string> => {
  const violations: Array<string> = []
  for (const node of network.participants) {
    let i = 0
    for (const entry of node.logic.log) {
      if (entry.offset !== i + 1) violations.push(`${nodeName(node)}: entry ${i} has offset ${entry.offset}, expected ${i + 1}`)
      i++
    }
  }
  for (const sv of network.superValidators) {
    let last = 0
    for (const entry of sv.scan.updates) {
      if (entry.offset <= last) violations.push(`${sv.name} scan: offset ${entry.offset} does not increase after ${last}`)
      last = entry.offset
    }
  }
  return violations
}

/**
 * Every super validator's scan ingests the same updates, in the same order per synchronizer (updates
 * of different synchronizers have no order between them: each SV interleaves them as they arrive).
 */
export const checkUpdateIdsAgree = (network: CoinNetwork): ReadonlyArray<string> => {
  const [first, ...rest] = network.superValidators
  if (first === undefined) return []
  const bySynchronizer = (updates: Iterable<{ readonly update: { readonly updateId: string; readonly synchronizerId: string } }>) => {
    const ids = new Map<string, Array<string>>()
    for (const { update } of updates) {
      let list = ids.get(update.synchronizerId)
      if (list === undefined) ids.set(update.synchronizerId, (list = []))
      list.push(update.updateId)
    }
    return ids
  }
  const reference = bySynchronizer(first.scan.updates)
  const violations: Array<string> = []
  for (const sv of rest) {
    const own = bySynchronizer(sv.scan.updates)
    for (const synchronizer of new Set([...reference.keys(), ...own.keys()])) {
      const expected = reference.get(synchronizer) ?? []
      const ids = own.get(synchronizer) ?? []
      const at = ids.findIndex((id, i) => id !== expected[i])
      if (at >= 0) violations.push(`${sv.name} scan diverges from ${first.name} on ${synchronizer} at update ${at}: ${ids[at]} vs ${expected[at]}`)
      else if (ids.length !== expected.length) violations.push(`${sv.name} scan has ${ids.length} updates on ${synchronizer}, ${first.name} has ${expected.length}`)
    }
  }
  return violations
}

export const checkVerdicts = (network: CoinNetwork): ReadonlyArray<string> => {
  const violations: Array<string> = []
  // by update id: the last scan (index) that stored a verdict for it, one mark for every scan (the scans share their verdicts)
  const storedBy = new MarksById<{ scan: number }>(() => ({ scan: -1 }))
  for (const [scan, sv] of network.superValidators.entries()) {
    for (const { verdict } of sv.scan.verdictLog) {
      const stored = storedBy.of(verdict, verdict.updateId)
      if (stored.scan === scan) violations.push(`${sv.name} scan stores two verdicts for ${verdict.updateId}`)
      stored.scan = scan
    }
    for (const { update } of sv.scan.updates) {
      const verdict = sv.scan.verdictOf(update.updateId)
      if (verdict === undefined) violations.push(`${sv.name} scan has update ${update.updateId} without a verdict`)
      else if (verdict.verdict.result !== "VERDICT_RESULT_ACCEPTED") {
        violations.push(`${sv.name} scan's verdict for committed update ${update.updateId} is ${verdict.verdict.result}`)
      }
    }
  }
  return violations
}

/** The invariants read from the participants' logs, by name: one walk of every log serves all of those asked for (log-checks.ts). */
const logChecks = {
  "no-double-spend": noDoubleSpendCheck,
  "reassignment-counters": reassignmentCountersCheck,
  "stakeholders-committed": stakeholdersCommittedCheck,
  "exactly-once": exactlyOnceCheck
} satisfies Partial<Record<InvariantName, (network: CoinNetwork) => LogCheck>>
type LogInvariant = keyof typeof logChecks
const isLogInvariant = (name: InvariantName): name is LogInvariant => Object.hasOwn(logChecks, name)

/** The other invariants, each checked on its own. */
const otherChecks: Record<Exclude<InvariantName, LogInvariant>, (network: CoinNetwork) => ReadonlyArray<string>> = {
  conservation: (network) => checkConservation(network).violations,
  "offsets-increase": checkOffsets,
  "update-ids-agree": checkUpdateIdsAgree,
  "verdicts-deduplicated": checkVerdicts,
  "scans-converge": checkScansConverge,
  "commands-complete": checkCommandsComplete,
  "acs-converge": checkAcsConverge
}

export const checkInvariants = (network: CoinNetwork, names: ReadonlyArray<InvariantName>): Record<string, ReadonlyArray<string>> => {
  const walked = new Map<LogInvariant, LogCheck>()
  for (const name of names) if (isLogInvariant(name) && !walked.has(name)) walked.set(name, logChecks[name](network))
  if (walked.size > 0) walkLogs(network, [...walked.values()])
  const results: Record<string, ReadonlyArray<string>> = {}
  for (const name of names) results[name] = isLogInvariant(name) ? walked.get(name)!.violations() : otherChecks[name](network)
  return results
}
