/**
 * The developer console's request log (web/request-log.ts): the last entries, in order, after a
 * sequence number, however many requests came before.
 */
import { describe, expect, it } from "vitest"
import { makeRequestLog } from "../src/web/request-log.ts"

const entry = (i: number) => ({ at: "2026-01-01T00:00:00.000Z", method: "GET", path: `/p${i}`, status: 200, millis: i })

describe("the request log", () => {
  it("keeps the last entries in order once full, and answers those after a sequence number", () => {
    const log = makeRequestLog(3)
    expect(log.after(0)).toEqual([])
    for (let i = 1; i <= 7; i++) log.record(entry(i))
    expect(log.last()).toBe(7)
    expect(log.after(0).map((e) => [e.seq, e.path])).toEqual([[5, "/p5"], [6, "/p6"], [7, "/p7"]])
    expect(log.after(5).map((e) => e.seq)).toEqual([6, 7])
    expect(log.after(7)).toEqual([])
    expect(log.after(99)).toEqual([])
  })

  it("answers every entry while it is not full", () => {
    const log = makeRequestLog(5)
    for (let i = 1; i <= 2; i++) log.record(entry(i))
    expect(log.after(0).map((e) => e.seq)).toEqual([1, 2])
    expect(log.after(1).map((e) => e.path)).toEqual(["/p2"])
  })

  it("keeps nothing with no room, and still counts", () => {
    const log = makeRequestLog(0)
    log.record(entry(1))
    expect(log.last()).toBe(1)
    expect(log.after(0)).toEqual([])
  })
})
