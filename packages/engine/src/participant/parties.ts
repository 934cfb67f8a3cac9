/**
 * Parties hosted by a participant: allocating a local party, hosting a party with an explicit
 * hosting (external and multi-hosted parties), both journaled, and the topology update each
 * commits at the node's next offset.
 */
import { Either } from "effect"
import { invariant, partyId as makePartyId, updateIdOf, type CommittedUpdate, type Micros, type PartyId, type SynchronizerId, type TopologyUpdate } from "@sandnet/core"
import { PartyAlreadyExists } from "../errors.ts"
import * as External from "../external/index.ts"
import type { PartyHosting } from "../topology.ts"
import type { ParticipantEvent } from "./model.ts"
import type { ParticipantState } from "./state.ts"

/**
 * Allocates a local party (submission permission) and commits the topology update that records
 * it, at the next offset, with `now` as its record time.
 */
export const allocateParty = (node: ParticipantState, hint: string, now: Micros, synchronizerId?: SynchronizerId): Either.Either<PartyId, PartyAlreadyExists> => {
  const party = reserveParty(node, hint)
  if (Either.isLeft(party)) return party
  authorizationAdded(node, party.right, now, synchronizerId)
  return party
}

/**
 * Allocates a local party without its topology update. Only for the network's genesis, whose
 * topology updates `submitGenesis` commits (journaled; a restarted node rebuilds the network
 * without genesis and replays them).
 */
export const reserveParty = (node: ParticipantState, hint: string): Either.Either<PartyId, PartyAlreadyExists> => {
  const party = makePartyId(hint, node.config.namespace)
  if (node.topology.isKnownParty(party)) return Either.left(new PartyAlreadyExists({ party }))
  node.apply({ _tag: "PartyAllocated", party })
  return Either.right(party)
}

/**
 * Hosts a party with an explicit hosting (an external party whose topology transactions were
 * verified, or a party hosted on several participants), journaled like every allocation. When
 * this participant is one of the hosting participants, commits its topology update.
 */
export const hostParty = (
  node: ParticipantState,
  hosting: PartyHosting,
  now: Micros,
  signingKeys?: External.SigningKeysWithThreshold,
  synchronizerId?: SynchronizerId
): Either.Either<PartyId, PartyAlreadyExists> => {
  if (node.topology.isKnownParty(hosting.party)) return Either.left(new PartyAlreadyExists({ party: hosting.party }))
  recordHosting(node, hosting, now, signingKeys, synchronizerId)
  return Either.right(hosting.party)
}

/**
 * Records a party's hosting (and an external party's signing keys) in this participant's journal
 * whether or not the shared topology knows the party already (the other participants of a network
 * record the same hosting); commits the topology update when this participant hosts the party.
 */
export const recordHosting = (
  node: ParticipantState,
  hosting: PartyHosting,
  now: Micros,
  signingKeys?: External.SigningKeysWithThreshold,
  synchronizerId?: SynchronizerId
): void => {
  node.apply({ _tag: "PartyHosted", hosting, signingKeys: signingKeys === undefined ? undefined : External.signingKeysToJson(signingKeys) })
  if (node.hosts(hosting.party)) authorizationAdded(node, hosting.party, now, synchronizerId)
}

/**
 * Commits a topology update at the next offset: this participant started hosting `party` (with
 * the permission the topology gives it), effective at `now` on `synchronizerId` (the default
 * synchronizer when not given). The update id is a hash of the change (synchronizer, party,
 * record time): every participant hosting the party from the same change gets the same id.
 */
export const authorizationAdded = (
  node: ParticipantState,
  party: PartyId,
  now: Micros,
  synchronizerId: SynchronizerId = node.config.defaultSynchronizer
): CommittedUpdate => {
  const permission = node.topology.permissionOf(node.uid, party)
  invariant(permission !== undefined, () => `participant ${node.uid} does not host ${party}`)
  invariant(node.topology.synchronizer(synchronizerId) !== undefined, () => `unknown synchronizer ${synchronizerId}`)
  const update: TopologyUpdate = {
    kind: "topology",
    updateId: updateIdOf("topology", synchronizerId, party, String(now)),
    synchronizerId,
    recordTime: now,
    events: [{ kind: "authorizationAdded", partyId: party, participantId: node.uid, permission }]
  }
  const entry: CommittedUpdate = { offset: node.ledgerEnd + 1, update }
  node.apply({ _tag: "UpdateCommitted", entry })
  return entry
}

/** Folds `PartyAllocated` and `PartyHosted` into the topology (a party known already stays as it is). */
export const applyHosting = (node: ParticipantState, event: Extract<ParticipantEvent, { _tag: "PartyAllocated" | "PartyHosted" }>): void => {
  if (event._tag === "PartyAllocated") {
    if (!node.topology.isKnownParty(event.party)) {
      node.topology.setHosting({
        party: event.party,
        participants: [{ participantUid: node.uid, permission: "Submission" }],
        threshold: 1,
        external: false
      })
    }
    return
  }
  if (!node.topology.isKnownParty(event.hosting.party)) node.topology.setHosting(event.hosting)
  if (event.signingKeys !== undefined) {
    const keys = External.signingKeysFromJson(event.signingKeys)
    invariant(Either.isRight(keys), () => `the signing keys of ${event.hosting.party} do not decode: ${Either.isLeft(keys) ? keys.left : ""}`)
    node.signingKeys.set(event.hosting.party, keys.right)
  }
}
