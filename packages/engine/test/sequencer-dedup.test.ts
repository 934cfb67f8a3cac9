/**
 * The sequencer's deduplication of message ids (protocol/sequencer.ts): a copy of a decided
 * submission is dropped until the decided ids before it in decision order and it have passed their
 * max sequencing time, as the first implementation (a map walked from its oldest entry) did. The
 * property runs random submissions through both and compares what each sequences, drops as a
 * duplicate or lets expire.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import type { Micros } from "@sandnet/core"
import { SequencerLogic, type SubmissionRequest } from "../src/index.ts"
import { bareSynchronizer } from "./support.ts"

const SENDERS = ["p1", "p2", "p3"]
const info = bareSynchronizer("sync")

type Outcome = "sequenced" | "duplicate" | "expired"

/** The first implementation: decided ids in a map, forgotten from the oldest while expired. */
const referenceSequencer = () => {
  const decided = new Map<string, number>()
  let last = 0
  return (sender: string, messageId: string, maxSequencingTime: number, now: number): Outcome => {
    const timestamp = Math.max(now, last + 1)
    if (timestamp > maxSequencingTime) return "expired"
    const key = `${sender}\n${messageId}`
    if (decided.has(key)) return "duplicate"
    for (const [k, until] of decided) {
      if (until >= timestamp) break
      decided.delete(k)
    }
    decided.set(key, maxSequencingTime)
    last = timestamp
    return "sequenced"
  }
}

const submission = fc.record({
  sender: fc.constantFrom(...SENDERS),
  messageId: fc.constantFrom("a", "b", "c", "d"),
  /** Time since the previous arrival. */
  gap: fc.nat({ max: 40 }),
  /** How long after its arrival it may still be sequenced (negative: it came late). */
  window: fc.integer({ min: -5, max: 120 })
})

describe("the sequencer's deduplication", () => {
  it("sequences, drops and lets expire what the first implementation did", () => {
    fc.assert(
      fc.property(fc.array(submission, { maxLength: 300 }), (submissions) => {
        const logic = new SequencerLogic(info, new Set(SENDERS))
        const reference = referenceSequencer()
        let now = 1_000
        let duplicates = 0
        let expired = 0
        for (const s of submissions) {
          now += s.gap
          const request: SubmissionRequest = { _tag: "SubmissionRequest", sender: s.sender, messageId: s.messageId, maxSequencingTime: (now + s.window) as Micros, envelopes: [] }
          const expected = reference(s.sender, s.messageId, now + s.window, now)
          const out = logic.handle(request, now as Micros)
          // a sequenced submission without envelopes is its sender's receipt alone
          expect(out.length === 1 ? "sequenced" : "refused").toBe(expected === "sequenced" ? "sequenced" : "refused")
          if (expected === "duplicate") duplicates++
          if (expected === "expired") expired++
        }
        expect(logic.stats.duplicates).toBe(duplicates)
        expect(logic.stats.expired).toBe(expired)
      }),
      { numRuns: 300 }
    )
  })

  it("forgets an id once it and the ids decided before it are past their max sequencing time", () => {
    const logic = new SequencerLogic(info, new Set(SENDERS))
    for (let i = 0; i < 50_000; i++) {
      const out = logic.handle({ _tag: "SubmissionRequest", sender: "p1", messageId: `m${i}`, maxSequencingTime: (i * 10 + 100) as Micros, envelopes: [] }, (i * 10) as Micros)
      expect(out.length).toBe(1)
    }
    // a copy of an old id comes after its max sequencing time: refused as expired, not as a duplicate
    expect(logic.handle({ _tag: "SubmissionRequest", sender: "p1", messageId: "m0", maxSequencingTime: 500_000 as Micros, envelopes: [] }, 499_990 as Micros).length).toBe(1)
    expect(logic.handle({ _tag: "SubmissionRequest", sender: "p1", messageId: "m49999", maxSequencingTime: 500_100 as Micros, envelopes: [] }, 499_995 as Micros).length).toBe(0)
    expect(logic.stats.duplicates).toBe(1)
  })
})
