import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import type { CommittedUpdate } from "@sandnet/core"
import type { CoinNetwork, ParticipantNode } from "@sandnet/engine"
import {
  ALL_INVARIANTS,
  checkExactlyOnce,
  checkInvariants,
  checkNoDoubleSpend,
  checkReassignmentCounters,
  checkStakeholdersCommitted,
  type RunResult
} from "../src/index.ts"
import { run, small } from "./support.ts"

/**
 * The log checks see what a node's log says, whichever node it is: a log is tampered with after an
 * honest run (an update committed a second time, as a broken participant would) and the checks must
 * name that node and that update, and nothing else. The one walk of checkInvariants must say what
 * each check says alone.
 */
const honestRun = (): Promise<RunResult> => run(small({ svs: 3, validators: 2, minutes: 4, reassignmentsPerHour: 240 }), { seed: 3 })

const nameOf = (node: ParticipantNode): string => node.logic.config.name

/** Commits `entry`'s update a second time on `node` (at the next offset): the same object, or an equal copy. */
const commitAgain = (node: ParticipantNode, entry: CommittedUpdate, copy = false): void => {
  node.logic.log.push({ offset: node.logic.log.length + 1, update: copy ? { ...entry.update } : entry.update })
}

const logChecksAlone = (network: CoinNetwork) => ({
  "no-double-spend": checkNoDoubleSpend(network),
  "exactly-once": checkExactlyOnce(network),
  "reassignment-counters": checkReassignmentCounters(network),
  "stakeholders-committed": checkStakeholdersCommitted(network)
})

const logChecksTogether = (network: CoinNetwork) => {
  const all = checkInvariants(network, ALL_INVARIANTS)
  return {
    "no-double-spend": all["no-double-spend"],
    "exactly-once": all["exactly-once"],
    "reassignment-counters": all["reassignment-counters"],
    "stakeholders-committed": all["stakeholders-committed"]
  }
}

/**
 * The plain form of no-double-spend and exactly-once (a map per node, as they were written before
 * the one walk): the reference the property compares with.
 */
const referenceChecks = (network: CoinNetwork) => {
  const doubleSpends: Array<string> = []
  const twice: Array<string> = []
  for (const node of network.participants) {
    const consumed = new Map<string, string>()
    const seen = new Set<string>()
    for (const { update } of node.logic.log) {
      if (seen.has(update.updateId)) twice.push(`${nameOf(node)} committed update ${update.updateId} twice`)
      seen.add(update.updateId)
      if (update.kind !== "transaction") continue
      for (const n of update.nodes) {
        if (n.kind !== "exercised" || !n.consuming) continue
        const earlier = consumed.get(n.contractId)
        if (earlier !== undefined) doubleSpends.push(`${nameOf(node)}: contract ${n.contractId} consumed in ${earlier} and again in ${update.updateId}`)
        else consumed.set(n.contractId, update.updateId)
      }
    }
  }
  return { doubleSpends, twice }
}

describe("log checks", () => {
  it("whatever is committed again on whichever nodes, the one walk finds what a map per node finds", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1_000 }),
        // (node, entry, as a copy) picks, as fractions of the participants and of the node's log
        fc.array(fc.tuple(fc.double({ min: 0, max: 0.999, noNaN: true }), fc.double({ min: 0, max: 0.999, noNaN: true }), fc.boolean()), { minLength: 1, maxLength: 4 }),
        async (seed, picks) => {
          const { network } = await run(small({ svs: 3, validators: 2, minutes: 2, reassignmentsPerHour: 120 }), { seed })
          for (const [nodeAt, entryAt, copy] of picks) {
            const node = network.participants[Math.floor(nodeAt * network.participants.length)]!
            const log = [...node.logic.log]
            commitAgain(node, log[Math.floor(entryAt * log.length)]!, copy)
          }
          const reference = referenceChecks(network)
          const alone = logChecksAlone(network)
          expect(alone["no-double-spend"]).toEqual(reference.doubleSpends)
          expect(alone["exactly-once"].filter((v) => v.endsWith(" twice") && !v.includes(": command "))).toEqual(reference.twice.slice(0, 20))
          expect(alone["exactly-once"].length).toBeGreaterThan(0)
          expect(logChecksTogether(network)).toEqual(alone)
        }
      ),
      { numRuns: 40 }
    )
  }, 120_000)

  it("a transfer committed twice on a middle super validator: no-double-spend and exactly-once name it, on that node only", async () => {
    const { network, ok } = await honestRun()
    expect(ok).toBe(true)
    expect(logChecksTogether(network)).toEqual({ "no-double-spend": [], "exactly-once": [], "reassignment-counters": [], "stakeholders-committed": [] })
    // The second super validator: the first one's consumptions of the same contracts come before it in the walk.
    const node = network.superValidators[1]!.participant
    const entry = [...node.logic.log].find(
      (e) => e.update.kind === "transaction" && e.update.submittingParticipant !== node.logic.uid && e.update.nodes.some((n) => n.kind === "exercised" && n.consuming)
    )!
    const update = entry.update
    if (update.kind !== "transaction") throw new Error("not a transaction")
    commitAgain(node, entry)
    const consumed = update.nodes.flatMap((n) => (n.kind === "exercised" && n.consuming ? [n.contractId] : []))
    const alone = logChecksAlone(network)
    expect(alone["no-double-spend"]).toEqual(consumed.map((id) => `${nameOf(node)}: contract ${id} consumed in ${update.updateId} and again in ${update.updateId}`))
    expect(alone["exactly-once"]).toEqual([`${nameOf(node)} committed update ${update.updateId} twice`])
    expect(alone["stakeholders-committed"]).toEqual([])
    expect(logChecksTogether(network)).toEqual(alone)
  }, 60_000)

  it("an unassign committed twice: reassignment-counters names the node, the contract and the counter", async () => {
    const { network } = await honestRun()
    const node = network.superValidators[2]!.participant
    const entry = [...node.logic.log].find((e) => e.update.kind === "reassignment" && e.update.event.kind === "unassign")
    expect(entry).toBeDefined()
    const event = entry!.update.kind === "reassignment" ? entry!.update.event : undefined
    if (event?.kind !== "unassign") throw new Error("not an unassign")
    commitAgain(node, entry!)
    const alone = logChecksAlone(network)
    expect(alone["reassignment-counters"]).toEqual([`${nameOf(node)}: two unassigns of ${event.contractId} with counter ${event.reassignmentCounter}`])
    expect(alone["exactly-once"]).toEqual([`${nameOf(node)} committed update ${entry!.update.updateId} twice`])
    expect(logChecksTogether(network)).toEqual(alone)
  }, 60_000)

  it("an update no verdict accepted: stakeholders-committed names every node that committed it", async () => {
    const { network } = await honestRun()
    const sv = network.superValidators[0]!
    const entry = [...network.validators[0]!.participant.logic.log].find((e) => e.update.kind === "transaction")!
    // A transaction the reference scan never saw a verdict for, committed by the first validator.
    const made = { ...entry.update, updateId: `${entry.update.updateId}-forged` } as CommittedUpdate["update"]
    const node = network.validators[0]!.participant
    node.logic.log.push({ offset: node.logic.log.length + 1, update: made })
    const alone = logChecksAlone(network)
    expect(alone["stakeholders-committed"]).toEqual([`${nameOf(node)} committed ${made.updateId}, for which ${sv.name}'s scan has no verdict`])
    expect(logChecksTogether(network)).toEqual(alone)
  }, 60_000)
})
