/** The restart bench's sizes of history: open offers, or offers withdrawn once made (`w`), killed at once or after the node sat idle (`i`), smallest first; anything else refused. */
import { describe, expect, it } from "vitest"
import { restartSizes } from "../src/bench/restart.ts"

describe("SANDNET_BENCH_RESTART_OFFERS", () => {
  it("defaults to 2,000 open offers killed at once and after the node sat idle, 20,000 open offers and 20,000 withdrawn", () => {
    expect(restartSizes("")).toEqual([
      { offers: 2000, withdrawn: false, idle: false },
      { offers: 2000, withdrawn: false, idle: true },
      { offers: 20000, withdrawn: false, idle: false },
      { offers: 20000, withdrawn: true, idle: false }
    ])
  })

  it("reads a list, w for withdrawn and i for idle, and refuses what is not a whole number of offers", () => {
    expect(restartSizes("500w, 100, 100i, 7wi")).toEqual([
      { offers: 7, withdrawn: true, idle: true },
      { offers: 100, withdrawn: false, idle: false },
      { offers: 100, withdrawn: false, idle: true },
      { offers: 500, withdrawn: true, idle: false }
    ])
    expect(() => restartSizes("10,x")).toThrow(/whole numbers/)
    expect(() => restartSizes("0")).toThrow(/whole numbers/)
    expect(() => restartSizes("2.5w")).toThrow(/whole numbers/)
    expect(() => restartSizes("w")).toThrow(/whole numbers/)
    expect(() => restartSizes("10q")).toThrow(/whole numbers/)
  })
})
