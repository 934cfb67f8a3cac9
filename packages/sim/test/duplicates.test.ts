import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type LinkModel, type Message, type SubmissionRequest } from "@sandnet/engine"
import { run, small, violationsOf } from "./support.ts"

const fromParticipantToSequencer = (from: string, to: string, message: Message): boolean =>
  message._tag === "SubmissionRequest" && from.startsWith("PAR::") && to.startsWith("SEQ::")

describe("duplicated submissions", () => {
  it("a copy of a submission delivered twice by the network is sequenced once", async () => {
    const duplicating = (base: LinkModel): LinkModel => ({
      route: (from, to, message, now, ordered) => {
        const times = base.route(from, to, message, now, ordered)
        return fromParticipantToSequencer(from, to, message) ? [...times, ...times.map((t) => t + 5_000)] : times
      }
    })
    const result = await run(small({ minutes: 4, syncs: 1 }), { seed: 3, link: duplicating })
    expect(violationsOf(result)).toEqual([])
    const sequencer = result.network.synchronizers[0]!.sequencer.logic
    expect(sequencer.stats.duplicates).toBeGreaterThan(0)
    expect(result.network.synchronizers[0]!.mediator.logic.stats.duplicates).toBe(0)
    const w = result.summary.workload
    expect(w.transfersSucceeded).toBe(w.transfersSubmitted)
  }, 60_000)

  it("a resubmitted request (same update id, new message id) gets a REJECTED verdict that never replaces the first", async () => {
    // Each participant resubmits every request once, 5 ms later, as a client retrying a send would.
    const result = await run(small({ minutes: 4, syncs: 1 }), {
      seed: 3,
      setup: (sim) =>
        Effect.sync(() => {
          for (const s of sim.network.synchronizers) {
            const actor = s.sequencer
            const receive = actor.receive
            ;(actor as { receive: typeof receive }).receive = (message, from) => {
              if (!fromParticipantToSequencer(from, actor.address, message)) return receive(message, from)
              const request = message as SubmissionRequest
              const carriesRequest = request.envelopes.some((e) => e.content._tag === "MediatorRequest")
              if (!carriesRequest || request.messageId.endsWith(":retry")) return receive(message, from)
              const retry: SubmissionRequest = { ...request, messageId: `${request.messageId}:retry` }
              return Effect.zipRight(receive(message, from), sim.queue.schedule(actor.address, retry, sim.clock.now + 5_000))
            }
          }
        })
    })
    expect(violationsOf(result)).toEqual([])
    expect(result.network.synchronizers[0]!.mediator.logic.stats.duplicates).toBeGreaterThan(0)
    for (const sv of result.network.superValidators) {
      // The scans saw the retries' REJECTED verdicts and kept the first, ACCEPTED ones.
      expect(sv.scan.duplicateVerdictsIgnored).toBeGreaterThan(0)
      for (const { update } of sv.scan.updates) expect(sv.scan.verdictOf(update.updateId)?.verdict.result).toBe("VERDICT_RESULT_ACCEPTED")
    }
    const w = result.summary.workload
    expect(w.transfersSucceeded).toBe(w.transfersSubmitted)
  }, 60_000)
})
