/** Reading a stream page by page: what every "read all of it" of the store does. */
import { Effect } from "effect"

/** Entries per query when a whole stream is read. */
export const PAGE = 5000

/** Every item `read` gives from `fromSeq` on, a page at a time, until a short page or `head`. */
export const readPages = <A, E>(
  read: (fromSeq: number, limit: number) => Effect.Effect<ReadonlyArray<A>, E>,
  fromSeq = 1,
  head = Number.POSITIVE_INFINITY
): Effect.Effect<Array<A>, E> =>
  Effect.gen(function*() {
    const out: Array<A> = []
    while (fromSeq + out.length <= head) {
      const page = yield* read(fromSeq + out.length, PAGE)
      for (const item of page) out.push(item)
      if (page.length < PAGE) break
    }
    return out
  })
