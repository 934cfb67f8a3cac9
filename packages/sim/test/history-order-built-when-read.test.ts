/**
 * A simulation's scans make their history orders at the first read, from their logs, where a
 * serving node's place every update and verdict as it arrives (engine scan/store.ts). The same
 * scenario and seed either way is the same run, and at its end every scan pages its updates and
 * events identically (engine test history/history-order.test.ts builds orders at any point of a
 * history and goes on placing).
 */
import { describe, expect, it } from "@effect/vitest"
import { ScanApi, type ScanStore } from "@sandnet/engine"
import { run, small, violationsOf } from "./support.ts"

const PAGE = 7

/** Every update's offset and every event's id, in history order, read in pages as the scan API does. */
const pages = (scan: ScanStore) => {
  const updates: Array<number> = []
  const events: Array<string> = []
  let after: ScanApi.HistoryKey | undefined = undefined
  for (;;) {
    const page = ScanApi.updatesAfter(scan, after, PAGE)
    updates.push(...page.map((entry) => entry.offset))
    if (page.length < PAGE) break
    after = ScanApi.keyOfUpdate(page[page.length - 1]!)
  }
  events.push(...ScanApi.eventIdsAfter(scan, undefined, Number.MAX_SAFE_INTEGER))
  return { updates, events }
}

describe("scan history orders built when first read", () => {
  it("page as the orders kept from the start do", async () => {
    const scenario = small({ minutes: 10, svs: 2, validators: 2, syncs: 2, reassignmentsPerHour: 120 })
    const kept = await run(scenario, { seed: 9, historyOrder: "kept" })
    const whenRead = await run(scenario, { seed: 9 })
    expect(violationsOf(whenRead)).toEqual([])
    expect(whenRead.historyHash).toBe(kept.historyHash)
    for (const [i, sv] of whenRead.network.superValidators.entries()) {
      const expected = pages(kept.network.superValidators[i]!.scan)
      expect(expected.updates.length).toBeGreaterThan(20)
      expect(expected.events.length).toBeGreaterThanOrEqual(expected.updates.length)
      expect(pages(sv.scan)).toEqual(expected)
    }
  }, 120_000)
})
