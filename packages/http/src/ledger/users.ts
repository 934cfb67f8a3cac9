/**
 * Ledger surface (`/v2`): identity provider configurations and users with their rights, over
 * the engine's UserManagement. Shapes follow canton-json-api-v2 (IdentityProviderConfig, User,
 * Right/Kind, ObjectMeta, FieldMask, the request and response messages).
 *
 * Authorization (as the reference states it per request message):
 * - /v2/idps: ParticipantAdmin.
 * - create, update, delete users; grant and revoke rights: ParticipantAdmin, or IdentityProviderAdmin
 *   of the user's identity provider (who may not grant or revoke participant-wide rights).
 * - get a user, list a user's rights: the user itself, or an administrator as above.
 * - list users: an administrator (an IdentityProviderAdmin sees its provider's users).
 * - move a user to another identity provider: ParticipantAdmin.
 * - /v2/authenticated-user: any authenticated user.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import type { InvalidArgument } from "@sandnet/core"
import { Effect, Either, Schema } from "effect"
import { AuthenticatedUser, requireIdentityProviderAdmin, requireParticipantAdmin, type UserAccess } from "../auth.ts"
import { Admin } from "../engine-admin.ts"
import { InvalidRequest, PermissionDenied, type RequestLocation } from "../errors.ts"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"
import { op } from "./context.ts"

// ---------------------------------------------------------------------------------------------
// Shapes (canton-json-api-v2.yaml)
// ---------------------------------------------------------------------------------------------

export const JsIdentityProviderConfig = Schema.Struct({
  identityProviderId: Schema.String,
  isDeactivated: Schema.optional(Schema.Boolean),
  issuer: Schema.String,
  jwksUrl: Schema.String,
  audience: Schema.optional(Schema.String)
}).annotations({ identifier: "IdentityProviderConfig" })
export type JsIdentityProviderConfig = typeof JsIdentityProviderConfig.Type

export const FieldMask = Schema.Struct({
  paths: Schema.optional(Schema.Array(Schema.String)),
  unknownFields: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "FieldMask" })

export const ObjectMeta = Schema.Struct({
  resourceVersion: Schema.optional(Schema.String),
  annotations: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}).annotations({ identifier: "ObjectMeta" })

export const JsUser = Schema.Struct({
  id: Schema.String,
  primaryParty: Schema.optional(Schema.String),
  isDeactivated: Schema.optional(Schema.Boolean),
  metadata: Schema.optional(ObjectMeta),
  identityProviderId: Schema.optional(Schema.String),
  primaryPartyAuthentication: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "User" })
export type JsUser = typeof JsUser.Type

const PartyValue = Schema.Struct({ value: Schema.Struct({ party: Schema.String }) })
const NoValue = Schema.Struct({ value: Schema.optional(Schema.Struct({})) })

export const Kind = Schema.Union(
  Schema.Struct({ CanActAs: PartyValue }),
  Schema.Struct({ CanExecuteAs: PartyValue }),
  Schema.Struct({ CanExecuteAsAnyParty: NoValue }),
  Schema.Struct({ CanReadAs: PartyValue }),
  Schema.Struct({ CanReadAsAnyParty: NoValue }),
  Schema.Struct({ Empty: Schema.Struct({}) }),
  Schema.Struct({ IdentityProviderAdmin: NoValue }),
  Schema.Struct({ ParticipantAdmin: NoValue })
).annotations({ identifier: "Kind" })

export const JsRight = Schema.Struct({ kind: Schema.optional(Kind) }).annotations({ identifier: "Right" })
export type JsRight = typeof JsRight.Type

const IdpConfigMessage = Schema.Struct({ identityProviderConfig: JsIdentityProviderConfig })
export const CreateIdentityProviderConfigRequest = IdpConfigMessage.annotations({
  identifier: "CreateIdentityProviderConfigRequest"
})
export const CreateIdentityProviderConfigResponse = IdpConfigMessage.annotations({
  identifier: "CreateIdentityProviderConfigResponse"
})
export const GetIdentityProviderConfigResponse = IdpConfigMessage.annotations({
  identifier: "GetIdentityProviderConfigResponse"
})
export const UpdateIdentityProviderConfigRequest = Schema.Struct({
  identityProviderConfig: JsIdentityProviderConfig,
  updateMask: FieldMask
}).annotations({ identifier: "UpdateIdentityProviderConfigRequest" })
export const UpdateIdentityProviderConfigResponse = IdpConfigMessage.annotations({
  identifier: "UpdateIdentityProviderConfigResponse"
})
export const ListIdentityProviderConfigsResponse = Schema.Struct({
  identityProviderConfigs: Schema.Array(JsIdentityProviderConfig)
}).annotations({ identifier: "ListIdentityProviderConfigsResponse" })
export const DeleteIdentityProviderConfigResponse = Schema.Struct({}).annotations({
  identifier: "DeleteIdentityProviderConfigResponse"
})

export const CreateUserRequest = Schema.Struct({
  user: JsUser,
  rights: Schema.optional(Schema.Array(JsRight))
}).annotations({ identifier: "CreateUserRequest" })
const UserMessage = Schema.Struct({ user: JsUser })
export const CreateUserResponse = UserMessage.annotations({ identifier: "CreateUserResponse" })
export const GetUserResponse = UserMessage.annotations({ identifier: "GetUserResponse" })
export const UpdateUserRequest = Schema.Struct({ user: JsUser, updateMask: FieldMask }).annotations({
  identifier: "UpdateUserRequest"
})
export const UpdateUserResponse = UserMessage.annotations({ identifier: "UpdateUserResponse" })
export const ListUsersResponse = Schema.Struct({
  users: Schema.Array(JsUser),
  nextPageToken: Schema.String
}).annotations({ identifier: "ListUsersResponse" })
export const DeleteUserResponse = Schema.Struct({})
export const ListUserRightsResponse = Schema.Struct({ rights: Schema.Array(JsRight) }).annotations({
  identifier: "ListUserRightsResponse"
})
const RightsRequest = Schema.Struct({
  userId: Schema.String,
  rights: Schema.optional(Schema.Array(JsRight)),
  identityProviderId: Schema.optional(Schema.String)
})
export const GrantUserRightsRequest = RightsRequest.annotations({ identifier: "GrantUserRightsRequest" })
export const RevokeUserRightsRequest = RightsRequest.annotations({ identifier: "RevokeUserRightsRequest" })
export const GrantUserRightsResponse = Schema.Struct({ newlyGrantedRights: Schema.Array(JsRight) }).annotations({
  identifier: "GrantUserRightsResponse"
})
export const RevokeUserRightsResponse = Schema.Struct({ newlyRevokedRights: Schema.Array(JsRight) }).annotations({
  identifier: "RevokeUserRightsResponse"
})
export const UpdateUserIdentityProviderIdRequest = Schema.Struct({
  userId: Schema.String,
  sourceIdentityProviderId: Schema.optional(Schema.String),
  targetIdentityProviderId: Schema.optional(Schema.String)
}).annotations({ identifier: "UpdateUserIdentityProviderIdRequest" })
export const UpdateUserIdentityProviderIdResponse = Schema.Struct({}).annotations({
  identifier: "UpdateUserIdentityProviderIdResponse"
})

const IdpPath = Schema.Struct({ idpId: Schema.String })
const UserPath = Schema.Struct({ userId: Schema.String })
const IdpQuery = Schema.Struct({ "identity-provider-id": Schema.optional(Schema.String) })
const PageQuery = Schema.Struct({
  pageSize: Schema.optional(Schema.NumberFromString.pipe(Schema.int())),
  pageToken: Schema.optional(Schema.String)
})

// ---------------------------------------------------------------------------------------------
// Endpoints (operation ids as in the reference)
// ---------------------------------------------------------------------------------------------


export const CreateIdentityProviderConfig = op(
  HttpApiEndpoint.post("createIdentityProviderConfig", "/v2/idps")
    .setPayload(CreateIdentityProviderConfigRequest)
    .addSuccess(CreateIdentityProviderConfigResponse),
  "postV2Idps",
  "Create a new identity provider configuration. The request will fail if the maximum allowed number of separate configurations is reached."
)
export const ListIdentityProviderConfigs = op(
  HttpApiEndpoint.get("listIdentityProviderConfigs", "/v2/idps").addSuccess(ListIdentityProviderConfigsResponse),
  "getV2Idps",
  "List all existing identity provider configurations."
)
export const GetIdentityProviderConfig = op(
  HttpApiEndpoint.get("getIdentityProviderConfig", "/v2/idps/:idpId")
    .setPath(IdpPath)
    .addSuccess(GetIdentityProviderConfigResponse),
  "getV2IdpsIdp-id",
  "Get the identity provider configuration data by id."
)
export const UpdateIdentityProviderConfig = op(
  HttpApiEndpoint.patch("updateIdentityProviderConfig", "/v2/idps/:idpId")
    .setPath(IdpPath)
    .setPayload(UpdateIdentityProviderConfigRequest)
    .addSuccess(UpdateIdentityProviderConfigResponse),
  "patchV2IdpsIdp-id",
  "Update selected modifiable attributes (updateMask paths: is_deactivated, issuer, jwks_url, audience) of an identity provider configuration."
)
export const DeleteIdentityProviderConfig = op(
  HttpApiEndpoint.del("deleteIdentityProviderConfig", "/v2/idps/:idpId")
    .setPath(IdpPath)
    .addSuccess(DeleteIdentityProviderConfigResponse),
  "deleteV2IdpsIdp-id",
  "Delete an existing identity provider configuration."
)

export const ListUsers = op(
  HttpApiEndpoint.get("listUsers", "/v2/users").setUrlParams(PageQuery).addSuccess(ListUsersResponse),
  "getV2Users",
  "List all existing users."
)
export const CreateUser = op(
  HttpApiEndpoint.post("createUser", "/v2/users").setPayload(CreateUserRequest).addSuccess(CreateUserResponse),
  "postV2Users",
  "Create a new user."
)
export const GetUser = op(
  HttpApiEndpoint.get("getUser", "/v2/users/:userId")
    .setPath(UserPath)
    .setUrlParams(IdpQuery)
    .addSuccess(GetUserResponse),
  "getV2UsersUser-id",
  "Get the user data of a specific user or the authenticated user."
)
export const DeleteUser = op(
  HttpApiEndpoint.del("deleteUser", "/v2/users/:userId").setPath(UserPath).addSuccess(DeleteUserResponse),
  "deleteV2UsersUser-id",
  "Delete an existing user and all its rights."
)
export const UpdateUser = op(
  HttpApiEndpoint.patch("updateUser", "/v2/users/:userId")
    .setPath(UserPath)
    .setPayload(UpdateUserRequest)
    .addSuccess(UpdateUserResponse),
  "patchV2UsersUser-id",
  "Update selected modifiable attributes of a user (updateMask paths: primary_party, is_deactivated, metadata, metadata.annotations, primary_party_authentication)."
)
export const GetAuthenticatedUser = op(
  HttpApiEndpoint.get("getAuthenticatedUser", "/v2/authenticated-user").setUrlParams(IdpQuery).addSuccess(GetUserResponse),
  "getV2Authenticated-user",
  "Get the user data of the current authenticated user."
)
export const ListUserRights = op(
  HttpApiEndpoint.get("listUserRights", "/v2/users/:userId/rights").setPath(UserPath).addSuccess(ListUserRightsResponse),
  "getV2UsersUser-idRights",
  "List the set of all rights granted to a user."
)
export const GrantUserRights = op(
  HttpApiEndpoint.post("grantUserRights", "/v2/users/:userId/rights")
    .setPath(UserPath)
    .setPayload(GrantUserRightsRequest)
    .addSuccess(GrantUserRightsResponse),
  "postV2UsersUser-idRights",
  "Grant rights to a user. Granting rights does not affect the resource version of the corresponding user."
)
export const RevokeUserRights = op(
  HttpApiEndpoint.patch("revokeUserRights", "/v2/users/:userId/rights")
    .setPath(UserPath)
    .setPayload(RevokeUserRightsRequest)
    .addSuccess(RevokeUserRightsResponse),
  "patchV2UsersUser-idRights",
  "Revoke rights from a user. Revoking rights does not affect the resource version of the corresponding user."
)
export const UpdateUserIdentityProviderId = op(
  HttpApiEndpoint.patch("updateUserIdentityProviderId", "/v2/users/:userId/identity-provider-id")
    .setPath(UserPath)
    .setPayload(UpdateUserIdentityProviderIdRequest)
    .addSuccess(UpdateUserIdentityProviderIdResponse),
  "patchV2UsersUser-idIdentity-provider-id",
  "Update the assignment of a user from one IDP to another."
)

export const IdentityProvidersGroup = HttpApiGroup.make("idps")
  .add(CreateIdentityProviderConfig)
  .add(ListIdentityProviderConfigs)
  .add(GetIdentityProviderConfig)
  .add(UpdateIdentityProviderConfig)
  .add(DeleteIdentityProviderConfig)
  .annotate(OpenApi.Title, "Identity Provider Config")

export const UsersGroup = HttpApiGroup.make("users")
  .add(ListUsers)
  .add(CreateUser)
  .add(GetUser)
  .add(DeleteUser)
  .add(UpdateUser)
  .add(GetAuthenticatedUser)
  .add(ListUserRights)
  .add(GrantUserRights)
  .add(RevokeUserRights)
  .add(UpdateUserIdentityProviderId)
  .annotate(OpenApi.Title, "User Management")

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

export const toJsIdp = (config: Admin.IdentityProviderConfig) => ({
  identityProviderId: config.identityProviderId,
  isDeactivated: config.isDeactivated,
  issuer: config.issuer,
  jwksUrl: config.jwksUrl,
  audience: config.audience ?? ""
})

export const toJsUser = (user: Admin.User) => ({
  id: user.id,
  primaryParty: user.primaryParty,
  isDeactivated: user.isDeactivated,
  metadata: { resourceVersion: user.metadata.resourceVersion, annotations: user.metadata.annotations },
  identityProviderId: user.identityProviderId,
  primaryPartyAuthentication: user.primaryPartyAuthentication
})

export const toJsRight = (right: Admin.Right): JsRight => {
  switch (right._tag) {
    case "CanActAs":
      return { kind: { CanActAs: { value: { party: right.party } } } }
    case "CanReadAs":
      return { kind: { CanReadAs: { value: { party: right.party } } } }
    case "CanExecuteAs":
      return { kind: { CanExecuteAs: { value: { party: right.party } } } }
    case "ParticipantAdmin":
      return { kind: { ParticipantAdmin: { value: {} } } }
    case "IdentityProviderAdmin":
      return { kind: { IdentityProviderAdmin: { value: {} } } }
    case "CanReadAsAnyParty":
      return { kind: { CanReadAsAnyParty: { value: {} } } }
    case "CanExecuteAsAnyParty":
      return { kind: { CanExecuteAsAnyParty: { value: {} } } }
  }
}

export const fromJsRight = (right: JsRight, field: string): Either.Either<Admin.Right, InvalidRequest> => {
  const kind = right.kind
  const missing = () =>
    Either.left(new InvalidRequest({ location: "body", detail: `${field}.kind: a right kind must be set` }))
  if (kind === undefined) return missing()
  if ("CanActAs" in kind) return Either.right(Admin.Rights.canActAs(kind.CanActAs.value.party))
  if ("CanReadAs" in kind) return Either.right(Admin.Rights.canReadAs(kind.CanReadAs.value.party))
  if ("CanExecuteAs" in kind) return Either.right(Admin.Rights.canExecuteAs(kind.CanExecuteAs.value.party))
  if ("ParticipantAdmin" in kind) return Either.right(Admin.Rights.participantAdmin)
  if ("IdentityProviderAdmin" in kind) return Either.right(Admin.Rights.identityProviderAdmin)
  if ("CanReadAsAnyParty" in kind) return Either.right(Admin.Rights.canReadAsAnyParty)
  if ("CanExecuteAsAnyParty" in kind) return Either.right(Admin.Rights.canExecuteAsAnyParty)
  return missing()
}

const fromJsRights = (
  rights: ReadonlyArray<JsRight> | undefined,
  field: string
): Effect.Effect<ReadonlyArray<Admin.Right>, InvalidRequest> =>
  Effect.forEach(rights ?? [], (right, i) => fromJsRight(right, `${field}[${i}]`))

const fromJsUser = (user: JsUser): Admin.UserInput => ({
  id: user.id,
  primaryParty: user.primaryParty,
  isDeactivated: user.isDeactivated,
  identityProviderId: user.identityProviderId,
  metadata: user.metadata,
  primaryPartyAuthentication: user.primaryPartyAuthentication
})

// ---------------------------------------------------------------------------------------------
// Handler helpers
// ---------------------------------------------------------------------------------------------

interface Placement {
  readonly location: RequestLocation
  readonly name?: string
}

/**
 * Puts engine InvalidArguments where the client sent the field: a table of fields that came from
 * path or query parameters, and a prefix for body fields (`issuer` -> `identityProviderConfig.issuer`).
 */
const placeArguments =
  (params: Readonly<Record<string, Placement>>, bodyPrefix = "") =>
  <A, E extends { readonly _tag: string }, R>(
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, Exclude<E, InvalidArgument> | InvalidRequest, R> =>
    Effect.mapError(effect, (error) => {
      if (error._tag !== "InvalidArgument") return error as Exclude<E, InvalidArgument>
      const argument = error as unknown as InvalidArgument
      const placement = params[argument.field]
      if (placement !== undefined) return InvalidRequest.fromArgument(argument, placement.location, placement.name)
      const field = bodyPrefix === "" || argument.field.startsWith("updateMask") ? argument.field : `${bodyPrefix}${argument.field}`
      return new InvalidRequest({ location: "body", detail: `${field}: ${argument.message}` })
    })

const IN_IDP_PATH: Record<string, Placement> = { identityProviderId: { location: "path parameter", name: "idp-id" } }
const IN_USER_PATH: Record<string, Placement> = {
  userId: { location: "path parameter", name: "user-id" },
  pageSize: { location: "query parameter", name: "pageSize" },
  pageToken: { location: "query parameter", name: "pageToken" }
}

/** A body field that repeats a path parameter must agree with it. */
const samePathAndBody = (pathName: string, pathValue: string, bodyField: string, bodyValue: string | undefined) =>
  bodyValue === undefined || bodyValue === "" || bodyValue === pathValue
    ? Effect.void
    : Effect.fail(
        new InvalidRequest({
          location: "body",
          detail: `${bodyField} is "${bodyValue}" but the path parameter ${pathName} is "${pathValue}"`
        })
      )

/**
 * The identity provider a user-management request acts in, for the caller. Participant
 * administrators act in any provider (the one named, or all when none or "" is named); identity
 * provider administrators only in their own; anybody else is denied.
 */
const managementScope = (
  caller: UserAccess,
  requested: string | undefined
): Effect.Effect<Admin.IdentityProviderScope, PermissionDenied> => {
  if (caller.isParticipantAdmin) return Effect.succeed(requested === undefined || requested === "" ? undefined : requested)
  const own = caller.user.identityProviderId
  if (caller.isIdentityProviderAdmin(own) && (requested === undefined || requested === "" || requested === own)) {
    return Effect.succeed(own)
  }
  return Effect.fail(
    new PermissionDenied({
      reason:
        requested !== undefined && requested !== "" && requested !== own
          ? `the ParticipantAdmin right or IdentityProviderAdmin of identity provider "${requested}" is required`
          : "the ParticipantAdmin or IdentityProviderAdmin right is required"
    })
  )
}

/** Identity provider administrators may not hand out rights that reach beyond their provider. */
const checkGrantable = (caller: UserAccess, rights: ReadonlyArray<Admin.Right>) => {
  if (caller.isParticipantAdmin) return Effect.void
  const wide = rights.find(Admin.isParticipantWideRight)
  return wide === undefined
    ? Effect.void
    : Effect.fail(new PermissionDenied({ reason: `only a participant administrator may grant or revoke ${wide._tag}` }))
}

// ---------------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------------

const ledger = Surfaces.ledger

export const IdentityProviderRoutes = mergeRoutes(
  bind(ledger, CreateIdentityProviderConfig, ({ payload }) =>
    Effect.gen(function* () {
      yield* requireParticipantAdmin
      const users = yield* Admin.UserManagement
      const config = payload.identityProviderConfig
      const created = yield* users
        .createIdentityProviderConfig({
          identityProviderId: config.identityProviderId,
          issuer: config.issuer,
          jwksUrl: config.jwksUrl,
          audience: config.audience,
          isDeactivated: config.isDeactivated
        })
        .pipe(placeArguments({}, "identityProviderConfig."))
      return { identityProviderConfig: toJsIdp(created) }
    })
  ),
  bind(ledger, ListIdentityProviderConfigs, () =>
    Effect.gen(function* () {
      yield* requireParticipantAdmin
      const users = yield* Admin.UserManagement
      return { identityProviderConfigs: (yield* users.listIdentityProviderConfigs).map(toJsIdp) }
    })
  ),
  bind(ledger, GetIdentityProviderConfig, ({ path }) =>
    Effect.gen(function* () {
      yield* requireParticipantAdmin
      const users = yield* Admin.UserManagement
      const config = yield* users.getIdentityProviderConfig(path.idpId).pipe(placeArguments(IN_IDP_PATH))
      return { identityProviderConfig: toJsIdp(config) }
    })
  ),
  bind(ledger, UpdateIdentityProviderConfig, ({ path, payload }) =>
    Effect.gen(function* () {
      yield* requireParticipantAdmin
      const users = yield* Admin.UserManagement
      const config = payload.identityProviderConfig
      yield* samePathAndBody("idp-id", path.idpId, "identityProviderConfig.identityProviderId", config.identityProviderId)
      const updated = yield* users
        .updateIdentityProviderConfig({
          config: {
            identityProviderId: path.idpId,
            issuer: config.issuer,
            jwksUrl: config.jwksUrl,
            audience: config.audience,
            isDeactivated: config.isDeactivated
          },
          updateMask: payload.updateMask.paths ?? []
        })
        .pipe(placeArguments(IN_IDP_PATH, "identityProviderConfig."))
      return { identityProviderConfig: toJsIdp(updated) }
    })
  ),
  bind(ledger, DeleteIdentityProviderConfig, ({ path }) =>
    Effect.gen(function* () {
      yield* requireParticipantAdmin
      const users = yield* Admin.UserManagement
      yield* users.deleteIdentityProviderConfig(path.idpId).pipe(placeArguments(IN_IDP_PATH))
      return {}
    })
  )
)

export const UserRoutes = mergeRoutes(
  bind(ledger, ListUsers, ({ urlParams }) =>
    Effect.gen(function* () {
      const caller = yield* AuthenticatedUser
      const scope = yield* managementScope(caller, undefined)
      const users = yield* Admin.UserManagement
      const page = yield* users
        .listUsers({ pageSize: urlParams.pageSize, pageToken: urlParams.pageToken, scope })
        .pipe(placeArguments(IN_USER_PATH))
      return { users: page.users.map(toJsUser), nextPageToken: page.nextPageToken }
    })
  ),
  bind(ledger, CreateUser, ({ payload }) =>
    Effect.gen(function* () {
      const caller = yield* requireIdentityProviderAdmin(payload.user.identityProviderId ?? "")
      const rights = yield* fromJsRights(payload.rights, "rights")
      yield* checkGrantable(caller, rights)
      const users = yield* Admin.UserManagement
      const created = yield* users.createUser({ user: fromJsUser(payload.user), rights }).pipe(placeArguments({}))
      return { user: toJsUser(created.user) }
    })
  ),
  bind(ledger, GetUser, ({ path, urlParams }) =>
    Effect.gen(function* () {
      const caller = yield* AuthenticatedUser
      const users = yield* Admin.UserManagement
      const scope =
        path.userId === caller.user.id
          ? caller.user.identityProviderId
          : yield* managementScope(caller, urlParams["identity-provider-id"])
      const record = yield* users.getUser(path.userId, scope).pipe(placeArguments(IN_USER_PATH))
      return { user: toJsUser(record.user) }
    })
  ),
  bind(ledger, DeleteUser, ({ path }) =>
    Effect.gen(function* () {
      const caller = yield* AuthenticatedUser
      const scope = yield* managementScope(caller, undefined)
      const users = yield* Admin.UserManagement
      yield* users.deleteUser(path.userId, scope).pipe(placeArguments(IN_USER_PATH))
      return {}
    })
  ),
  bind(ledger, UpdateUser, ({ path, payload }) =>
    Effect.gen(function* () {
      const caller = yield* AuthenticatedUser
      yield* samePathAndBody("user-id", path.userId, "user.id", payload.user.id)
      const scope = yield* managementScope(caller, payload.user.identityProviderId)
      const users = yield* Admin.UserManagement
      const updated = yield* users
        .updateUser(
          { user: { ...fromJsUser(payload.user), id: path.userId }, updateMask: payload.updateMask.paths ?? [] },
          scope
        )
        .pipe(placeArguments({}))
      return { user: toJsUser(updated) }
    })
  ),
  bind(ledger, GetAuthenticatedUser, () =>
    Effect.map(AuthenticatedUser, (caller) => ({ user: toJsUser(caller.user) }))
  ),
  bind(ledger, ListUserRights, ({ path }) =>
    Effect.gen(function* () {
      const caller = yield* AuthenticatedUser
      const users = yield* Admin.UserManagement
      const scope =
        path.userId === caller.user.id ? caller.user.identityProviderId : yield* managementScope(caller, undefined)
      const rights = yield* users.listUserRights(path.userId, scope).pipe(placeArguments(IN_USER_PATH))
      return { rights: rights.map(toJsRight) }
    })
  ),
  bind(ledger, GrantUserRights, ({ path, payload }) =>
    Effect.gen(function* () {
      const caller = yield* AuthenticatedUser
      yield* samePathAndBody("user-id", path.userId, "userId", payload.userId)
      const scope = yield* managementScope(caller, payload.identityProviderId)
      const rights = yield* fromJsRights(payload.rights, "rights")
      yield* checkGrantable(caller, rights)
      const users = yield* Admin.UserManagement
      const granted = yield* users.grantUserRights(path.userId, rights, scope).pipe(placeArguments(IN_USER_PATH))
      return { newlyGrantedRights: granted.map(toJsRight) }
    })
  ),
  bind(ledger, RevokeUserRights, ({ path, payload }) =>
    Effect.gen(function* () {
      const caller = yield* AuthenticatedUser
      yield* samePathAndBody("user-id", path.userId, "userId", payload.userId)
      const scope = yield* managementScope(caller, payload.identityProviderId)
      const rights = yield* fromJsRights(payload.rights, "rights")
      yield* checkGrantable(caller, rights)
      const users = yield* Admin.UserManagement
      const revoked = yield* users.revokeUserRights(path.userId, rights, scope).pipe(placeArguments(IN_USER_PATH))
      return { newlyRevokedRights: revoked.map(toJsRight) }
    })
  ),
  bind(ledger, UpdateUserIdentityProviderId, ({ path, payload }) =>
    Effect.gen(function* () {
      yield* requireParticipantAdmin
      yield* samePathAndBody("user-id", path.userId, "userId", payload.userId)
      const users = yield* Admin.UserManagement
      yield* users
        .updateUserIdentityProvider(
          path.userId,
          payload.sourceIdentityProviderId ?? Admin.DEFAULT_IDENTITY_PROVIDER_ID,
          payload.targetIdentityProviderId ?? Admin.DEFAULT_IDENTITY_PROVIDER_ID
        )
        .pipe(placeArguments(IN_USER_PATH))
      return {}
    })
  )
)
