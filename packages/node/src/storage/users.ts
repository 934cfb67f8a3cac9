/**
 * User management on the node's storage: restored from the stored `admin` journal, and journaling
 * each change to it (committed before the change takes effect).
 */
import { Admin } from "@sandnet/engine"
import { Effect, Layer, Schema } from "effect"
import { awaitCommit } from "../journal/committer.ts"
import { Streams } from "../journal/streams.ts"
import { NodeStorage } from "./node-storage.ts"

/** User management's journal in the store: each change is committed before it takes effect. */
export const adminJournalLayer: Layer.Layer<Admin.AdminJournal, never, NodeStorage> = Layer.effect(
  Admin.AdminJournal,
  Effect.map(NodeStorage, (storage) => ({
    append: (events: ReadonlyArray<Admin.AdminEvent>) =>
      Effect.suspend(() => {
        for (const event of events) storage.admin.record(Streams.admin, event._tag, Schema.encodeSync(Admin.AdminEvent)(event))
        return awaitCommit(storage.committer.enqueue(storage.admin.drain()))
      })
  }))
)

/** User management restored from the stored `admin` journal, journaling to it. */
export const storedUserManagementLayer = (
  options?: Admin.UserManagementOptions
): Layer.Layer<Admin.UserManagement, never, NodeStorage> =>
  Layer.unwrapEffect(
    Effect.map(NodeStorage, (storage) =>
      Admin.UserManagement.layerFrom(storage.initial.admin, options).pipe(Layer.provide(adminJournalLayer))
    )
  )
