/**
 * A participant's journal kept in memory (simulations recover a crashed node from it): its events
 * in order. A committed update is kept as its log entry, not as an event object around it: the
 * entry is in the node's update log anyway, and the event around every commit of every node (the
 * twenty super validators' nodes each commit every transfer) was about 4% of the large scenario's
 * heap. Reading gives the events as they were journaled (equal, not the same objects).
 */
import type { CommittedUpdate } from "@sandnet/core"
import type { ParticipantEvent } from "./model.ts"

type Kept = Exclude<ParticipantEvent, { readonly _tag: "UpdateCommitted" }> | CommittedUpdate

export class ParticipantJournal implements Iterable<ParticipantEvent> {
  private readonly kept: Array<Kept> = []

  get length(): number {
    return this.kept.length
  }

  push(event: ParticipantEvent): void {
    this.kept.push(event._tag === "UpdateCommitted" ? event.entry : event)
  }

  *[Symbol.iterator](): IterableIterator<ParticipantEvent> {
    for (const kept of this.kept) yield "_tag" in kept ? kept : { _tag: "UpdateCommitted", entry: kept }
  }

  /** The events, as an array (tests, checks at the end of a run). */
  events(): Array<ParticipantEvent> {
    return [...this]
  }
}
