/**
 * The web side of the node: the pages' bundle (static.ts) and the Sandnet reads they need under
 * `/sandnet` (surface.ts): overview, health and supply (network.ts), dev tokens, live change
 * notices (events.ts) and the request log (request-log.ts). One Layer, `WebRoutes`, merged into
 * the node's routes (server.ts).
 */
import { HttpApiEndpoint, HttpLayerRouter } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { AuthConfig, DEFAULT_AUTH_SETTINGS, makeDevToken } from "../auth.ts"
import { Admin } from "../engine-admin.ts"
import { PermissionDenied } from "../errors.ts"
import { withScan } from "../scan/engine.ts"
import { bind, surfaceNotFound, mergeRoutes } from "../surface.ts"
import { liveEvents, makeGenerations } from "./events.ts"
import { GetHealth, GetOverview, GetSupply, healthOf, overviewOf, supplyOf } from "./network.ts"
import { GetRequests, RequestLogs, requestLogMiddleware, type RequestLog } from "./request-log.ts"
import { StaticRoutes } from "./static.ts"
import { WebSurface } from "./surface.ts"

export const DevTokenRequest = Schema.Struct({ user: Schema.String.pipe(Schema.pattern(/^[a-zA-Z0-9@^$.!`\-#+'~_|:]{1,128}$/)) }).annotations({
  identifier: "SandnetDevTokenRequest"
})
export const PostDevToken = HttpApiEndpoint.post("postSandnetDevToken", "/dev-token")
  .setPayload(DevTokenRequest)
  .addSuccess(Schema.Struct({ token: Schema.String }).annotations({ identifier: "SandnetDevToken" }))

/** Dev tokens are handed out only while the node verifies them with the public dev secret. */
const devTokensOffered = Effect.map(AuthConfig, (auth) => auth.secret === DEFAULT_AUTH_SETTINGS.secret)

const DEFAULT_SUPPLY_POINTS = 400

const users = Effect.flatMap(Admin.UserManagement, (management) =>
  Effect.map(Effect.orElseSucceed(management.listUsers({}), () => ({ users: [], nextPageToken: "" })), (page) => page.users)
)

const apiRoutes = (log: RequestLog) =>
  mergeRoutes(
    surfaceNotFound(WebSurface),
    bind(WebSurface, GetOverview, () =>
      Effect.gen(function* () {
        const offered = yield* devTokensOffered
        const known = offered ? yield* users : []
        return yield* withScan("GET /sandnet/overview", (view) => Effect.sync(() => overviewOf(view, offered, known)))
      })
    ),
    bind(WebSurface, GetHealth, () => withScan("GET /sandnet/health", (view) => Effect.sync(() => healthOf(view)))),
    bind(WebSurface, GetSupply, ({ urlParams }) =>
      withScan("GET /sandnet/supply", (view) => Effect.sync(() => supplyOf(view, urlParams.points ?? DEFAULT_SUPPLY_POINTS)))
    ),
    bind(WebSurface, GetRequests, ({ urlParams }) => Effect.sync(() => ({ last: log.last(), requests: log.after(urlParams.after ?? 0) }))),
    bind(WebSurface, PostDevToken, ({ payload }) =>
      Effect.gen(function* () {
        const auth = yield* AuthConfig
        if (!(yield* devTokensOffered)) {
          return yield* Effect.fail(new PermissionDenied({ reason: "this node does not use the public dev secret: log in with a token of your identity provider" }))
        }
        return { token: yield* makeDevToken({ user: payload.user, secret: auth.secret, ...(auth.audience === undefined ? {} : { audience: auth.audience }) }) }
      })
    )
  )

export const WebRoutes = Layer.unwrapEffect(
  Effect.map(RequestLogs, (log) => {
    const generationOf = makeGenerations()
    return mergeRoutes(
      requestLogMiddleware(log),
      StaticRoutes,
      HttpLayerRouter.add("GET", "/sandnet/events", liveEvents(log, generationOf)),
      apiRoutes(log)
    )
  })
)
