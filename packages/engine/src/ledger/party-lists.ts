/**
 * Party lists as the interpreter keeps them: sorted and duplicate-free, so that unions are linear
 * merges and most lists (short, already in order) are used as they come.
 */
import type { PartyId } from "@sandnet/core"

export const sortedUnique = (parties: ReadonlyArray<PartyId>): ReadonlyArray<PartyId> => {
  // Most party lists are short and already sorted and unique: keep them as they are.
  let ordered = true
  for (let i = 1; i < parties.length; i++) {
    if (!(parties[i - 1]! < parties[i]!)) {
      ordered = false
      break
    }
  }
  return ordered ? parties : [...new Set(parties)].sort()
}

/** Union of two sorted, duplicate-free lists; returns `b` itself when `a` adds nothing (the usual case). */
export const mergeSorted = (a: ReadonlyArray<PartyId>, b: ReadonlyArray<PartyId>): ReadonlyArray<PartyId> => {
  const out: Array<PartyId> = []
  let i = 0
  let j = 0
  let added = false
  while (i < a.length || j < b.length) {
    const x = a[i]
    const y = b[j]
    if (y === undefined || (x !== undefined && x < y)) {
      out.push(x!)
      i++
      added = true
    } else if (x === undefined || y < x) {
      out.push(y)
      j++
    } else {
      out.push(x)
      i++
      j++
    }
  }
  return added ? out : b
}

export const isSubset = (small: ReadonlyArray<PartyId>, big: ReadonlySet<PartyId>): boolean => small.every((p) => big.has(p))
