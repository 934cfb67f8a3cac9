/** The restart bench's sizes of history: open offers, or offers withdrawn once made (`w`), smallest first; anything else refused. */
import { describe, expect, it } from "vitest"
import { restartSizes } from "../src/bench/restart.ts"

describe("SANDNET_BENCH_RESTART_OFFERS", () => {
  it("defaults to 2,000 and 20,000 open offers and 20,000 withdrawn", () => {
    expect(restartSizes("")).toEqual([
      { offers: 2000, withdrawn: false },
      { offers: 20000, withdrawn: false },
      { offers: 20000, withdrawn: true }
    ])
  })

  it("reads a list, w for withdrawn, and refuses what is not a whole number of offers", () => {
    expect(restartSizes("500w, 100")).toEqual([
      { offers: 100, withdrawn: false },
      { offers: 500, withdrawn: true }
    ])
    expect(() => restartSizes("10,x")).toThrow(/whole numbers/)
    expect(() => restartSizes("0")).toThrow(/whole numbers/)
    expect(() => restartSizes("2.5w")).toThrow(/whole numbers/)
  })
})
