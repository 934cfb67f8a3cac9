/**
 * ScanStore.verdictSink: every verdict the scan ingests also goes to the sink (duplicates too), so
 * storage can persist verdicts; replaying them with `replaying = true` rebuilds the same verdicts
 * without calling the sink again.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { TrafficSummary, Verdict } from "@sandnet/core"
import { ScanStore } from "../src/scan/store.ts"
import { makeHarness } from "./support.ts"

describe("ScanStore.verdictSink", () => {
  it.effect("receives every ingested verdict, and a replay rebuilds the same verdicts without it", () =>
    Effect.gen(function* () {
      const sunk: Array<{ verdict: Verdict; trafficSummary: TrafficSummary }> = []
      const harness = yield* makeHarness({ superValidators: 2 })
      const scan = harness.network.superValidators[0]!.scan
      expect(scan.verdictLog.length).toBeGreaterThan(0)
      scan.verdictSink = (verdict, trafficSummary) => sunk.push({ verdict, trafficSummary })
      const first = scan.verdictLog.at(0)!
      // a duplicate: ignored by the scan, still handed to the sink
      expect(scan.ingestVerdict(first.verdict, first.trafficSummary)).toBe(false)
      expect(sunk).toEqual([{ verdict: first.verdict, trafficSummary: first.trafficSummary }])

      const replayed = new ScanStore(scan.participant, scan.dso)
      let called = 0
      replayed.verdictSink = () => void called++
      for (const v of scan.verdictLog) replayed.ingestVerdict(v.verdict, v.trafficSummary, true)
      expect(called).toBe(0)
      expect(replayed.verdictLog).toEqual(scan.verdictLog)
      expect(replayed.verdictOf(first.verdict.updateId)).toEqual(first)
    }))
})
