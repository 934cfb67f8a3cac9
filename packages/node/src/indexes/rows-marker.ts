/**
 * The marker (in the `derived` stream) saying the stored index rows follow the journals. Every
 * batch carries the rows' changes, so the marker is written with genesis and stays; a restore
 * clears the `derived` stream and with it the marker (a store of an older version has none):
 * only then are the rows brought in line with the journals at start.
 */
import type { CoinNetwork } from "@sandnet/engine"
import type { EventStoreService } from "@sandnet/store"
import { Effect, Option } from "effect"
import type { JournalRecorder } from "../journal/recorder.ts"
import { Streams } from "../journal/streams.ts"
import { checkIndexRows, indexRowsOf } from "./rows.ts"

/** Key (in the `derived` stream) of the marker saying the stored index rows follow the journals. */
export const INDEX_ROWS_KEY = "index-rows"

/** Puts the marker with the recorder's next batch. */
export const markIndexRowsFollow = (recorder: JournalRecorder): void => recorder.put(Streams.derived, INDEX_ROWS_KEY, { followsJournals: true })

/**
 * Without the marker in the store: rewrites the stored index rows of the nodes `hosted` here that
 * differ from the (replayed) network's, and puts the marker with the recorder's next batch.
 */
export const alignIndexRows = (
  store: EventStoreService,
  recorder: JournalRecorder,
  network: CoinNetwork,
  hosted: (node: { readonly name: string }) => boolean
): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (Option.isSome(yield* Effect.orDie(store.getSnapshot(Streams.derived, INDEX_ROWS_KEY)))) return
    const checks = yield* Effect.orDie(checkIndexRows(store, indexRowsOf(network, hosted), true))
    const repaired = checks.reduce((n, c) => n + c.missing + c.extra + c.differing, 0)
    if (repaired > 0) yield* Effect.logInfo(`the stored ACS and scan indexes were behind the journals: ${repaired} rows rewritten`)
    markIndexRowsFollow(recorder)
  })
