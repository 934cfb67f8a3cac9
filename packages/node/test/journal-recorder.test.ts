/**
 * The node's journal recorder and the committer's merge of queued batches: key-value rows (the
 * stored ACS and scan indexes) keep the last operation on each key, within a batch and across
 * batches committed together, whatever order the store applies puts and deletes in.
 */
import { describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"

const { JournalRecorder, mergeBatches } = Node

describe("journal recorder", () => {
  it("keeps the last of put and delete on one key within a batch", () => {
    const recorder = new JournalRecorder(new Map(), 0)
    recorder.put("index/acs/v1", "c1", { n: 1 })
    recorder.delete("index/acs/v1", "c1")
    recorder.delete("index/acs/v1", "c2")
    recorder.put("index/acs/v1", "c2", { n: 2 })
    recorder.record("participant/v1", "X", {})
    const batch = recorder.drain()!
    expect(batch.putSnapshots).toEqual([{ stream: "index/acs/v1", key: "c2", body: { n: 2 } }])
    expect(batch.deleteSnapshots).toEqual([{ stream: "index/acs/v1", key: "c1" }])
    expect(batch.entries).toHaveLength(1)
    expect(recorder.pending).toBe(false)
    expect(recorder.drain()).toBeUndefined()
  })

  it("a delete alone is something to write", () => {
    const recorder = new JournalRecorder(new Map(), 0)
    recorder.delete("index/acs/v1", "c1")
    expect(recorder.pending).toBe(true)
    expect(recorder.drain()?.deleteSnapshots).toEqual([{ stream: "index/acs/v1", key: "c1" }])
  })

  it("merging queued batches keeps entries in order and the last operation per key", () => {
    const merged = mergeBatches([
      { entries: [{ stream: "s", seq: 1, kind: "a", body: 1 }], putSnapshots: [{ stream: "i", key: "c1", body: 1 }], deleteSnapshots: [{ stream: "i", key: "c2" }] },
      { entries: [{ stream: "s", seq: 2, kind: "b", body: 2 }], putSnapshots: [{ stream: "i", key: "c2", body: 2 }], deleteSnapshots: [{ stream: "i", key: "c1" }] },
      { entries: [], putSnapshots: [{ stream: "i", key: "c3", body: 3 }] }
    ])
    expect(merged.entries?.map((e) => e.seq)).toEqual([1, 2])
    // c2: deleted, then put again (a contract that came back): put, not deleted
    expect(merged.putSnapshots).toEqual([
      { stream: "i", key: "c2", body: 2 },
      { stream: "i", key: "c3", body: 3 }
    ])
    expect(merged.deleteSnapshots).toEqual([{ stream: "i", key: "c1" }])
  })
})
