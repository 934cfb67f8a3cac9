/**
 * Failures of user management and identity provider administration. Each maps one to one onto an
 * error code of the real ledger API (named in the doc comment); invalid input is the shared
 * `InvalidArgument` of @sandnet/core, whose `field` is the JSON path inside the request.
 */
import { InvalidArgument } from "@sandnet/core"
import { Schema } from "effect"

/** USER_NOT_FOUND (InvalidGivenCurrentSystemStateResourceMissing). */
export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", {
  operation: Schema.String,
  userId: Schema.String
}) {
  override get message() {
    return `${this.operation} failed for unknown user "${this.userId}"`
  }
}

/** USER_ALREADY_EXISTS (InvalidGivenCurrentSystemStateResourceExists). */
export class UserAlreadyExists extends Schema.TaggedError<UserAlreadyExists>()("UserAlreadyExists", {
  operation: Schema.String,
  userId: Schema.String
}) {
  override get message() {
    return `${this.operation} failed, as user "${this.userId}" already exists`
  }
}

/** TOO_MANY_USER_RIGHTS (InvalidGivenCurrentSystemStateOther). */
export class TooManyUserRights extends Schema.TaggedError<TooManyUserRights>()("TooManyUserRights", {
  operation: Schema.String,
  userId: Schema.String,
  max: Schema.Number
}) {
  override get message() {
    return `${this.operation} failed, as user "${this.userId}" would have too many rights (at most ${this.max})`
  }
}

/** CONCURRENT_USER_UPDATE_DETECTED (ContentionOnSharedResources): a stale resourceVersion. */
export class ConcurrentUserUpdate extends Schema.TaggedError<ConcurrentUserUpdate>()("ConcurrentUserUpdate", {
  userId: Schema.String
}) {
  override get message() {
    return `Update operation for user '${this.userId}' failed due a concurrent update to the same user`
  }
}

/** MAX_USER_ANNOTATIONS_SIZE_EXCEEDED (InvalidGivenCurrentSystemStateOther). */
export class UserAnnotationsTooLarge extends Schema.TaggedError<UserAnnotationsTooLarge>()("UserAnnotationsTooLarge", {
  userId: Schema.String,
  maxBytes: Schema.Number
}) {
  override get message() {
    return `Annotations size for user '${this.userId}' has been exceeded (at most ${this.maxBytes} bytes)`
  }
}

/** IDP_CONFIG_NOT_FOUND (InvalidGivenCurrentSystemStateResourceMissing). */
export class IdentityProviderConfigNotFound extends Schema.TaggedError<IdentityProviderConfigNotFound>()(
  "IdentityProviderConfigNotFound",
  { operation: Schema.String, identityProviderId: Schema.String }
) {
  override get message() {
    return `${this.operation} failed for unknown identity provider id="${this.identityProviderId}"`
  }
}

/** IDP_CONFIG_ALREADY_EXISTS (InvalidGivenCurrentSystemStateResourceExists). */
export class IdentityProviderConfigAlreadyExists extends Schema.TaggedError<IdentityProviderConfigAlreadyExists>()(
  "IdentityProviderConfigAlreadyExists",
  { operation: Schema.String, identityProviderId: Schema.String }
) {
  override get message() {
    return `${this.operation} failed, as identity provider "${this.identityProviderId}" already exists`
  }
}

/** IDP_CONFIG_ISSUER_ALREADY_EXISTS (InvalidGivenCurrentSystemStateResourceExists). */
export class IdentityProviderIssuerAlreadyExists extends Schema.TaggedError<IdentityProviderIssuerAlreadyExists>()(
  "IdentityProviderIssuerAlreadyExists",
  { operation: Schema.String, issuer: Schema.String }
) {
  override get message() {
    return `${this.operation} failed, as identity provider with issuer "${this.issuer}" already exists`
  }
}

/** TOO_MANY_IDENTITY_PROVIDER_CONFIGS (InvalidGivenCurrentSystemStateOther). */
export class TooManyIdentityProviderConfigs extends Schema.TaggedError<TooManyIdentityProviderConfigs>()(
  "TooManyIdentityProviderConfigs",
  { operation: Schema.String, max: Schema.Number }
) {
  override get message() {
    return `${this.operation} failed: at most ${this.max} identity provider configurations are allowed`
  }
}

/** PARTY_NOT_FOUND (InvalidGivenCurrentSystemStateResourceMissing): no such party in the topology. */
export class PartyRecordPartyNotFound extends Schema.TaggedError<PartyRecordPartyNotFound>()("PartyRecordPartyNotFound", {
  operation: Schema.String,
  party: Schema.String
}) {
  override get message() {
    return `Party not found: ${this.operation} failed for unknown party "${this.party}"`
  }
}

/** INVALID_UPDATE_PARTY_DETAILS_REQUEST (InvalidIndependentOfSystemState): a bad mask or a non-modifiable field changed. */
export class InvalidPartyDetailsUpdate extends Schema.TaggedError<InvalidPartyDetailsUpdate>()("InvalidPartyDetailsUpdate", {
  party: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Update operation for party '${this.party}' failed due to: ${this.reason}`
  }
}

/** CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED (ContentionOnSharedResources): a stale resourceVersion. */
export class ConcurrentPartyDetailsUpdate extends Schema.TaggedError<ConcurrentPartyDetailsUpdate>()("ConcurrentPartyDetailsUpdate", {
  party: Schema.String
}) {
  override get message() {
    return `Update operation for party '${this.party}' failed due to a concurrent update to the same party`
  }
}

/** MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED (InvalidGivenCurrentSystemStateOther). */
export class PartyAnnotationsTooLarge extends Schema.TaggedError<PartyAnnotationsTooLarge>()("PartyAnnotationsTooLarge", {
  party: Schema.String,
  maxBytes: Schema.Number
}) {
  override get message() {
    return `Annotations size for party '${this.party}' has been exceeded (at most ${this.maxBytes} bytes)`
  }
}

/** PERMISSION_DENIED: the party's record belongs to another identity provider than the request names. */
export class PartyInOtherIdentityProvider extends Schema.TaggedError<PartyInOtherIdentityProvider>()("PartyInOtherIdentityProvider", {
  party: Schema.String
}) {
  override get message() {
    return `Party ${this.party} belongs to an identity provider that differs from the one specified in the request`
  }
}

export type PartyRecordError =
  | InvalidArgument
  | IdentityProviderConfigNotFound
  | PartyRecordPartyNotFound
  | InvalidPartyDetailsUpdate
  | ConcurrentPartyDetailsUpdate
  | PartyAnnotationsTooLarge
  | PartyInOtherIdentityProvider

export type AdminError =
  | InvalidArgument
  | UserNotFound
  | UserAlreadyExists
  | TooManyUserRights
  | ConcurrentUserUpdate
  | UserAnnotationsTooLarge
  | IdentityProviderConfigNotFound
  | IdentityProviderConfigAlreadyExists
  | IdentityProviderIssuerAlreadyExists
  | TooManyIdentityProviderConfigs
  | PartyRecordPartyNotFound
  | InvalidPartyDetailsUpdate
  | ConcurrentPartyDetailsUpdate
  | PartyAnnotationsTooLarge
  | PartyInOtherIdentityProvider
