import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { jsonLength } from "../../src/ledger/json-size.ts"

// Node sizes (hence message sizes and traffic) are jsonLength of payloads and arguments: it must be
// exactly the length of JSON.stringify's text.
describe("jsonLength", () => {
  it("equals the length of JSON.stringify's text for tricky values", () => {
    const values: Array<unknown> = [
      null,
      0,
      -0,
      1.5e-7,
      1e21,
      -123.456,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      false,
      "",
      "plain",
      'quote " and backslash \\',
      "controls \u0000\u0001\b\t\n\u000b\f\r\u001f",
      "pair \ud83d\ude00, lone high \ud800x, lone low \udc00, high at the end \udbff",
      [],
      [undefined, () => 1, Symbol("s"), null, 1],
      {},
      { a: undefined, b: () => 1, c: Symbol("s") },
      { a: undefined, b: 1, c: undefined, d: "x" },
      { "2": "integer keys first", b: [1, { "k\"ey": "v" }], "1": null },
      { at: new Date(0), nested: { toJSON: () => "replaced" }, gone: { toJSON: () => undefined } },
      Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
      new Map([["k", 1]])
    ]
    for (const value of values) expect(jsonLength(value), JSON.stringify(value)).toBe(JSON.stringify(value).length)
  })

  it("equals the length of JSON.stringify's text for generated JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.unicodeJsonValue(), (a, b) => jsonLength(a) === JSON.stringify(a).length && jsonLength(b) === JSON.stringify(b).length),
      { seed: 13, numRuns: 2000 }
    )
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => jsonLength(s) === JSON.stringify(s).length && jsonLength({ [s]: s }) === JSON.stringify({ [s]: s }).length),
      { seed: 13, numRuns: 2000 }
    )
  })

  it("throws on a bigint as JSON.stringify does", () => {
    expect(() => jsonLength({ amount: 1n })).toThrow(TypeError)
  })
})
