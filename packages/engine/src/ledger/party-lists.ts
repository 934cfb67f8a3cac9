/**
 * Party lists as the interpreter keeps them: sorted and duplicate-free, so that unions are linear
 * merges and most lists (short, already in order) are used as they come.
 */
import type { PartyId } from "@sandnet/core"

/**
 * `list` in ascending order, as `[...list].sort()` gives it (duplicates kept), but the list itself when
 * it is in order already, as most party lists are. Sorting allocates a work array even for a sorted
 * list; the sorts of party lists were 3% of the large scenario's allocations.
 */
export const sortedList = <T extends string>(list: ReadonlyArray<T>): ReadonlyArray<T> => (ascending(list) ? list : [...list].sort())

/** `[...items].sort()` of the items of a Set, or the like: sorted in place, unless they are in order already. */
export const sortInPlace = <T extends string>(list: Array<T>): Array<T> => (ascending(list) ? list : list.sort())

const ascending = (list: ReadonlyArray<string>): boolean => {
  for (let i = 1; i < list.length; i++) if (list[i - 1]! > list[i]!) return false
  return true
}

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

const EMPTY: ReadonlyArray<PartyId> = []

/** Distinct lists kept by `internParties` before it starts over. */
const INTERNED_LISTS = 4_096

/** The lists kept, as a trie by party: a lookup is a map lookup per party (strings keep their hash), no key is built. */
interface InternedNode {
  list?: ReadonlyArray<PartyId>
  next?: Map<PartyId, InternedNode>
}
let interned: InternedNode = {}
let internedCount = 0

const nodeOf = (parties: ReadonlyArray<PartyId>): InternedNode => {
  let node = interned
  for (const party of parties) {
    node.next ??= new Map()
    let next = node.next.get(party)
    if (next === undefined) node.next.set(party, (next = {}))
    node = next
  }
  return node
}

/**
 * One shared copy of each party list a created contract keeps (its signatories, observers
 * and witnesses): a node's live contracts name the same few lists again and again, and a copy each
 * was about 300 bytes per transaction of a 5-minute soak. A list is copied when first seen (the
 * caller's array stays the caller's); the table starts over past `INTERNED_LISTS`.
 */
export const internParties = (parties: ReadonlyArray<PartyId>): ReadonlyArray<PartyId> => {
  if (parties.length === 0) return EMPTY
  const known = nodeOf(parties)
  if (known.list !== undefined) return known.list
  if (internedCount >= INTERNED_LISTS) {
    interned = {}
    internedCount = 0
  }
  const node = nodeOf(parties)
  // not frozen: the types keep it read-only, and the loops over party lists keep seeing one elements kind
  node.list = [...parties]
  internedCount++
  return node.list
}

export const isSubset = (small: ReadonlyArray<PartyId>, big: ReadonlySet<PartyId>): boolean => small.every((p) => big.has(p))
