/**
 * The archived log reads like the array it replaces: the same entries at the same indexes, in
 * order, whatever the limits and however it is read (in order, at random, sliced), while the
 * entries past the hot ones are held compressed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { ArchivedLog, compressAtOnce, NEVER_ARCHIVE, SERVING_ARCHIVE_LIMITS, type SegmentCompressor, type SegmentKeeper } from "@sandnet/engine"

const entry = fc.record({
  offset: fc.nat(),
  update: fc.record({ updateId: fc.hexaString({ minLength: 1, maxLength: 16 }), payload: fc.jsonValue({ maxDepth: 3 }) })
})
const limits = fc.record(
  { hotEntries: fc.nat({ max: 6 }), segmentEntries: fc.integer({ min: 1, max: 5 }), deferUpTo: fc.integer({ min: 1, max: 12 }) },
  { requiredKeys: ["hotEntries", "segmentEntries"] }
)
/**
 * A read (an index, possibly out of range, or a slice), a turn of the owner's archiving, or the
 * end of the compressions begun (when they are deferred, as in a serving node's thread pool).
 */
const read = fc.oneof(
  fc.record({ at: fc.integer({ min: -2, max: 60 }) }),
  fc.record({ from: fc.integer({ min: 0, max: 60 }), to: fc.integer({ min: 0, max: 60 }) }),
  fc.constant({ archive: true as const }),
  fc.constant({ compressed: true as const }),
  fc.record({ step: fc.integer({ min: 1, max: 4 }) }),
  fc.constant({ hold: true as const }),
  fc.constant({ release: true as const })
)

/** A compressor that finishes only when told (`finish`), as zlib's thread pool does later. */
const deferredCompressor = () => {
  const waiting: Array<() => void> = []
  const compressor: SegmentCompressor = (bytes, done) => void waiting.push(() => compressAtOnce(bytes, done))
  return { compressor, finish: () => waiting.splice(0).forEach((f) => f()) }
}

/**
 * What JSON keeps of a value: an archived entry comes back as its JSON (-0 as 0), a hot one as the
 * object pushed, so both sides are compared as JSON.
 */
const asJson = <A>(value: A): A => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as A))

describe("ArchivedLog", () => {
  it("answers every read as the array of its entries does", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(entry, fc.array(read, { maxLength: 4 })), { maxLength: 50 }), limits, fc.boolean(), (steps, limits, deferred) => {
        const compression = deferredCompressor()
        const log = new ArchivedLog<unknown>(deferred ? { ...limits, compressor: compression.compressor } : limits)
        const model: Array<unknown> = []
        const allowance = Math.max(limits.deferUpTo ?? 0, limits.segmentEntries)
        // held: pushes archive nothing; after a release, what was held then is tolerated besides the allowance
        let held = false
        let tolerated = 0
        for (const [pushed, reads] of steps) {
          const archivedBefore = log.archivedLength
          log.push(pushed)
          model.push(asJson(pushed))
          if (held) expect(log.archivedLength).toBe(archivedBefore)
          for (const r of reads) {
            if ("hold" in r) {
              log.hold()
              held = true
            } else if ("release" in r) {
              log.release()
              held = false
              tolerated = model.length - log.archivedLength + allowance
            } else if ("at" in r) expect(asJson(log.at(r.at))).toEqual(model[r.at])
            else if ("from" in r) expect(asJson(log.slice(r.from, r.to))).toEqual(model.slice(r.from, r.to))
            else if ("step" in r) {
              const due = !log.compressing && model.length - log.archivedLength >= limits.hotEntries + limits.segmentEntries
              const archived = log.archivedLength
              // a step finds work exactly when a segment is due and none is being compressed
              expect(log.archiveStep(r.step)).toBe(due)
              expect(log.archivedLength).toBeGreaterThanOrEqual(archived)
            } else if ("compressed" in r) {
              const archived = log.archivedLength
              const compressing = log.compressing
              compression.finish()
              expect(log.compressing).toBe(false)
              expect(log.archivedLength).toBe(compressing ? archived + limits.segmentEntries : archived)
            } else {
              const due = !log.compressing && model.length - log.archivedLength >= limits.hotEntries + limits.segmentEntries
              expect(log.archiveDue()).toBe(due)
              // at once, or while the compressor works: never both a begun segment and an archived one of it
              if (due && !deferred) expect(log.compressing).toBe(false)
              if (due && deferred) expect(log.compressing).toBe(true)
            }
          }
          expect(log.length).toBe(model.length)
          expect(log.archivedLength).toBeLessThanOrEqual(Math.max(0, model.length - limits.hotEntries))
          // what is not archived stays bounded, whether or not the owner archives (unless held)
          if (!held) expect(model.length - log.archivedLength).toBeLessThan(Math.max(limits.hotEntries + allowance, tolerated))
        }
        expect(asJson([...log])).toEqual(model)
        expect(asJson(log.map((e, i) => [i, e]))).toEqual(model.map((e, i) => [i, e]))
        expect(asJson(log.last())).toEqual(model[model.length - 1])
        // a compression that ends after the log archived its segment itself changes nothing
        compression.finish()
        expect(asJson([...log])).toEqual(model)
      })
    )
  })

  it("keeps the newest entries as the objects pushed and the older ones compressed", () => {
    const log = new ArchivedLog<{ readonly n: number; readonly text: string }>(SERVING_ARCHIVE_LIMITS)
    const pushed = Array.from({ length: 1000 }, (_, n) => ({ n, text: `entry ${n} `.repeat(20) }))
    for (const e of pushed) log.push(e)
    const { hotEntries, segmentEntries } = SERVING_ARCHIVE_LIMITS
    // a serving node's log leaves archiving to its owner's turns
    expect(log.archivedLength).toBe(0)
    while (log.archiveDue()) continue
    // archived a whole segment at a time, all but the hot entries and less than a segment
    expect(log.archivedLength).toBe(Math.floor((1000 - hotEntries) / segmentEntries) * segmentEntries)
    expect(log.at(999)).toBe(pushed[999])
    // an archived entry is an equal copy, never the object pushed
    expect(log.at(3)).toEqual(pushed[3])
    expect(log.at(3)).not.toBe(pushed[3])
    // reading from either end and back finds the same entries
    expect(log.slice(990, 1000).map((e) => e.n)).toEqual([990, 991, 992, 993, 994, 995, 996, 997, 998, 999])
    expect(log.slice(0, 3).map((e) => e.n)).toEqual([0, 1, 2])
  })

  it("keeps its segments where its keeper does, and reads them from there", () => {
    const kept: Array<Buffer> = []
    let reads = 0
    const keeper: SegmentKeeper = {
      keep: (compressed) => {
        const at = kept.push(Buffer.from(compressed)) - 1
        return {
          read: () => {
            reads++
            return kept[at]!
          }
        }
      }
    }
    const log = new ArchivedLog<{ readonly n: number }>({ hotEntries: 4, segmentEntries: 8, keeper })
    const pushed = Array.from({ length: 100 }, (_, n) => ({ n }))
    for (const e of pushed) log.push(e)
    expect(kept.length).toBe(log.archivedLength / 8)
    expect(kept.length).toBeGreaterThan(10)
    expect([...log]).toEqual(pushed)
    // in order, each segment is read once
    expect(reads).toBe(kept.length)
  })

  it("held, keeps every entry as an object; released, tolerates that backlog until its owner archived it", () => {
    const log = new ArchivedLog<{ readonly n: number }>(SERVING_ARCHIVE_LIMITS)
    const { hotEntries, segmentEntries, deferUpTo = 0 } = SERVING_ARCHIVE_LIMITS
    const bound = hotEntries + Math.max(deferUpTo, segmentEntries)
    const pushed = Array.from({ length: 3 * bound }, (_, n) => ({ n }))
    log.hold()
    for (const e of pushed) log.push(e)
    // a restart's replay: nothing archived, past the log's bound too; the entries are the objects pushed
    expect(log.archivedLength).toBe(0)
    expect(log.at(0)).toBe(pushed[0])
    log.release()
    // a push right after the release is not made to archive the backlog on its path
    log.push({ n: pushed.length })
    expect(log.archivedLength).toBe(0)
    // the owner's steps take the backlog; then the usual bound holds for what comes next
    while (log.archiveDue()) continue
    expect(log.length - log.archivedLength).toBeLessThan(hotEntries + segmentEntries)
    for (let n = pushed.length + 1; n < pushed.length + 2 * bound; n++) log.push({ n })
    expect(log.length - log.archivedLength).toBeLessThan(bound)
    expect(log.slice(0, 3).map((e) => e.n)).toEqual([0, 1, 2])
    expect(log.at(log.length - 1)!.n).toBe(pushed.length + 2 * bound - 1)
  })

  it("restored from its image, archives where the live log does, whatever it went through before and after", () => {
    // what a log goes through: pushes, a hold and its release (a restart), the owner's archiving turns
    const step = fc.constantFrom("push", "push", "push", "push", "archive", "hold", "release")
    fc.assert(
      fc.property(limits, fc.array(step, { maxLength: 80 }), fc.array(step, { maxLength: 80 }), (limits, before, after) => {
        let n = 0
        const apply = (logs: ReadonlyArray<ArchivedLog<{ readonly n: number }>>, steps: ReadonlyArray<string>) => {
          for (const s of steps) {
            const pushed = { n: n++ }
            for (const log of logs) {
              if (s === "push") log.push(pushed)
              else if (s === "hold") log.hold()
              else if (s === "release") log.release()
              else log.archiveDue()
            }
          }
        }
        const live = new ArchivedLog<{ readonly n: number }>({ ...limits, compressor: compressAtOnce })
        apply([live], before)
        // an engine checkpoint takes the image of a log that is not held (the node serves)
        fc.pre(before.lastIndexOf("hold") <= before.lastIndexOf("release"))
        const restored = new ArchivedLog<{ readonly n: number }>({ ...limits, compressor: compressAtOnce })
        restored.restore(structuredClone(live.image()))
        expect(restored.image()).toEqual(live.image())
        apply([live, restored], after)
        expect(restored.image()).toEqual(live.image())
        expect(restored.slice(0)).toEqual(live.slice(0))
      }),
      { numRuns: 300 }
    )
  })

  it("never archives with the simulation's limits", () => {
    const log = new ArchivedLog<{ readonly n: number }>(NEVER_ARCHIVE)
    const pushed = Array.from({ length: 2000 }, (_, n) => ({ n }))
    for (const e of pushed) log.push(e)
    expect(log.archivedLength).toBe(0)
    expect(log.at(0)).toBe(pushed[0])
  })
})
