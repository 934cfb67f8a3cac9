/** A participant's in-memory journal gives back the events journaled, in order (a commit kept as its log entry). */
import type { CommittedUpdate } from "@sandnet/core"
import { describe, expect, it } from "vitest"
import { ParticipantJournal } from "../src/participant/journal.ts"
import type { ParticipantEvent } from "../src/participant/model.ts"

const entry = (offset: number): CommittedUpdate => ({
  offset,
  update: { kind: "topology", updateId: `t${offset}`, synchronizerId: "s", recordTime: offset, events: [] } as unknown as CommittedUpdate["update"]
})

describe("ParticipantJournal", () => {
  it("gives back every kind of event in the order journaled, commits with their very entries", () => {
    const events: Array<ParticipantEvent> = [
      { _tag: "SubmissionCounter", nonce: 1 },
      { _tag: "UpdateCommitted", entry: entry(1) },
      { _tag: "PackagesVetted", packageIds: ["p"] },
      { _tag: "UpdateCommitted", entry: entry(2) },
      { _tag: "SubmissionCounter", nonce: 2 }
    ]
    const journal = new ParticipantJournal()
    for (const event of events) journal.push(event)
    expect(journal.length).toBe(events.length)
    expect(journal.events()).toEqual(events)
    expect([...journal]).toEqual(events)
    const commits = journal.events().filter((e): e is Extract<ParticipantEvent, { _tag: "UpdateCommitted" }> => e._tag === "UpdateCommitted")
    expect(commits.map((e) => e.entry)).toEqual([events[1], events[3]].map((e) => (e as Extract<ParticipantEvent, { _tag: "UpdateCommitted" }>).entry))
    expect(commits[0]!.entry).toBe((events[1] as Extract<ParticipantEvent, { _tag: "UpdateCommitted" }>).entry)
  })
})
