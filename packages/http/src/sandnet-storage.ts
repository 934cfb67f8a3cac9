/**
 * Snapshots of a whole network, built on the journals (developer controls, ledger surface):
 *
 * - `POST /v2/sandnet/snapshot` (ParticipantAdmin): waits for everything journaled so far to be
 *   committed, packs the engine's journals and state snapshots into an archive (gzipped JSON),
 *   keeps it in the node's store and answers `{snapshotId, entries, bytes}`.
 * - `GET /v2/sandnet/snapshots` (ParticipantAdmin): the stored snapshots.
 * - `GET /v2/sandnet/snapshots/:snapshotId` (ParticipantAdmin): the archive, to download.
 * - `POST /v2/sandnet/restore` (ParticipantAdmin): `{snapshotId}` of a stored snapshot; or
 *   `POST /v2/sandnet/restore/archive` with an archive as `application/octet-stream`. The
 *   network is replaced by the one the snapshot holds (journals replayed, as at a restart). Users
 *   and rights stay, as with `/v2/sandnet/reset`.
 *
 * The same archive format is read and written offline by `sandnet snapshot` / `sandnet restore`.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import type { EventStoreService, JournalEntry, SnapshotEntry, StorageError } from "@sandnet/store"
import { Effect, Either, Layer, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { gunzipSync, gzipSync } from "node:zlib"
import { requireParticipantAdmin } from "./auth.ts"
import { LedgerApiError } from "./errors.ts"
import { engineRoutes, invalidBody, op } from "./ledger-context.ts"
import { isEngineStream, Streams } from "./persistence.ts"
import { bind, Surfaces } from "./surface.ts"

export const SNAPSHOT_FORMAT = "sandnet-network-snapshot-v1"

export interface NetworkSnapshot {
  readonly format: typeof SNAPSHOT_FORMAT
  readonly createdAt: string
  readonly entries: ReadonlyArray<JournalEntry>
  readonly snapshots: ReadonlyArray<SnapshotEntry>
}

/** Stream whose key-value area keeps the stored snapshot archives (base64); never reset. */
export const SNAPSHOT_STREAM = "sandnet-snapshots"

const isSnapshotStream = (stream: string) => isEngineStream(stream) && stream !== SNAPSHOT_STREAM && stream !== Streams.derived

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
    const snapshots: Array<SnapshotEntry> = []
    const areas = new Set([...streams, Streams.runtime])
    const config = yield* store.getSnapshot(Streams.runtime, "config")
    const synchronizers = Option.isSome(config) ? ((config.value as { synchronizers?: ReadonlyArray<{ name: string }> }).synchronizers ?? []) : []
    for (const s of synchronizers) areas.add(Streams.sequencer(s.name))
    for (const stream of areas) for (const s of yield* store.listSnapshots(stream)) snapshots.push(s)
    return { format: SNAPSHOT_FORMAT, createdAt, entries, snapshots }
  })

export const encodeArchive = (snapshot: NetworkSnapshot): Uint8Array => gzipSync(Buffer.from(JSON.stringify(snapshot), "utf8"))

export class InvalidSnapshotArchive extends Schema.TaggedError<InvalidSnapshotArchive>()("InvalidSnapshotArchive", {
  reason: Schema.String
}) {}

export const decodeArchive = (bytes: Uint8Array): Either.Either<NetworkSnapshot, InvalidSnapshotArchive> => {
  try {
    const parsed = JSON.parse(gunzipSync(bytes).toString("utf8")) as Partial<NetworkSnapshot>
    if (parsed.format !== SNAPSHOT_FORMAT || !Array.isArray(parsed.entries) || !Array.isArray(parsed.snapshots)) {
      return Either.left(new InvalidSnapshotArchive({ reason: `not a ${SNAPSHOT_FORMAT} archive` }))
    }
    return Either.right(parsed as NetworkSnapshot)
  } catch (error) {
    return Either.left(new InvalidSnapshotArchive({ reason: `not a gzipped JSON archive: ${error instanceof Error ? error.message : String(error)}` }))
  }
}

export const snapshotIdOf = (archive: Uint8Array): string => createHash("sha256").update(archive).digest("hex").slice(0, 16)

/**
 * Replaces the engine's streams of a store by a snapshot's (offline: no node may be running on
 * the store). User management (`admin`) and stored snapshot archives stay.
 */
export const importNetwork = (store: EventStoreService, snapshot: NetworkSnapshot) =>
  Effect.gen(function* () {
    const streams = new Set((yield* store.streams()).filter((s) => isEngineStream(s) && s !== SNAPSHOT_STREAM))
    for (const s of snapshot.snapshots) streams.add(s.stream)
    streams.add(Streams.derived)
    for (const stream of streams) yield* store.resetStream(stream)
    for (let i = 0; i < snapshot.entries.length; i += 2000) yield* store.append(snapshot.entries.slice(i, i + 2000))
    // time never goes back: the store's clock (offset, last engine time) stays when it has one
    const clock = yield* store.getSnapshot(Streams.runtime, "clock")
    const puts = snapshot.snapshots.filter((s) => !(Option.isSome(clock) && s.stream === Streams.runtime && s.key === "clock"))
    if (puts.length > 0) yield* store.write({ putSnapshots: puts })
  })

// ---------------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------------

export const SnapshotCreated = Schema.Struct({
  snapshotId: Schema.String,
  entries: Schema.Int,
  bytes: Schema.Int
}).annotations({ identifier: "SandnetSnapshot" })

const SnapshotInfo = Schema.Struct({ snapshotId: Schema.String, createdAt: Schema.String, bytes: Schema.Int })

const SnapshotPath = Schema.Struct({ snapshotId: Schema.String })
const RestoreRequest = Schema.Struct({ snapshotId: Schema.String })
const Archive = HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" })

export const CreateSnapshot = op(
  HttpApiEndpoint.post("createSandnetSnapshot", "/v2/sandnet/snapshot").addSuccess(SnapshotCreated),
  "postV2SandnetSnapshot",
  "Sandnet (ParticipantAdmin): snapshot the whole network (its journals); answers the id of the stored archive."
)
export const ListSnapshots = op(
  HttpApiEndpoint.get("listSandnetSnapshots", "/v2/sandnet/snapshots").addSuccess(Schema.Struct({ snapshots: Schema.Array(SnapshotInfo) })),
  "getV2SandnetSnapshots",
  "Sandnet (ParticipantAdmin): the stored network snapshots."
)
export const DownloadSnapshot = op(
  HttpApiEndpoint.get("downloadSandnetSnapshot", "/v2/sandnet/snapshots/:snapshotId").setPath(SnapshotPath).addSuccess(Archive),
  "getV2SandnetSnapshotsSnapshot-id",
  "Sandnet (ParticipantAdmin): a stored snapshot as an archive (gzipped JSON)."
)
export const RestoreSnapshot = op(
  HttpApiEndpoint.post("restoreSandnetSnapshot", "/v2/sandnet/restore").setPayload(RestoreRequest).addSuccess(Schema.Struct({})),
  "postV2SandnetRestore",
  "Sandnet (ParticipantAdmin): replace the network by a stored snapshot's. Users and rights stay."
)
export const RestoreArchive = op(
  HttpApiEndpoint.post("restoreSandnetArchive", "/v2/sandnet/restore/archive").setPayload(Archive).addSuccess(Schema.Struct({})),
  "postV2SandnetRestoreArchive",
  "Sandnet (ParticipantAdmin): replace the network by the one an uploaded snapshot archive holds. Users and rights stay."
)

export const SandnetStorageGroup = HttpApiGroup.make("sandnetStorage")
  .add(CreateSnapshot)
  .add(ListSnapshots)
  .add(DownloadSnapshot)
  .add(RestoreSnapshot)
  .add(RestoreArchive)
  .annotate(OpenApi.Title, "Sandnet network snapshots")

const snapshotNotFound = (snapshotId: string) =>
  new LedgerApiError({
    code: "NOT_FOUND",
    category: "InvalidGivenCurrentSystemStateResourceMissing",
    cause: `no stored snapshot ${snapshotId}`,
    resources: [["SNAPSHOT", snapshotId]]
  })

const noStorage = new LedgerApiError({
  code: "UNIMPLEMENTED",
  category: "InvalidGivenCurrentSystemStateOther",
  cause: "this node has no storage"
})

const ledger = Surfaces.ledger

interface StoredArchive {
  readonly createdAt: string
  readonly base64: string
}

/** The snapshot endpoints (mounted by `sandnet start`). */
export const StorageRoutes = engineRoutes([CreateSnapshot, ListSnapshots, DownloadSnapshot, RestoreSnapshot, RestoreArchive], (node) => {
  const storage = Effect.flatMap(Effect.succeed(node.runtime.storage), (s) => (Option.isSome(s) ? Effect.succeed(s.value) : Effect.fail(noStorage)))
  const restore = (snapshot: NetworkSnapshot) =>
    Effect.flatMap(
      Effect.either(node.runtime.restore(snapshot.entries, snapshot.snapshots)),
      (result) => (Either.isLeft(result) ? Effect.fail(invalidBody("snapshot", result.left.message)) : Effect.succeed({}))
    )
  const stored = (snapshotId: string) =>
    Effect.gen(function* () {
      const s = yield* storage
      const found = yield* Effect.orDie(s.store.getSnapshot(SNAPSHOT_STREAM, snapshotId))
      if (Option.isNone(found)) return yield* Effect.fail(snapshotNotFound(snapshotId))
      return Buffer.from((found.value as StoredArchive).base64, "base64")
    })
  return Layer.mergeAll(
    bind(ledger, CreateSnapshot, () =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        const s = yield* storage
        const upTo = yield* node.runtime.flush
        const createdAt = new Date().toISOString()
        const snapshot = yield* Effect.orDie(exportNetwork(s.store, createdAt, upTo))
        const archive = encodeArchive(snapshot)
        const snapshotId = snapshotIdOf(archive)
        yield* Effect.orDie(s.store.putSnapshot(SNAPSHOT_STREAM, snapshotId, { createdAt, base64: Buffer.from(archive).toString("base64") } satisfies StoredArchive))
        return { snapshotId, entries: snapshot.entries.length, bytes: archive.length }
      })
    ),
    bind(ledger, ListSnapshots, () =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        const s = yield* storage
        const all = yield* Effect.orDie(s.store.listSnapshots(SNAPSHOT_STREAM))
        return {
          snapshots: all.map((e) => {
            const body = e.body as StoredArchive
            return { snapshotId: e.key, createdAt: body.createdAt, bytes: Math.floor((body.base64.length * 3) / 4) }
          })
        }
      })
    ),
    bind(ledger, DownloadSnapshot, ({ path }) =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        return new Uint8Array(yield* stored(path.snapshotId))
      })
    ),
    bind(ledger, RestoreSnapshot, ({ payload }) =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        const decoded = decodeArchive(yield* stored(payload.snapshotId))
        if (Either.isLeft(decoded)) return yield* Effect.fail(invalidBody("snapshotId", decoded.left.reason))
        return yield* restore(decoded.right)
      })
    ),
    bind(ledger, RestoreArchive, ({ payload }) =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        yield* storage
        const decoded = decodeArchive(payload)
        if (Either.isLeft(decoded)) return yield* Effect.fail(invalidBody("archive", decoded.left.reason))
        return yield* restore(decoded.right)
      })
    )
  )
})
