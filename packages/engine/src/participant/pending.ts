/**
 * The confirmation requests pending at a node, found by synchronizer and request id (the request's
 * sequencing time on that synchronizer), and walked in the order they were added. Keyed by the two,
 * not by one string of both: a synchronizer's id is about 90 characters, and every confirming node
 * made that key twice per request (on the request and on its verdict; in the shortened large
 * scenario, whose twenty super validators confirm every transfer, the verdicts' handling allocated
 * 298 MiB with the key, 121 MiB without).
 */
import { invariant, type Micros, type SynchronizerId } from "@sandnet/core"
import type { PendingRequest } from "./model.ts"

export class PendingRequests {
  private readonly bySynchronizer = new Map<SynchronizerId, Map<Micros, PendingRequest>>()
  /** Every pending request in the order it was added (what walks see). */
  private readonly inOrder = new Set<PendingRequest>()

  get size(): number {
    return this.inOrder.size
  }

  get(synchronizerId: SynchronizerId, requestId: Micros): PendingRequest | undefined {
    return this.bySynchronizer.get(synchronizerId)?.get(requestId)
  }

  add(pending: PendingRequest): void {
    const synchronizerId = pending.synchronizer.synchronizerId
    let requests = this.bySynchronizer.get(synchronizerId)
    if (requests === undefined) this.bySynchronizer.set(synchronizerId, (requests = new Map()))
    invariant(!requests.has(pending.requestId), () => `request ${pending.requestId} of ${synchronizerId} is pending twice`)
    requests.set(pending.requestId, pending)
    this.inOrder.add(pending)
  }

  delete(pending: PendingRequest): void {
    const requests = this.bySynchronizer.get(pending.synchronizer.synchronizerId)
    if (requests?.get(pending.requestId) !== pending) return
    requests.delete(pending.requestId)
    this.inOrder.delete(pending)
  }

  /** One synchronizer's pending requests, in the order they were added (sequencing order); deleting the one at hand while walking is safe. */
  of(synchronizerId: SynchronizerId): IterableIterator<PendingRequest> {
    return (this.bySynchronizer.get(synchronizerId) ?? NONE).values()
  }

  /** Every pending request, in the order they were added. */
  values(): IterableIterator<PendingRequest> {
    return this.inOrder.values()
  }
}

const NONE: ReadonlyMap<Micros, PendingRequest> = new Map()
