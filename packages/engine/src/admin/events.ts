/**
 * The journal of user management: every change of users, rights and identity provider
 * configurations is one of these events, a plain JSON object with a `_tag`. `apply` (state.ts)
 * folds them; storage persists them in order and replays them at start.
 *
 * `at` is the node's time of the change in microseconds since the epoch (provenance only: the
 * fold never reads it, so replay does not depend on the clock).
 */
import { Schema } from "effect"
import { IdentityProviderConfig, PartyRecord, Right, User } from "./model.ts"

const at = Schema.Number

export const IdentityProviderConfigCreated = Schema.TaggedStruct("IdentityProviderConfigCreated", {
  at,
  config: IdentityProviderConfig
})
/** The whole new configuration (not a diff), so that replay needs no update-mask logic. */
export const IdentityProviderConfigUpdated = Schema.TaggedStruct("IdentityProviderConfigUpdated", {
  at,
  config: IdentityProviderConfig
})
export const IdentityProviderConfigDeleted = Schema.TaggedStruct("IdentityProviderConfigDeleted", {
  at,
  identityProviderId: Schema.String
})
export const UserCreated = Schema.TaggedStruct("UserCreated", {
  at,
  user: User,
  rights: Schema.Array(Right)
})
/** The whole new user record (rights excluded), resourceVersion already bumped. */
export const UserUpdated = Schema.TaggedStruct("UserUpdated", { at, user: User })
export const UserDeleted = Schema.TaggedStruct("UserDeleted", { at, userId: Schema.String })
/** Only the rights the user did not have yet. */
export const UserRightsGranted = Schema.TaggedStruct("UserRightsGranted", {
  at,
  userId: Schema.String,
  rights: Schema.Array(Right)
})
/** Only the rights the user had. */
export const UserRightsRevoked = Schema.TaggedStruct("UserRightsRevoked", {
  at,
  userId: Schema.String,
  rights: Schema.Array(Right)
})
export const UserIdentityProviderChanged = Schema.TaggedStruct("UserIdentityProviderChanged", {
  at,
  userId: Schema.String,
  identityProviderId: Schema.String
})

/** The whole new party record, resourceVersion already bumped (PATCH /v2/parties/{party}). */
export const PartyRecordUpdated = Schema.TaggedStruct("PartyRecordUpdated", { at, record: PartyRecord })
/** Every party record dropped (a reset of the network: its parties are gone). */
export const PartyRecordsCleared = Schema.TaggedStruct("PartyRecordsCleared", { at })

export const AdminEvent = Schema.Union(
  IdentityProviderConfigCreated,
  IdentityProviderConfigUpdated,
  IdentityProviderConfigDeleted,
  UserCreated,
  UserUpdated,
  UserDeleted,
  UserRightsGranted,
  UserRightsRevoked,
  UserIdentityProviderChanged,
  PartyRecordUpdated,
  PartyRecordsCleared
)
export type AdminEvent = typeof AdminEvent.Type

/** Events as stored: `Schema.encodeSync(AdminEventJson)(event)` is plain JSON, `decode` restores it. */
export const AdminEventJson = Schema.parseJson(AdminEvent)
