/**
 * Capture: attaches the journal sinks of an engine to a recorder, and after each engine operation
 * upserts the sequencers' and the clock's rows when they moved.
 */
import type { Micros, TrafficSummary, Verdict } from "@sandnet/core"
import type { CoinNetwork, ParticipantEvent, WalletEvent } from "@sandnet/engine"
import { scanRowOf } from "../indexes/rows.ts"
import type { JournalRecorder } from "./recorder.ts"
import type { ClockState, SequencerSnapshot } from "./runtime-state.ts"
import { Streams } from "./streams.ts"

export interface CaptureState {
  sequencers: Map<string, Micros>
  clock: ClockState | undefined
}

/**
 * A wallet's events are recorded as they are, as the participants' are: `WalletEvent`'s encoded
 * form is the event itself (no transformations; engine test wallet/journal.test.ts decodes a
 * journal's JSON back to equal events), and replay takes them as written. Encoding each through the
 * Schema only checked them again, 2.6% of a node's CPU under W1 offers (`node --cpu-prof` of `sandnet
 * start --in-memory` under 32 clients' offers: the lifecycle snapshots' contexts walked as JSON).
 */
export const walletSinkOf = (recorder: JournalRecorder, validator: string) => (event: WalletEvent) =>
  recorder.record(Streams.wallet(validator), event._tag, event)

/**
 * Sets every journal sink of the network's nodes `hostedHere` (all of them unless the network is
 * spread over processes) to `recorder`, and (with `indexRows`) has their ACS and scan indexes
 * follow into the key-value area; returns the state to follow with `collect`.
 */
export const attachSinks = (
  network: CoinNetwork,
  recorder: JournalRecorder,
  hostedHere: (node: { readonly name: string }) => boolean = () => true,
  indexRows = true
): CaptureState => {
  const migrationOf = (synchronizerId: string) => network.topology.synchronizer(synchronizerId as never)?.migrationId ?? 0
  // The store holds the journals: no participant keeps its events in memory as well (replay does not either).
  for (const node of network.participants) node.logic.keepsJournal = false
  for (const node of [...network.superValidators, ...network.validators]) {
    if (!hostedHere(node)) continue
    const stream = Streams.participant(node.name)
    const scanRows = indexRows && network.superValidators.some((sv) => sv.name === node.name)
    const scanIndex = Streams.scanIndex(node.name)
    node.participant.logic.journalSink = (event: ParticipantEvent) => {
      recorder.record(stream, event._tag, event)
      if (scanRows && event._tag === "UpdateCommitted") {
        const row = scanRowOf(event.entry, migrationOf)
        if (row !== undefined) recorder.put(scanIndex, event.entry.update.updateId, row)
      }
    }
    if (!indexRows) continue
    const acsIndex = Streams.acsIndex(node.name)
    node.participant.logic.acs.onChange = (contractId, contract) =>
      contract === undefined ? recorder.delete(acsIndex, contractId) : recorder.put(acsIndex, contractId, contract)
  }
  for (const sv of network.superValidators) {
    if (!hostedHere(sv)) continue
    const stream = Streams.scan(sv.name)
    sv.scan.verdictSink = (verdict: Verdict, trafficSummary: TrafficSummary) =>
      recorder.record(stream, "Verdict", { verdict, trafficSummary })
  }
  return {
    sequencers: new Map(network.synchronizers.map((s) => [s.info.name, s.sequencer.logic.lastTimestamp])),
    clock: undefined
  }
}

/** After an engine operation: upserts the sequencers' and the clock's snapshots when they moved. */
export const collectChanges = (network: CoinNetwork, recorder: JournalRecorder, state: CaptureState, clock: ClockState): void => {
  for (const s of network.synchronizers) {
    const last = s.sequencer.logic.lastTimestamp
    if (state.sequencers.get(s.info.name) === last) continue
    state.sequencers.set(s.info.name, last)
    const snapshot: SequencerSnapshot = {
      lastTimestamp: last,
      traffic: [...s.sequencer.logic.traffic.entries()].map(([member, t]) => [member, { ...t }] as const)
    }
    recorder.put(Streams.sequencer(s.info.name), "state", snapshot)
  }
  // The clock goes with batches that store something else (an idle tick writes nothing), or when
  // the developer's offset moved: every time the ledger shows is then covered.
  if (state.clock === undefined || state.clock.offset !== clock.offset || (recorder.pending && state.clock.now !== clock.now)) {
    state.clock = clock
    recorder.put(Streams.runtime, "clock", clock)
  }
}
