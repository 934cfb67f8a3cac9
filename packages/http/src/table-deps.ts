/**
 * What the table of read and write routes (read-routes.ts, write-routes.ts), which the node's
 * request listener asks before the router, needs of the node.
 */
import type { NodeRuntimeService } from "@sandnet/node"
import type { Runtime } from "effect"
import type { IncomingMessage } from "node:http"
import { bearerTokenOf, type AuthenticatorService, type AuthSettings, type KnownCaller } from "./auth.ts"
import type { NameTable } from "./dialect/index.ts"
import type { RequestLog } from "./web/request-log.ts"

/** What the reads need: the node's runtime, the token checks, the dialect, the request log, the time. */
export interface ReadDeps {
  readonly runtime: NodeRuntimeService
  readonly authenticator: AuthenticatorService
  readonly authSettings: AuthSettings
  readonly names: NameTable
  readonly log: RequestLog
  readonly nowMillis: () => number
}

/** What the writes need besides: the runtime the server was built in (its services, scheduler, logger) and the body limit. */
export interface TableDeps extends ReadDeps {
  readonly runtimeOfServer: Runtime.Runtime<never>
  readonly maxRequestBytes: number
}

/** The caller of a request whose bearer token was verified before (auth.ts's `knownNow`), else undefined: the Effect path verifies it. */
export const knownCallerOf = (request: IncomingMessage, deps: ReadDeps, at: number): KnownCaller | undefined => {
  const token = bearerTokenOf(request.headers.authorization)
  return token === undefined ? undefined : deps.authenticator.knownNow(token, deps.authSettings, at)
}
