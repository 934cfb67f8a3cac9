/** A node's pending requests: found by synchronizer and request id, walked in the order they came, per synchronizer or all. */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import type { PendingRequest } from "../src/participant/model.ts"
import { PendingRequests } from "../src/participant/pending.ts"
import type { SynchronizerInfo } from "../src/topology.ts"

const synchronizers = ["global", "app-1"].map((name) => ({ synchronizerId: `${name}::1220ab`, name }) as unknown as SynchronizerInfo)
const pendingOf = (s: number, requestId: number): PendingRequest =>
  ({ requestId, synchronizer: synchronizers[s]!, request: {} as PendingRequest["request"], locked: [], deadline: requestId + 10 }) as PendingRequest

describe("PendingRequests", () => {
  it("answers as a list of the requests added and not deleted, in the order they came", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat({ max: 1 }), fc.nat({ max: 6 })), { maxLength: 40 }), (steps) => {
        const pending = new PendingRequests()
        let model: Array<PendingRequest> = []
        for (const [add, s, id] of steps) {
          const found = model.find((p) => p.synchronizer === synchronizers[s] && p.requestId === id)
          if (add && found === undefined) {
            const p = pendingOf(s, id)
            pending.add(p)
            model.push(p)
          } else if (!add && found !== undefined) {
            pending.delete(found)
            model = model.filter((p) => p !== found)
          }
          expect(pending.size).toBe(model.length)
          expect([...pending.values()]).toEqual(model)
          for (const [i, sync] of synchronizers.entries()) {
            expect([...pending.of(sync.synchronizerId)]).toEqual(model.filter((p) => p.synchronizer === synchronizers[i]))
            for (let r = 0; r <= 6; r++) expect(pending.get(sync.synchronizerId, r)).toBe(model.find((p) => p.synchronizer === sync && p.requestId === r))
          }
        }
      }),
      { numRuns: 300 }
    )
  })

  it("refuses a request pending twice, and deletes only the very request it holds", () => {
    const pending = new PendingRequests()
    const first = pendingOf(0, 1)
    pending.add(first)
    expect(() => pending.add(pendingOf(0, 1))).toThrow(/pending twice/)
    pending.delete(pendingOf(0, 1))
    expect(pending.get(synchronizers[0]!.synchronizerId, 1)).toBe(first)
    pending.delete(first)
    expect(pending.size).toBe(0)
  })
})
