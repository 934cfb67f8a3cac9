/**
 * A serving node archives its history in its ticks (node runtime/ticker.ts calls
 * archiveDueHistory): until then a network's logs hold their entries as objects; a turn archives
 * the segments due across every log, within the budget it is given, and every log reads the same.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SIMULATION_EPOCH } from "@sandnet/core"
import { archiveDueHistory, historyLogsOf } from "../../src/index.ts"
import { makeHarness } from "../support.ts"

const DEFERRED = { hotEntries: 1, segmentEntries: 2, deferUpTo: 10_000 }

describe("archiving a network's history in turns", () => {
  it.effect("archives every log's due segments when asked, within the budget, and reads the same after", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({}, undefined, SIMULATION_EPOCH, { historyLimits: DEFERRED })
      // parties hosted on the validator: a topology update each in its log
      const validatorNode = h.network.validators[0]!.participant
      for (const hint of ["alice", "bob", "carol", "dave", "erin", "frank"]) yield* h.run(validatorNode.allocateParty(hint))
      yield* h.driver.runUntilIdle()
      const logs = historyLogsOf(h.network)
      // each participant's log and completions, each scan's updates and verdicts
      expect(logs).toHaveLength(2 * h.network.participants.length + 2 * h.network.superValidators.length)
      const before = logs.map((log) => [...log])
      expect(before.some((entries) => entries.length >= 3)).toBe(true)
      // deferred: pushing archived nothing
      expect(logs.every((log) => log.archivedLength === 0)).toBe(true)
      // a turn that allows nothing archives nothing; one that allows one segment archives one
      expect(archiveDueHistory(h.network, () => false)).toBe(0)
      let turns = 0
      expect(archiveDueHistory(h.network, () => turns++ === 0)).toBe(1)
      const archived = archiveDueHistory(h.network, () => true)
      expect(archived).toBeGreaterThan(0)
      for (const [i, log] of logs.entries()) {
        expect(log.length - log.archivedLength).toBeLessThan(DEFERRED.hotEntries + DEFERRED.segmentEntries)
        expect([...log]).toEqual(JSON.parse(JSON.stringify(before[i])))
      }
      // nothing more is due
      expect(archiveDueHistory(h.network, () => true)).toBe(0)
      const validator = h.network.validators[0]!.participant.logic
      const first = validator.log.at(0)!
      expect(validator.updateById(first.update.updateId)).toEqual(first)
    })
  )
})
