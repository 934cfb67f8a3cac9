/** When the next engine checkpoint is due: `every` entries after the last, and as many journal bytes as it took. */
import { describe, expect, it } from "vitest"
import { CheckpointSchedule, IDLE_COMMIT_POINTS, IDLE_SHARE, JOURNAL_ENTRY_BYTES } from "../src/checkpoint/record.ts"

describe("CheckpointSchedule", () => {
  it("is due `every` entries after the last checkpoint, later when the last one was larger than that much journal", () => {
    const schedule = new CheckpointSchedule(100, 1000)
    expect(schedule.due(1099)).toBe(false)
    expect(schedule.due(1100)).toBe(true)
    schedule.wrote(1100, 10 * JOURNAL_ENTRY_BYTES)
    expect(schedule.due(2099)).toBe(false)
    expect(schedule.due(2100)).toBe(true)
    // a checkpoint of 5,000 entries' worth of journal: the next after 5,000 entries
    schedule.wrote(2100, 5000 * JOURNAL_ENTRY_BYTES)
    expect(schedule.due(3100)).toBe(false)
    expect(schedule.due(7099)).toBe(false)
    expect(schedule.due(7100)).toBe(true)
    // rebuilt from the store: counted from there, the size forgotten
    schedule.restart(50)
    expect(schedule.due(1049)).toBe(false)
    expect(schedule.due(1050)).toBe(true)
  })

  it("is due sooner once the node is idle: after IDLE_COMMIT_POINTS commit points in a row without a change, and a share of the busy rule's journal", () => {
    const schedule = new CheckpointSchedule(0, 1000)
    schedule.wrote(0, 4000 * JOURNAL_ENTRY_BYTES)
    const share = 4000 / IDLE_SHARE
    for (let i = 0; i < IDLE_COMMIT_POINTS - 1; i++) schedule.observe(false, 0)
    expect(schedule.dueIdle(share)).toBe(false)
    schedule.observe(false, 0)
    expect(schedule.dueIdle(share - 1)).toBe(false)
    expect(schedule.dueIdle(share)).toBe(true)
    // a change: busy again, the count starts over
    schedule.observe(true, 0)
    expect(schedule.dueIdle(share)).toBe(false)
    for (let i = 0; i < IDLE_COMMIT_POINTS; i++) schedule.observe(false, 0)
    expect(schedule.dueIdle(share)).toBe(true)
    // once written, the next needs new journal, however long the node stays idle
    schedule.wrote(share, 100 * JOURNAL_ENTRY_BYTES)
    schedule.observe(false, 0)
    expect(schedule.dueIdle(share)).toBe(false)
    expect(schedule.dueIdle(share + 1000 / IDLE_SHARE)).toBe(true)
  })

  it("at a commit point, by the busy rule where it changed something and by the idle one where it did not", () => {
    const schedule = new CheckpointSchedule(0, 1000)
    for (let i = 0; i < IDLE_COMMIT_POINTS; i++) schedule.observe(false, 0)
    expect(schedule.dueAt(1000 / IDLE_SHARE, false)).toBe(true)
    schedule.observe(true, 0)
    expect(schedule.dueAt(1000 / IDLE_SHARE, true)).toBe(false)
    expect(schedule.dueAt(1000, true)).toBe(true)
  })

  it("counts a commit point whose progress moved as busy, though it changed nothing here (a cluster process following the others' journals)", () => {
    const schedule = new CheckpointSchedule(0, 1000)
    // following: the progress moves at every commit point, nothing is journaled
    expect(schedule.observe(false, 0)).toBe(false)
    for (let p = 1; p <= 2 * IDLE_COMMIT_POINTS; p++) expect(schedule.observe(false, p * 10)).toBe(true)
    expect(schedule.dueIdle(1000 / IDLE_SHARE)).toBe(false)
    expect(schedule.dueAt(999, true)).toBe(false)
    expect(schedule.dueAt(1000, true)).toBe(true)
    // the others' journals stop growing: idle after IDLE_COMMIT_POINTS points at the same progress
    for (let i = 0; i < IDLE_COMMIT_POINTS; i++) expect(schedule.observe(false, 800)).toBe(false)
    expect(schedule.dueAt(800, false)).toBe(true)
    // a rebuild forgets the progress: its first point compares with nothing
    schedule.restart(0)
    expect(schedule.observe(false, 5)).toBe(false)
  })

  it("never when idle checkpoints are off", () => {
    const schedule = new CheckpointSchedule(0, 1000, false)
    for (let i = 0; i < 10 * IDLE_COMMIT_POINTS; i++) schedule.observe(false, 0)
    expect(schedule.dueIdle(999)).toBe(false)
    expect(schedule.due(1000)).toBe(true)
  })
})
