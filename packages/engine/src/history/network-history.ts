/** A network's history logs, for a serving node to archive beside its ticks (archived-log.ts). */
import type { CoinNetwork } from "../coin-network.ts"
import type { ArchivedLog } from "./archived-log.ts"

/**
 * Every history log of a network: each participant's update log and completions, each scan's
 * updates and verdicts, and what is attached to it (each wallet's finished records).
 */
export const historyLogsOf = (network: CoinNetwork): ReadonlyArray<ArchivedLog<unknown>> => [
  ...network.participants.flatMap((p) => [p.logic.log, p.logic.completions]),
  ...network.superValidators.flatMap((sv) => [sv.scan.updates, sv.scan.verdictLog]),
  ...network.attachedHistory
]

/** Archives the segments due, log after log, while `more(archivedSoFar)` allows; how many it archived. */
export const archiveDueHistory = (network: CoinNetwork, more: (archivedSoFar: number) => boolean): number => {
  let archived = 0
  for (const log of historyLogsOf(network)) {
    while (more(archived) && log.archiveDue()) archived++
  }
  return archived
}

/**
 * One step of archiving, for an owner that spreads it over its turns: the first log with work writes
 * at most `maxEntries` entries of its oldest segment due (`ArchivedLog.archiveStep`); whether one had work.
 */
export const archiveHistoryStep = (network: CoinNetwork, maxEntries: number): boolean => {
  for (const log of historyLogsOf(network)) if (log.archiveStep(maxEntries)) return true
  return false
}

/**
 * Holds every history log of the network (`ArchivedLog.hold`) until the returned function is
 * called: a restart's replay and the wallets' first walk over what it rebuilt.
 */
export const holdHistoryArchiving = (network: CoinNetwork): (() => void) => {
  const logs = historyLogsOf(network)
  for (const log of logs) log.hold()
  return () => {
    for (const log of logs) log.release()
  }
}
