/**
 * Reading the journals back: every stream of the store, the engine streams merged in the order
 * they were produced, user management's decoded; and the sequencers' stored state.
 */
import { Admin, type CoinNetwork, type CoinNetworkConfig } from "@sandnet/engine"
import type { EventStoreService, JournalEntry } from "@sandnet/store"
import { Effect, Either, Option, Schema } from "effect"
import { JournalReplayFailed } from "./errors.ts"
import type { ClockState, SequencerSnapshot } from "./runtime-state.ts"
import { isBody, Streams } from "./streams.ts"

export interface StoredJournals {
  /** Every entry of the engine streams, merged in ordinal order. */
  readonly entries: ReadonlyArray<JournalEntry>
  /** Admin events, in order. */
  readonly admin: ReadonlyArray<Admin.AdminEvent>
  readonly heads: ReadonlyMap<string, number>
  readonly lastOrdinal: number
  readonly config: CoinNetworkConfig | undefined
  readonly clock: ClockState | undefined
}

const ordinalOf = (entry: JournalEntry): number => (isBody(entry.body) ? entry.body.n : 0)

/** Reads every journal of the store (engine streams merged by ordinal, admin decoded). */
export const readJournals = (store: EventStoreService) =>
  Effect.gen(function* () {
    const heads = new Map<string, number>()
    const perStream: Array<ReadonlyArray<JournalEntry>> = []
    const admin: Array<Admin.AdminEvent> = []
    let lastOrdinal = 0
    for (const [stream, entries] of yield* store.readAll()) {
      heads.set(stream, entries.length === 0 ? 0 : entries[entries.length - 1]!.seq)
      if (stream !== Streams.admin) for (const e of entries) lastOrdinal = Math.max(lastOrdinal, ordinalOf(e))
      if (stream === Streams.admin) {
        for (const e of entries) {
          const decoded = Schema.decodeUnknownEither(Admin.AdminEvent)(isBody(e.body) ? e.body.event : e.body)
          if (Either.isLeft(decoded)) return yield* new JournalReplayFailed({ message: `admin #${e.seq}: ${decoded.left.message}` })
          admin.push(decoded.right)
        }
      } else {
        perStream.push(entries)
      }
    }
    const merged = perStream.flat().sort((a, b) => ordinalOf(a) - ordinalOf(b))
    const config = yield* store.getSnapshot(Streams.runtime, "config")
    const clock = yield* store.getSnapshot(Streams.runtime, "clock")
    return {
      entries: merged,
      admin,
      heads,
      lastOrdinal,
      config: Option.getOrUndefined(config) as CoinNetworkConfig | undefined,
      clock: Option.getOrUndefined(clock) as ClockState | undefined
    } satisfies StoredJournals
  })

/** The sequencers' snapshots of a network. */
export const readSequencerSnapshots = (store: EventStoreService, network: CoinNetwork) =>
  Effect.gen(function* () {
    const out = new Map<string, SequencerSnapshot>()
    for (const s of network.synchronizers) {
      const snap = yield* store.getSnapshot(Streams.sequencer(s.info.name), "state")
      if (Option.isSome(snap)) out.set(s.info.name, snap.value as SequencerSnapshot)
    }
    return out
  })
