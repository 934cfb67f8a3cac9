/** Parties: the parties the topology knows, the participant id, and hosting external parties (with their signing keys). */
import { Either, Schema } from "effect"
import { partyId as makePartyId, uidWithoutPrefix, type Micros, type PartyId, type SynchronizerId } from "@sandnet/core"
import { PartyAlreadyExists } from "../errors.ts"
import type * as External from "../external/index.ts"
import type { ParticipantLogic, ParticipantNode } from "../participant/index.ts"
import type { ParticipantPermission, PartyHosting, TopologyState } from "../topology.ts"
import { ledgerParticipant, type LedgerNetwork } from "./state.ts"

export interface PartyInfo {
  readonly party: PartyId
  /** Hosted on this participant. */
  readonly isLocal: boolean
  readonly external: boolean
}

/** The parties the topology knows, sorted, with whether this participant hosts them. */
export const knownParties = (logic: ParticipantLogic): ReadonlyArray<PartyInfo> =>
  logic.topology
    .allParties()
    .map((h) => ({ party: h.party, isLocal: logic.hosts(h.party), external: h.external }))
    .sort((a, b) => (a.party < b.party ? -1 : a.party > b.party ? 1 : 0))

/** The participant id as the ledger API prints it (`<name>::<namespace>`, no member prefix). */
export const participantIdOf = (logic: ParticipantLogic): string => uidWithoutPrefix(logic.uid)

export class UnknownHostingParticipant extends Schema.TaggedError<UnknownHostingParticipant>()("UnknownHostingParticipant", {
  participantUid: Schema.String
}) {
  override get message(): string {
    return `participant ${this.participantUid} is not a participant of this network`
  }
}

/**
 * Hosts a verified external party: every participant of the network journals its hosting
 * (participants with `PAR::` uids, permissions, threshold) and signing keys (PartyHosted), in the
 * network's participant order, and each hosting participant commits its topology update
 * (ParticipantAuthorizationAdded, with its own permission). Runs inside the engine's lock.
 */
export const hostExternalParty = (
  network: LedgerNetwork,
  topology: TopologyState,
  party: External.VerifiedExternalParty,
  /** When the hosting becomes effective (the record time of the participants' topology updates). */
  now: Micros,
  /** The synchronizer the party was allocated on (the participants' default when not given). */
  synchronizerId?: SynchronizerId
): Either.Either<PartyId, PartyAlreadyExists | UnknownHostingParticipant> => {
  const participants: Array<{ participantUid: string; permission: ParticipantPermission }> = []
  for (const p of party.hosting.participants) {
    const uid = p.participantUid.startsWith("PAR::") ? p.participantUid : `PAR::${p.participantUid}`
    if (topology.participant(uid) === undefined) return Either.left(new UnknownHostingParticipant({ participantUid: p.participantUid }))
    participants.push({ participantUid: uid, permission: p.permission })
  }
  const hosting = { party: party.partyId, participants, threshold: party.hosting.threshold, external: true }
  const existing = topology.hosting(party.partyId)
  // The same signed onboarding of a party hosted on several participants, submitted again (on another of
  // them), is that participant's approval of the mapping (how the Wallet SDK hosts a party on several
  // participants); here the mapping took effect at once, so it is answered as done.
  if (existing !== undefined) {
    return participants.length > 1 && sameHosting(existing, hosting) ? Either.right(party.partyId) : Either.left(new PartyAlreadyExists({ party: party.partyId }))
  }
  for (const node of network.participants) node.logic.recordHosting(hosting, now, party.signingKeys, synchronizerId)
  return Either.right(party.partyId)
}

const sameHosting = (a: PartyHosting, b: PartyHosting): boolean =>
  a.external === b.external &&
  a.threshold === b.threshold &&
  a.participants.length === b.participants.length &&
  a.participants.every((p) => b.participants.some((q) => q.participantUid === p.participantUid && q.permission === p.permission))

/** The registered signing keys of an external party, when it was allocated through the ledger API. */
export const externalPartyKeys = (network: LedgerNetwork, party: PartyId): External.SigningKeysWithThreshold | undefined =>
  ledgerParticipant(network).signingKeysOf(party)

// ---------------------------------------------------------------------------------------------
// Over the participant handle (what the HTTP layer asks: it never reads the participant's logic)
// ---------------------------------------------------------------------------------------------

/** The participant's topology uid (with its member prefix), as topology transactions name it. */
export const participantUid = (participant: ParticipantNode): ParticipantNode["logic"]["uid"] => participant.logic.uid

/** The participant's id as the ledger API prints it. */
export const participantId = (participant: ParticipantNode): string => participantIdOf(participant.logic)

/** The parties among `wanted` that the participant knows (hosted here or elsewhere), by party id. */
export const knownPartiesAmong = (participant: ParticipantNode, wanted: ReadonlySet<string>): ReadonlyArray<PartyInfo> =>
  knownParties(participant.logic).filter((p) => wanted.has(p.party))

/** A party the participant knows (hosted here or elsewhere); undefined when it knows none by that id. */
export const knownParty = (participant: ParticipantNode, party: string): PartyInfo | undefined => knownParties(participant.logic).find((p) => p.party === party)

/** One page of the known parties whose id contains `filter`, after the party `after` (exclusive); `next` when more follow. */
export const knownPartiesPage = (
  participant: ParticipantNode,
  query: { readonly filter: string; readonly after: string; readonly pageSize: number }
): { readonly parties: ReadonlyArray<PartyInfo>; readonly next: PartyId | undefined } => {
  const matching = knownParties(participant.logic).filter((p) => p.party.includes(query.filter) && (query.after === "" || p.party > query.after))
  const parties = matching.slice(0, query.pageSize)
  return { parties, next: matching.length > query.pageSize ? parties[parties.length - 1]!.party : undefined }
}

/**
 * Allocates a party on the participant. Without a hint the party is named `party-<n>`, n the
 * first number after the count of hosted parties whose id is not taken in the namespace.
 */
export const allocateLedgerParty = (
  participant: ParticipantNode,
  hint: string,
  now: Micros,
  synchronizerId: SynchronizerId | undefined
): Either.Either<PartyId, PartyAlreadyExists> => {
  const logic = participant.logic
  let chosen = hint
  if (chosen === "") {
    let n = logic.hostedParties().size + 1
    while (logic.topology.isKnownParty(makePartyId(`party-${n}`, logic.config.namespace))) n++
    chosen = `party-${n}`
  }
  return logic.allocateParty(chosen, now, synchronizerId)
}

/** A synchronizer the participant is connected to, with the permission it holds there. */
export interface ConnectedSynchronizer {
  readonly synchronizerAlias: string
  readonly synchronizerId: string
  readonly permission: ParticipantPermission
}

/**
 * The synchronizers the participant is connected to (all of the topology's), with its permission
 * for `party` (Submission when no party is asked about); none when it does not host the party.
 */
export const connectedSynchronizers = (participant: ParticipantNode, party: PartyId | undefined): ReadonlyArray<ConnectedSynchronizer> => {
  const logic = participant.logic
  const permission = party === undefined ? "Submission" : logic.topology.permissionOf(logic.uid, party)
  if (permission === undefined) return []
  return logic.topology.synchronizers().map((s) => ({ synchronizerAlias: s.name, synchronizerId: s.synchronizerId, permission }))
}
