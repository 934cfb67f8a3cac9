/**
 * The network snapshot archive (`sandnet-network-snapshot-v1`): the engine's journal entries and
 * key-value rows of a store, as gzipped JSON, named by its hash. Written and read by the snapshot
 * endpoints and, offline, by `sandnet snapshot` / `sandnet restore`.
 */
import type { JournalEntry, SnapshotEntry } from "@sandnet/store"
import { Either, Schema } from "effect"
import { createHash } from "node:crypto"
import { gunzipSync, gzipSync } from "node:zlib"

export const SNAPSHOT_FORMAT = "sandnet-network-snapshot-v1"

export interface NetworkSnapshot {
  readonly format: typeof SNAPSHOT_FORMAT
  readonly createdAt: string
  readonly entries: ReadonlyArray<JournalEntry>
  readonly snapshots: ReadonlyArray<SnapshotEntry>
}

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
