/**
 * Dev tokens (`sandnet token --user <id>`): HS256 user tokens that the node accepts in dev mode.
 * Apart from auth.ts so that the token command can load this alone (a few modules, not the node).
 */
import { Clock, Effect } from "effect"
import { SignJWT } from "jose"

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
  Effect.gen(function* () {
    const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    let jwt = new SignJWT({ scope: options.scope ?? LEDGER_API_SCOPE })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(options.user)
      .setIssuedAt(nowSeconds)
    if (options.audience !== undefined) jwt = jwt.setAudience(options.audience)
    if (options.expiresInSeconds !== undefined) jwt = jwt.setExpirationTime(nowSeconds + options.expiresInSeconds)
    const signer = jwt
    return yield* Effect.promise(() => signer.sign(new TextEncoder().encode(options.secret ?? DEFAULT_DEV_SECRET)))
  })
