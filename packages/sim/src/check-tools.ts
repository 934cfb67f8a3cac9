/**
 * What the end-of-run checks share: a violation list capped at MAX_LISTED, a participant's name, and
 * marks per id found through the objects the nodes share (MarksById).
 */
import type { ParticipantNode } from "@sandnet/engine"

/** At most this many violations are listed per check (then a count of the rest). */
export const MAX_LISTED = 20

/** `violations`, then a line counting the `more` left out. */
export const capped = (violations: ReadonlyArray<string>, more: number): ReadonlyArray<string> =>
  more > 0 ? [...violations, `... and ${more} more`] : violations

/** A violation list that keeps the first MAX_LISTED and counts the rest. */
export const cappedList = () => {
  const listed: Array<string> = []
  let more = 0
  return {
    add: (violation: string): void => {
      if (listed.length < MAX_LISTED) listed.push(violation)
      else more++
    },
    result: (): ReadonlyArray<string> => capped(listed, more)
  }
}

export const nodeName = (node: ParticipantNode): string => node.logic.config.name

/**
 * A mark per id (a contract's, an update's, a verdict's), found through the object that carries the
 * id: the super validators share their update and verdict objects, so a lookup is by that object
 * (about 0.15 us on a slow VM) and only an object's first sight looks its id up (0.5 to 0.7 us).
 */
export class MarksById<Mark, Carrier extends object = object> {
  private readonly byId = new Map<string, Mark>()
  private readonly byCarrier = new Map<Carrier, Mark>()

  /** `fresh` makes an id's mark when it is first seen, from the object that carried it then. */
  constructor(private readonly fresh: (carrier: Carrier) => Mark) {}

  /** The mark of `id`, which `carrier` (immutable) carries. */
  of(carrier: Carrier, id: string): Mark {
    let mark = this.byCarrier.get(carrier)
    if (mark === undefined) {
      mark = this.byId.get(id)
      if (mark === undefined) this.byId.set(id, (mark = this.fresh(carrier)))
      this.byCarrier.set(carrier, mark)
    }
    return mark
  }

  /** Every id marked, with its mark, in the order the ids were first seen. */
  entries(): IterableIterator<[string, Mark]> {
    return this.byId.entries()
  }
}
