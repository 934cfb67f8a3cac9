/** Payload building blocks shared by the coin templates (compact JSON forms of Daml records). */
import { Schema } from "effect"
import { Int64, Numeric } from "@sandnet/core"

export const Round = Schema.Struct({ number: Int64 })
export type Round = typeof Round.Type

export const RelTime = Schema.Struct({ microseconds: Int64 })
export type RelTime = typeof RelTime.Type

export const RatePerRound = Schema.Struct({ rate: Numeric })

/** A coin amount that shrinks by a fixed holding fee every round after its creation round. */
export const ExpiringAmount = Schema.Struct({
  initialAmount: Numeric,
  createdAt: Round,
  ratePerRound: RatePerRound
})
export type ExpiringAmount = typeof ExpiringAmount.Type

export const roundNumber = (round: Round): number => Number(round.number)
export const roundOf = (n: number): Round => ({ number: String(n) })
