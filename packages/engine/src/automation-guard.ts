/**
 * Isolates the failure of one automation step to that step: a defect (a throw, an invariant) or
 * an error is logged, counted and the step is skipped for a backoff measured in engine time
 * (doubling per consecutive failure, capped), so the tick and the other automations go on.
 * Deterministic: the engine's clock, never the wall clock.
 */
import { Cause, Effect } from "effect"
import type { Micros } from "@sandnet/core"

export interface AutomationStepStatus {
  readonly automation: string
  readonly step: string
  /** Failures so far, in all. */
  readonly failures: number
  /** Failures since the step last succeeded. */
  readonly consecutiveFailures: number
  readonly lastError: string | undefined
  /** Engine time (micros) before which the step is not run again; 0 when healthy. */
  readonly retryAt: Micros
}

const BASE_BACKOFF: Micros = 30_000_000
const MAX_BACKOFF: Micros = 600_000_000

export class AutomationGuard {
  private readonly steps = new Map<string, AutomationStepStatus>()

  constructor(readonly automation: string) {}

  /** Runs `effect` as step `step` unless it is backing off; a failure is caught here. */
  run(step: string, now: Micros, effect: Effect.Effect<void, unknown>): Effect.Effect<void> {
    const status = this.steps.get(step)
    if (status !== undefined && now < status.retryAt) return Effect.void
    return effect.pipe(
      Effect.matchCauseEffect({
        onSuccess: () => Effect.sync(() => this.succeeded(step, status)),
        onFailure: (cause) => {
          const failed = this.failed(step, status, now, Cause.pretty(cause))
          return Effect.logWarning(`automation ${this.automation}: step ${step} failed (${failed.consecutiveFailures} in a row); retrying after backoff`, failed.lastError)
        }
      })
    )
  }

  status(): ReadonlyArray<AutomationStepStatus> {
    return [...this.steps.values()]
  }

  private succeeded(step: string, status: AutomationStepStatus | undefined): void {
    if (status !== undefined && status.consecutiveFailures > 0) this.steps.set(step, { ...status, consecutiveFailures: 0, retryAt: 0 })
  }

  private failed(step: string, status: AutomationStepStatus | undefined, now: Micros, error: string): AutomationStepStatus {
    const consecutiveFailures = (status?.consecutiveFailures ?? 0) + 1
    const backoff = Math.min(MAX_BACKOFF, BASE_BACKOFF * 2 ** Math.min(consecutiveFailures - 1, 20))
    const next: AutomationStepStatus = {
      automation: this.automation,
      step,
      failures: (status?.failures ?? 0) + 1,
      consecutiveFailures,
      lastError: error.split("\n")[0],
      retryAt: now + backoff
    }
    this.steps.set(step, next)
    return next
  }
}
