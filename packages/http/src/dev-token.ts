/**
 * Dev tokens (`sandnet token --user <id>`): HS256 user tokens that the node accepts in dev mode.
 * Apart from auth.ts so that the token command can load this alone: `devTokenAt` needs only
 * node:crypto, so `sandnet token` loads neither Effect nor jose.
 */
import { Clock, Effect } from "effect"
import { createHmac } from "node:crypto"

/** The scope a ledger API token carries (Canton's scope-based user tokens). */
export const LEDGER_API_SCOPE = "daml_ledger_api"

/** The node's default HS256 secret of dev tokens. */
export const DEFAULT_DEV_SECRET = "unsafe"

export interface DevTokenOptions {
  /** The ledger user id (`sub`). */
  readonly user: string
  /** HS256 secret; the node's default is `unsafe`. */
  readonly secret?: string | undefined
  readonly audience?: string | undefined
  /** Absent: the token does not expire. */
  readonly expiresInSeconds?: number | undefined
  /** Default `daml_ledger_api`. */
  readonly scope?: string | undefined
}

/** An HS256 user token that the node accepts in dev mode (`sandnet token --user <id>`). */
export const makeDevToken = (options: DevTokenOptions): Effect.Effect<string> =>
  Effect.map(Clock.currentTimeMillis, (millis) => devTokenAt(options, millis))

const base64url = (json: unknown): string => Buffer.from(JSON.stringify(json)).toString("base64url")

/** The dev token issued at `nowMillis`: a compact JWS (RFC 7515) signed with HMAC-SHA256. */
export const devTokenAt = (options: DevTokenOptions, nowMillis: number): string => {
  const iat = Math.floor(nowMillis / 1000)
  const claims = {
    scope: options.scope ?? LEDGER_API_SCOPE,
    sub: options.user,
    iat,
    ...(options.audience === undefined ? {} : { aud: options.audience }),
    ...(options.expiresInSeconds === undefined ? {} : { exp: iat + options.expiresInSeconds })
  }
  const signingInput = `${base64url({ alg: "HS256", typ: "JWT" })}.${base64url(claims)}`
  const signature = createHmac("sha256", options.secret ?? DEFAULT_DEV_SECRET).update(signingInput).digest("base64url")
  return `${signingInput}.${signature}`
}
