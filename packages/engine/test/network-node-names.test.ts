/** The node names a cluster or a simulation is told are the names the network's nodes get. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { networkNodeNames } from "../src/index.ts"
import { makeHarness } from "./support.ts"

describe("networkNodeNames", () => {
  it.effect("names the nodes buildCoinNetwork builds, super validators first", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 2, validators: 3 })
      const names = networkNodeNames({ superValidators: 2, validators: 3 })
      expect(names).toEqual({ superValidators: ["sv1", "sv2"], validators: ["validator1", "validator2", "validator3"] })
      expect(h.network.superValidators.map((sv) => sv.name)).toEqual(names.superValidators)
      expect(h.network.validators.map((v) => v.name)).toEqual(names.validators)
    })
  )
})
