import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { amountOf, divAmount, formatAmount, mulAmount, parseAmount } from "../src/index.ts"

describe("Numeric 10 amounts", () => {
  it("parses and formats with ten decimal places", () => {
    expect(formatAmount(amountOf("12.5"))).toBe("12.5000000000")
    expect(formatAmount(amountOf("-0.0000000001"))).toBe("-0.0000000001")
    expect(parseAmount("1.00000000001")).toBeUndefined()
    expect(parseAmount("abc")).toBeUndefined()
    expect(parseAmount("")).toBeUndefined()
  })

  it("round-trips every value", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (units) => {
        expect(amountOf(formatAmount(units))).toBe(units)
      })
    )
  })

  it("divides with half-to-even rounding", () => {
    // 1 / 3 = 0.3333333333 (the 11th digit is 3, rounds down)
    expect(formatAmount(divAmount(amountOf("1"), amountOf("3")))).toBe("0.3333333333")
    // 2 / 3 = 0.6666666667
    expect(formatAmount(divAmount(amountOf("2"), amountOf("3")))).toBe("0.6666666667")
    // 0.00000000025 -> ...02 and 0.00000000075 -> ...08: ties go to the even neighbour
    expect(formatAmount(mulAmount(amountOf("0.0000000005"), amountOf("0.5")))).toBe("0.0000000002")
    expect(formatAmount(mulAmount(amountOf("0.0000000015"), amountOf("0.5")))).toBe("0.0000000008")
  })
})
