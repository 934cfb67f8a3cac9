import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { amountOf } from "@sandnet/core"
import { checkConservation } from "../src/index.ts"
import { run, scenarioOf, violationsOf } from "./support.ts"

const shipped = readFileSync(fileURLToPath(new URL("../../../scenarios/economy.yaml", import.meta.url)), "utf8")

/** The shipped economy scenario, shortened (the full one runs for two simulated days). */
const economy = (duration: string, parties = 24) =>
  scenarioOf(shipped.replace(/^duration: .*$/m, `duration: ${duration}`).replace(/^  parties: .*$/m, `  parties: ${parties}`))

describe("the economy scenario", () => {
  it("runs every transfer kind with automations on, every invariant holding, and replays to the same hash", async () => {
    const scenario = economy("4h", 20)
    const a = await run(scenario)
    expect(violationsOf(a)).toEqual([])
    const e = a.summary.workload.economy!
    expect(e.roundsAdvanced).toBeGreaterThanOrEqual(23)
    expect(amountOf(e.rewardsMinted)).toBeGreaterThan(0n)
    expect(e.appCouponsCollected).toBeGreaterThan(0)
    expect(e.validatorCouponsCollected).toBeGreaterThan(0)
    expect(e.livenessRecordsCollected).toBeGreaterThan(0)
    expect(e.oneStepTransfers).toBeGreaterThan(0)
    expect(e.featuredTransfers).toBeGreaterThan(0)
    expect(e.offersCompleted).toBeGreaterThan(0)
    expect(e.offersExpired).toBeGreaterThan(0)
    expect(e.tokenTransfersCompleted).toBeGreaterThan(0)
    expect(e.instructionsExpired).toBeGreaterThan(0)
    expect(e.holdingsMerged).toBeGreaterThan(0)
    expect(e.trafficPurchases).toBeGreaterThan(0)
    expect(e.dustExpired).toBeGreaterThan(0)
    const b = await run(scenario)
    expect(b.historyHash).toBe(a.historyHash)
  }, 120_000)

  it("stops deciding offers and instructions when the workload stops: none is left in flight at the run's end", async () => {
    // Found by the property below: this seed draws a token-standard decision for validator2's
    // skewed clock 0.9 ms before the run's end; submitted, it was still in flight at the checks.
    const scenario = scenarioOf(`
name: economy-last-instant
duration: 90m
topology: { superValidators: 2, validators: 3, synchronizers: [global-synchronizer], parties: 4 }
workload:
  initialTap: 300
  featuredProviders: 2
  transfers: { perMinute: 0, minAmount: 0.01, maxAmount: 40 }
  offers: { perMinute: 1, minAmount: 1, maxAmount: 40, expiresIn: 10m, decideWithin: 15m }
  tokenTransfers: { perMinute: 2, minAmount: 1, maxAmount: 40, expiresIn: 10m, decideWithin: 15m }
  traffic: { perHour: 6, bytes: 200000 }
  votes: { perHour: 2 }
  automation: { pollInterval: 1m, sweepers: 1, sweepMaxBalanceUSD: 1, sweepMinBalanceUSD: 0.5, targetThroughput: 20000, minTopupInterval: 30m }
`)
    const result = await run(scenario, { seed: 556575 })
    expect(violationsOf(result)).toEqual([])
    expect(result.summary.workload.economy!.tokenTransfersCompleted).toBeGreaterThan(0)
  }, 120_000)

  it("casts no vote once the workload stopped (a request's votes come up to 41 minutes after it)", async () => {
    const scenario = scenarioOf(`
name: votes-after-stop
duration: 30m
settle: 15m
topology: { superValidators: 4, validators: 1, synchronizers: [global-synchronizer], parties: 3 }
workload:
  initialTap: 100
  featuredProviders: 1
  votes: { perHour: 20 }
`)
    const result = await run(scenario, { seed: 5 })
    expect(violationsOf(result)).toEqual([])
    const stop = result.start + result.workloadDuration
    const casts = result.network.superValidators.flatMap((sv) =>
      sv.participant.logic.journal.events().flatMap((e) => (e._tag === "CommandSubmitted" && e.commandId.startsWith("vote-cast-") ? [e.at] : []))
    )
    expect(casts.length).toBeGreaterThan(0)
    expect(casts.filter((at) => at >= stop)).toEqual([])
  }, 120_000)

  it("conserves coin whatever the mix: every coin minted by taps or rewards, burned by traffic, dust or holding fees", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 0, max: 1_000_000 }),
          parties: fc.integer({ min: 3, max: 12 }),
          svs: fc.integer({ min: 1, max: 4 }),
          validators: fc.integer({ min: 1, max: 3 }),
          transfers: fc.integer({ min: 0, max: 6 }),
          offers: fc.integer({ min: 0, max: 4 }),
          tokens: fc.integer({ min: 0, max: 4 }),
          featured: fc.integer({ min: 0, max: 2 })
        }),
        async (p) => {
          const scenario = scenarioOf(`
name: economy-property
duration: 90m
topology: { superValidators: ${p.svs}, validators: ${p.validators}, synchronizers: [global-synchronizer], parties: ${p.parties} }
workload:
  initialTap: 300
  featuredProviders: ${p.featured}
  transfers: { perMinute: ${p.transfers}, minAmount: 0.01, maxAmount: 40 }
  offers: { perMinute: ${p.offers}, minAmount: 1, maxAmount: 40, expiresIn: 10m, decideWithin: 15m }
  tokenTransfers: { perMinute: ${p.tokens}, minAmount: 1, maxAmount: 40, expiresIn: 10m, decideWithin: 15m }
  traffic: { perHour: 6, bytes: 200000 }
  votes: { perHour: 2 }
  automation: { pollInterval: 1m, sweepers: 1, sweepMaxBalanceUSD: 1, sweepMinBalanceUSD: 0.5, targetThroughput: 20000, minTopupInterval: 30m }
`)
          const result = await run(scenario, { seed: p.seed })
          expect(violationsOf(result)).toEqual([])
          const report = checkConservation(result.network)
          expect(report.circulating).toBe(report.minted - report.burned)
        }
      ),
      { numRuns: 6 }
    )
  }, 300_000)
})
