/**
 * ACS snapshots for bulk download (S9): the gzipped JSON-lines objects of a snapshot, their names
 * and digests, and the read-and-render entry points of the bulk endpoints.
 *
 * JSON rendering: it belongs to the HTTP layer and moves there with the rest of scan/json/.
 */
import { Either } from "effect"
import { gzipSync } from "fflate"
import { canonicalJson, sha256Hex, toIso, type CreatedNode, type JsonObject, type Micros } from "@sandnet/core"
import { acsSnapshotAt, type SnapshotContent } from "../acs-snapshots.ts"
import { AcsSnapshotNotFound, BulkObjectNotFound } from "../errors.ts"
import type { ScanStore } from "../store.ts"
import { sortedParties } from "./values.ts"

const ok = Either.right
const err = Either.left

/** Active contracts per downloadable object. */
export const ACS_SNAPSHOT_OBJECT_SIZE = 10_000

/** One ACS item of a snapshot object (splice-scan.yaml's ActiveContract), one JSON line each. */
export const renderActiveContract = (entry: { readonly created: CreatedNode; readonly createdInUpdateId: string | undefined }): JsonObject => ({
  ...(entry.createdInUpdateId === undefined ? {} : { created_in_update_id: entry.createdInUpdateId }),
  contract_id: entry.created.contractId,
  template_id: entry.created.templateId,
  package_name: entry.created.packageName,
  create_arguments: entry.created.createArguments,
  created_at: toIso(entry.created.createdAt),
  signatories: sortedParties(entry.created.signatories),
  observers: sortedParties(entry.created.observers)
})

const encoder = new TextEncoder()

/** The objects of each snapshot content, built on first download (contents are shared and never change). */
const objectCache = new WeakMap<SnapshotContent, ReadonlyArray<{ readonly bytes: Uint8Array; readonly digest: string }>>()

/**
 * The downloadable objects of a snapshot: contracts sorted by contract id, at most
 * ACS_SNAPSHOT_OBJECT_SIZE per object, each line the canonical JSON (keys sorted) of an
 * ActiveContract followed by "\n", gzipped with fixed header fields (mtime 0, no file name) so the
 * bytes, and their sha256, are the same on every super validator.
 */
const objectsOf = (content: SnapshotContent): ReadonlyArray<{ readonly bytes: Uint8Array; readonly digest: string }> => {
  const cached = objectCache.get(content)
  if (cached !== undefined) return cached
  const objects: Array<{ readonly bytes: Uint8Array; readonly digest: string }> = []
  for (let start = 0; start === 0 || start < content.entries.length; start += ACS_SNAPSHOT_OBJECT_SIZE) {
    const lines = content.entries.slice(start, start + ACS_SNAPSHOT_OBJECT_SIZE).map((e) => canonicalJson(renderActiveContract(e)) + "\n")
    const bytes = gzipSync(encoder.encode(lines.join("")), { level: 6, mtime: 0 })
    objects.push({ bytes, digest: sha256Hex(bytes) })
  }
  objectCache.set(content, objects)
  return objects
}

/** Object names: `acs-<record time in microseconds>-<part>.jsonl.gz`. */
export const acsObjectName = (recordTime: Micros, part: number): string => `acs-${recordTime}-${part}.jsonl.gz`

const OBJECT_NAME = /^acs-(\d{1,17})-(\d{1,6})\.jsonl\.gz$/

export interface AcsSnapshotObjects {
  readonly recordTime: Micros
  readonly objects: ReadonlyArray<{ readonly name: string; readonly digest: string }>
}

/** S9: the latest ACS snapshot taken at or before `atOrBefore`. */
export const acsSnapshotAtOrBefore = (scan: ScanStore, atOrBefore: Micros): Either.Either<AcsSnapshotObjects, AcsSnapshotNotFound> => {
  const snapshot = acsSnapshotAt(scan, atOrBefore)
  if (snapshot === undefined) return err(new AcsSnapshotNotFound({ atOrBefore: toIso(atOrBefore) }))
  return ok({
    recordTime: snapshot.recordTime,
    objects: objectsOf(snapshot.content).map((o, part) => ({ name: acsObjectName(snapshot.recordTime, part), digest: o.digest }))
  })
}

/** The bytes of a snapshot object by name (only names of snapshots that were taken). */
export const acsSnapshotObject = (scan: ScanStore, name: string): Either.Either<Uint8Array, BulkObjectNotFound> => {
  const match = OBJECT_NAME.exec(name)
  if (match === null) return err(new BulkObjectNotFound({ name }))
  const t = Number(match[1])
  const part = Number(match[2])
  const snapshot = acsSnapshotAt(scan, t)
  const object = snapshot?.recordTime === t ? objectsOf(snapshot.content)[part] : undefined
  return object === undefined ? err(new BulkObjectNotFound({ name })) : ok(object.bytes)
}
