/**
 * Holdings summaries (upstream scan's `/v0/holdings/summary` and `/v1/holdings/summary`): the coin
 * of some owners, summed from an ACS snapshot (acs-snapshots.ts), with the holding fees their coins
 * accrued by a round. Domain values (amounts as Amount); the HTTP layer renders them.
 */
import { Either } from "effect"
import { amountOf, toIso, type Amount, type CreatedNode, type Micros } from "@sandnet/core"
import { accruedHoldingFee, type CoinPayload, type LockedCoinPayload } from "../coin/coin.ts"
import { acsSnapshotAt } from "./acs-snapshots.ts"
import { AcsSnapshotNotFound, AcsSnapshotNotTakenAt } from "./errors.ts"
import type { ScanStore } from "./store.ts"
import { isTemplate, ScanTemplates } from "./templates.ts"

/** How a request's record time picks a snapshot: exactly one taken then, or the latest at or before it. */
export type RecordTimeMatch = "exact" | "at_or_before"

export interface HoldingsSummaryQuery {
  readonly recordTime: Micros
  readonly match: RecordTimeMatch
  readonly owners: ReadonlyArray<string>
  /** The round fees are computed as of; the snapshot's earliest open round when absent. */
  readonly asOfRound: number | undefined
}

/** One owner's totals (initial amounts, not less the fees accrued since). */
export interface HoldingsSummary {
  readonly party: string
  readonly unlocked: Amount
  readonly locked: Amount
  readonly feesUnlocked: Amount
  readonly feesLocked: Amount
}

export interface HoldingsSummaries {
  /** The record time of the snapshot summed. */
  readonly snapshotTime: Micros
  readonly asOfRound: number
  /** One per owner asked for, in the order asked (an owner without coin has zeros). */
  readonly summaries: ReadonlyArray<HoldingsSummary>
}

const roundOf = (created: CreatedNode): number => {
  const round = created.createArguments["round"]
  return typeof round === "object" && round !== null && !Array.isArray(round) ? Number((round as Record<string, unknown>)["number"]) : Number.NaN
}

/** The earliest open round of a snapshot (0 when it has none: fees are then counted from round 0). */
const earliestOpenRound = (entries: ReadonlyArray<{ readonly created: CreatedNode }>): number => {
  const rounds = entries.filter((e) => isTemplate(e.created, ScanTemplates.openMiningRound)).map((e) => roundOf(e.created)).filter(Number.isFinite)
  return rounds.length === 0 ? 0 : Math.min(...rounds)
}

const zero = (party: string): HoldingsSummary => ({ party, unlocked: 0n, locked: 0n, feesUnlocked: 0n, feesLocked: 0n })

/** Adds one Coin or LockedCoin to its owner's summary when the owner was asked for. */
const addHolding = (byOwner: Map<string, HoldingsSummary>, created: CreatedNode, round: number): void => {
  const locked = isTemplate(created, ScanTemplates.lockedCoin)
  if (!locked && !isTemplate(created, ScanTemplates.coin)) return
  const coin = locked ? (created.createArguments as unknown as LockedCoinPayload).coin : (created.createArguments as unknown as CoinPayload)
  const sum = byOwner.get(coin.owner)
  if (sum === undefined) return
  const initial = amountOf(coin.amount.initialAmount)
  const fee = accruedHoldingFee(coin.amount, round)
  byOwner.set(
    coin.owner,
    locked
      ? { ...sum, locked: sum.locked + initial, feesLocked: sum.feesLocked + fee }
      : { ...sum, unlocked: sum.unlocked + initial, feesUnlocked: sum.feesUnlocked + fee }
  )
}

/**
 * The owners' coin in the ACS snapshot the query's record time picks: with `exact`, the snapshot
 * taken at that very time; with `at_or_before`, the latest taken at or before it.
 */
export const holdingsSummaryAt = (
  scan: ScanStore,
  query: HoldingsSummaryQuery
): Either.Either<HoldingsSummaries, AcsSnapshotNotFound | AcsSnapshotNotTakenAt> => {
  const snapshot = acsSnapshotAt(scan, query.recordTime)
  if (snapshot === undefined) return Either.left(new AcsSnapshotNotFound({ atOrBefore: toIso(query.recordTime) }))
  if (query.match === "exact" && snapshot.recordTime !== query.recordTime) return Either.left(new AcsSnapshotNotTakenAt({ recordTime: toIso(query.recordTime) }))
  const entries = snapshot.content.entries
  const round = query.asOfRound ?? earliestOpenRound(entries)
  const byOwner = new Map(query.owners.map((party) => [party, zero(party)] as const))
  for (const entry of entries) addHolding(byOwner, entry.created, round)
  return Either.right({ snapshotTime: snapshot.recordTime, asOfRound: round, summaries: [...byOwner.values()] })
}
