/**
 * Authentication and authorization of the wallet and ledger surfaces (scan and registry are open).
 *
 * A token is a JWT. Which key verifies it depends on its `iss` claim:
 * - `iss` equals the issuer of a configured identity provider: RS256 only, against the keys at
 *   the provider's jwksUrl (jose `createRemoteJWKSet`, cached per provider and URL); the token's
 *   `aud` must include the provider's audience when one is set; a deactivated provider denies
 *   every token it issued (401). The token's user must belong to that provider.
 * - otherwise (dev mode): HS256 signed with the node's secret (default `unsafe`); `aud` must
 *   include `AuthConfig.audience` when one is configured.
 * In both cases `exp` and `nbf` are checked, `sub` names the ledger user, and a `scope` claim, when
 * present, must contain `daml_ledger_api`, unless it is empty and the token has an `aud` (an
 * audience-based token, as Canton accepts).
 *
 * The ledger surface then resolves the user in UserManagement: it must exist and be active (403
 * PERMISSION_DENIED otherwise, as the ledger API answers). Handlers read the result from the
 * `AuthenticatedUser` service and check rights with the `require*` helpers.
 */
import type { Headers } from "@effect/platform"
import { Clock, Context, Effect, Either, Layer } from "effect"
import { createRemoteJWKSet, decodeJwt, errors as JoseErrors, jwtVerify, type JWTPayload } from "jose"
import { Admin } from "./engine-admin.ts"
import { PermissionDenied, Unauthenticated } from "./errors.ts"

import { DEFAULT_DEV_SECRET, LEDGER_API_SCOPE } from "./dev-token.ts"

export { LEDGER_API_SCOPE, makeDevToken, type DevTokenOptions } from "./dev-token.ts"

/** Subprotocols of a websocket upgrade carrying a token: `jwt.token.<token>` next to `daml.ws.auth`. */
export const WEBSOCKET_TOKEN_PREFIX = "jwt.token."
export const WEBSOCKET_AUTH_PROTOCOL = "daml.ws.auth"

export interface AuthSettings {
  /** HS256 secret of dev-mode tokens. */
  readonly secret: string
  /** When set, dev-mode tokens must list it in `aud`. */
  readonly audience?: string | undefined
  /** Allowed clock skew for `exp` / `nbf`, in seconds. */
  readonly leewaySeconds: number
  /** How long fetched JWKS are reused before refetching, in milliseconds. */
  readonly jwksCacheMaxAgeMillis: number
  /** Timeout of one JWKS fetch, in milliseconds. */
  readonly jwksTimeoutMillis: number
}

export const DEFAULT_AUTH_SETTINGS: AuthSettings = {
  secret: DEFAULT_DEV_SECRET,
  leewaySeconds: 0,
  jwksCacheMaxAgeMillis: 10 * 60 * 1000,
  jwksTimeoutMillis: 5000
}

export class AuthConfig extends Context.Reference<AuthConfig>()("@sandnet/http/AuthConfig", {
  defaultValue: (): AuthSettings => DEFAULT_AUTH_SETTINGS
}) {
  static readonly layer = (settings: Partial<AuthSettings>): Layer.Layer<AuthConfig> =>
    Layer.succeed(AuthConfig, { ...DEFAULT_AUTH_SETTINGS, ...settings })
}

// ---------------------------------------------------------------------------------------------
// Who is calling
// ---------------------------------------------------------------------------------------------

/** A verified token: its subject is the ledger user id. */
export interface Subject {
  readonly userId: string
  /** "" for dev-mode tokens, the provider's id for identity provider tokens. */
  readonly identityProviderId: string
  readonly claims: JWTPayload
}

/** The verified token of the current request (wallet and ledger surfaces). */
export class AuthenticatedSubject extends Context.Tag("@sandnet/http/AuthenticatedSubject")<
  AuthenticatedSubject,
  Subject
>() {}

/** A verified token whose user exists and is active, with the user's rights. */
export interface UserAccess {
  readonly subject: Subject
  readonly user: Admin.User
  readonly rights: ReadonlyArray<Admin.Right>
  readonly isParticipantAdmin: boolean
  /** Participant administrators administer every provider; IdentityProviderAdmin only its own. */
  readonly isIdentityProviderAdmin: (identityProviderId: string) => boolean
  readonly canActAs: (party: string) => boolean
  /** CanReadAs, CanActAs or CanReadAsAnyParty. */
  readonly canReadAs: (party: string) => boolean
  /** CanExecuteAs, CanActAs or CanExecuteAsAnyParty. */
  readonly canExecuteAs: (party: string) => boolean
}

/** The authenticated user of the current request (ledger surface). */
export class AuthenticatedUser extends Context.Tag("@sandnet/http/AuthenticatedUser")<AuthenticatedUser, UserAccess>() {}

export const userAccess = (subject: Subject, record: Admin.UserRecord): UserAccess => {
  const has = (tag: Admin.Right["_tag"], party?: string) =>
    record.rights.some((right) => right._tag === tag && (party === undefined || ("party" in right && right.party === party)))
  const isParticipantAdmin = has("ParticipantAdmin")
  return {
    subject,
    user: record.user,
    rights: record.rights,
    isParticipantAdmin,
    isIdentityProviderAdmin: (idp) =>
      isParticipantAdmin || (has("IdentityProviderAdmin") && record.user.identityProviderId === idp),
    canActAs: (party) => has("CanActAs", party),
    canReadAs: (party) => has("CanReadAs", party) || has("CanActAs", party) || has("CanReadAsAnyParty"),
    canExecuteAs: (party) => has("CanExecuteAs", party) || has("CanActAs", party) || has("CanExecuteAsAnyParty")
  }
}

const deny = (reason: string) => Effect.fail(new PermissionDenied({ reason }))

export const requireParticipantAdmin: Effect.Effect<UserAccess, PermissionDenied, AuthenticatedUser> = Effect.flatMap(
  AuthenticatedUser,
  (access) => (access.isParticipantAdmin ? Effect.succeed(access) : deny("the ParticipantAdmin right is required"))
)

export const requireIdentityProviderAdmin = (
  identityProviderId: string
): Effect.Effect<UserAccess, PermissionDenied, AuthenticatedUser> =>
  Effect.flatMap(AuthenticatedUser, (access) =>
    access.isIdentityProviderAdmin(identityProviderId)
      ? Effect.succeed(access)
      : deny(
          `the ParticipantAdmin right or IdentityProviderAdmin of identity provider "${identityProviderId}" is required`
        )
  )

export const requireActAs = (party: string): Effect.Effect<UserAccess, PermissionDenied, AuthenticatedUser> =>
  Effect.flatMap(AuthenticatedUser, (access) =>
    access.canActAs(party) ? Effect.succeed(access) : deny(`the CanActAs right for ${party} is required`)
  )

export const requireReadAs = (party: string): Effect.Effect<UserAccess, PermissionDenied, AuthenticatedUser> =>
  Effect.flatMap(AuthenticatedUser, (access) =>
    access.canReadAs(party) ? Effect.succeed(access) : deny(`the CanReadAs right for ${party} is required`)
  )

export const requireExecuteAs = (party: string): Effect.Effect<UserAccess, PermissionDenied, AuthenticatedUser> =>
  Effect.flatMap(AuthenticatedUser, (access) =>
    access.canExecuteAs(party) ? Effect.succeed(access) : deny(`the CanExecuteAs right for ${party} is required`)
  )

// ---------------------------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------------------------

/** `Authorization: Bearer <token>`. */
export const bearerToken = (headers: Headers.Headers): string | undefined => bearerTokenOf(headers["authorization"])

/** The token of an Authorization header's value (`Bearer <token>`). */
export const bearerTokenOf = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value)
  return match?.[1]
}

/**
 * `Sec-WebSocket-Protocol: jwt.token.<token>, daml.ws.auth` (the websocket form; the reference's
 * apiKeyAuth scheme). A bare JWT in the header is accepted too.
 */
export const websocketToken = (headers: Headers.Headers): string | undefined => {
  const value = headers["sec-websocket-protocol"]
  if (value === undefined) return undefined
  const parts = value.split(",").map((p) => p.trim())
  const prefixed = parts.find((part) => part.startsWith(WEBSOCKET_TOKEN_PREFIX))
  if (prefixed !== undefined) return prefixed.slice(WEBSOCKET_TOKEN_PREFIX.length)
  // `daml.ws.auth` has a JWT's shape (three dotted parts): it is the protocol name, never a token.
  return parts.find((part) => part !== "daml.ws.auth" && /^[\w-]+\.[\w-]+\.[\w-]*$/.test(part))
}

// ---------------------------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------------------------

export interface AuthenticatorService {
  /** Verifies a token (signature, issuer, audience, expiry, scope) and names its subject. */
  readonly verify: (token: string) => Effect.Effect<Subject, Unauthenticated>
  /** The subject's user: it must exist in its identity provider and be active. */
  readonly resolve: (subject: Subject) => Effect.Effect<UserAccess, PermissionDenied>
  /** Like `resolve`, but a user that does not exist (yet) is `undefined` instead of a denial. */
  readonly resolveIfExists: (subject: Subject) => Effect.Effect<UserAccess | undefined, PermissionDenied>
  /**
   * `verify` then `resolveIfExists` as a plain call, for the reads without a fiber (read-routes.ts):
   * the subject and its user (undefined: none yet) of a token whose signature was verified before,
   * every other check made now, on the current users and providers. Undefined when the token would
   * need verifying or any check fails: the Effect path then verifies it, or answers the failure.
   */
  readonly knownNow: (token: string, settings: AuthSettings, nowMillis: number) => KnownCaller | undefined
}

/** Who calls, as `knownNow` found it. */
export interface KnownCaller {
  readonly subject: Subject
  readonly access: UserAccess | undefined
}

export class Authenticator extends Context.Tag("@sandnet/http/Authenticator")<Authenticator, AuthenticatorService>() {
  static readonly layer: Layer.Layer<Authenticator, never, Admin.UserManagement> = Layer.effect(
    Authenticator,
    Effect.gen(function* () {
      const users = yield* Admin.UserManagement
      return makeAuthenticator(users)
    })
  )
}

const utf8 = new TextEncoder()

const joseReason = (error: unknown): string => {
  if (error instanceof JoseErrors.JWTExpired) return "the token has expired"
  if (error instanceof JoseErrors.JWTClaimValidationFailed) return `claim ${error.claim} is invalid: ${error.message}`
  if (error instanceof JoseErrors.JWSSignatureVerificationFailed) return "the token signature does not verify"
  if (error instanceof JoseErrors.JOSEAlgNotAllowed) return `algorithm not allowed: ${error.message}`
  if (error instanceof JoseErrors.JWKSNoMatchingKey) return "no key of the identity provider's JWKS matches the token"
  if (error instanceof JoseErrors.JWKSTimeout) return "fetching the identity provider's JWKS timed out"
  if (error instanceof JoseErrors.JOSEError) return `${error.code}: ${error.message}`
  return `the identity provider's JWKS could not be fetched (${error instanceof Error ? error.message : String(error)})`
}

const checkSubjectAndScope = (claims: JWTPayload): Either.Either<string, Unauthenticated> => {
  const scope = claims["scope"]
  if (scope !== undefined) {
    const scopes = (typeof scope === "string" ? scope.split(" ") : Array.isArray(scope) ? scope.map(String) : []).filter((s) => s !== "")
    // Canton accepts audience-based tokens, whose scope is empty (LocalNet's SDK config sends `scope: ""`).
    const audienceBased = scopes.length === 0 && claims.aud !== undefined
    if (!audienceBased && !scopes.includes(LEDGER_API_SCOPE)) {
      return Either.left(new Unauthenticated({ reason: `the scope claim must contain ${LEDGER_API_SCOPE}` }))
    }
  }
  const sub = claims.sub
  if (sub === undefined || sub === "") {
    return Either.left(new Unauthenticated({ reason: "the token has no sub claim naming the ledger user" }))
  }
  return Either.right(sub)
}

/** Remote key sets, per provider and URL, so that a changed jwksUrl starts a fresh cache. */
const makeKeySets = () => {
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>()
  return (config: Admin.IdentityProviderConfig, settings: AuthSettings) => {
    const key = `${config.identityProviderId}\n${config.jwksUrl}`
    let keySet = keySets.get(key)
    if (keySet === undefined) {
      for (const existing of keySets.keys()) {
        if (existing.startsWith(`${config.identityProviderId}\n`)) keySets.delete(existing)
      }
      keySet = createRemoteJWKSet(new URL(config.jwksUrl), {
        cacheMaxAge: settings.jwksCacheMaxAgeMillis,
        timeoutDuration: settings.jwksTimeoutMillis
      })
      keySets.set(key, keySet)
    }
    return keySet
  }
}

/** The most verified tokens remembered (the oldest is forgotten first): one per client is the usual need. */
export const MAX_VERIFIED_TOKENS = 4096

/**
 * Tokens whose signature was verified, with the claims and the verifier's settings they were
 * verified under: a client sends the same token with every request, and checking an HMAC or RSA
 * signature each time costs more than the rest of a simple read. Expiry, provider deactivation and
 * configuration changes are still checked on every request.
 */
const makeVerifiedTokens = () => {
  const verified = new Map<string, { readonly under: string; readonly payload: JWTPayload }>()
  const remember = (token: string, under: string, payload: JWTPayload): void => {
    if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value as string)
    verified.set(token, { under, payload })
  }
  const recall = (token: string, under: string, nowSeconds: number, leeway: number): JWTPayload | undefined => {
    const hit = verified.get(token)
    if (hit === undefined || hit.under !== under) return undefined
    if (typeof hit.payload.exp === "number" && hit.payload.exp + leeway <= nowSeconds) {
      verified.delete(token)
      return undefined
    }
    return hit.payload
  }
  /** The claims of a token verified before (under any settings; `recall` checks them). */
  const claimsOf = (token: string): JWTPayload | undefined => verified.get(token)?.payload
  return { remember, recall, claimsOf }
}

/** What a provider's tokens are verified under: a change of any of these verifies them again. */
const providerUnder = (provider: Admin.IdentityProviderConfig): string =>
  `idp\n${provider.identityProviderId}\n${provider.issuer}\n${provider.jwksUrl}\n${provider.audience ?? ""}`

/** What the node's own (HS256) tokens are verified under. */
const secretUnder = (settings: AuthSettings): string => `dev\n${settings.secret}\n${settings.audience ?? ""}`

type VerifiedTokens = ReturnType<typeof makeVerifiedTokens>

/** What verifying one token needs: the verifier's settings, the time, and the caches. */
interface Verification {
  readonly token: string
  readonly settings: AuthSettings
  readonly now: Date
  readonly tokens: VerifiedTokens
}

/** A token of a configured identity provider: RS256 against its JWKS, its issuer and audience. */
const verifyProviderToken = (
  { token, settings, now, tokens }: Verification,
  provider: Admin.IdentityProviderConfig,
  keySetOf: ReturnType<typeof makeKeySets>
): Effect.Effect<Subject, Unauthenticated> =>
  Effect.gen(function* () {
    if (provider.isDeactivated) {
      return yield* Effect.fail(new Unauthenticated({ reason: `identity provider "${provider.identityProviderId}" is deactivated` }))
    }
    const under = providerUnder(provider)
    const known = tokens.recall(token, under, Math.floor(now.getTime() / 1000), settings.leewaySeconds)
    if (known !== undefined) {
      const userId = yield* checkSubjectAndScope(known)
      return { userId, identityProviderId: provider.identityProviderId, claims: known }
    }
    const keySet = keySetOf(provider, settings)
    const verified = yield* Effect.tryPromise({
      try: () =>
        jwtVerify(token, keySet, {
          algorithms: ["RS256"],
          issuer: provider.issuer,
          ...(provider.audience !== undefined ? { audience: provider.audience } : {}),
          clockTolerance: settings.leewaySeconds,
          currentDate: now
        }),
      catch: (error) => new Unauthenticated({ reason: joseReason(error) })
    })
    const userId = yield* checkSubjectAndScope(verified.payload)
    tokens.remember(token, under, verified.payload)
    return { userId, identityProviderId: provider.identityProviderId, claims: verified.payload }
  })

/** Any other token: HS256 signed with the node's secret (the default identity provider's users). */
const verifySecretToken = ({ token, settings, now, tokens }: Verification, issuer: string | undefined): Effect.Effect<Subject, Unauthenticated> =>
  Effect.gen(function* () {
    const under = secretUnder(settings)
    const known = tokens.recall(token, under, Math.floor(now.getTime() / 1000), settings.leewaySeconds)
    if (known !== undefined) {
      const userId = yield* checkSubjectAndScope(known)
      return { userId, identityProviderId: Admin.DEFAULT_IDENTITY_PROVIDER_ID, claims: known }
    }
    const verified = yield* Effect.tryPromise({
      try: () =>
        jwtVerify(token, utf8.encode(settings.secret), {
          algorithms: ["HS256"],
          ...(settings.audience !== undefined ? { audience: settings.audience } : {}),
          clockTolerance: settings.leewaySeconds,
          currentDate: now
        }),
      catch: (error) =>
        new Unauthenticated({
          reason:
            error instanceof JoseErrors.JOSEAlgNotAllowed
              ? `the issuer ${issuer === undefined ? "(none)" : JSON.stringify(issuer)} matches no identity provider, ` +
                "and other tokens must be HS256 tokens signed with the node's secret"
              : joseReason(error)
        })
    })
    const userId = yield* checkSubjectAndScope(verified.payload)
    tokens.remember(token, under, verified.payload)
    return { userId, identityProviderId: Admin.DEFAULT_IDENTITY_PROVIDER_ID, claims: verified.payload }
  })

/** The subject's user record must belong to the token's identity provider and be active. */
const checkUser = (subject: Subject, record: Admin.UserRecord): Either.Either<UserAccess, PermissionDenied> => {
  if (record.user.identityProviderId !== subject.identityProviderId) {
    return Either.left(
      new PermissionDenied({
        reason: `user "${subject.userId}" is not managed by identity provider "${subject.identityProviderId}"`
      })
    )
  }
  if (record.user.isDeactivated) {
    return Either.left(new PermissionDenied({ reason: `user "${subject.userId}" is deactivated` }))
  }
  return Either.right(userAccess(subject, record))
}

export const makeAuthenticator = (users: Admin.UserManagementService): AuthenticatorService => {
  const keySetOf = makeKeySets()
  const tokens = makeVerifiedTokens()

  /** A token whose issuer is a configured identity provider's is that provider's; any other is the node's. */
  const verify = (token: string): Effect.Effect<Subject, Unauthenticated> =>
    Effect.gen(function* () {
      const settings = yield* AuthConfig
      const now = new Date(yield* Clock.currentTimeMillis)
      const unverified = yield* Effect.try({
        try: () => decodeJwt(token),
        catch: () => new Unauthenticated({ reason: "the token is not a well-formed JWT" })
      })
      const issuer = typeof unverified.iss === "string" ? unverified.iss : undefined
      const provider = issuer === undefined ? undefined : yield* users.identityProviderByIssuer(issuer)
      const verification = { token, settings, now, tokens }
      return yield* provider !== undefined ? verifyProviderToken(verification, provider, keySetOf) : verifySecretToken(verification, issuer)
    })

  const resolveIfExists = (subject: Subject): Effect.Effect<UserAccess | undefined, PermissionDenied> =>
    users.getUser(subject.userId).pipe(
      Effect.option,
      Effect.flatMap((found) => (found._tag === "None" ? Effect.succeed(undefined) : checkUser(subject, found.value)))
    )

  const resolve = (subject: Subject): Effect.Effect<UserAccess, PermissionDenied> =>
    Effect.flatMap(resolveIfExists(subject), (access) =>
      access === undefined
        ? Effect.fail(new PermissionDenied({ reason: `user "${subject.userId}" does not exist` }))
        : Effect.succeed(access)
    )

  const knownNow = (token: string, settings: AuthSettings, nowMillis: number): KnownCaller | undefined => {
    const claims = tokens.claimsOf(token)
    if (claims === undefined) return undefined
    const state = users.stateNow()
    const provider = typeof claims.iss === "string" ? Admin.identityProviderByIssuer(state, claims.iss) : undefined
    if (provider?.isDeactivated === true) return undefined
    const known = tokens.recall(token, provider === undefined ? secretUnder(settings) : providerUnder(provider), Math.floor(nowMillis / 1000), settings.leewaySeconds)
    const userId = known === undefined ? undefined : checkSubjectAndScope(known)
    if (known === undefined || userId === undefined || Either.isLeft(userId)) return undefined
    const subject: Subject = { userId: userId.right, identityProviderId: provider?.identityProviderId ?? Admin.DEFAULT_IDENTITY_PROVIDER_ID, claims: known }
    const record = Admin.getUser(state, subject.userId, undefined)
    if (Either.isLeft(record)) return { subject, access: undefined }
    const access = checkUser(subject, record.right)
    return Either.isLeft(access) ? undefined : { subject, access: access.right }
  }

  return { verify, resolve, resolveIfExists, knownNow }
}
