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
 * The archive, its export and the snapshots a node keeps in its store are @sandnet/node's
 * (`snapshots/`); the same archive is read and written offline by `sandnet snapshot` / `sandnet restore`.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { decodeArchive, storedArchive, storedSnapshots, storeSnapshot, type NetworkSnapshot } from "@sandnet/node"
import { Effect, Either, Option, Schema } from "effect"
import { requireParticipantAdmin } from "./auth.ts"
import { LedgerApiError } from "./errors.ts"
import { engineRoutes, invalidBody, op } from "./ledger/context.ts"
import { bind, Surfaces, mergeRoutes } from "./surface.ts"

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
      const found = yield* Effect.orDie(storedArchive(s.store, snapshotId))
      if (Option.isNone(found)) return yield* Effect.fail(snapshotNotFound(snapshotId))
      return found.value
    })
  return mergeRoutes(
    bind(ledger, CreateSnapshot, () =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        const s = yield* storage
        const upTo = yield* node.runtime.flush
        const createdAt = new Date().toISOString()
        return yield* Effect.orDie(storeSnapshot(s.store, createdAt, upTo))
      })
    ),
    bind(ledger, ListSnapshots, () =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        const s = yield* storage
        return { snapshots: yield* Effect.orDie(storedSnapshots(s.store)) }
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
