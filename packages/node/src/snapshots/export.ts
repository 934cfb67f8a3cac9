/**
 * Exporting a network: everything of the engine's streams in a store, as a snapshot.
 */
import type { EventStoreService, JournalEntry, SnapshotEntry, StorageError } from "@sandnet/store"
import { Effect, Option } from "effect"
import { Streams } from "../journal/streams.ts"
import { SNAPSHOT_FORMAT, type NetworkSnapshot } from "./archive.ts"
import { isSnapshotStream } from "./streams.ts"

/**
 * Everything of the engine's streams in a store (journals, sequencer and clock snapshots); with
 * `upTo`, only the journal entries up to that ordinal (a running node's consistent cut: what it
 * had committed when it was flushed, whatever was written after).
 */
export const exportNetwork = (store: EventStoreService, createdAt: string, upTo?: number): Effect.Effect<NetworkSnapshot, StorageError> =>
  Effect.gen(function* () {
    const entries: Array<JournalEntry> = []
    const streams = (yield* store.streams()).filter(isSnapshotStream)
    for (const stream of streams) {
      let from = 1
      for (;;) {
        const page = yield* store.readStream(stream, from, 5000)
        for (const e of page) if (upTo === undefined || ((e.body as { n?: number }).n ?? 0) <= upTo) entries.push(e)
        from += page.length
        if (page.length < 5000) break
      }
    }
    return { format: SNAPSHOT_FORMAT, createdAt, entries, snapshots: yield* snapshotRows(store, streams) }
  })

/** The key-value rows a snapshot holds: those of the engine's journal streams, the runtime's and the sequencers'. */
export const snapshotRows = (store: EventStoreService, journalStreams?: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<SnapshotEntry>, StorageError> =>
  Effect.gen(function* () {
    const snapshots: Array<SnapshotEntry> = []
    const areas = new Set([...(journalStreams ?? (yield* store.streams()).filter(isSnapshotStream)), Streams.runtime])
    const config = yield* store.getSnapshot(Streams.runtime, "config")
    const synchronizers = Option.isSome(config) ? ((config.value as { synchronizers?: ReadonlyArray<{ name: string }> }).synchronizers ?? []) : []
    for (const s of synchronizers) areas.add(Streams.sequencer(s.name))
    for (const stream of areas) for (const s of yield* store.listSnapshots(stream)) snapshots.push(s)
    return snapshots
  })
