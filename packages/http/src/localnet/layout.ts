/**
 * LocalNet's layout (Splice's cluster/compose/localnet, as the Wallet SDK's `localNetStaticConfig`
 * addresses it), served by one Sandnet node so that code written for LocalNet runs unchanged:
 *
 *   2975  the app user's participant: ledger JSON API (/v2) of the validator's participant
 *   3975  the super validator's participant: ledger JSON API (/v2) of sv1's participant
 *   2000  the validator API (/api/validator) with its scan proxy (/api/validator/v0/scan-proxy)
 *   4000  scan at http://scan.localhost:4000/api/scan: routed by Host, as LocalNet's proxy does
 *   5003  the token standard registry (/registry)
 *
 * Every port serves the node's routes (a LocalNet client only calls what its port is for); `/v2`
 * differs by port in the participant it serves. `--port-offset N` shifts every port by N so that
 * parallel tests do not collide. The node speaks the upstream dialect (dialect/names.ts), its
 * ledger user is `ledger-api-user` and its tokens are HS256 with the secret `unsafe` and the
 * audience `https://canton.network.global`, as LocalNet's.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Dialect } from "../dialect/index.ts"
import { LedgerApiConfig } from "../ledger/context.ts"
import type { ReadRoutes } from "../read-routes.ts"
import { serve, type ServeOptions } from "../server.ts"
import { mergeRoutes } from "../surface.ts"

export const LOCALNET_USER = "ledger-api-user"
export const LOCALNET_SECRET = "unsafe"
export const LOCALNET_AUDIENCE = "https://canton.network.global"
/** The Host LocalNet's proxy routes to scan on its port 4000. */
export const SCAN_HOST = "scan.localhost"

export const LOCALNET_PORTS = {
  appUserLedger: 2975,
  svLedger: 3975,
  validator: 2000,
  scan: 4000,
  registry: 5003
} as const

export type LocalNetPorts = { readonly [K in keyof typeof LOCALNET_PORTS]: number }

export const localNetPorts = (offset: number): LocalNetPorts => ({
  appUserLedger: LOCALNET_PORTS.appUserLedger + offset,
  svLedger: LOCALNET_PORTS.svLedger + offset,
  validator: LOCALNET_PORTS.validator + offset,
  scan: LOCALNET_PORTS.scan + offset,
  registry: LOCALNET_PORTS.registry + offset
})

export interface LocalNetOptions {
  readonly portOffset: number
  readonly host: string
  readonly logRequests?: boolean | undefined
  /** The node whose participant 2975 serves (default: the first validator). */
  readonly appUserNode?: string | undefined
  /** The node whose participant 3975 serves. */
  readonly svNode?: string | undefined
  /**
   * The read and write routes each port answers before its router (`ServeOptions.reads`; `sandnet
   * start` gives `NodeReadRoutes`): with LocalNet's layout the Wallet SDK's calls take them too.
   * Scan's port, whose routes answer only its Host, takes none.
   */
  readonly reads?: ReadRoutes | undefined
}

/** The host name of a request, without its port. */
const hostName = (request: HttpServerRequest.HttpServerRequest): string => (request.headers["host"] ?? "").replace(/:\d+$/, "").toLowerCase()

/**
 * Only requests for `host` reach the routes; others get LocalNet's proxy answer for an unknown
 * virtual host (404). `middleware` wraps the whole app, before routing.
 */
export const onlyForHost =
  (host: string) =>
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      hostName(request) === host
        ? app
        : Effect.succeed(HttpServerResponse.unsafeJson({ error: `no service for host ${JSON.stringify(hostName(request))} on this port: use Host: ${host}` }, { status: 404 }))
    )

/**
 * LocalNet's listeners over one node: each listener is built apart (`Layer.fresh`: its own
 * router, routes and server), so `/v2` serves its own participant on each port; the engine, users
 * and storage of the context are shared. The port's ledger settings are given to its server too:
 * the ledger's write routes serve the participant of the server's settings (server.ts).
 */
export const serveLocalNet = <E, R>(routes: Layer.Layer<never, E, R>, options: LocalNetOptions) => {
  const ports = localNetPorts(options.portOffset)
  const auth = { secret: LOCALNET_SECRET }
  const listener = (port: number, participant: string | undefined, extra: Partial<ServeOptions> = {}) => {
    const ledgerSettings = LedgerApiConfig.amend({ participant })
    return Layer.fresh(
      serve(routes.pipe(Layer.provide(ledgerSettings)), {
        http: { port, host: options.host, logRequests: options.logRequests ?? false },
        auth,
        reads: options.reads,
        ...extra
      }).pipe(Layer.provide(ledgerSettings))
    )
  }
  return mergeRoutes(
    listener(ports.appUserLedger, options.appUserNode),
    listener(ports.svLedger, options.svNode ?? "sv1"),
    listener(ports.validator, options.appUserNode),
    listener(ports.scan, options.appUserNode, { middleware: onlyForHost(SCAN_HOST), reads: undefined }),
    listener(ports.registry, options.appUserNode)
  ).pipe(Layer.provide(Dialect.layer("upstream")))
}
