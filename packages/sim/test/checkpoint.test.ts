/**
 * A participant restored from a checkpoint is the participant a replay of its journal builds (over
 * the network's topology, which the network's checkpoint holds whole): at
 * whatever entry the checkpoint was taken, and after the entries that follow it are replayed
 * into both. The journals are a simulated network's (transfers, reassignments between two
 * synchronizers, a crash), with history bounds small enough that the logs archive segments; the
 * checkpoint crosses a structured clone, as it crosses the store's serialization.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import type { CommittedUpdate } from "@sandnet/core"
import { checkpointOf, ParticipantLogic, restoreCheckpoint, ScanStore, type ArchivedLogLimits, type ParticipantEvent, type ScanVerdict } from "@sandnet/engine"
import { run, scenarioOf, violationsOf } from "./support.ts"

const LIMITS: ArchivedLogLimits = { hotEntries: 8, segmentEntries: 4 }

const scenario = scenarioOf(`
name: checkpoint
seed: 3
duration: 6m
topology: { superValidators: 2, validators: 2, synchronizers: [sync-1, sync-2], parties: 6 }
workload:
  initialTap: 100
  transfers: { perMinute: 30, minAmount: 1, maxAmount: 40 }
  reassignments: { perHour: 120 }
faults:
  crashes:
    - { nodes: [validator1], at: 2m, downtime: 30s }
`)

/** What a replay rebuilds of a participant, as data: equal for two nodes that answer and go on alike. */
const stateOf = (node: ParticipantLogic) => {
  const contracts = [...node.acs.all()]
  const templateParties = new Set(contracts.flatMap((c) => [...c.created.signatories, ...c.created.observers].map((p) => `${c.created.templateId}|${p}`)))
  return {
    ledgerEnd: node.ledgerEnd,
    nonce: node.nonce,
    committed: node.stats.committed,
    contracts,
    byTemplate: [...templateParties].map((key) => {
      const [templateId, party] = key.split("|") as [string, string]
      return [key, [...node.acs.ofTemplate(templateId, party)].map((c) => c.created.contractId)]
    }),
    inFlightContracts: [...node.acs.inFlightContracts()],
    retainedSetup: node.retainedSetup,
    signingKeys: [...node.signingKeys.keys()],
    vetted: [...node.vetted],
    vettingSerial: node.vettingSerial,
    reassigned: [...node.reassigned],
    log: [...node.log],
    updateIndex: node.updateIndex.image(),
    completions: [...node.completions],
    commands: node.commands.image(),
    // the submissions a deadline or the sequencer can still act on (a replay also keeps earlier attempts', inert)
    submissions: [...node.submissions.values()].filter((s) => node.isCurrentAttempt(s)).map((s) => ({ ...s, synchronizer: s.synchronizer.synchronizerId }))
  }
}

const freshLike = (node: ParticipantLogic): ParticipantLogic => new ParticipantLogic({ ...node.config, historyLimits: LIMITS }, node.topology, node.registry)

const replayInto = (node: ParticipantLogic, events: ReadonlyArray<ParticipantEvent>): ParticipantLogic => {
  for (const event of events) node.apply(event, true)
  return node
}

describe("a participant's checkpoint", () => {
  it("restores the node a replay builds, at any entry, and the entries after it replay into it alike", async () => {
    const result = await run(scenario, { historyLimits: LIMITS })
    expect(violationsOf(result)).toEqual([])
    expect(result.faults.restarts).toBe(1)
    const nodes = [...result.network.superValidators, ...result.network.validators].map((n) => n.participant.logic)
    for (const live of nodes) {
      const journal = [...live.journal]
      expect(journal.length).toBeGreaterThan(100)
      fc.assert(
        fc.property(fc.nat(journal.length), (cut) => {
          const replayed = replayInto(freshLike(live), journal.slice(0, cut))
          const checkpoint = structuredClone(checkpointOf(replayed))
          const restored = freshLike(live)
          restoreCheckpoint(restored, checkpoint)
          expect(stateOf(restored)).toEqual(stateOf(replayed))
          replayInto(replayed, journal.slice(cut))
          replayInto(restored, journal.slice(cut))
          expect(stateOf(restored)).toEqual(stateOf(replayed))
        }),
        { numRuns: 12 }
      )
      // the whole journal's checkpoint, from segments: every archived entry reads back
      const whole = replayInto(freshLike(live), journal)
      expect(whole.log.archivedLength).toBeGreaterThan(0)
      const restored = freshLike(live)
      restoreCheckpoint(restored, structuredClone(checkpointOf(whole)))
      expect(restored.log.archivedLength).toBe(whole.log.archivedLength)
      expect([...restored.log]).toEqual([...live.log])
    }
  }, 120_000)

  it("refuses a node that has committed, another node's checkpoint, or another version", async () => {
    const result = await run(scenario, { historyLimits: LIMITS })
    const [a, b] = result.network.validators.map((n) => n.participant.logic) as [ParticipantLogic, ParticipantLogic]
    const checkpoint = checkpointOf(a)
    expect(() => restoreCheckpoint(freshLike(b), checkpoint)).toThrow(/restored into/)
    expect(() => restoreCheckpoint(replayInto(freshLike(a), [...a.journal]), checkpoint)).toThrow(/nothing committed/)
    expect(() => restoreCheckpoint(freshLike(a), { ...checkpoint, version: 2 as 3 })).toThrow(/version 2/)
  }, 60_000)
})

/** What a scan is given: a commit of its participant, or a verdict (again, for some: duplicates are counted). */
type ScanInput = { readonly commit: CommittedUpdate } | { readonly verdict: ScanVerdict }

const ingest = (scan: ScanStore, inputs: ReadonlyArray<ScanInput>): ScanStore => {
  for (const input of inputs) {
    if ("commit" in input) scan.onCommitted(input.commit)
    else scan.ingestVerdict(input.verdict.verdict, input.verdict.trafficSummary, true)
  }
  return scan
}

/** What a scan answers: every update and verdict by id, its app activity, and its two history orders whole. */
const answersOf = (scan: ScanStore, ids: ReadonlyArray<string>) => ({
  image: scan.checkpoint(),
  byId: ids.map((id) => [scan.updateById(id), scan.verdictOf(id), scan.appActivityOf(id)]),
  updateOrder: scan.historyOrders().updates.positionsAfter(undefined, Number.MAX_SAFE_INTEGER),
  eventOrder: scan.historyOrders().events.idsAfter(undefined, Number.MAX_SAFE_INTEGER)
})

describe("a scan's checkpoint", () => {
  it("restores the scan that ingesting the same commits and verdicts builds, at any point, in any interleaving", async () => {
    const result = await run(scenario, { historyLimits: LIMITS })
    const sv = result.network.superValidators[0]!
    const commits = [...sv.participant.logic.log]
    const verdicts = [...sv.scan.verdictLog]
    const ids = [...new Set([...commits.map((c) => c.update.updateId), ...verdicts.map((v) => v.verdict.updateId)])]
    expect(verdicts.length).toBeGreaterThan(100)
    const fresh = (keeping: "kept" | "built when read") => {
      const scan = new ScanStore(sv.participant.logic, sv.scan.dso, LIMITS, keeping)
      scan.appActivity = sv.scan.appActivity
      return scan
    }
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: commits.length + verdicts.length, maxLength: commits.length + verdicts.length }), fc.nat(commits.length + verdicts.length), fc.constantFrom("kept" as const, "built when read" as const), (picks, cut, keeping) => {
        // commits in order and verdicts in order, interleaved by the picks; every tenth verdict ingested twice
        const inputs: Array<ScanInput> = []
        let c = 0
        let v = 0
        for (const pick of picks) {
          if ((pick < 5 && c < commits.length) || v >= verdicts.length) inputs.push({ commit: commits[c++]! })
          else {
            inputs.push({ verdict: verdicts[v]! })
            if (v % 10 === 0) inputs.push({ verdict: verdicts[v]! })
            v++
          }
        }
        const ingested = ingest(fresh(keeping), inputs.slice(0, cut))
        const restored = fresh(keeping)
        restored.restore(structuredClone(ingested.checkpoint()))
        expect(answersOf(restored, ids)).toEqual(answersOf(ingested, ids))
        ingest(ingested, inputs.slice(cut))
        ingest(restored, inputs.slice(cut))
        expect(answersOf(restored, ids)).toEqual(answersOf(ingested, ids))
        expect(restored.duplicateVerdictsIgnored).toBeGreaterThan(0)
      }),
      { numRuns: 10 }
    )
  }, 120_000)
})
