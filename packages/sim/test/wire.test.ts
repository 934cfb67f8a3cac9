/**
 * The wire form of protocol messages (engine network/wire.ts), as a network spread over processes
 * sends them: a run whose every message crosses `toWire`/`fromWire` must be the same run.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Wire } from "@sandnet/engine"
import { run, small, violationsOf } from "./support.ts"

describe("protocol messages on the wire", () => {
  it("a run whose every message goes through the wire form has the same history as one without", async () => {
    const scenario = small({ minutes: 10, svs: 2, validators: 2, syncs: 2, reassignmentsPerHour: 120 })
    let crossed = 0
    const direct = await run(scenario, { seed: 11 })
    const wired = await run(scenario, {
      seed: 11,
      beforeGenesis: (sim) =>
        Effect.sync(() =>
          sim.queue.setMessageTransform((message) => {
            crossed++
            return Wire.fromWire(Wire.toWire(message))
          })
        )
    })
    expect(violationsOf(wired)).toEqual([])
    expect(crossed).toBeGreaterThan(1000)
    expect(wired.summary.workload.reassignmentsSucceeded).toBeGreaterThan(0)
    expect(wired.historyHash).toBe(direct.historyHash)
  }, 120_000)

  it("keeps maps, sets, bytes, bigints and undefined array entries; drops undefined properties", () => {
    const message = {
      _tag: "Sample",
      inputs: new Map([["c1", { amount: "1.0000000000", owners: new Set(["a", "b"]) }]]),
      key: new Uint8Array([0, 1, 254, 255]),
      big: 12345678901234567890n,
      list: [1, undefined, "x"],
      reason: undefined,
      nested: { deep: [{ a: null }] }
    }
    const back = Wire.fromWire(Wire.toWire(message)) as unknown as typeof message
    expect(back.inputs).toEqual(message.inputs)
    expect(back.key).toEqual(message.key)
    expect(back.big).toBe(message.big)
    expect(back.list).toEqual([1, undefined, "x"])
    expect("reason" in back).toBe(false)
    expect(back.nested).toEqual({ deep: [{ a: null }] })
  })

  it("refuses what it cannot carry instead of sending something else", () => {
    class Opaque {}
    expect(() => Wire.toWire({ _tag: "Bad", value: new Opaque() } as never)).toThrow(/instance of a class/)
    expect(() => Wire.toWire({ _tag: "Bad", value: Number.NaN } as never)).toThrow(/NaN/)
    expect(() => Wire.fromWire(JSON.stringify({ notag: 1 }))).toThrow(/_tag/)
  })
})
