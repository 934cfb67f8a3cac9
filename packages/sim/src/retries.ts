/**
 * A client that retries: some commands a client submitted are submitted again, later, with the same
 * command id (the same tracking id), as a client does when it did not hear back in time. While the
 * first is in flight the participant answers SUBMISSION_ALREADY_IN_FLIGHT; once it succeeded,
 * DUPLICATE_COMMAND; only when it failed does the retry go through as a new submission. Whatever
 * happens, nothing is committed twice (the exactly-once invariant checks it).
 */
import { Effect, Either } from "effect"
import type { Micros } from "@sandnet/core"
import { ErrorCodes, type Actor, type Message, type NetworkService } from "@sandnet/engine"
import type { RetryFault } from "./fault-config.ts"
import { sample } from "./faults.ts"
import { UNAVAILABLE, type ClientCall, type ParticipantHandle } from "./nodes.ts"
import type { SeededRandom } from "./random.ts"

export interface RetryStats {
  /** Commands chosen for a retry. */
  retried: number
  /** Resubmissions, and what the participant answered. */
  resubmissions: number
  alreadyInFlight: number
  duplicateCommand: number
  /** The first submission had failed: the retry went through as a new one. */
  resubmitted: number
  unavailable: number
  /** Rejected otherwise (e.g. its inputs were spent meanwhile). */
  rejected: number
}

export const emptyRetryStats = (): RetryStats => ({ retried: 0, resubmissions: 0, alreadyInFlight: 0, duplicateCommand: 0, resubmitted: 0, unavailable: 0, rejected: 0 })

interface RetryTick extends Message {
  readonly _tag: "ClientRetry"
  readonly id: number
}

export const RETRY_CLIENT_ADDRESS = "sim::retrying-client"

export class RetryingClient implements Actor {
  readonly address = RETRY_CLIENT_ADDRESS
  readonly stats = emptyRetryStats()
  private readonly pending = new Map<number, { readonly handle: ParticipantHandle; readonly call: ClientCall; remaining: number }>()
  private counter = 0
  /** Retries due after this time are not scheduled (the workload has stopped). */
  private stopAt: Micros = Number.MAX_SAFE_INTEGER

  constructor(
    private readonly config: RetryFault,
    private readonly random: SeededRandom,
    private readonly net: NetworkService,
    private readonly now: () => Micros
  ) {}

  stopAfter(at: Micros): void {
    this.stopAt = at
  }

  /** Hooked into every handle: decides whether this submission will be retried. */
  readonly onAccepted = (handle: ParticipantHandle, call: ClientCall): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (!this.random.unsafeChance(this.config.probability)) return Effect.void
      this.stats.retried++
      const id = ++this.counter
      this.pending.set(id, { handle, call, remaining: this.config.times })
      return this.schedule(id)
    })

  private schedule(id: number): Effect.Effect<void> {
    const at = this.now() + Math.max(1, sample(this.config.after, this.random))
    if (at > this.stopAt) {
      this.pending.delete(id)
      return Effect.void
    }
    const tick: RetryTick = { _tag: "ClientRetry", id }
    return this.net.schedule(this.address, tick, at)
  }

  readonly receive = (message: Message): Effect.Effect<void> => {
    if (message._tag !== "ClientRetry") return Effect.void
    const id = (message as RetryTick).id
    const entry = this.pending.get(id)
    if (entry === undefined) return Effect.void
    return Effect.gen(this, function* () {
      this.stats.resubmissions++
      const outcome = yield* Effect.either(entry.handle.resubmit(entry.call))
      if (Either.isRight(outcome)) this.stats.resubmitted++
      else {
        const error = outcome.left
        const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined
        if (code === ErrorCodes.alreadyInFlight) this.stats.alreadyInFlight++
        else if (code === ErrorCodes.duplicateCommand) this.stats.duplicateCommand++
        else if (code === UNAVAILABLE) this.stats.unavailable++
        else this.stats.rejected++
      }
      entry.remaining--
      if (entry.remaining > 0) yield* this.schedule(id)
      else this.pending.delete(id)
    })
  }
}
