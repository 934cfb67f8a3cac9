/**
 * Builds a coin network: synchronizers (sequencer + mediator each), super validators (participants
 * hosting the DSO party, each with a scan) and validators, all registered with the Network, and
 * bootstraps the DSO's genesis contracts (CoinRules and the first mining round).
 */
import { Clock, Effect } from "effect"
import {
  invariant,
  mediatorUid,
  micros,
  namespaceOf,
  participantUid,
  partyId,
  sequencerUid,
  synchronizerId as makeSynchronizerId,
  parseIso,
  type ActiveContract,
  type Micros,
  type PartyId
} from "@sandnet/core"

import { ALL_PACKAGES, bootstrapRound, defaultCoinConfig, genesisCommands, type GenesisParameters } from "./coin/index.ts"
import { ExternalPartySetupPackage } from "./coin/external-party-setup.ts"
import { PingPackage } from "./builtin/ping.ts"
import { CoinRules, OpenMiningRound, type OpenMiningRoundPayload } from "./coin/rules.ts"
import { TemplateRegistry } from "./ledger/template.ts"
import type { ArchivedLog, ArchivedLogLimits } from "./history/archived-log.ts"
import { Network } from "./network/network.ts"
import { makeParticipant, type ParticipantNode } from "./participant/index.ts"
import { ScanStore, type HistoryOrderKeeping } from "./scan/store.ts"
import { makeMediator, type MediatorActor } from "./protocol/mediator.ts"
import { makeSequencer, type SequencerActor } from "./protocol/sequencer.ts"
import { Topology, defaultSynchronizerParameters, type SynchronizerInfo, type SynchronizerParameters, type TopologyState } from "./topology.ts"

export interface SynchronizerConfig {
  readonly name: string
  readonly migrationId?: number
  readonly parameters?: SynchronizerParameters
}

export interface CoinNetworkConfig {
  /** Seeds every namespace: two networks with the same name have the same ids. */
  readonly name: string
  readonly superValidators: number
  readonly validators: number
  readonly synchronizers: ReadonlyArray<SynchronizerConfig>
  readonly isDevNet: boolean
  /** USD per coin of the first rounds. */
  readonly initialCoinPrice: string
  readonly tickDuration: Micros
  /**
   * Extra traffic (bytes) each member starts with on every synchronizer, before any purchase:
   * super validators are effectively unmetered; validators get a starting grant and then buy
   * traffic with coin (the top-up automation).
   */
  readonly initialExtraTraffic: { readonly superValidator: number; readonly validator: number }
}

/** How a network keeps what it does not share with its config (not journaled: a node may change it between runs). */
export interface NetworkKeeping {
  /**
   * How much of each history log (update logs, scans' updates and verdicts) stays as objects;
   * the rest is kept compressed (history/archived-log.ts). Everything stays when absent (a
   * simulation); a serving node archives.
   */
  readonly historyLimits?: ArchivedLogLimits | undefined
  /** When the scans' history orders are made (scan/store.ts); built at the first read when absent (a simulation), kept by a serving node. */
  readonly historyOrder?: HistoryOrderKeeping | undefined
}

export const defaultCoinNetworkConfig: CoinNetworkConfig = {
  name: "sandnet",
  superValidators: 1,
  validators: 1,
  synchronizers: [{ name: "global-synchronizer" }],
  isDevNet: true,
  initialCoinPrice: "0.005",
  tickDuration: micros.minutes(10),
  initialExtraTraffic: { superValidator: 1e15, validator: 50_000_000 }
}

/**
 * The names of a network's nodes, as buildCoinNetwork gives them: super validators sv1..svN, then
 * validators validator1..validatorM. A cluster's processes and a simulation's fault selectors name
 * nodes by them.
 */
export const networkNodeNames = (shape: { readonly superValidators: number; readonly validators: number }): { readonly superValidators: ReadonlyArray<string>; readonly validators: ReadonlyArray<string> } => ({
  superValidators: Array.from({ length: shape.superValidators }, (_, i) => `sv${i + 1}`),
  validators: Array.from({ length: shape.validators }, (_, i) => `validator${i + 1}`)
})

export interface SynchronizerNode {
  readonly info: SynchronizerInfo
  readonly sequencer: SequencerActor
  readonly mediator: MediatorActor
}

export interface SuperValidatorNode {
  readonly name: string
  readonly participant: ParticipantNode
  readonly operator: PartyId
  readonly scan: ScanStore
}

export interface ValidatorNode {
  readonly name: string
  readonly participant: ParticipantNode
  readonly operator: PartyId
}

/**
 * The pace of the network's timed automations, set by the node while a time advance catches up
 * (docs/economy.md, "Time advance"); a simulation never sets it.
 */
export interface NetworkPace {
  /**
   * While a step of a long time advance is delivered (every step but the last): the step's end.
   * The DSO then acts on the first tick of each step only, and the wallets poll once per step.
   */
  catchUpUntil: Micros | undefined
}

export interface CoinNetwork {
  readonly config: CoinNetworkConfig
  /** Mutable: the node sets it during a time advance. */
  readonly pace: NetworkPace
  readonly topology: TopologyState
  readonly registry: TemplateRegistry
  readonly dso: PartyId
  readonly synchronizers: ReadonlyArray<SynchronizerNode>
  readonly superValidators: ReadonlyArray<SuperValidatorNode>
  readonly validators: ReadonlyArray<ValidatorNode>
  /** Every participant, super validators first. */
  readonly participants: ReadonlyArray<ParticipantNode>
  /** How the network keeps its history; what is built on it (a wallet) keeps its own the same way. */
  readonly keeping: NetworkKeeping
  /**
   * History logs of what is built on the network (each wallet's finished records), archived with
   * the network's own (history/network-history.ts). Mutable: a wallet adds its logs when it starts.
   */
  readonly attachedHistory: Array<ArchivedLog<unknown>>
}

export { defaultCoinConfig }

export const buildCoinNetwork = (config: CoinNetworkConfig, keeping: NetworkKeeping = {}): Effect.Effect<CoinNetwork, never, Network | Topology> =>
  Effect.gen(function* () {
    invariant(config.superValidators >= 1, "a network needs at least one super validator")
    invariant(config.synchronizers.length >= 1, "a network needs at least one synchronizer")
    const topology = yield* Topology
    // Canton's built-in Ping is on every participant, next to the coin's packages.
    const registry = new TemplateRegistry([...ALL_PACKAGES, ExternalPartySetupPackage, PingPackage])
    const synchronizers = yield* makeSynchronizers(config, topology)
    const defaultSynchronizer = synchronizers[0]!.info.synchronizerId

    const dso = partyId("DSO", namespaceOf(`${config.name}:dso`))
    const superValidators: Array<SuperValidatorNode> = []
    const validators: Array<ValidatorNode> = []
    const makeNode = (name: string, isSuperValidator: boolean) =>
      Effect.gen(function* () {
        const namespace = namespaceOf(`${config.name}:participant:${name}`)
        const uid = participantUid(name, namespace)
        topology.addParticipant({ uid, name, address: uid, isSuperValidator })
        const participant = yield* makeParticipant({ uid, name, namespace, isSuperValidator, defaultSynchronizer, historyLimits: keeping.historyLimits }, registry)
        // its topology update is committed by submitGenesis (see ParticipantLogic.reserveParty)
        const operator = yield* Effect.orDie(participant.logic.reserveParty(name))
        return { participant, operator }
      })
    const names = networkNodeNames(config)
    for (const name of names.superValidators) {
      const { participant, operator } = yield* makeNode(name, true)
      const scan = new ScanStore(participant.logic, dso, keeping.historyLimits, keeping.historyOrder ?? "built when read")
      participant.logic.addListener(scan)
      superValidators.push({ name, participant, operator, scan })
    }
    hostDso(topology, dso, superValidators)
    for (const name of names.validators) {
      const { participant, operator } = yield* makeNode(name, false)
      validators.push({ name, participant, operator })
    }
    grantGenesisTraffic(config, synchronizers, superValidators, validators)
    return {
      config,
      pace: { catchUpUntil: undefined },
      topology,
      registry,
      dso,
      synchronizers,
      superValidators,
      validators,
      participants: [...superValidators.map((s) => s.participant), ...validators.map((v) => v.participant)],
      keeping,
      attachedHistory: []
    }
  })

/** Each configured synchronizer, in order: its ids, its topology entry, its sequencer and mediator. */
const makeSynchronizers = (config: CoinNetworkConfig, topology: TopologyState): Effect.Effect<Array<SynchronizerNode>, never, Network | Topology> =>
  Effect.gen(function* () {
    const synchronizers: Array<SynchronizerNode> = []
    for (const [i, s] of config.synchronizers.entries()) {
      const namespace = namespaceOf(`${config.name}:synchronizer:${s.name}`)
      const info: SynchronizerInfo = {
        synchronizerId: makeSynchronizerId(s.name, namespace),
        name: s.name,
        migrationId: s.migrationId ?? 0,
        sequencer: sequencerUid(s.name, namespace),
        mediator: mediatorUid(s.name, namespace),
        mediatorGroup: 0,
        parameters: s.parameters ?? defaultSynchronizerParameters
      }
      invariant(i > 0 || info.migrationId >= 0, "migration ids are non-negative")
      topology.addSynchronizer(info)
      synchronizers.push({ info, sequencer: yield* makeSequencer(info), mediator: yield* makeMediator(info) })
    }
    return synchronizers
  })

/** The DSO party is hosted by every super validator; a two-thirds majority confirms for it. */
const hostDso = (topology: TopologyState, dso: PartyId, superValidators: ReadonlyArray<SuperValidatorNode>): void =>
  topology.setHosting({
    party: dso,
    participants: superValidators.map((sv) => ({ participantUid: sv.participant.logic.uid, permission: "Submission" as const })),
    threshold: Math.ceil((2 * superValidators.length) / 3),
    external: false
  })

/** The synchronizers' genesis traffic state. */
const grantGenesisTraffic = (
  config: CoinNetworkConfig,
  synchronizers: ReadonlyArray<SynchronizerNode>,
  superValidators: ReadonlyArray<SuperValidatorNode>,
  validators: ReadonlyArray<ValidatorNode>
): void => {
  for (const s of synchronizers) {
    for (const sv of superValidators) s.sequencer.logic.handleSetLimit(sv.participant.address, config.initialExtraTraffic.superValidator, 0)
    for (const v of validators) s.sequencer.logic.handleSetLimit(v.participant.address, config.initialExtraTraffic.validator, 0)
  }
}

/** Round `round` (0, 1 or 2) of the genesis bootstrap. */
export const genesisRound = (network: CoinNetwork, round: 0 | 1 | 2, now: Micros): OpenMiningRoundPayload =>
  bootstrapRound(genesisParameters(network, now), round, defaultCoinConfig(network.synchronizers[0]!.info.synchronizerId, network.config.tickDuration))

const genesisParameters = (network: CoinNetwork, now: Micros): GenesisParameters => ({
  dso: network.dso,
  superValidators: network.superValidators.map((sv) => ({ party: sv.operator, name: sv.name })),
  validatorOperators: network.validators.map((v) => v.operator),
  synchronizerId: network.synchronizers[0]!.info.synchronizerId,
  tickDuration: network.config.tickDuration,
  initialCoinPrice: network.config.initialCoinPrice,
  isDevNet: network.config.isDevNet,
  now
})

/**
 * Submits the genesis transaction (CoinRules, the first mining rounds, DsoRules, AnsRules,
 * ExternalPartyCoinRules, validator licenses: coin/genesis.ts) from the first super validator. The
 * driver must deliver messages until it completes.
 *
 * Before it, every participant commits the topology updates of the parties it hosts from the
 * start: its operator, and the DSO party on super validators (hosting at genesis is built, not
 * journaled; these updates are, with everything genesis commits).
 */
export const submitGenesis = (network: CoinNetwork, hostedHere: (node: { readonly name: string }) => boolean = () => true): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const now = micros.fromNanos(yield* Clock.currentTimeNanos)
    authorizeGenesisParties(network, now, hostedHere)
    yield* submitGenesisTransaction(network, "genesis")
  })

/**
 * The genesis transaction alone, from the first super validator, as of now. Submitted again (under
 * another command id) by a network spread over processes whose first attempt timed out because
 * another super validator's process was not up yet.
 */
export const submitGenesisTransaction = (network: CoinNetwork, commandId: string): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const now = micros.fromNanos(yield* Clock.currentTimeNanos)
    const sv1 = network.superValidators[0]!
    yield* sv1.participant.submit({ actAs: [network.dso], commandId, commands: genesisCommands(genesisParameters(network, now)) })
  })

/**
 * The topology updates of the parties hosted from the start, on the participants `hostedHere`
 * (all of them in one process; in a network spread over processes each process commits its own).
 */
export const authorizeGenesisParties = (network: CoinNetwork, now: Micros, hostedHere: (node: { readonly name: string }) => boolean = () => true): void => {
  for (const sv of network.superValidators) {
    if (!hostedHere(sv)) continue
    sv.participant.logic.authorizationAdded(sv.operator, now)
    sv.participant.logic.authorizationAdded(network.dso, now)
  }
  for (const v of network.validators) if (hostedHere(v)) v.participant.logic.authorizationAdded(v.operator, now)
}

/**
 * The DSO contracts a wallet needs to transact, read from a super validator's ACS (the real
 * validator reads them from scan and submits them as disclosed contracts).
 */
export interface DsoReference {
  readonly coinRules: ActiveContract
  readonly openRound: ActiveContract
  readonly openRoundPayload: OpenMiningRoundPayload
}

export const dsoReference = (network: CoinNetwork, now: Micros, svIndex = 0): DsoReference | undefined => {
  const sv = network.superValidators[svIndex] ?? network.superValidators[0]!
  const acs = sv.participant.logic.acs
  const rules = acs.ofTemplate(CoinRules.templateId, network.dso).next()
  if (rules.done === true) return undefined
  let best: ActiveContract | undefined
  for (const round of acs.ofTemplate(OpenMiningRound.templateId, network.dso)) {
    const payload = round.created.createArguments as unknown as OpenMiningRoundPayload
    const opensAt = parseIso(payload.opensAt) ?? Number.MAX_SAFE_INTEGER
    if (opensAt > now) continue
    if (best === undefined || Number(payload.round.number) > Number((best.created.createArguments as unknown as OpenMiningRoundPayload).round.number)) best = round
  }
  if (best === undefined) return undefined
  return { coinRules: rules.value, openRound: best, openRoundPayload: best.created.createArguments as unknown as OpenMiningRoundPayload }
}


