/** A small deterministic harness for engine tests: network + clock + driver + a built coin network. */
import { Effect, Layer } from "effect"
import { SIMULATION_EPOCH, type Micros, type PartyId, type SynchronizerId } from "@sandnet/core"
import {
  CoinRules_DevNet_Tap,
  Commands,
  EventQueueNetwork,
  ManualClock,
  Network,
  Topology,
  TopologyState,
  buildCoinNetwork,
  defaultCoinNetworkConfig,
  defaultSynchronizerParameters,
  dsoReference,
  makeDriver,
  submitGenesis,
  type CoinNetwork,
  type CoinNetworkConfig,
  type Driver,
  type LinkModel,
  type NetworkKeeping,
  type ParticipantNode,
  type SynchronizerInfo
} from "../src/index.ts"

/** A synchronizer whose sequencer is "sequencer" and mediator "mediator", for a SequencerLogic alone. */
export const bareSynchronizer = (name: string): SynchronizerInfo => ({
  synchronizerId: `${name}::1220aa` as SynchronizerId,
  name,
  migrationId: 0,
  sequencer: "sequencer",
  mediator: "mediator",
  mediatorGroup: 0,
  parameters: defaultSynchronizerParameters
})

export interface Harness {
  readonly driver: Driver
  readonly network: CoinNetwork
  readonly queue: EventQueueNetwork
  readonly clock: ManualClock
  /** Runs an effect with the harness's clock and services. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Network | Topology>) => Effect.Effect<A, E>
}

export const makeHarness = (
  overrides: Partial<CoinNetworkConfig> = {},
  link?: LinkModel,
  start: Micros = SIMULATION_EPOCH,
  keeping: NetworkKeeping = {}
): Effect.Effect<Harness, unknown> =>
  Effect.gen(function* () {
    const clock = new ManualClock(start)
    const queue = new EventQueueNetwork(() => clock.now, link)
    const topology = new TopologyState()
    const layer = Layer.merge(Layer.succeed(Network, queue), Layer.succeed(Topology, topology))
    const run = <A, E>(effect: Effect.Effect<A, E, Network | Topology>) => Effect.withClock(Effect.provide(effect, layer), clock)
    const network = yield* run(buildCoinNetwork({ ...defaultCoinNetworkConfig, ...overrides }, keeping))
    const driver = makeDriver(queue, clock)
    yield* run(submitGenesis(network))
    yield* driver.runUntilIdle()
    return { driver, network, queue, clock, run }
  })

/** Submits a DevNet tap of `amount` to `party` on `node` (not waiting for its completion): what it returns. */
export const submitTap = (h: Harness, node: ParticipantNode, party: PartyId, amount: string, commandId: string) =>
  Effect.suspend(() => {
    const ref = dsoReference(h.network, h.clock.now)!
    return h.run(
      node.submit({
        actAs: [party],
        commandId,
        commands: [Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: party, amount, openRound: ref.openRound.created.contractId })],
        disclosedContracts: [ref.coinRules, ref.openRound]
      })
    )
  })
