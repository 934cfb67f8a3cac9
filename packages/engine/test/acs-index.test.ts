/**
 * The ACS's index by template and stakeholder (a party's one contract held as itself, a Set from
 * the second on) answers as a filter of every active contract in the order they became active.
 */
import { FastCheck as fc } from "effect"
import type { ActiveContract, PartyId } from "@sandnet/core"
import { describe, expect, it } from "vitest"
import { ActiveContractSet } from "../src/ledger/acs.ts"

const PARTIES = ["alice", "bob", "dso"]
const TEMPLATES = ["Coin", "Offer"]

const contractOf = (n: number, templateId: string, signatories: Array<PartyId>, observers: Array<PartyId>): ActiveContract => ({
  created: {
    kind: "created",
    nodeId: 0,
    contractId: `c${n}`,
    templateId,
    packageName: "p",
    createArguments: {},
    signatories,
    observers,
    createdAt: 0,
    witnesses: [...new Set([...signatories, ...observers])].sort(),
    interfaceViews: {}
  },
  createdInUpdateId: `u${n}`,
  synchronizerId: "s",
  reassignmentCounter: 0
})

const step = fc.oneof(
  fc.record({
    add: fc.constantFrom(...TEMPLATES),
    signatories: fc.subarray(PARTIES, { minLength: 1 }),
    // observers may repeat a signatory: the contract is indexed under that party once
    observers: fc.array(fc.constantFrom(...PARTIES), { maxLength: 2 })
  }),
  fc.record({ remove: fc.nat({ max: 40 }) })
)

describe("ActiveContractSet's index", () => {
  it("lists, counts and walks a party's contracts of a template as the active contracts filtered, oldest first", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const acs = new ActiveContractSet()
        const active: Array<ActiveContract> = []
        let next = 0
        for (const s of steps) {
          if ("add" in s) {
            const contract = contractOf(next++, s.add, s.signatories, s.observers)
            acs.add(contract)
            active.push(contract)
          } else if (active.length > 0) {
            const [gone] = active.splice(s.remove % active.length, 1)
            expect(acs.remove(gone!.created.contractId)).toBe(gone)
          }
          for (const templateId of TEMPLATES) {
            for (const party of PARTIES) {
              const expected = active.filter((c) => c.created.templateId === templateId && (c.created.signatories.includes(party) || c.created.observers.includes(party)))
              expect([...acs.ofTemplate(templateId, party)]).toEqual(expected)
              expect(acs.countOf(templateId, party)).toBe(expected.length)
              expect(acs.listOfTemplate(templateId, party, (c) => c.created.contractId.endsWith("1"))).toEqual(expected.filter((c) => c.created.contractId.endsWith("1")))
            }
          }
          expect(acs.size).toBe(active.length)
        }
      }),
      { numRuns: 300 }
    )
  })
})
