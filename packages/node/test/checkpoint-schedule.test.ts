/** When the next engine checkpoint is due: `every` entries after the last, and as many journal bytes as it took. */
import { describe, expect, it } from "vitest"
import { CheckpointSchedule, JOURNAL_ENTRY_BYTES } from "../src/checkpoint/record.ts"

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
})
