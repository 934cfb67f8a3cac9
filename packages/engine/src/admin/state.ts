/**
 * The state of user management and its fold. `apply` is total on the events that `decide.ts`
 * produces; an event that does not fit the state (creating what exists, changing what does not) is
 * a defect in Sandnet, so it breaks an invariant instead of being ignored.
 *
 * Maps keep insertion order, which in a deterministic run is the order of the journal; everything
 * that reaches output is sorted by id (see the queries below), so output never depends on it.
 */
import { invariant, unreachable } from "@sandnet/core"
import type { AdminEvent } from "./events.ts"
import {
  normalizeRights,
  rightKey,
  sortAnnotations,
  type IdentityProviderConfig,
  type PartyRecord,
  type User,
  type UserRecord
} from "./model.ts"

export interface AdminState {
  readonly identityProviders: ReadonlyMap<string, IdentityProviderConfig>
  readonly users: ReadonlyMap<string, UserRecord>
  /** Participant-local party details by party id (only parties whose details were updated). */
  readonly partyRecords: ReadonlyMap<string, PartyRecord>
  /** Number of events applied: the journal position this state corresponds to. */
  readonly version: number
}

export const emptyAdminState: AdminState = { identityProviders: new Map(), users: new Map(), partyRecords: new Map(), version: 0 }

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

const normalizeUser = (user: User): User => ({
  ...user,
  metadata: { ...user.metadata, annotations: sortAnnotations(user.metadata.annotations) }
})

const withIdp = (state: AdminState, config: IdentityProviderConfig): AdminState => {
  const identityProviders = new Map(state.identityProviders)
  identityProviders.set(config.identityProviderId, config)
  return { ...state, identityProviders }
}

const withUser = (state: AdminState, record: UserRecord): AdminState => {
  const users = new Map(state.users)
  users.set(record.user.id, record)
  return { ...state, users }
}

const existingUser = (state: AdminState, userId: string, event: string): UserRecord => {
  const record = state.users.get(userId)
  invariant(record !== undefined, () => `${event} for unknown user ${userId}`)
  return record
}

/** Folds one event into the state. */
export const apply = (state: AdminState, event: AdminEvent): AdminState => {
  const next = applyEvent(state, event)
  return { ...next, version: state.version + 1 }
}

const applyEvent = (state: AdminState, event: AdminEvent): AdminState => {
  switch (event._tag) {
    case "IdentityProviderConfigCreated":
    case "IdentityProviderConfigUpdated":
    case "IdentityProviderConfigDeleted":
      return applyIdpEvent(state, event)
    case "UserCreated":
    case "UserUpdated":
    case "UserDeleted":
    case "UserRightsGranted":
    case "UserRightsRevoked":
    case "UserIdentityProviderChanged":
      return applyUserEvent(state, event)
    case "PartyRecordUpdated":
    case "PartyRecordsCleared":
      return applyPartyEvent(state, event)
    default:
      return unreachable(event, "admin event")
  }
}

type EventOf<T extends AdminEvent["_tag"]> = Extract<AdminEvent, { readonly _tag: T }>

const applyIdpEvent = (
  state: AdminState,
  event: EventOf<"IdentityProviderConfigCreated" | "IdentityProviderConfigUpdated" | "IdentityProviderConfigDeleted">
): AdminState => {
  switch (event._tag) {
    case "IdentityProviderConfigCreated": {
      const id = event.config.identityProviderId
      invariant(!state.identityProviders.has(id), () => `identity provider ${id} created twice`)
      return withIdp(state, event.config)
    }
    case "IdentityProviderConfigUpdated": {
      const id = event.config.identityProviderId
      invariant(state.identityProviders.has(id), () => `update of unknown identity provider ${id}`)
      return withIdp(state, event.config)
    }
    case "IdentityProviderConfigDeleted": {
      invariant(
        state.identityProviders.has(event.identityProviderId),
        () => `delete of unknown identity provider ${event.identityProviderId}`
      )
      const identityProviders = new Map(state.identityProviders)
      identityProviders.delete(event.identityProviderId)
      return { ...state, identityProviders }
    }
  }
}

const applyUserEvent = (
  state: AdminState,
  event: EventOf<"UserCreated" | "UserUpdated" | "UserDeleted" | "UserRightsGranted" | "UserRightsRevoked" | "UserIdentityProviderChanged">
): AdminState => {
  switch (event._tag) {
    case "UserCreated": {
      invariant(!state.users.has(event.user.id), () => `user ${event.user.id} created twice`)
      return withUser(state, { user: normalizeUser(event.user), rights: normalizeRights(event.rights) })
    }
    case "UserUpdated": {
      const record = existingUser(state, event.user.id, "UserUpdated")
      invariant(
        Number(event.user.metadata.resourceVersion) > Number(record.user.metadata.resourceVersion),
        () => `user ${event.user.id}: resourceVersion must increase`
      )
      return withUser(state, { ...record, user: normalizeUser(event.user) })
    }
    case "UserDeleted": {
      existingUser(state, event.userId, "UserDeleted")
      const users = new Map(state.users)
      users.delete(event.userId)
      return { ...state, users }
    }
    case "UserRightsGranted": {
      const record = existingUser(state, event.userId, "UserRightsGranted")
      return withUser(state, { ...record, rights: normalizeRights([...record.rights, ...event.rights]) })
    }
    case "UserRightsRevoked": {
      const record = existingUser(state, event.userId, "UserRightsRevoked")
      const revoked = new Set(event.rights.map(rightKey))
      return withUser(state, { ...record, rights: record.rights.filter((right) => !revoked.has(rightKey(right))) })
    }
    case "UserIdentityProviderChanged": {
      const record = existingUser(state, event.userId, "UserIdentityProviderChanged")
      return withUser(state, { ...record, user: { ...record.user, identityProviderId: event.identityProviderId } })
    }
  }
}

const applyPartyEvent = (state: AdminState, event: EventOf<"PartyRecordUpdated" | "PartyRecordsCleared">): AdminState => {
  if (event._tag === "PartyRecordsCleared") return { ...state, partyRecords: new Map() }
  const previous = state.partyRecords.get(event.record.party)
  invariant(
    Number(event.record.metadata.resourceVersion) > Number(previous?.metadata.resourceVersion ?? "0"),
    () => `party ${event.record.party}: resourceVersion must increase`
  )
  const partyRecords = new Map(state.partyRecords)
  partyRecords.set(event.record.party, {
    ...event.record,
    metadata: { ...event.record.metadata, annotations: sortAnnotations(event.record.metadata.annotations) }
  })
  return { ...state, partyRecords }
}

/** Folds a journal, in order. */
export const replay = (events: Iterable<AdminEvent>, from: AdminState = emptyAdminState): AdminState => {
  let state = from
  for (const event of events) state = apply(state, event)
  return state
}

// ---------------------------------------------------------------------------------------------
// Queries (pure, sorted output)
// ---------------------------------------------------------------------------------------------

export const identityProvidersOf = (state: AdminState): ReadonlyArray<IdentityProviderConfig> =>
  [...state.identityProviders.values()].sort((a, b) => byId(a.identityProviderId, b.identityProviderId))

/** The configuration whose issuer is exactly `issuer` (issuers are unique). */
export const identityProviderByIssuer = (state: AdminState, issuer: string): IdentityProviderConfig | undefined => {
  for (const config of state.identityProviders.values()) {
    if (config.issuer === issuer) return config
  }
  return undefined
}

export const userIdsOf = (state: AdminState): ReadonlyArray<string> => [...state.users.keys()].sort(byId)
