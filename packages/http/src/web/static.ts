/**
 * The web pages' bundle (packages/web, built into its dist/ folder by `npm install`, see
 * packages/web/build.mjs): `/`, `/wallet`, `/scan`, `/dev` and their sub-paths answer the page
 * (one HTML document; the page routes itself), `/assets/<file>` the scripts and styles. Nothing
 * is fetched from elsewhere at run time.
 *
 * The bundle is found at `SANDNET_WEB_DIST` or next to the `@sandnet/web` package; a node whose
 * bundle is missing answers the pages 503 saying how to build it.
 */
import { HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, extname, join, normalize } from "node:path"

/** The folder of the built pages, or undefined when it cannot be found. */
export const webDistDir = (): string | undefined => {
  const configured = process.env["SANDNET_WEB_DIST"]
  if (configured !== undefined && configured !== "") return configured
  try {
    const dir = join(dirname(createRequire(import.meta.url).resolve("@sandnet/web/package.json")), "dist")
    return existsSync(dir) ? dir : undefined
  } catch {
    return undefined
  }
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon"
}

const notBuilt = () =>
  HttpServerResponse.unsafeJson(
    { error: "the web pages are not built: run `npm install` (or `node packages/web/build.mjs`) in the Sandnet checkout" },
    { status: 503 }
  )

const fileAnswer = (dir: string, name: string, cache: string) =>
  Effect.tryPromise(() => readFile(join(dir, name))).pipe(
    Effect.map((bytes) =>
      HttpServerResponse.uint8Array(bytes, {
        contentType: CONTENT_TYPES[extname(name)] ?? "application/octet-stream",
        headers: { "cache-control": cache }
      })
    ),
    Effect.orElseSucceed(() => HttpServerResponse.unsafeJson({ error: `no asset ${name}` }, { status: 404 }))
  )

const page = Effect.suspend(() => {
  const dir = webDistDir()
  return dir === undefined ? Effect.succeed(notBuilt()) : fileAnswer(dir, "index.html", "no-cache")
})

const asset = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
  const dir = webDistDir()
  if (dir === undefined) return Effect.succeed(notBuilt())
  const name = normalize(decodeURIComponent(new URL(request.url, "http://x").pathname)).replace(/^\/+/, "")
  // only files of the assets folder, never a path that climbs out of it
  if (!name.startsWith("assets/") || name.includes("..")) return Effect.succeed(HttpServerResponse.unsafeJson({ error: "not found" }, { status: 404 }))
  return fileAnswer(dir, name, "no-cache")
})

const PAGES = ["/", "/wallet", "/wallet/*", "/scan", "/scan/*", "/dev", "/dev/*"] as const

/** One Layer for all of them (a Layer per route costs its build at every start). */
export const StaticRoutes = HttpLayerRouter.use((router) =>
  router.addAll([HttpLayerRouter.route("GET", "/assets/*", asset), ...PAGES.map((path) => HttpLayerRouter.route("GET", path, page))])
)
