/**
 * The history hash takes each entry by its digest (sim history.ts): equal histories hash equally
 * whichever objects hold them, and a change to any scan's verdict, any traffic summary or any
 * participant's update changes the hash.
 */
import { describe, expect, it } from "@effect/vitest"
import type { CoinNetwork } from "@sandnet/engine"
import { historyHash } from "../src/history.ts"
import { run, small } from "./support.ts"

const scenario = small({ minutes: 2, svs: 2, validators: 2 })

/** The hash of a fresh run (seed 3) after `change` appended one entry to one of its logs. */
const hashAfter = async (change: (network: CoinNetwork) => void): Promise<string> => {
  const result = await run(scenario, { seed: 3 })
  change(result.network)
  return historyHash(result.network)
}

const lastScanEntry = (network: CoinNetwork) => {
  const log = network.superValidators[1]!.scan.verdictLog
  return { log, entry: log.at(log.length - 1)! }
}

const lastCommit = (network: CoinNetwork) => {
  const log = network.validators[0]!.participant.logic.log
  return { log, entry: log.at(log.length - 1)! }
}

describe("the history hash", () => {
  it("is the same for equal histories in other objects and changes with any verdict, traffic summary or update", async () => {
    const plain = await run(scenario, { seed: 3 })
    expect(historyHash(plain.network)).toBe(plain.historyHash)
    const equalVerdict = await hashAfter((n) => {
      const { log, entry } = lastScanEntry(n)
      log.push(entry)
    })
    const equalVerdictCopied = await hashAfter((n) => {
      const { log, entry } = lastScanEntry(n)
      log.push({ verdict: { ...entry.verdict }, trafficSummary: { ...entry.trafficSummary } })
    })
    const otherResult = await hashAfter((n) => {
      const { log, entry } = lastScanEntry(n)
      log.push({ verdict: { ...entry.verdict, result: "VERDICT_RESULT_REJECTED" }, trafficSummary: entry.trafficSummary })
    })
    const otherTraffic = await hashAfter((n) => {
      const { log, entry } = lastScanEntry(n)
      log.push({ verdict: entry.verdict, trafficSummary: { ...entry.trafficSummary, totalTrafficCost: entry.trafficSummary.totalTrafficCost + 1 } })
    })
    const equalUpdateCopied = await hashAfter((n) => {
      const { log, entry } = lastCommit(n)
      log.push({ offset: entry.offset, update: { ...entry.update } })
    })
    const otherUpdate = await hashAfter((n) => {
      const { log, entry } = lastCommit(n)
      log.push({ offset: entry.offset, update: { ...entry.update, recordTime: entry.update.recordTime + 1 } })
    })
    expect(equalVerdictCopied).toBe(equalVerdict)
    expect(new Set([plain.historyHash, equalVerdict, otherResult, otherTraffic, equalUpdateCopied, otherUpdate]).size).toBe(6)
  }, 60_000)
})
