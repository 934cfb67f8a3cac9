/**
 * Ledger user management and identity provider configurations: the data model and its validation
 * rules, as the ledger API reference describes them (canton-json-api-v2 `User`, `Right`,
 * `IdentityProviderConfig`, `ObjectMeta`). Pure: no I/O, no clock, no randomness.
 *
 * Conventions (the same as the real ledger API):
 * - the default identity provider has the id "" (empty string);
 * - a user without a primary party has primaryParty "";
 * - `metadata.resourceVersion` is an opaque counter printed as a decimal string; it changes on every
 *   update of the user record (not on rights changes).
 */
import { Schema } from "effect"

/** Id of the default identity provider (tokens signed by the node's own key). */
export const DEFAULT_IDENTITY_PROVIDER_ID = ""

/** The user that exists on every node and holds ParticipantAdmin (Canton's default name). */
export const PARTICIPANT_ADMIN_USER_ID = "participant_admin"

/** Limits and defaults. The values are the real system's defaults (see docs/auth.md for sources). */
export interface AdminLimits {
  /** Canton `IdentityProviderManagementConfig.MaxIdentityProviders`. */
  readonly maxIdentityProviderConfigs: number
  /** Canton `UserManagementServiceConfig.DefaultMaxRightsPerUser`. */
  readonly maxRightsPerUser: number
  /** Canton `UserManagementServiceConfig.DefaultMaxUsersPageSize`; also the page size when none is asked. */
  readonly maxUsersPageSize: number
  /** Total size over all annotation keys and values of one user, in UTF-8 bytes (256 KiB). */
  readonly maxAnnotationsBytes: number
}

export const DEFAULT_ADMIN_LIMITS: AdminLimits = {
  maxIdentityProviderConfigs: 16,
  maxRightsPerUser: 1000,
  maxUsersPageSize: 1000,
  maxAnnotationsBytes: 256 * 1024
}

// ---------------------------------------------------------------------------------------------
// Rights
// ---------------------------------------------------------------------------------------------

export const CanActAs = Schema.TaggedStruct("CanActAs", { party: Schema.String })
export const CanReadAs = Schema.TaggedStruct("CanReadAs", { party: Schema.String })
export const CanExecuteAs = Schema.TaggedStruct("CanExecuteAs", { party: Schema.String })
export const ParticipantAdmin = Schema.TaggedStruct("ParticipantAdmin", {})
export const IdentityProviderAdmin = Schema.TaggedStruct("IdentityProviderAdmin", {})
export const CanReadAsAnyParty = Schema.TaggedStruct("CanReadAsAnyParty", {})
export const CanExecuteAsAnyParty = Schema.TaggedStruct("CanExecuteAsAnyParty", {})

/** A right granted to a user. */
export const Right = Schema.Union(
  CanActAs,
  CanReadAs,
  CanExecuteAs,
  ParticipantAdmin,
  IdentityProviderAdmin,
  CanReadAsAnyParty,
  CanExecuteAsAnyParty
)
export type Right = typeof Right.Type

export const Rights = {
  canActAs: (party: string): Right => ({ _tag: "CanActAs", party }),
  canReadAs: (party: string): Right => ({ _tag: "CanReadAs", party }),
  canExecuteAs: (party: string): Right => ({ _tag: "CanExecuteAs", party }),
  participantAdmin: { _tag: "ParticipantAdmin" } as Right,
  identityProviderAdmin: { _tag: "IdentityProviderAdmin" } as Right,
  canReadAsAnyParty: { _tag: "CanReadAsAnyParty" } as Right,
  canExecuteAsAnyParty: { _tag: "CanExecuteAsAnyParty" } as Right
} as const

/** A stable identity of a right, used to deduplicate and to sort. */
export const rightKey = (right: Right): string => ("party" in right ? `${right._tag}:${right.party}` : right._tag)

/** Deduplicated and sorted by key, so that the same set always prints the same way. */
export const normalizeRights = (rights: Iterable<Right>): ReadonlyArray<Right> => {
  const byKey = new Map<string, Right>()
  for (const right of rights) byKey.set(rightKey(right), right)
  return [...byKey.keys()].sort().map((key) => byKey.get(key) as Right)
}

/** Rights that only a participant administrator may grant or revoke (they reach beyond one IDP). */
export const isParticipantWideRight = (right: Right): boolean =>
  right._tag === "ParticipantAdmin" || right._tag === "CanReadAsAnyParty" || right._tag === "CanExecuteAsAnyParty"

// ---------------------------------------------------------------------------------------------
// Users
// ---------------------------------------------------------------------------------------------

export const Annotations = Schema.Record({ key: Schema.String, value: Schema.String })
export type Annotations = typeof Annotations.Type

export const ObjectMeta = Schema.Struct({
  resourceVersion: Schema.String,
  annotations: Annotations
})
export type ObjectMeta = typeof ObjectMeta.Type

export const User = Schema.Struct({
  id: Schema.String,
  /** "" when the user has no primary party. */
  primaryParty: Schema.String,
  isDeactivated: Schema.Boolean,
  /** "" for the default identity provider. */
  identityProviderId: Schema.String,
  metadata: ObjectMeta,
  /** May authenticate by a party JWT signed with the primary party's key (ledger API 3.5). */
  primaryPartyAuthentication: Schema.Boolean
})
export type User = typeof User.Type

/** A user together with its rights: the unit that user management stores. */
export interface UserRecord {
  readonly user: User
  readonly rights: ReadonlyArray<Right>
}

// ---------------------------------------------------------------------------------------------
// Identity provider configurations
// ---------------------------------------------------------------------------------------------

export const IdentityProviderConfig = Schema.Struct({
  identityProviderId: Schema.String,
  isDeactivated: Schema.Boolean,
  issuer: Schema.String,
  jwksUrl: Schema.String,
  /** When set, tokens of this provider must list it in their `aud` claim. */
  audience: Schema.optional(Schema.String)
})
export type IdentityProviderConfig = typeof IdentityProviderConfig.Type

// ---------------------------------------------------------------------------------------------
// Validation rules (each returns an error message, or undefined when the value is valid)
// ---------------------------------------------------------------------------------------------

/** Daml-LF LedgerString: 1..255 ASCII letters, digits and `._:-#/ `. */
const LEDGER_STRING = /^[a-zA-Z0-9._:\-#/ ]{1,255}$/
/** Participant user id: 1..128 ASCII letters, digits and the symbols the reference lists. */
const USER_ID = /^[a-zA-Z0-9@^$.!`\-#+'~_|:()]{1,128}$/
/** Daml-LF Party: 1..255 ASCII letters, digits and `:-_ `. */
const PARTY = /^[a-zA-Z0-9:\-_ ]{1,255}$/

export const isLedgerString = (text: string): boolean => LEDGER_STRING.test(text)
export const isUserId = (text: string): boolean => USER_ID.test(text)
export const isPartyString = (text: string): boolean => PARTY.test(text)

export const checkLedgerString = (text: string): string | undefined =>
  isLedgerString(text)
    ? undefined
    : text.length === 0
      ? "must not be empty"
      : "must be a LedgerString: 1 to 255 ASCII letters, digits or any of ._:-#/ and space"

export const checkUserId = (text: string): string | undefined =>
  isUserId(text)
    ? undefined
    : text.length === 0
      ? "must not be empty"
      : "must be 1 to 128 ASCII letters, digits or any of @^$.!`-#+'~_|:()"

export const checkParty = (text: string): string | undefined =>
  isPartyString(text) ? undefined : "must be a party id: 1 to 255 ASCII letters, digits or any of :-_ and space"

/**
 * An issuer is a case-sensitive URL with the https scheme, a host, optionally a port and a path,
 * and no query, fragment or user info. It is compared with a token's `iss` claim byte for byte.
 */
export const checkIssuer = (text: string): string | undefined => {
  if (text.length === 0) return "must not be empty"
  const url = parseUrl(text)
  if (url === undefined) return "must be an absolute URL"
  if (url.protocol !== "https:") return "must use the https scheme"
  if (url.hostname.length === 0) return "must contain a host"
  if (url.username !== "" || url.password !== "") return "must not contain user information"
  if (text.includes("?")) return "must not contain a query component"
  if (text.includes("#")) return "must not contain a fragment component"
  return undefined
}

/** The JWKS URL is fetched by the node; http is accepted for local key servers. */
export const checkJwksUrl = (text: string): string | undefined => {
  if (text.length === 0) return "must not be empty"
  const url = parseUrl(text)
  if (url === undefined) return "must be an absolute URL"
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must use the http or https scheme"
  if (url.hostname.length === 0) return "must contain a host"
  return undefined
}

const parseUrl = (text: string): URL | undefined => {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

const ANNOTATION_NAME = /^[a-zA-Z0-9]([a-zA-Z0-9._-]{0,61}[a-zA-Z0-9])?$/
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * Annotation keys: an optional prefix (a DNS subdomain of at most 253 characters) and `/`, then a
 * name of at most 63 characters of letters, digits, `.`, `-`, `_`, starting and ending alphanumeric.
 */
export const checkAnnotationKey = (key: string): string | undefined => {
  const slash = key.indexOf("/")
  const prefix = slash === -1 ? undefined : key.slice(0, slash)
  const name = slash === -1 ? key : key.slice(slash + 1)
  if (prefix !== undefined) {
    if (prefix.length === 0 || prefix.length > 253 || !prefix.split(".").every((label) => DNS_LABEL.test(label))) {
      return `key prefix '${prefix}' must be a DNS subdomain of at most 253 characters`
    }
  }
  if (!ANNOTATION_NAME.test(name)) {
    return `key name '${name}' must be 1 to 63 letters, digits, '.', '-' or '_', starting and ending with a letter or digit`
  }
  return undefined
}

/** UTF-8 size of all keys and values. */
export const annotationsSize = (annotations: Annotations): number => {
  let total = 0
  for (const [key, value] of Object.entries(annotations)) {
    total += utf8.encode(key).length + utf8.encode(value).length
  }
  return total
}

const utf8 = new TextEncoder()

/** Keys sorted, so that a user prints the same way whatever order its annotations were set in. */
export const sortAnnotations = (annotations: Annotations): Annotations =>
  Object.fromEntries(Object.entries(annotations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

// ---------------------------------------------------------------------------------------------
// Party records (participant-local party details)
// ---------------------------------------------------------------------------------------------

/**
 * What the participant keeps about a party beyond the topology: its local metadata and identity
 * provider (Canton's PartyRecord). A party without a record has empty metadata, resourceVersion
 * "0" as printed, and the default identity provider.
 */
export const PartyRecord = Schema.Struct({
  party: Schema.String,
  identityProviderId: Schema.String,
  metadata: ObjectMeta
})
export type PartyRecord = typeof PartyRecord.Type
