/**
 * What the sequencer delivers for a sequenced submission (protocol/sequencer.ts): one Deliver per
 * recipient in first-seen order, holding the contents of every envelope addressed to it in
 * submission order, the sender's receipt (its message id; its contents only if it is a recipient
 * too) and the traffic summary for the mediator alone. The property compares it with that rule
 * written out for random submissions: one envelope or several, recipients listed twice, the
 * sender among the recipients or not, with or without a receipt. Recipients may share one Deliver
 * object; what each receives must be the same.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import type { Micros } from "@sandnet/core"
import { SequencerLogic, type Deliver, type Envelope, type EnvelopeContent, type SubmissionRequest } from "../src/index.ts"
import { bareSynchronizer } from "./support.ts"

const MEMBERS = ["p1", "p2", "p3", "p4", "mediator", "sequencer"]
const info = bareSynchronizer("sync")

/** A content object per envelope (compared by identity, as the sequencer passes them on). */
const content = (n: number): EnvelopeContent => ({ _tag: "ConfirmationResult", n }) as unknown as EnvelopeContent

const envelope = fc.record({ recipients: fc.array(fc.constantFrom(...MEMBERS), { minLength: 1, maxLength: 8 }), size: fc.nat({ max: 500 }) })

interface Received {
  readonly to: string
  readonly contents: ReadonlyArray<EnvelopeContent>
  readonly messageId: string | undefined
  readonly hasTrafficSummary: boolean
}

/** The rule, written out. */
const expected = (request: SubmissionRequest): Array<Received> => {
  const batches = new Map<string, Array<EnvelopeContent>>()
  for (const e of request.envelopes) for (const r of e.recipients) if (r !== "sequencer") (batches.get(r) ?? batches.set(r, []).get(r)!).push(e.content)
  if (request.receipt !== false && !batches.has(request.sender)) batches.set(request.sender, [])
  return [...batches].map(([to, contents]) => ({ to, contents, messageId: to === request.sender ? request.messageId : undefined, hasTrafficSummary: to === "mediator" }))
}

describe("the sequencer's deliveries", () => {
  it("give each recipient what the rule says, shared Delivers or not", () => {
    fc.assert(
      fc.property(fc.array(envelope, { minLength: 1, maxLength: 3 }), fc.constantFrom("p1", "p2", "p3"), fc.option(fc.boolean(), { nil: undefined }), (shapes, sender, receipt) => {
        const logic = new SequencerLogic(info, new Set(MEMBERS))
        const envelopes: Array<Envelope> = shapes.map((s, i) => ({ recipients: s.recipients, content: content(i), size: s.size, viewIds: [i] }))
        const request: SubmissionRequest = { _tag: "SubmissionRequest", sender, messageId: "m", maxSequencingTime: 10_000 as Micros, envelopes, ...(receipt === undefined ? {} : { receipt }) }
        const out = logic.handle(request, 100 as Micros)
        const got = out.map((o): Received => {
          expect(o._tag).toBe("Send")
          const send = o as Extract<typeof o, { _tag: "Send" }>
          const d = send.message as Deliver
          return { to: send.to, contents: d.contents, messageId: d.messageId, hasTrafficSummary: d.trafficSummary !== undefined }
        })
        expect(got.map((g) => ({ ...g, contents: [...g.contents] }))).toEqual(expected(request).map((e) => ({ ...e, contents: [...e.contents] })))
        for (const [i, g] of got.entries()) expect(g.contents.every((c, j) => c === expected(request)[i]!.contents[j])).toBe(true)
      }),
      { numRuns: 500 }
    )
  })
})
