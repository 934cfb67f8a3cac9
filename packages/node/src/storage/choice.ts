/**
 * Which store a node runs on (memory, embedded PGlite, a PostgreSQL server in the node's own
 * schema), the EventStore layer for it and what the node says about it when ready.
 */
import { EmbeddedPglite, EventStore, type PgliteOrigin, type PgliteStartupError, type StorageError, type StoreConfigError, validateSchema } from "@sandnet/store"
import { Context, Effect, Layer } from "effect"
import * as os from "node:os"
import { lockPostgresSchema } from "./schema-lock.ts"

export type StorageChoice =
  /** A throwaway node: everything is lost when the process ends. */
  | { readonly _tag: "memory" }
  /** The embedded default: PGlite in `dataDir`. */
  | { readonly _tag: "pglite"; readonly dataDir: string }
  /** A PostgreSQL server, in the node's own schema. */
  | { readonly _tag: "postgres"; readonly url: string; readonly schema: string }

/**
 * Where a node spills its archived history (runtime/history-spill.ts): beside its PGlite data, or
 * in the system's temporary directory beside a PostgreSQL server. A memory node keeps it in memory:
 * nothing of it touches the disk.
 */
export const historySpillDirOf = (choice: StorageChoice): string | undefined =>
  choice._tag === "pglite" ? choice.dataDir : choice._tag === "postgres" ? os.tmpdir() : undefined

/** What the node says about its storage when ready. */
export interface StorageDescription {
  readonly text: string
}

export class StorageInfo extends Context.Tag("@sandnet/node/StorageInfo")<StorageInfo, StorageDescription>() {}

/** A schema name from a node name: lowercase letters, digits and `_` (e.g. "SV-1" -> "sv_1"). */
export const schemaForNode = (nodeName: string): string => {
  const cleaned = nodeName.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 63)
  if (cleaned === "") return "sandnet"
  return /^[0-9]/.test(cleaned) ? `n_${cleaned}`.slice(0, 63) : cleaned
}

const redactUrl = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@")

/** How the ready lines name where a PGlite data directory came from. */
const ORIGIN_TEXT: Record<PgliteOrigin, string> = {
  existing: "reopened",
  initdb: "initialised",
  template: "new, from the template",
  "template-created": "new, from the template",
  "template-spare": "new, from the template's spare copy"
}

/** The EventStore (and what to print about it) for a storage choice. */
export const storageLayer = (
  choice: StorageChoice
): Layer.Layer<EventStore | StorageInfo, StorageError | StoreConfigError | PgliteStartupError> => {
  switch (choice._tag) {
    case "memory":
      return Layer.merge(EventStore.memory, Layer.succeed(StorageInfo, { text: "in memory (nothing is kept when the process ends)" }))
    case "pglite": {
      const store = EventStore.pglite({ dataDir: choice.dataDir })
      return Layer.merge(
        store,
        Layer.effect(
          StorageInfo,
          Effect.map(EmbeddedPglite, (info) => ({
            text: `PGlite in ${info.dataDir} (${ORIGIN_TEXT[info.origin]}, ${(info.timings.totalMs / 1000).toFixed(2)} s${info.startedEarly ? "; its thread started with the process" : ""})`
          }))
        ).pipe(Layer.provide(store))
      )
    }
    case "postgres": {
      const lock = Layer.scopedDiscard(Effect.flatMap(validateSchema(choice.schema), (schema) => lockPostgresSchema(choice.url, schema)))
      const store = EventStore.postgres({ url: choice.url, schema: choice.schema })
      return Layer.merge(store, Layer.succeed(StorageInfo, { text: `PostgreSQL ${redactUrl(choice.url)}, schema ${choice.schema}` })).pipe(
        Layer.provide(lock)
      )
    }
  }
}
