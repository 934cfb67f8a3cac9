/**
 * State the journals keep as key-value rows beside the streams (upserted with the batches that
 * moved it): the runtime's clock and each synchronizer's sequencer.
 */
import type { MemberTrafficState } from "@sandnet/engine"
import type { Micros } from "@sandnet/core"

/** The `runtime` stream's `clock` row: the developer's time offset and the last engine time. */
export interface ClockState {
  readonly offset: number
  readonly now: Micros
}

/** A `sequencer/<synchronizer>` stream's `state` row. */
export interface SequencerSnapshot {
  readonly lastTimestamp: Micros
  readonly traffic: ReadonlyArray<readonly [string, MemberTrafficState]>
}
