/**
 * The snapshots a node keeps in its own store (the snapshot endpoints): archives of its network,
 * one key-value row each in `SNAPSHOT_STREAM`, which neither a reset nor a restore touches.
 */
import type { EventStoreService, StorageError } from "@sandnet/store"
import { Effect, Option } from "effect"
import { encodeArchive, snapshotIdOf } from "./archive.ts"
import { exportNetwork } from "./export.ts"
import { SNAPSHOT_STREAM } from "./streams.ts"

interface StoredArchive {
  readonly createdAt: string
  readonly base64: string
}

/** A stored snapshot as the node lists it. */
export interface StoredSnapshotInfo {
  readonly snapshotId: string
  readonly createdAt: string
  readonly bytes: number
}

/**
 * Exports the store's network (journal entries up to the ordinal `upTo`), packs it into an archive
 * and keeps that in the store under its id.
 */
export const storeSnapshot = (store: EventStoreService, createdAt: string, upTo: number) =>
  Effect.gen(function* () {
    const snapshot = yield* exportNetwork(store, createdAt, upTo)
    const archive = encodeArchive(snapshot)
    const snapshotId = snapshotIdOf(archive)
    yield* store.putSnapshot(SNAPSHOT_STREAM, snapshotId, { createdAt, base64: Buffer.from(archive).toString("base64") } satisfies StoredArchive)
    return { snapshotId, entries: snapshot.entries.length, bytes: archive.length }
  })

/** The stored snapshots. */
export const storedSnapshots = (store: EventStoreService): Effect.Effect<ReadonlyArray<StoredSnapshotInfo>, StorageError> =>
  Effect.map(store.listSnapshots(SNAPSHOT_STREAM), (all) =>
    all.map((e) => {
      const body = e.body as StoredArchive
      return { snapshotId: e.key, createdAt: body.createdAt, bytes: Buffer.byteLength(body.base64, "base64") }
    })
  )

/** A stored snapshot's archive (none when no snapshot has that id). */
export const storedArchive = (store: EventStoreService, snapshotId: string): Effect.Effect<Option.Option<Buffer>, StorageError> =>
  Effect.map(
    store.getSnapshot(SNAPSHOT_STREAM, snapshotId),
    Option.map((found) => Buffer.from((found as StoredArchive).base64, "base64"))
  )
