/**
 * Daml values: a choice argument typed by its Schema into the prepared transaction's protobuf
 * Value reads back as the same value (what lets an execution replay a prepared transaction's roots
 * as commands): variants, optionals present and absent, a field the Schema may leave out, lists,
 * numerics; and untyped JSON (choice results) in the generic mapping.
 */
import type { Json } from "@sandnet/core"
import { describe, expect, it } from "vitest"
import { damlValueOf, genericValue, jsonOfDamlValue } from "../../src/external/daml-value.ts"
import { CoinRules_Transfer } from "../../src/index.ts"

const cid = (n: number) => "00" + String(n).repeat(64).slice(0, 64)
const party = (hint: string) => `${hint}::1220${"ab".repeat(32)}`

describe("Daml values", () => {
  it("a CoinRules_Transfer argument reads back as written, typed as Daml types it", () => {
    const argument: Json = {
      transfer: {
        sender: party("alice"),
        provider: party("alice"),
        inputs: [{ tag: "InputCoin", value: cid(1) }, { tag: "InputCoin", value: cid(2) }],
        outputs: [{ receiver: party("bob"), receiverFeeRatio: "0.0", amount: "10.5" }],
        beneficiaries: null
      },
      context: { openMiningRound: cid(3), featuredAppRight: cid(4) },
      expectedDso: party("dso")
    }
    const value = damlValueOf(CoinRules_Transfer.argument, argument)
    expect(jsonOfDamlValue(CoinRules_Transfer.argument, value)).toEqual(argument)
    const record = value.sum.oneofKind === "record" ? value.sum.record.fields : []
    expect(record.map((f) => f.label)).toEqual(["transfer", "context", "expectedDso"])
    const context = record[1]!.value!.sum
    const featured = context.oneofKind === "record" ? context.record.fields.find((f) => f.label === "featuredAppRight")?.value?.sum : undefined
    expect(featured).toEqual({ oneofKind: "optional", optional: { value: { sum: { oneofKind: "contractId", contractId: cid(4) } } } })
  })

  it("untyped JSON (a choice result) in the generic mapping reads back as written", () => {
    const result: Json = { created: cid(5), amounts: [1, 2.5, "3.0"], nothing: null, ok: true, nested: { text: "café" } }
    expect(jsonOfDamlValue(undefined, genericValue(result))).toEqual(result)
  })
})
