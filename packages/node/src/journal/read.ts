/**
 * Reading the journals back: every stream of the store, the engine streams merged in the order
 * they were produced, user management's decoded; and the sequencers' stored state.
 */
import { Admin, type CoinNetwork, type CoinNetworkConfig } from "@sandnet/engine"
import type { EventStoreService, JournalEntry, StorageError } from "@sandnet/store"
import { Effect, Either, Option, Schema } from "effect"
import type { EngineCheckpoint } from "../checkpoint/engine-checkpoint.ts"
import { SEGMENT_KEY_PREFIX, segmentBytes } from "../checkpoint/segments.ts"
import { CHECKPOINT_KEY, decodeCheckpoint } from "../checkpoint/stored.ts"
import { JournalReplayFailed } from "./errors.ts"
import type { ClockState, SequencerSnapshot } from "./runtime-state.ts"
import { isBody, Streams } from "./streams.ts"

export interface StoredJournals {
  /** Every entry of the engine streams (after the checkpoint's heads, with one), merged in ordinal order. */
  readonly entries: ReadonlyArray<JournalEntry>
  /** The engine checkpoint the entries follow (`readJournals` with `fromCheckpoint`, when the store holds one that fits). */
  readonly checkpoint?: EngineCheckpoint
  /** The hashes of the checkpoint's segment rows the store holds (`readJournals` with `fromCheckpoint`; else none), whether a checkpoint was used or not. */
  readonly checkpointSegments: ReadonlySet<string>
  /** Admin events, in order. */
  readonly admin: ReadonlyArray<Admin.AdminEvent>
  readonly heads: ReadonlyMap<string, number>
  readonly lastOrdinal: number
  readonly config: CoinNetworkConfig | undefined
  readonly clock: ClockState | undefined
}

const ordinalOf = (entry: JournalEntry): number => (isBody(entry.body) ? entry.body.n : 0)

/**
 * Reads the journals of the store (engine streams merged by ordinal, admin decoded). With
 * `fromCheckpoint`, a stored engine checkpoint that decodes and fits the streams is read first, and
 * the engine streams only after its heads.
 */
export const readJournals = (store: EventStoreService, options: { readonly fromCheckpoint?: boolean } = {}) =>
  Effect.gen(function* () {
    const { checkpoint, segments: checkpointSegments } = options.fromCheckpoint === true ? yield* readCheckpoint(store) : { checkpoint: undefined, segments: new Set<string>() }
    const heads = new Map<string, number>(checkpoint?.heads ?? [])
    const perStream: Array<ReadonlyArray<JournalEntry>> = []
    const admin: Array<Admin.AdminEvent> = []
    let lastOrdinal = checkpoint?.ordinal ?? 0
    const read = yield* store.readAll(checkpoint === undefined ? undefined : heads)
    for (const [stream, entries] of read) {
      if (entries.length > 0 || !heads.has(stream)) heads.set(stream, entries.length === 0 ? 0 : entries[entries.length - 1]!.seq)
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
      ...(checkpoint === undefined ? {} : { checkpoint }),
      checkpointSegments,
      admin,
      heads,
      lastOrdinal,
      config: Option.getOrUndefined(config) as CoinNetworkConfig | undefined,
      clock: Option.getOrUndefined(clock) as ClockState | undefined
    } satisfies StoredJournals
  })

/**
 * The stored engine checkpoint, when there is one that decodes and whose heads the streams hold
 * (a stream shorter than its head was reset since: the checkpoint is stale); else undefined, with
 * a warning saying why when there was one. With it, the hashes of the segment rows the store
 * holds (segments.ts), so that the node's first checkpoint deletes those no checkpoint names.
 */
const readCheckpoint = (store: EventStoreService): Effect.Effect<{ readonly checkpoint: EngineCheckpoint | undefined; readonly segments: ReadonlySet<string> }, StorageError> =>
  Effect.gen(function* () {
    const rows = yield* store.listSnapshots(Streams.checkpoint, SEGMENT_KEY_PREFIX)
    const segments = new Map(rows.map((row) => [row.key.slice(SEGMENT_KEY_PREFIX.length), row.body] as const))
    const stored = yield* store.getSnapshot(Streams.checkpoint, CHECKPOINT_KEY)
    const hashes = new Set(segments.keys())
    if (Option.isNone(stored)) return { checkpoint: undefined, segments: hashes }
    const decoded = decodeCheckpoint(stored.value, (hash) => segmentBytes(segments.get(hash)))
    if (Either.isLeft(decoded)) {
      yield* Effect.logWarning(`the engine checkpoint is not used (${decoded.left}): the journals are replayed whole`)
      return { checkpoint: undefined, segments: hashes }
    }
    for (const [stream, seq] of decoded.right.heads) {
      if ((yield* store.lastSeq(stream)) < seq) {
        yield* Effect.logWarning(`the engine checkpoint is not used (stream ${stream} ends before its head ${seq}): the journals are replayed whole`)
        return { checkpoint: undefined, segments: hashes }
      }
    }
    return { checkpoint: decoded.right, segments: hashes }
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
