/**
 * The interpreter's party lists: sorted and duplicate-free, merged linearly, and the lists a created
 * contract keeps shared between contracts (equal lists, one copy).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { internParties, mergeSorted, sortedList, sortedUnique, sortInPlace } from "../../src/ledger/party-lists.ts"

const party = fc.constantFrom("alice::1220aa", "bob::1220bb", "dso::1220cc", "validator::1220dd", "sv1::1220ee")

describe("party lists", () => {
  it("sortedUnique sorts and drops duplicates; mergeSorted is the sorted union", () => {
    fc.assert(
      fc.property(fc.array(party, { maxLength: 6 }), fc.array(party, { maxLength: 6 }), (a, b) => {
        const sa = sortedUnique(a)
        const sb = sortedUnique(b)
        expect(sa).toEqual([...new Set(a)].sort())
        expect(mergeSorted(sa, sb)).toEqual([...new Set([...a, ...b])].sort())
      })
    )
  })

  it("internParties gives equal lists one copy, and leaves the caller's array alone", () => {
    fc.assert(
      fc.property(fc.array(party, { maxLength: 5 }), (parties) => {
        const list = sortedUnique(parties)
        const mine = [...list]
        const shared = internParties(mine)
        expect(shared).toEqual(list)
        expect(internParties([...list])).toBe(shared)
        if (list.length > 0) expect(shared).not.toBe(mine)
      })
    )
    expect(internParties([])).toBe(internParties([]))
  })

  it("sortedList and sortInPlace order as sort() does, duplicates kept, and leave a list in order as it is", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(party, fc.string()), { maxLength: 8 }), (list) => {
        const before = [...list]
        const expected = [...list].sort()
        expect(sortedList(list)).toEqual(expected)
        expect(list).toEqual(before)
        expect(sortInPlace([...list])).toEqual(expected)
        expect(sortedList(expected)).toBe(expected)
      })
    )
  })
})
