/**
 * The lifecycle snapshots the wallet keeps in its journaled records (offers, instructions,
 * buy-traffic requests, tracking ids, delegations), persisted and restored with the machines'
 * helpers. The latest persisted snapshots remember the live snapshot they were made from, so that stepping a
 * lifecycle the wallet itself persisted does not decode it again (restoring validates the whole
 * context).
 */
import { PairQueue } from "@sandnet/core"
import type { AnyStateMachine, SnapshotFrom } from "xstate"
import { persist, restore } from "../machines/lifecycle.ts"
import type { PersistedSnapshot } from "./journal.ts"

/**
 * The live snapshots of the latest lifecycles the wallet persisted or restored, oldest first. A
 * bound, not a WeakMap entry for as long as the record lives: a transfer instruction nobody takes
 * stays under way for a day, and its live snapshot was about 670 bytes (0.17 KB per transaction of
 * a 5-minute soak, `sandnet bench --only memory`). Most steps follow their lifecycle's previous one
 * soon (an offer accepted, then completed); a later one restores the snapshot again.
 */
const live = new Map<PersistedSnapshot, unknown>()
/** `live`'s keys in the order they came, the oldest forgotten first (PairQueue says why not the map's own order). */
const liveOrder = new PairQueue<PersistedSnapshot, undefined>()
const LIVE_KEPT = 1024

/**
 * A lifecycle in a final state is not stepped again, and the wallet keeps its record (a tracking
 * id's, say) for good: its live snapshot is not remembered, a read restores it when it needs it.
 * Remembered, the finished ones were about 400 bytes of heap per transaction of a 5-minute soak.
 */
const remember = (persisted: PersistedSnapshot, snapshot: { readonly status: string }): void => {
  if (snapshot.status !== "active") return
  if (!live.has(persisted)) {
    while (live.size >= LIVE_KEPT) {
      live.delete(liveOrder.firstKey()!)
      liveOrder.shift()
    }
    liveOrder.push(persisted, undefined)
  }
  live.set(persisted, snapshot)
}

export const persistSnapshot = <M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>): PersistedSnapshot => {
  const persisted = persist(machine, snapshot) as unknown as PersistedSnapshot
  remember(persisted, snapshot)
  return persisted
}

export const restoreSnapshot = <M extends AnyStateMachine>(machine: M, persisted: PersistedSnapshot): SnapshotFrom<M> => {
  const cached = live.get(persisted)
  if (cached !== undefined) return cached as SnapshotFrom<M>
  const snapshot = restore(machine, persisted)
  remember(persisted, snapshot)
  return snapshot
}
