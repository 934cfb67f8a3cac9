/**
 * OpenAPI documents of the four surfaces, generated from the same endpoint Schemas that decode the
 * requests, and the `/docs` pages:
 *
 *   GET /docs                 an index of the documents
 *   GET /docs/<surface>.json  the OpenAPI document (scan, wallet, registry, ledger)
 *   GET /docs/<surface>       the document in Scalar's API reference UI (bundled, no CDN)
 *
 * `@effect/platform` documents every endpoint with its own decode error (HttpApiDecodeError); the
 * `OpenApi.Transform` annotation below replaces it with what the node really answers: `{error}`
 * bodies on scan, wallet and registry; `text/plain` 400 and the `JsCantonError` default on the
 * ledger. It also adds the security schemes and names path parameters as the reference does.
 */
import { HttpApi, HttpApiScalar, HttpLayerRouter, HttpServerResponse, OpenApi, OpenApiJsonSchema } from "@effect/platform"
import { Effect, Layer } from "effect"
import { ErrorResponse, JsCantonError, type SurfaceName } from "./errors.ts"
import { LedgerApi } from "./ledger/index.ts"
import { RegistryApi } from "./registry/index.ts"
import { ScanApi } from "./scan/index.ts"
import { ScanUpstreamGroup } from "./scan/upstream/index.ts"
import { TrafficStatusGroup } from "./scan/traffic-status.ts"
import { TransferFactoryGroup } from "./registry/transfer-factory.ts"
import { AllocationGroup } from "./registry/allocation.ts"
import { ScanProxyGroup } from "./wallet/scan-proxy.ts"
import { RESERVED_SUMMARY, Surfaces, type Surface, mergeRoutes } from "./surface.ts"
import { WalletApi } from "./wallet/index.ts"

type Json = Record<string, unknown>

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const errorContent = { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } }
const errorResponse = (description: string) => ({ description, content: errorContent })

/** Rewrites the generated document to what the surface answers. */
export const fixDocument =
  (surface: Surface) =>
  (input: Json): Json => {
    const spec = structuredClone(input)
    const components = (isRecord(spec["components"]) ? spec["components"] : {}) as Json
    const schemas = (isRecord(components["schemas"]) ? components["schemas"] : {}) as Json
    for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete schemas[name]
    const defs: Record<string, unknown> = {}
    if (surface.name === "ledger") {
      OpenApiJsonSchema.makeWithDefs(JsCantonError, { defs })
    } else {
      OpenApiJsonSchema.makeWithDefs(ErrorResponse, { defs })
    }
    Object.assign(schemas, defs)
    components["schemas"] = schemas
    const securitySchemes: Json = isRecord(components["securitySchemes"]) ? components["securitySchemes"] : {}
    if (surface.auth !== "open") {
      securitySchemes["httpAuth"] = {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description:
          surface.name === "wallet"
            ? "JWT whose sub is the ledger user of the wallet"
            : "Ledger API standard JWT token"
      }
    }
    if (surface.auth === "ledger") {
      securitySchemes["apiKeyAuth"] = {
        type: "apiKey",
        in: "header",
        name: "Sec-WebSocket-Protocol",
        description: "Ledger API standard JWT token (websocket): jwt.token.<token>, daml.ws.auth"
      }
    }
    components["securitySchemes"] = securitySchemes
    spec["components"] = components

    const paths = isRecord(spec["paths"]) ? spec["paths"] : {}
    const renamed: Json = {}
    for (const [path, item] of Object.entries(paths)) {
      const newPath = path.replace(/\{(\w+)\}/g, (_, name: string) => `{${surface.displayParam(name)}}`)
      if (isRecord(item)) {
        for (const [method, op] of Object.entries(item)) {
          if (isRecord(op)) fixOperation(surface, op, method, path)
        }
      }
      renamed[newPath] = item
    }
    spec["paths"] = renamed
    return spec
  }

/**
 * Ledger operations that can answer 409: command submissions (DUPLICATE_COMMAND,
 * SUBMISSION_ALREADY_IN_FLIGHT, a contract locked or archived meanwhile) and the admin writes
 * (USER_ALREADY_EXISTS, PARTY_ALREADY_EXISTS, a concurrent update, ...). Matched on the path as declared.
 */
const LEDGER_CONFLICTS = /^\/v2\/(commands\/(submit|async)|interactive-submission\/execute|users|idps|parties|dars|packages$|package-vetting$|package-vetting\/update)/

const canonError = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/JsCantonError" } } } })

/** The wallet's 409 of createTransferPreapproval names the existing preapproval, as Splice's CreateTransferPreapprovalResponse does. */
const preapprovalConflict = {
  description: "A transfer preapproval already exists: its contract id",
  content: {
    "application/json": {
      schema: {
        type: "object",
        required: ["error", "transfer_preapproval_contract_id"],
        properties: { error: { type: "string" }, transfer_preapproval_contract_id: { type: "string" } }
      }
    }
  }
}

/** The statuses an operation answers besides 400, 401, 403, 404, 413 and 500: 409, 429, 501, 503 where they can occur. */
const conflictResponses = (surface: Surface, op: Json, method: string, path: string, isReserved: boolean): Json => {
  const extra: Json = {}
  if (isReserved) {
    extra["501"] = surface.name === "ledger" ? canonError("Not implemented by this node yet (UNSUPPORTED_OPERATION)") : errorResponse("Not implemented by this node yet")
    return extra
  }
  const writes = method !== "get" && method !== "head"
  switch (surface.name) {
    case "ledger":
      if (writes && LEDGER_CONFLICTS.test(path)) extra["409"] = canonError("Conflict: the resource exists already, or a concurrent command or update (ALREADY_EXISTS, ABORTED)")
      break
    case "wallet":
      if (writes) {
        extra["409"] = op["operationId"] === "wallet.createTransferPreapproval" ? preapprovalConflict : errorResponse("Conflict: the tracking id was used, the contract changed meanwhile, or the thing exists already")
        extra["429"] = errorResponse("A command with this tracking id (or these contracts) is being processed: retry with back-off")
        extra["503"] = errorResponse("The network is not ready, or the command's outcome is not known yet: retry")
      }
      break
    case "registry":
      if (writes) extra["409"] = errorResponse("Conflict: the instruction or a contract it needs is being changed or is archived")
      break
    case "scan":
      break
  }
  return extra
}

const fixOperation = (surface: Surface, op: Json, method: string, path: string): void => {
  const responses = isRecord(op["responses"]) ? op["responses"] : {}
  const isReserved = op["summary"] === RESERVED_SUMMARY
  const kept: Json = {}
  for (const [status, response] of Object.entries(responses)) {
    if (status.startsWith("2") && !isReserved) kept[status] = response
  }
  if (Array.isArray(op["parameters"])) {
    for (const parameter of op["parameters"]) {
      if (isRecord(parameter) && parameter["in"] === "path" && typeof parameter["name"] === "string") {
        parameter["name"] = surface.displayParam(parameter["name"])
      }
    }
  }
  Object.assign(kept, conflictResponses(surface, op, method, path, isReserved))
  if (surface.name === "ledger") {
    kept["400"] = {
      description: "Invalid value for: body, path parameter or query parameter (the text names which)",
      content: { "text/plain": { schema: { type: "string" } } }
    }
    kept["default"] = {
      description: "Standard error body",
      content: { "application/json": { schema: { $ref: "#/components/schemas/JsCantonError" } } }
    }
    op["security"] = [{ httpAuth: [] }, { apiKeyAuth: [] }]
  } else {
    kept["400"] = errorResponse("Bad request: malformed JSON or an invalid field")
    if (surface.auth === "wallet") {
      kept["401"] = errorResponse("Missing or invalid bearer token")
      kept["403"] = errorResponse("The token's user is deactivated or lacks a right")
      op["security"] = [{ httpAuth: [] }]
    }
    kept["404"] = errorResponse("Not found")
    kept["413"] = errorResponse("Request body too large")
    kept["500"] = errorResponse("Internal error")
  }
  // Statuses in order, `default` last.
  op["responses"] = Object.fromEntries(Object.entries(kept).sort(([a], [b]) => (a === "default" ? 1 : b === "default" ? -1 : Number(a) - Number(b))))
}

const withDocumentFixes = <A extends HttpApi.HttpApi.Any>(api: A, surface: Surface): A =>
  (api as unknown as HttpApi.HttpApi.AnyWithProps).annotate(OpenApi.Transform, fixDocument(surface)) as unknown as A

/** The API declarations whose documents are served, by surface. */
export const SurfaceApis = {
  scan: withDocumentFixes(ScanApi.add(ScanUpstreamGroup).add(TrafficStatusGroup), Surfaces.scan),
  wallet: withDocumentFixes(WalletApi.add(ScanProxyGroup), Surfaces.wallet),
  registry: withDocumentFixes(RegistryApi.add(TransferFactoryGroup).add(AllocationGroup), Surfaces.registry),
  ledger: withDocumentFixes(LedgerApi, Surfaces.ledger)
} as const

const SURFACE_ORDER: ReadonlyArray<SurfaceName> = ["scan", "wallet", "registry", "ledger"]

/** The OpenAPI document of a surface. */
export const openApiDocument = (surface: SurfaceName): OpenApi.OpenAPISpec =>
  OpenApi.fromApi(SurfaceApis[surface] as unknown as HttpApi.HttpApi.AnyWithProps)

const indexPage = (): string => {
  const rows = SURFACE_ORDER.map((name) => {
    const surface = Surfaces[name]
    const spec = openApiDocument(name)
    const count = Object.values(spec.paths).reduce((n, item) => n + Object.keys(item).length, 0)
    return `<li><strong>${surface.title}</strong> (${surface.roots.join(", ")}): ${count} operation${count === 1 ? "" : "s"} ·
      <a href="/docs/${name}">reference</a> · <a href="/docs/${name}.json">OpenAPI JSON</a></li>`
  }).join("\n")
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandnet API documents</title>
<style>body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;line-height:1.6}</style></head>
<body><h1>Sandnet API documents</h1>
<p>One node, four surfaces on one port. Each document is generated from the Schemas that decode the requests.</p>
<ul>
${rows}
</ul></body></html>`
}

/**
 * A response built on the first request and kept: building a document walks every Schema of its
 * surface, which was a tenth of the CPU of `sandnet start` (profile) when done at start.
 */
const builtOnFirstRequest = (path: `/${string}`, build: Effect.Effect<HttpServerResponse.HttpServerResponse>) =>
  Layer.unwrapEffect(Effect.map(Effect.cached(build), (response) => HttpLayerRouter.add("GET", path, response)))

/** The /docs routes. */
export const DocsRoutes = mergeRoutes(
  builtOnFirstRequest("/docs", Effect.sync(() => HttpServerResponse.html(indexPage()))),
  ...SURFACE_ORDER.map((name) => builtOnFirstRequest(`/docs/${name}.json`, Effect.sync(() => HttpServerResponse.unsafeJson(openApiDocument(name))))),
  // Scalar's pages: built at their first request in the bundle (lazyScalarPagesPlugin, bin/build.mjs).
  ...SURFACE_ORDER.map((name) => HttpApiScalar.layerHttpLayerRouter({ api: SurfaceApis[name], path: `/docs/${name}` }))
)
