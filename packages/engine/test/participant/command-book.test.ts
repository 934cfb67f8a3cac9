/**
 * The command book answers as a map from command key to entry does, whichever way a command moves
 * (submitted, decided, submitted again), though it files decided commands under a digest.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { CommandBook } from "../../src/participant/command-book.ts"
import type { CommandEntry } from "../../src/participant/model.ts"
import type { Micros } from "@sandnet/core"

const inFlight = (updateId: string): CommandEntry => ({
  status: "inFlight",
  commandId: "c",
  actAs: ["alice::1220"],
  updateId,
  results: [],
  synchronizerId: "global-synchronizer::1220",
  userId: undefined,
  submissionId: undefined,
  messageId: `m-${updateId}`,
  maxSequencingTime: 0 as Micros
})
const decided = (at: number): CommandEntry => ({ status: at % 2 === 0 ? "succeeded" : "failed", completedAt: at, completionAt: at })

/** Long keys as a wallet's are (a party id and a command id naming a contract), and short ones. */
const key = fc.oneof(fc.string({ maxLength: 3 }), fc.hexaString({ minLength: 200, maxLength: 260 }).map((h) => `alice::1220${h.slice(0, 64)}|wallet:accept:${h}`))

describe("CommandBook", () => {
  it("answers every lookup as a map of its entries does", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.boolean()), { maxLength: 60 }), fc.array(key, { minLength: 8, maxLength: 8 }), (steps, keys) => {
        const book = new CommandBook((completionAt) => completionAt)
        const model = new Map<string, CommandEntry>()
        steps.forEach(([k, submit], at) => {
          const entry = submit ? inFlight(`u${at}`) : decided(at)
          book.set(keys[k]!, entry)
          model.set(keys[k]!, entry)
          for (const probe of keys) {
            expect(book.get(probe)).toEqual(model.get(probe))
            expect(book.has(probe)).toBe(model.has(probe))
          }
          expect(book.size).toBe(model.size)
        })
      })
    )
  })

  it("forgets as a map in decision order does, whichever way commands move between forgettings", () => {
    // a step: a command submitted or decided, or the decided ones before a time forgotten; a run of
    // the first kind first (the book starts keeping its order at its first forgetting)
    const setStep = fc.record({ kind: fc.constant("set" as const), k: fc.integer({ min: 0, max: 5 }), submit: fc.boolean() })
    const step = fc.oneof(setStep, fc.record({ kind: fc.constant("forget" as const), before: fc.integer({ min: 0, max: 80 }) }))
    fc.assert(
      fc.property(fc.array(setStep, { maxLength: 30 }), fc.array(step, { maxLength: 50 }), (first, then) => {
        const steps = [...first, ...then]
        const book = new CommandBook((completionAt) => completionAt)
        const model = new Map<string, CommandEntry>()
        /** Decided keys in decision order, a command decided again moved to the end (what the book forgot from before). */
        const order = new Map<string, number>()
        steps.forEach((s, at) => {
          if (s.kind === "set") {
            const k = `k${s.k}`
            const entry = s.submit ? inFlight(`u${at}`) : decided(at)
            book.set(k, entry)
            model.set(k, entry)
            order.delete(k)
            if (!s.submit) order.set(k, at)
          } else {
            book.forgetDecided((entry) => entry.completedAt < s.before)
            for (const [k, decidedAt] of order) {
              if (decidedAt >= s.before) break
              order.delete(k)
              model.delete(k)
            }
          }
          for (let k = 0; k <= 5; k++) expect(book.get(`k${k}`)).toEqual(model.get(`k${k}`))
          expect(book.size).toBe(model.size)
        })
      }),
      { numRuns: 500 }
    )
  })

  it("forgets decided commands in the order they were decided, never one in flight", () => {
    const book = new CommandBook((completionAt) => completionAt)
    book.set("a", decided(1))
    book.set("b", inFlight("u"))
    book.set("c", decided(2))
    book.set("a", decided(3)) // decided again: now the latest
    book.forgetDecided((entry) => entry.completedAt < 3)
    expect(book.get("c")).toBeUndefined()
    expect(book.get("a")).toEqual(decided(3))
    expect(book.get("b")?.status).toBe("inFlight")
    expect(book.size).toBe(2)
  })

  it("restored from its image, answers and forgets as the book it was taken from, whenever the image is taken", () => {
    const setStep = fc.record({ kind: fc.constant("set" as const), k: fc.integer({ min: 0, max: 5 }), submit: fc.boolean() })
    const step = fc.oneof(setStep, fc.record({ kind: fc.constant("forget" as const), before: fc.integer({ min: 0, max: 80 }) }))
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.nat(60), (steps, cut) => {
        const original = new CommandBook((completionAt) => completionAt)
        let restored: CommandBook | undefined
        const run = (book: CommandBook, s: (typeof steps)[number], at: number) => {
          if (s.kind === "set") book.set(`k${s.k}`, s.submit ? inFlight(`u${at}`) : decided(at))
          else book.forgetDecided((entry) => entry.completedAt < s.before)
        }
        steps.forEach((s, at) => {
          if (at === cut) (restored = new CommandBook((completionAt) => completionAt)).restore(original.image())
          run(original, s, at)
          if (restored !== undefined) run(restored, s, at)
        })
        restored ??= new CommandBook((completionAt) => completionAt)
        if (cut >= steps.length) restored.restore(original.image())
        for (let k = 0; k <= 5; k++) expect(restored.get(`k${k}`)).toEqual(original.get(`k${k}`))
        expect(restored.image()).toEqual(original.image())
      }),
      { numRuns: 300 }
    )
  })
})
