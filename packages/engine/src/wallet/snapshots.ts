/**
 * The lifecycle snapshots the wallet keeps in its journaled records (offers, instructions,
 * buy-traffic requests, tracking ids, delegations), persisted and restored with the machines'
 * helpers. Persisted snapshots remember the live snapshot they were made from, so that stepping a
 * lifecycle the wallet itself persisted does not decode it again (restoring validates the whole
 * context).
 */
import type { AnyStateMachine, SnapshotFrom } from "xstate"
import { persist, restore } from "../machines/lifecycle.ts"
import type { PersistedSnapshot } from "./journal.ts"

const live = new WeakMap<PersistedSnapshot, unknown>()

export const persistSnapshot = <M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>): PersistedSnapshot => {
  const persisted = persist(machine, snapshot) as unknown as PersistedSnapshot
  live.set(persisted, snapshot)
  return persisted
}

export const restoreSnapshot = <M extends AnyStateMachine>(machine: M, persisted: PersistedSnapshot): SnapshotFrom<M> => {
  const cached = live.get(persisted)
  if (cached !== undefined) return cached as SnapshotFrom<M>
  const snapshot = restore(machine, persisted)
  live.set(persisted, snapshot)
  return snapshot
}
