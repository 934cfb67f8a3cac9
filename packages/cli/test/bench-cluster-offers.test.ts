import { describe, expect, it } from "vitest"
import { clusterOffers } from "../src/bench/cluster.ts"

describe("SANDNET_BENCH_CLUSTER_OFFERS", () => {
  it("is 600 offers unless set, a whole number of them when set, and refused otherwise", () => {
    expect(clusterOffers(undefined)).toBe(600)
    expect(clusterOffers("")).toBe(600)
    expect(clusterOffers("4000")).toBe(4000)
    for (const bad of ["0", "-3", "2.5", "x", "1e400"]) expect(() => clusterOffers(bad), bad).toThrow(/whole number of offers/)
  })
})
