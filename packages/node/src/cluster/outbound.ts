/**
 * What the processes of other nodes get: the messages of each commit point, sent in order, each
 * batch once its journal batch committed (nothing is sent that a crash could take back).
 */
import type { OutgoingClusterMessage } from "@sandnet/store"
import { Deferred, Effect, Either, Queue, Schedule, type Scope } from "effect"
import type { JournalCommitFailed } from "../journal/errors.ts"
import type { ClusterMembership } from "./membership.ts"

export interface ClusterOutbound {
  /** Queues the messages of a commit point behind the ones before; `done` is its journal batch's commit. */
  readonly offer: (done: Deferred.Deferred<void, JournalCommitFailed> | undefined, messages: ReadonlyArray<OutgoingClusterMessage>) => Effect.Effect<void>
}

/** The outbound queue; with a membership, a fiber of the scope sends what is queued. */
export const makeClusterOutbound = (membership: ClusterMembership | undefined): Effect.Effect<ClusterOutbound, never, Scope.Scope> =>
  Effect.gen(function* () {
    const outbound = yield* Queue.unbounded<{ readonly done: Deferred.Deferred<void, JournalCommitFailed> | undefined; readonly messages: ReadonlyArray<OutgoingClusterMessage> }>()
    if (membership !== undefined) {
      const sendOne = Effect.gen(function* () {
        const item = yield* Queue.take(outbound)
        if (item.done !== undefined && Either.isLeft(yield* Effect.either(Deferred.await(item.done)))) {
          // the state that produced them was not stored (the engine is rebuilt from the store)
          return yield* Effect.logWarning(`${item.messages.length} cluster messages dropped: their journal batch failed`)
        }
        // Sent they must be (their state is stored): retried until the server takes them, in order.
        yield* membership.transport.send(membership.node, item.messages).pipe(
          Effect.tapError((error) => Effect.logWarning(`${item.messages.length} cluster messages could not be sent yet; retrying`, error.message)),
          Effect.retry(Schedule.union(Schedule.exponential("50 millis"), Schedule.spaced("5 seconds"))),
          Effect.orDie
        )
      })
      yield* Effect.forkScoped(Effect.forever(sendOne))
    }
    return { offer: (done, messages) => Effect.asVoid(Queue.offer(outbound, { done, messages })) }
  })
