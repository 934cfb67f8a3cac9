import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  canonicalJson,
  contractId,
  formatScanOffset,
  isContractId,
  isPartyId,
  namespaceOf,
  parseIso,
  partyId,
  toIso
} from "../src/index.ts"

describe("time", () => {
  it("prints ISO-8601 with microsecond resolution and parses it back", () => {
    expect(toIso(1_767_225_600_000_001)).toBe("2026-01-01T00:00:00.000001Z")
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000_000 }), (t) => {
        expect(parseIso(toIso(t))).toBe(t)
      })
    )
  })
  it("rejects what is not a timestamp", () => {
    expect(parseIso("yesterday")).toBeUndefined()
    expect(parseIso("2026-13-01T00:00:00Z")).toBeUndefined()
  })
})

describe("ids", () => {
  it("derives party and contract ids in the network's shapes", () => {
    const party = partyId("alice", namespaceOf("participant-1"))
    expect(isPartyId(party)).toBe(true)
    expect(party.startsWith("alice::1220")).toBe(true)
    const cid = contractId("seed", 0)
    expect(isContractId(cid)).toBe(true)
    expect(contractId("seed", 0)).toBe(cid)
    expect(contractId("seed", 1)).not.toBe(cid)
  })
  it("prints scan offsets that sort lexicographically like numbers", () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        expect(a < b).toBe(formatScanOffset(a) < formatScanOffset(b))
      })
    )
  })
  it("canonical JSON ignores key order", () => {
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(canonicalJson({ a: [1, { c: 3, d: 2 }], b: 1 }))
  })
})

import { Schema } from "effect"
import { ContractIdRef, Numeric, Party, toProtobufJson } from "../src/index.ts"

describe("protobuf_json", () => {
  it("types every value: records, parties, numerics, optionals, lists and variants", () => {
    const Input = Schema.Union(
      Schema.Struct({ tag: Schema.Literal("InputCoin"), value: ContractIdRef }),
      Schema.Struct({ tag: Schema.Literal("InputReward"), value: ContractIdRef })
    )
    const Payload = Schema.Struct({ owner: Party, amount: Numeric, note: Schema.NullOr(Schema.String), inputs: Schema.Array(Input) })
    const cid = "00" + "ab".repeat(32)
    const party = "alice::1220" + "0".repeat(64)
    expect(toProtobufJson(Payload, { owner: party, amount: "1.5000000000", note: null, inputs: [{ tag: "InputCoin", value: cid }] })).toEqual({
      record: {
        fields: [
          { label: "owner", value: { party } },
          { label: "amount", value: { numeric: "1.5000000000" } },
          { label: "note", value: { optional: {} } },
          { label: "inputs", value: { list: { elements: [{ variant: { constructor: "InputCoin", value: { contractId: cid } } }] } } }
        ]
      }
    })
  })
})
