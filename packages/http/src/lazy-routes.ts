/**
 * Route groups whose modules are loaded at their first request.
 *
 * Evaluating the surfaces' modules (effect Schema building their ~600 structs and ~170 endpoint
 * declarations) and adding their ~200 routes was about a third of `sandnet start --in-memory`
 * (--cpu-prof, and CPU marks between the bundle's modules). A group is the routes under a few path
 * roots: the node's router holds `root` and `root/*` for each, and the first request under them
 * imports the group's module, builds its route Layers on a router of their own (with the context
 * the group was built in, as an eager build would have given them) and hands the request to it;
 * later requests go to that router at once. Every route under a root must be in the group, so that
 * the group's router sees the same routes the node's router would have (find-my-way prefers a
 * static segment over a parameter over a wildcard only among routes of one router).
 */
import { HttpLayerRouter, type HttpServerRequest, HttpServerError, type HttpServerResponse } from "@effect/platform"
import { Context, Deferred, Effect, Layer, type Scope } from "effect"
import { MAX_PATH_SEGMENT_LENGTH } from "./request-guards.ts"
import { ANY_METHOD } from "./surface.ts"

/**
 * The node's router settings (`serve` and the groups' routers). Path parameters carry suffixed
 * contract ids (134 characters) and party ids (up to 255): find-my-way's default limit of 100 would
 * answer them 404 before any route runs. Paths match exactly, as Canton and Splice match them:
 * case-sensitive, and a trailing slash is another path (find-my-way's defaults ignore both).
 */
export const ROUTER_CONFIG = { maxParamLength: MAX_PATH_SEGMENT_LENGTH, caseSensitive: true, ignoreTrailingSlash: false } as const

export interface LazyGroup<R, S = never> {
  /** Every route of the group is one of these paths or under one (`root/...`). */
  readonly roots: ReadonlyArray<`/${string}`>
  /** The group's route Layers (a dynamic import, so that the bundle keeps them in a chunk of their own). */
  readonly load: () => Promise<Layer.Layer<never, never, R>>
  /** Run when the group is built (at start): what must fail the start rather than the first request. */
  readonly atStart?: Effect.Effect<void, never, S> | undefined
}

/** A group (a function, so that its context is inferred from its loader). */
export const lazyGroup = <R, S = never>(group: LazyGroup<R, S>): LazyGroup<R, S> => group

type ContextOf<G> = G extends LazyGroup<infer R, infer S> ? R | S : never

type App = Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest | Scope.Scope>

/**
 * The group's router as an app, built once (at the first request; later ones wait for the same
 * build, and once it is there run it directly).
 */
const loader = <R>(group: LazyGroup<R, R>, context: Context.Context<R>, scope: Scope.Scope) =>
  Effect.gen(function* () {
    const built = yield* Deferred.make<App>()
    // built with exactly the services the group was built with, as an eager build would have been
    // (not with those of the request that came first)
    const build = Effect.gen(function* () {
      const routes = yield* Effect.promise(group.load)
      const router = Layer.provide(HttpLayerRouter.layer, Layer.succeed(HttpLayerRouter.RouterConfig, ROUTER_CONFIG))
      const services = yield* Layer.buildWithScope(Layer.provideMerge(routes, router), scope)
      return Context.get(services, HttpLayerRouter.HttpRouter).asHttpEffect()
    }).pipe(Effect.mapInputContext((_: Context.Context<never>) => context))
    let started = false
    // Once built, the group's router is taken as it is, without waiting on the Deferred each request.
    let ready: App | undefined
    // The build runs in the group's scope, not in the request's fiber: a request that goes away
    // does not interrupt it.
    return Effect.suspend((): App => {
      if (ready !== undefined) return ready
      const awaitBuilt = Effect.flatMap(Deferred.await(built), (app) => (ready = app))
      if (started) return awaitBuilt
      started = true
      return Effect.zipRight(Effect.forkIn(Effect.intoDeferred(build, built), scope), awaitBuilt)
    })
  })

/**
 * One Layer adding the groups' roots to the node's router. `notFound` answers a request that the
 * group's routes do not take (as the node's router would have answered it: the groups of the
 * surfaces have their own not-found routes, /docs does not).
 */
export const lazyRoutes = <const Groups extends ReadonlyArray<LazyGroup<unknown, unknown>>>(
  notFound: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>,
  ...groups: Groups
): Layer.Layer<never, never, HttpLayerRouter.HttpRouter | Exclude<ContextOf<Groups[number]>, HttpLayerRouter.HttpRouter | Scope.Scope>> =>
  HttpLayerRouter.use((router) =>
    Effect.gen(function* () {
      const context = yield* Effect.context<ContextOf<Groups[number]>>()
      const scope = yield* Effect.scope
      const routes: Array<HttpLayerRouter.Route<never, HttpServerRequest.HttpServerRequest | Scope.Scope>> = []
      for (const group of groups as ReadonlyArray<LazyGroup<ContextOf<Groups[number]>, ContextOf<Groups[number]>>>) {
        if (group.atStart !== undefined) yield* group.atStart
        const app = yield* loader(group, context, scope)
        const handler = app.pipe(
          Effect.catchAll((error) => (HttpServerError.isServerError(error) && error._tag === "RouteNotFound" ? notFound : Effect.die(error)))
        )
        // the methods of the surfaces' not-found routes (every method a route is added for; HEAD finds GET)
        for (const root of group.roots) {
          for (const path of [root, `${root}/*` as const]) routes.push(...ANY_METHOD.map((method) => HttpLayerRouter.route(method, path, handler)))
        }
      }
      yield* router.addAll(routes)
    })
  ) as never
