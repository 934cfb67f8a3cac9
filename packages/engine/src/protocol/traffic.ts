/**
 * Traffic accounting, as Canton's sequencers do it: every envelope costs its size plus a
 * read-amplification share per recipient; a member spends first its free base-rate traffic (which
 * refills over a burst window up to a cap) and then extra traffic bought with coin.
 */
import { invariant, type Micros } from "@sandnet/core"
import type { TrafficParameters } from "../topology.ts"

export const envelopeCost = (size: number, recipients: number, parameters: TrafficParameters): number =>
  size + Math.floor((size * parameters.readVsWriteScalingFactor * recipients) / 10_000)

export interface MemberTrafficState {
  extraTrafficLimit: number
  extraTrafficConsumed: number
  baseTrafficRemainder: number
  lastConsumedAt: Micros
  totalConsumed: number
}

export const initialTrafficState = (parameters: TrafficParameters, now: Micros): MemberTrafficState => ({
  extraTrafficLimit: 0,
  extraTrafficConsumed: 0,
  baseTrafficRemainder: parameters.baseRateBurstAmount,
  lastConsumedAt: now,
  totalConsumed: 0
})

const refilledBase = (state: MemberTrafficState, parameters: TrafficParameters, now: Micros): number => {
  const elapsed = Math.max(0, now - state.lastConsumedAt)
  const refill = Math.floor((elapsed * parameters.baseRateBurstAmount) / parameters.baseRateBurstWindow)
  return Math.min(parameters.baseRateBurstAmount, state.baseTrafficRemainder + refill)
}

/** Traffic the member could spend right now. */
export const availableTraffic = (state: MemberTrafficState, parameters: TrafficParameters, now: Micros): number =>
  refilledBase(state, parameters, now) + state.extraTrafficLimit - state.extraTrafficConsumed

/** Charges `cost`; returns false (and charges nothing) when the member lacks traffic. */
export const consumeTraffic = (
  state: MemberTrafficState,
  parameters: TrafficParameters,
  cost: number,
  now: Micros
): boolean => {
  invariant(cost >= 0, "traffic cost must not be negative")
  const base = refilledBase(state, parameters, now)
  const fromBase = Math.min(base, cost)
  const fromExtra = cost - fromBase
  if (state.extraTrafficConsumed + fromExtra > state.extraTrafficLimit) return false
  state.baseTrafficRemainder = base - fromBase
  state.extraTrafficConsumed += fromExtra
  state.lastConsumedAt = Math.max(state.lastConsumedAt, now)
  state.totalConsumed += cost
  invariant(state.extraTrafficConsumed <= state.extraTrafficLimit, "extra traffic consumed beyond the limit")
  return true
}

export const setExtraTrafficLimit = (state: MemberTrafficState, limit: number): void => {
  // Purchases only ever add: a lower limit is a stale message and is ignored.
  if (limit > state.extraTrafficLimit) state.extraTrafficLimit = limit
}
