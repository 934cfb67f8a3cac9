/**
 * Importing a network: a snapshot replaces the engine's streams of a store, offline.
 */
import type { EventStoreService } from "@sandnet/store"
import { Effect, Option } from "effect"
import { isEngineStream, Streams } from "../journal/streams.ts"
import type { NetworkSnapshot } from "./archive.ts"
import { SNAPSHOT_STREAM } from "./streams.ts"

/**
 * Replaces the engine's streams of a store by a snapshot's (offline: no node may be running on
 * the store). User management (`admin`) and stored snapshot archives stay.
 */
export const importNetwork = (store: EventStoreService, snapshot: NetworkSnapshot) =>
  Effect.gen(function* () {
    const streams = new Set((yield* store.streams()).filter((s) => isEngineStream(s) && s !== SNAPSHOT_STREAM))
    for (const s of snapshot.snapshots) streams.add(s.stream)
    streams.add(Streams.derived)
    streams.add(Streams.checkpoint)
    for (const stream of streams) yield* store.resetStream(stream)
    for (let i = 0; i < snapshot.entries.length; i += 2000) yield* store.append(snapshot.entries.slice(i, i + 2000))
    // time never goes back: the store's clock (offset, last engine time) stays when it has one
    const clock = yield* store.getSnapshot(Streams.runtime, "clock")
    const puts = snapshot.snapshots.filter((s) => !(Option.isSome(clock) && s.stream === Streams.runtime && s.key === "clock"))
    if (puts.length > 0) yield* store.write({ putSnapshots: puts })
  })
