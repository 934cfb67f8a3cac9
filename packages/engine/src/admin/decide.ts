/**
 * The commands of user management, as pure decisions: given the state, a request and the time, each
 * either refuses with an AdminError or returns the events to journal and the answer to give. The
 * service (service.ts) journals the events, folds them with `apply` and returns the answer, so a
 * decision never changes anything by itself and replaying the journal gives the same state.
 *
 * Identity provider configurations change through their lifecycle (machines/identity-provider.ts,
 * idp-lifecycle.ts): creating starts it, an update steps it (deactivating and reactivating move its
 * state), deleting ends it.
 *
 * Field names in InvalidArgument are JSON paths inside the request as the reference shapes it
 * (`user.primaryParty`, `rights`, `updateMask.paths`); identity provider fields are relative to the
 * configuration (`issuer`), the HTTP layer prefixes them with `identityProviderConfig.`.
 */
import { InvalidArgument } from "@sandnet/core"
import { Either } from "effect"
import { startIdentityProvider } from "../machines/identity-provider.ts"
import {
  ConcurrentUserUpdate,
  IdentityProviderConfigAlreadyExists,
  IdentityProviderConfigNotFound,
  IdentityProviderIssuerAlreadyExists,
  TooManyIdentityProviderConfigs,
  TooManyUserRights,
  UserAlreadyExists,
  UserAnnotationsTooLarge,
  UserNotFound,
  type AdminError
} from "./errors.ts"
import type { AdminEvent } from "./events.ts"
import { configOf, stepIdentityProvider } from "./idp-lifecycle.ts"
import {
  DEFAULT_IDENTITY_PROVIDER_ID,
  annotationsSize,
  checkAnnotationKey,
  checkIssuer,
  checkJwksUrl,
  checkLedgerString,
  checkParty,
  checkUserId,
  normalizeRights,
  rightKey,
  sortAnnotations,
  type AdminLimits,
  type Annotations,
  type IdentityProviderConfig,
  type Right,
  type User,
  type UserRecord
} from "./model.ts"
import { identityProviderByIssuer, identityProvidersOf, userIdsOf, type AdminState } from "./state.ts"

export interface Decision<A> {
  readonly events: ReadonlyArray<AdminEvent>
  readonly result: A
}

export type Decided<A> = Either.Either<Decision<A>, AdminError>

const accept = <A>(result: A, ...events: ReadonlyArray<AdminEvent>): Decided<A> => Either.right({ events, result })
const refuse = <A>(error: AdminError): Decided<A> => Either.left(error)
const invalid = (field: string, message: string): InvalidArgument => new InvalidArgument({ field, message })

/**
 * Restricts a lookup to the users of one identity provider. `undefined` means any provider (a
 * participant administrator); a string is the provider of an identity provider administrator or the
 * `identityProviderId` a request names. A user outside the scope is reported as not found, as the
 * ledger API does, so that providers cannot learn about each other's users.
 */
export type IdentityProviderScope = string | undefined

// ---------------------------------------------------------------------------------------------
// Identity provider configurations
// ---------------------------------------------------------------------------------------------

export interface IdentityProviderConfigInput {
  readonly identityProviderId: string
  readonly issuer: string
  readonly jwksUrl: string
  readonly audience?: string | undefined
  readonly isDeactivated?: boolean | undefined
}

export interface UpdateIdentityProviderConfigInput {
  /** Issuer and jwksUrl may be "" when they are not being changed. */
  readonly config: IdentityProviderConfigInput
  /** Field mask paths, snake_case as in protobuf (`jwks_url`) or camelCase as in JSON (`jwksUrl`). */
  readonly updateMask: ReadonlyArray<string>
}

const checkIdpId = (id: string): InvalidArgument | undefined => {
  const problem = checkLedgerString(id)
  return problem === undefined ? undefined : invalid("identityProviderId", problem)
}

const findIdp = (
  state: AdminState,
  operation: string,
  id: string
): Either.Either<IdentityProviderConfig, AdminError> => {
  const idProblem = checkIdpId(id)
  if (idProblem !== undefined) return Either.left(idProblem)
  const config = state.identityProviders.get(id)
  return config === undefined
    ? Either.left(new IdentityProviderConfigNotFound({ operation, identityProviderId: id }))
    : Either.right(config)
}

export const createIdentityProviderConfig = (
  state: AdminState,
  input: IdentityProviderConfigInput,
  limits: AdminLimits,
  at: number
): Decided<IdentityProviderConfig> => {
  const operation = "Create identity provider config"
  const idProblem = checkIdpId(input.identityProviderId)
  if (idProblem !== undefined) return refuse(idProblem)
  const issuerProblem = checkIssuer(input.issuer)
  if (issuerProblem !== undefined) return refuse(invalid("issuer", issuerProblem))
  const jwksProblem = checkJwksUrl(input.jwksUrl)
  if (jwksProblem !== undefined) return refuse(invalid("jwksUrl", jwksProblem))
  if (state.identityProviders.has(input.identityProviderId)) {
    return refuse(new IdentityProviderConfigAlreadyExists({ operation, identityProviderId: input.identityProviderId }))
  }
  if (identityProviderByIssuer(state, input.issuer) !== undefined) {
    return refuse(new IdentityProviderIssuerAlreadyExists({ operation, issuer: input.issuer }))
  }
  if (state.identityProviders.size >= limits.maxIdentityProviderConfigs) {
    return refuse(new TooManyIdentityProviderConfigs({ operation, max: limits.maxIdentityProviderConfigs }))
  }
  const config = configOf(
    startIdentityProvider({
      identityProviderId: input.identityProviderId,
      issuer: input.issuer,
      jwksUrl: input.jwksUrl,
      audience: input.audience ?? "",
      isDeactivated: input.isDeactivated ?? false
    })
  )
  return accept(config, { _tag: "IdentityProviderConfigCreated", at, config })
}

export const getIdentityProviderConfig = (
  state: AdminState,
  identityProviderId: string
): Either.Either<IdentityProviderConfig, AdminError> =>
  findIdp(state, "Get identity provider config", identityProviderId)

export const listIdentityProviderConfigs = (state: AdminState): ReadonlyArray<IdentityProviderConfig> =>
  identityProvidersOf(state)

const IDP_PATHS = new Set(["identity_provider_id", "is_deactivated", "issuer", "jwks_url", "audience"])

/** `jwksUrl` -> `jwks_url`; protobuf field masks name fields in snake_case. */
export const toSnakePath = (path: string): string =>
  path
    .split(".")
    .map((segment) => segment.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
    .join(".")

const checkMask = (
  mask: ReadonlyArray<string>,
  known: ReadonlySet<string>
): Either.Either<ReadonlySet<string>, InvalidArgument> => {
  if (mask.length === 0) return Either.left(invalid("updateMask.paths", "the update mask must contain at least one path"))
  const paths = new Set<string>()
  for (const raw of mask) {
    const path = toSnakePath(raw.trim())
    if (!known.has(path)) {
      return Either.left(
        invalid("updateMask.paths", `unknown update path '${raw}'; valid paths: ${[...known].sort().join(", ")}`)
      )
    }
    paths.add(path)
  }
  return Either.right(paths)
}

export const updateIdentityProviderConfig = (
  state: AdminState,
  input: UpdateIdentityProviderConfigInput,
  at: number
): Decided<IdentityProviderConfig> => {
  const operation = "Update identity provider config"
  const found = findIdp(state, operation, input.config.identityProviderId)
  if (Either.isLeft(found)) return refuse(found.left)
  const current = found.right
  const mask = checkMask(input.updateMask, IDP_PATHS)
  if (Either.isLeft(mask)) return refuse(mask.left)
  const paths = mask.right
  const { issuer, jwksUrl } = input.config
  if (issuer !== "") {
    const problem = checkIssuer(issuer)
    if (problem !== undefined) return refuse(invalid("issuer", problem))
  }
  if (jwksUrl !== "") {
    const problem = checkJwksUrl(jwksUrl)
    if (problem !== undefined) return refuse(invalid("jwksUrl", problem))
  }
  if (paths.has("issuer") && issuer !== "" && issuer !== current.issuer) {
    const owner = identityProviderByIssuer(state, issuer)
    if (owner !== undefined && owner.identityProviderId !== current.identityProviderId) {
      return refuse(new IdentityProviderIssuerAlreadyExists({ operation, issuer }))
    }
  }
  // The lifecycle applies the masked fields: deactivating or reactivating moves its state.
  const next = configOf(
    stepIdentityProvider(current, {
      type: "update",
      ...(paths.has("issuer") && issuer !== "" ? { issuer } : {}),
      ...(paths.has("jwks_url") && jwksUrl !== "" ? { jwksUrl } : {}),
      ...(paths.has("is_deactivated") ? { isDeactivated: input.config.isDeactivated ?? false } : {}),
      ...(paths.has("audience") ? { audience: input.config.audience ?? "" } : {})
    })
  )
  return sameIdp(current, next) ? accept(current) : accept(next, { _tag: "IdentityProviderConfigUpdated", at, config: next })
}

const sameIdp = (a: IdentityProviderConfig, b: IdentityProviderConfig): boolean =>
  a.issuer === b.issuer && a.jwksUrl === b.jwksUrl && a.isDeactivated === b.isDeactivated && a.audience === b.audience

/**
 * Deletes a configuration. Users assigned to it keep its id (as in the ledger API); tokens of its
 * issuer are no longer accepted because no configuration matches them.
 */
export const deleteIdentityProviderConfig = (
  state: AdminState,
  identityProviderId: string,
  at: number
): Decided<void> => {
  const found = findIdp(state, "Delete identity provider config", identityProviderId)
  if (Either.isLeft(found)) return refuse(found.left)
  // Its lifecycle ends (any configuration may be deleted); the journal records the deletion.
  stepIdentityProvider(found.right, { type: "delete" })
  return accept(undefined, { _tag: "IdentityProviderConfigDeleted", at, identityProviderId })
}

// ---------------------------------------------------------------------------------------------
// Users
// ---------------------------------------------------------------------------------------------

export interface UserInput {
  readonly id: string
  readonly primaryParty?: string | undefined
  readonly isDeactivated?: boolean | undefined
  readonly identityProviderId?: string | undefined
  readonly metadata?:
    | {
        readonly resourceVersion?: string | undefined
        readonly annotations?: Annotations | undefined
      }
    | undefined
  readonly primaryPartyAuthentication?: boolean | undefined
}

export interface CreateUserInput {
  readonly user: UserInput
  readonly rights?: ReadonlyArray<Right> | undefined
}

export interface UpdateUserInput {
  readonly user: UserInput
  readonly updateMask: ReadonlyArray<string>
}

export interface ListUsersInput {
  /** 0 or absent: the server's maximum. Larger values are capped at the maximum. */
  readonly pageSize?: number | undefined
  /** The `nextPageToken` of the previous page; absent or "" for the first page. */
  readonly pageToken?: string | undefined
  readonly scope?: IdentityProviderScope
}

export interface UsersPage {
  readonly users: ReadonlyArray<User>
  /** "" when there is no further page. */
  readonly nextPageToken: string
}

const checkUserIdField = (field: string, userId: string): InvalidArgument | undefined => {
  const problem = checkUserId(userId)
  return problem === undefined ? undefined : invalid(field, problem)
}

/** Finds a user within a scope; a user of another identity provider is "not found". */
export const findUser = (
  state: AdminState,
  operation: string,
  userId: string,
  scope: IdentityProviderScope,
  field = "userId"
): Either.Either<UserRecord, AdminError> => {
  const idProblem = checkUserIdField(field, userId)
  if (idProblem !== undefined) return Either.left(idProblem)
  const record = state.users.get(userId)
  if (record === undefined || (scope !== undefined && record.user.identityProviderId !== scope)) {
    return Either.left(new UserNotFound({ operation, userId }))
  }
  return Either.right(record)
}

const checkRights = (
  rights: ReadonlyArray<Right>,
  field: string
): Either.Either<ReadonlyArray<Right>, InvalidArgument> => {
  for (let i = 0; i < rights.length; i++) {
    const right = rights[i] as Right
    if ("party" in right) {
      const problem = checkParty(right.party)
      if (problem !== undefined) return Either.left(invalid(`${field}[${i}].kind.${right._tag}.value.party`, problem))
    }
  }
  return Either.right(normalizeRights(rights))
}

const checkAnnotations = (
  annotations: Annotations,
  allowEmptyValues: boolean
): InvalidArgument | undefined => {
  for (const [key, value] of Object.entries(annotations)) {
    const problem = checkAnnotationKey(key)
    if (problem !== undefined) return invalid("user.metadata.annotations", problem)
    if (!allowEmptyValues && value === "") {
      return invalid("user.metadata.annotations", `the value of annotation '${key}' must not be empty`)
    }
  }
  return undefined
}

export const createUser = (
  state: AdminState,
  input: CreateUserInput,
  limits: AdminLimits,
  at: number
): Decided<UserRecord> => {
  const operation = "Create user"
  const { user } = input
  const idProblem = checkUserIdField("user.id", user.id)
  if (idProblem !== undefined) return refuse(idProblem)
  const primaryParty = user.primaryParty ?? ""
  if (primaryParty !== "") {
    const problem = checkParty(primaryParty)
    if (problem !== undefined) return refuse(invalid("user.primaryParty", problem))
  }
  const identityProviderId = user.identityProviderId ?? DEFAULT_IDENTITY_PROVIDER_ID
  if (identityProviderId !== DEFAULT_IDENTITY_PROVIDER_ID) {
    const found = findIdp(state, operation, identityProviderId)
    if (Either.isLeft(found)) {
      return refuse(
        found.left._tag === "InvalidArgument" ? invalid("user.identityProviderId", found.left.message) : found.left
      )
    }
  }
  if ((user.metadata?.resourceVersion ?? "") !== "") {
    return refuse(invalid("user.metadata.resourceVersion", "must be empty when creating a user"))
  }
  const annotations = user.metadata?.annotations ?? {}
  const annotationsProblem = checkAnnotations(annotations, false)
  if (annotationsProblem !== undefined) return refuse(annotationsProblem)
  if (annotationsSize(annotations) > limits.maxAnnotationsBytes) {
    return refuse(new UserAnnotationsTooLarge({ userId: user.id, maxBytes: limits.maxAnnotationsBytes }))
  }
  const rights = checkRights(input.rights ?? [], "rights")
  if (Either.isLeft(rights)) return refuse(rights.left)
  if (rights.right.length > limits.maxRightsPerUser) {
    return refuse(new TooManyUserRights({ operation, userId: user.id, max: limits.maxRightsPerUser }))
  }
  if (state.users.has(user.id)) return refuse(new UserAlreadyExists({ operation, userId: user.id }))
  const created: User = {
    id: user.id,
    primaryParty,
    isDeactivated: user.isDeactivated ?? false,
    identityProviderId,
    metadata: { resourceVersion: "0", annotations: sortAnnotations(annotations) },
    primaryPartyAuthentication: user.primaryPartyAuthentication ?? false
  }
  return accept({ user: created, rights: rights.right }, { _tag: "UserCreated", at, user: created, rights: rights.right })
}

export const getUser = (
  state: AdminState,
  userId: string,
  scope: IdentityProviderScope
): Either.Either<UserRecord, AdminError> => findUser(state, "Get user", userId, scope)

export const deleteUser = (
  state: AdminState,
  userId: string,
  scope: IdentityProviderScope,
  at: number
): Decided<void> => {
  const found = findUser(state, "Delete user", userId, scope)
  if (Either.isLeft(found)) return refuse(found.left)
  return accept(undefined, { _tag: "UserDeleted", at, userId })
}

const encodePageToken = (lastUserId: string): string =>
  btoa(lastUserId).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

const decodePageToken = (token: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined
  try {
    const text = atob(token.replace(/-/g, "+").replace(/_/g, "/"))
    return checkUserId(text) === undefined ? text : undefined
  } catch {
    return undefined
  }
}

/** Users ordered by id, one page at a time. */
export const listUsers = (
  state: AdminState,
  input: ListUsersInput,
  limits: AdminLimits
): Either.Either<UsersPage, AdminError> => {
  const requested = input.pageSize ?? 0
  if (!Number.isInteger(requested) || requested < 0) {
    return Either.left(invalid("pageSize", "must be a non-negative integer"))
  }
  const pageSize = requested === 0 ? limits.maxUsersPageSize : Math.min(requested, limits.maxUsersPageSize)
  let after: string | undefined
  if (input.pageToken !== undefined && input.pageToken !== "") {
    after = decodePageToken(input.pageToken)
    if (after === undefined) return Either.left(invalid("pageToken", "is not a page token of this server"))
  }
  const users: Array<User> = []
  let more = false
  for (const id of userIdsOf(state)) {
    if (after !== undefined && id <= after) continue
    const record = state.users.get(id) as UserRecord
    if (input.scope !== undefined && record.user.identityProviderId !== input.scope) continue
    if (users.length === pageSize) {
      more = true
      break
    }
    users.push(record.user)
  }
  const last = users[users.length - 1]
  return Either.right({ users, nextPageToken: more && last !== undefined ? encodePageToken(last.id) : "" })
}

const USER_PATHS = new Set([
  "id",
  "primary_party",
  "is_deactivated",
  "metadata",
  "metadata.annotations",
  "metadata.resource_version",
  "identity_provider_id",
  "primary_party_authentication"
])

/**
 * Updates the fields named by the mask. Annotations merge: a key with a value sets it, a key with
 * "" removes it; naming exactly `metadata.annotations` with no annotations removes them all. A
 * non-empty `metadata.resourceVersion` must equal the current one (optimistic concurrency).
 */
export const updateUser = (
  state: AdminState,
  input: UpdateUserInput,
  scope: IdentityProviderScope,
  limits: AdminLimits,
  at: number
): Decided<User> => {
  const found = findUser(state, "Update user", input.user.id, scope, "user.id")
  if (Either.isLeft(found)) return refuse(found.left)
  const current = found.right.user
  const mask = checkMask(input.updateMask, USER_PATHS)
  if (Either.isLeft(mask)) return refuse(mask.left)
  const paths = mask.right
  const { user } = input
  const expectedVersion = user.metadata?.resourceVersion ?? ""
  if (expectedVersion !== "" && expectedVersion !== current.metadata.resourceVersion) {
    return refuse(new ConcurrentUserUpdate({ userId: current.id }))
  }
  let next: User = current
  if (paths.has("primary_party")) {
    const primaryParty = user.primaryParty ?? ""
    if (primaryParty !== "") {
      const problem = checkParty(primaryParty)
      if (problem !== undefined) return refuse(invalid("user.primaryParty", problem))
    }
    next = { ...next, primaryParty }
  }
  if (paths.has("is_deactivated")) next = { ...next, isDeactivated: user.isDeactivated ?? false }
  if (paths.has("primary_party_authentication")) {
    next = { ...next, primaryPartyAuthentication: user.primaryPartyAuthentication ?? false }
  }
  if (paths.has("identity_provider_id")) {
    const requested = user.identityProviderId ?? DEFAULT_IDENTITY_PROVIDER_ID
    if (requested !== current.identityProviderId) {
      return refuse(
        invalid(
          "user.identityProviderId",
          "cannot be changed by an update; use PATCH /v2/users/{user-id}/identity-provider-id"
        )
      )
    }
  }
  if (paths.has("metadata") || paths.has("metadata.annotations")) {
    const requested = user.metadata?.annotations ?? {}
    const problem = checkAnnotations(requested, true)
    if (problem !== undefined) return refuse(problem)
    let annotations: Record<string, string>
    if (Object.keys(requested).length === 0) {
      annotations = paths.has("metadata.annotations") ? {} : { ...current.metadata.annotations }
    } else {
      annotations = { ...current.metadata.annotations }
      for (const [key, value] of Object.entries(requested)) {
        if (value === "") delete annotations[key]
        else annotations[key] = value
      }
    }
    if (annotationsSize(annotations) > limits.maxAnnotationsBytes) {
      return refuse(new UserAnnotationsTooLarge({ userId: current.id, maxBytes: limits.maxAnnotationsBytes }))
    }
    next = { ...next, metadata: { ...next.metadata, annotations: sortAnnotations(annotations) } }
  }
  if (sameUser(current, next)) return accept(current)
  const updated: User = {
    ...next,
    metadata: { ...next.metadata, resourceVersion: String(Number(current.metadata.resourceVersion) + 1) }
  }
  return accept(updated, { _tag: "UserUpdated", at, user: updated })
}

const sameUser = (a: User, b: User): boolean =>
  a.primaryParty === b.primaryParty &&
  a.isDeactivated === b.isDeactivated &&
  a.primaryPartyAuthentication === b.primaryPartyAuthentication &&
  JSON.stringify(a.metadata.annotations) === JSON.stringify(b.metadata.annotations)

export const listUserRights = (
  state: AdminState,
  userId: string,
  scope: IdentityProviderScope
): Either.Either<ReadonlyArray<Right>, AdminError> =>
  Either.map(findUser(state, "List user rights", userId, scope), (record) => record.rights)

/** Answers the rights that were newly granted (those the user already had are left out). */
export const grantUserRights = (
  state: AdminState,
  userId: string,
  rights: ReadonlyArray<Right>,
  scope: IdentityProviderScope,
  limits: AdminLimits,
  at: number
): Decided<ReadonlyArray<Right>> => {
  const operation = "Grant user rights"
  const found = findUser(state, operation, userId, scope)
  if (Either.isLeft(found)) return refuse(found.left)
  const checked = checkRights(rights, "rights")
  if (Either.isLeft(checked)) return refuse(checked.left)
  const held = new Set(found.right.rights.map(rightKey))
  const fresh = checked.right.filter((right) => !held.has(rightKey(right)))
  if (held.size + fresh.length > limits.maxRightsPerUser) {
    return refuse(new TooManyUserRights({ operation, userId, max: limits.maxRightsPerUser }))
  }
  return fresh.length === 0 ? accept(fresh) : accept(fresh, { _tag: "UserRightsGranted", at, userId, rights: fresh })
}

/** Answers the rights that were actually revoked (those the user did not have are left out). */
export const revokeUserRights = (
  state: AdminState,
  userId: string,
  rights: ReadonlyArray<Right>,
  scope: IdentityProviderScope,
  at: number
): Decided<ReadonlyArray<Right>> => {
  const found = findUser(state, "Revoke user rights", userId, scope)
  if (Either.isLeft(found)) return refuse(found.left)
  const checked = checkRights(rights, "rights")
  if (Either.isLeft(checked)) return refuse(checked.left)
  const held = new Set(found.right.rights.map(rightKey))
  const revoked = checked.right.filter((right) => held.has(rightKey(right)))
  return revoked.length === 0 ? accept(revoked) : accept(revoked, { _tag: "UserRightsRevoked", at, userId, rights: revoked })
}

/** Moves a user from one identity provider to another ("" is the default provider). */
export const updateUserIdentityProvider = (
  state: AdminState,
  userId: string,
  sourceIdentityProviderId: string,
  targetIdentityProviderId: string,
  at: number
): Decided<void> => {
  const operation = "Update user identity provider"
  const found = findUser(state, operation, userId, sourceIdentityProviderId)
  if (Either.isLeft(found)) return refuse(found.left)
  if (targetIdentityProviderId !== DEFAULT_IDENTITY_PROVIDER_ID) {
    const target = findIdp(state, operation, targetIdentityProviderId)
    if (Either.isLeft(target)) {
      return refuse(
        target.left._tag === "InvalidArgument" ? invalid("targetIdentityProviderId", target.left.message) : target.left
      )
    }
  }
  if (sourceIdentityProviderId === targetIdentityProviderId) return accept(undefined)
  return accept(undefined, {
    _tag: "UserIdentityProviderChanged",
    at,
    userId,
    identityProviderId: targetIdentityProviderId
  })
}
