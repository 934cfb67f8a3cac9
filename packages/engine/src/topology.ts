/**
 * Topology: which participants host which parties (with which permission and confirmation
 * threshold), the members of each synchronizer and its parameters. In the real network this state
 * is built from sequenced topology transactions that every member processes identically; Sandnet
 * keeps the resulting state in one deterministic registry that all actors read.
 */
import { Context } from "effect"
import { invariant, micros, type Micros, type ParticipantUid, type PartyId, type SynchronizerId } from "@sandnet/core"
import { sortInPlace } from "./ledger/party-lists.ts"
import type { Address } from "./network/network.ts"

export type ParticipantPermission = "Submission" | "Confirmation" | "Observation"

export interface HostingParticipant {
  readonly participantUid: ParticipantUid
  readonly permission: ParticipantPermission
}

export interface PartyHosting {
  readonly party: PartyId
  readonly participants: ReadonlyArray<HostingParticipant>
  /** How many confirming participants must approve for the party to confirm. */
  readonly threshold: number
  /** Set for parties whose signing keys live outside the node. */
  readonly external: boolean
}

export interface TrafficParameters {
  /** Free traffic that refills over the burst window, in bytes. */
  readonly baseRateBurstAmount: number
  readonly baseRateBurstWindow: Micros
  /** Canton's read-vs-write scaling factor, in basis points per recipient. */
  readonly readVsWriteScalingFactor: number
}

export interface SynchronizerParameters {
  readonly confirmationResponseTimeout: Micros
  readonly mediatorReactionTimeout: Micros
  readonly ledgerTimeRecordTimeTolerance: Micros
  /** How long after submission a request may still be sequenced. */
  readonly maxSequencingTimeOffset: Micros
  readonly traffic: TrafficParameters
}

export const defaultSynchronizerParameters: SynchronizerParameters = {
  confirmationResponseTimeout: micros.seconds(30),
  mediatorReactionTimeout: micros.seconds(30),
  ledgerTimeRecordTimeTolerance: micros.seconds(60),
  maxSequencingTimeOffset: micros.seconds(60),
  traffic: {
    baseRateBurstAmount: 400_000,
    baseRateBurstWindow: micros.minutes(20),
    readVsWriteScalingFactor: 4
  }
}

export interface SynchronizerInfo {
  readonly synchronizerId: SynchronizerId
  readonly name: string
  readonly migrationId: number
  readonly sequencer: Address
  readonly mediator: Address
  readonly mediatorGroup: number
  readonly parameters: SynchronizerParameters
}

export interface ParticipantInfo {
  readonly uid: ParticipantUid
  readonly name: string
  readonly address: Address
  readonly isSuperValidator: boolean
}

export class TopologyState {
  private readonly parties = new Map<PartyId, PartyHosting>()
  private readonly hostedOn = new Map<ParticipantUid, Set<PartyId>>()
  private readonly participantInfo = new Map<ParticipantUid, ParticipantInfo>()
  private readonly synchronizerInfo = new Map<SynchronizerId, SynchronizerInfo>()
  /** participantsOf answers by party list; cleared whenever hosting changes. */
  private readonly participantsCache = new Map<string, ReadonlyArray<ParticipantUid>>()

  addSynchronizer(info: SynchronizerInfo): void {
    invariant(!this.synchronizerInfo.has(info.synchronizerId), () => `synchronizer ${info.synchronizerId} added twice`)
    this.synchronizerInfo.set(info.synchronizerId, info)
  }

  addParticipant(info: ParticipantInfo): void {
    invariant(!this.participantInfo.has(info.uid), () => `participant ${info.uid} added twice`)
    this.participantInfo.set(info.uid, info)
    this.hostedOn.set(info.uid, new Set())
  }

  /** Adds or replaces a party's hosting. */
  setHosting(hosting: PartyHosting): void {
    invariant(hosting.participants.length > 0, () => `party ${hosting.party} must be hosted somewhere`)
    const confirming = hosting.participants.filter((p) => p.permission !== "Observation").length
    invariant(
      hosting.threshold >= 1 && hosting.threshold <= Math.max(1, confirming),
      () => `threshold ${hosting.threshold} of ${hosting.party} must be between 1 and ${confirming}`
    )
    const previous = this.parties.get(hosting.party)
    if (previous !== undefined) {
      for (const p of previous.participants) this.hostedOn.get(p.participantUid)?.delete(hosting.party)
    }
    this.parties.set(hosting.party, hosting)
    this.participantsCache.clear()
    for (const p of hosting.participants) {
      const set = this.hostedOn.get(p.participantUid)
      invariant(set !== undefined, () => `party ${hosting.party} hosted on unknown participant ${p.participantUid}`)
      set.add(hosting.party)
    }
  }

  hosting(party: PartyId): PartyHosting | undefined {
    return this.parties.get(party)
  }

  isKnownParty(party: PartyId): boolean {
    return this.parties.has(party)
  }

  /** Parties hosted on a participant, in the order they were allocated. */
  partiesOn(participant: ParticipantUid): ReadonlySet<PartyId> {
    return this.hostedOn.get(participant) ?? new Set()
  }

  hosts(participant: ParticipantUid, party: PartyId): boolean {
    return this.hostedOn.get(participant)?.has(party) ?? false
  }

  permissionOf(participant: ParticipantUid, party: PartyId): ParticipantPermission | undefined {
    return this.parties.get(party)?.participants.find((p) => p.participantUid === participant)?.permission
  }

  /** Participants that confirm for the party (submission or confirmation permission). */
  confirmingParticipants(party: PartyId): ReadonlyArray<ParticipantUid> {
    return (this.parties.get(party)?.participants ?? [])
      .filter((p) => p.permission !== "Observation")
      .map((p) => p.participantUid)
  }

  /** Every participant hosting any of the parties, sorted. */
  participantsOf(parties: ReadonlyArray<PartyId>): ReadonlyArray<ParticipantUid> {
    const key = parties.length === 1 ? parties[0]! : parties.join(",")
    const cached = this.participantsCache.get(key)
    if (cached !== undefined) return cached
    const result = new Set<ParticipantUid>()
    for (const party of parties) {
      for (const p of this.parties.get(party)?.participants ?? []) result.add(p.participantUid)
    }
    const sorted = sortInPlace([...result])
    if (this.participantsCache.size > 100_000) this.participantsCache.clear()
    this.participantsCache.set(key, sorted)
    return sorted
  }

  participant(uid: ParticipantUid): ParticipantInfo | undefined {
    return this.participantInfo.get(uid)
  }

  participants(): ReadonlyArray<ParticipantInfo> {
    return [...this.participantInfo.values()]
  }

  superValidatorParticipants(): ReadonlyArray<ParticipantInfo> {
    return [...this.participantInfo.values()].filter((p) => p.isSuperValidator)
  }

  synchronizer(id: SynchronizerId): SynchronizerInfo | undefined {
    return this.synchronizerInfo.get(id)
  }

  synchronizers(): ReadonlyArray<SynchronizerInfo> {
    return [...this.synchronizerInfo.values()]
  }

  allParties(): ReadonlyArray<PartyHosting> {
    return [...this.parties.values()]
  }

  /** The hostings as data (an engine checkpoint's part): every party's, and each participant's parties in their order. */
  image(): TopologyImage {
    return { parties: [...this.parties.values()], hostedOn: [...this.hostedOn].map(([uid, parties]) => [uid, [...parties]] as const) }
  }

  /** Replaces the hostings with an image's (the participants and synchronizers are the configuration's, and stay). */
  restore(image: TopologyImage): void {
    this.parties.clear()
    this.participantsCache.clear()
    for (const hosting of image.parties) this.parties.set(hosting.party, hosting)
    for (const uid of this.hostedOn.keys()) this.hostedOn.set(uid, new Set())
    for (const [uid, parties] of image.hostedOn) {
      invariant(this.participantInfo.has(uid), () => `a topology image hosts parties on unknown participant ${uid}`)
      this.hostedOn.set(uid, new Set(parties))
    }
  }
}

export interface TopologyImage {
  readonly parties: ReadonlyArray<PartyHosting>
  readonly hostedOn: ReadonlyArray<readonly [ParticipantUid, ReadonlyArray<PartyId>]>
}

export class Topology extends Context.Tag("@sandnet/engine/Topology")<Topology, TopologyState>() {}
