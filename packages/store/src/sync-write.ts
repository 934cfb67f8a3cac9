/**
 * A write that completes in the call: what a store whose writes are synchronous (the memory store)
 * offers besides `write`, so that a committer can commit at once instead of in a fiber of its own
 * (node/journal/committer.ts). Kept by the service object the store's layer made, in a WeakMap: a
 * wrapper (tests wrap `write` to inject failures, `{ ...store, write }`) is another object and so
 * has none, and every write it sees goes through its own `write`.
 */
import { Either } from "effect"
import type { AppendError } from "./errors.ts"
import type { EventStoreService } from "./service.ts"
import { prepareWrite, type PreparedWrite, type WriteBatch } from "./model.ts"
import type { WriteError } from "./writer.ts"

export type WriteNow = (batch: WriteBatch) => Either.Either<void, AppendError>

const writers = new WeakMap<EventStoreService, WriteNow>()

/** @internal a layer's service and its synchronous write of a prepared batch. */
export const offerWriteNow = (service: EventStoreService, write: (prepared: PreparedWrite) => Either.Either<void, WriteError>): EventStoreService => {
  writers.set(service, (batch) => Either.flatMap(prepareWrite(batch), write))
  return service
}

/** The store's synchronous write, when it has one (this very service object, not a wrapper of it). */
export const writeNowOf = (store: EventStoreService): WriteNow | undefined => writers.get(store)
