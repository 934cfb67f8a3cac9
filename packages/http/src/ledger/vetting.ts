/**
 * Ledger surface: package vetting and preferred packages.
 *
 * - `POST /v2/package-vetting/list` (any authenticated user, as upstream) and the deprecated
 *   `GET /v2/package-vetting` (the same ListVettedPackagesRequest as its JSON body): the vetting
 *   state of each participant on each synchronizer (LedgerApi.listVettedPackages), sorted by
 *   synchronizer id then participant id, paged by `pageSize` (at most 100, the
 *   `maxVettedPackagesPageSize` of /v2/version; 0 or absent: 100) and `pageToken`.
 * - `POST /v2/interactive-submission/preferred-packages` (any authenticated user) and the
 *   deprecated `GET /v2/interactive-submission/preferred-package-version`: the highest vetted
 *   version of each package name usable by the requirement's parties (LedgerApi.preferredPackages).
 *   An unknown package name is PACKAGE_NAMES_NOT_FOUND (404); no satisfying synchronizer is
 *   PACKAGE_SELECTION_FAILED (FAILED_PRECONDITION) on the POST form, an answer without
 *   `packagePreference` on the deprecated GET form.
 *
 * `POST /v2/package-vetting/update` stays 501 (reserved.ts; docs/api.md says why).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpServerRequest, OpenApi } from "@effect/platform"
import { LedgerApi } from "@sandnet/engine"
import { Effect, Either, Schema } from "effect"
import { InvalidRequest, LedgerApiError, type HandlerError } from "../errors.ts"
import { parseJsonText } from "../json-body.ts"
import { engineRoutes, fromResolution, invalidBody, op, orFail, type LedgerNode } from "./context.ts"
import type { EngineInstance } from "@sandnet/node"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"

// =============================================================================================
// Shapes
// =============================================================================================

const Strings = Schema.Array(Schema.String)

export const PackageMetadataFilter = Schema.Struct({
  packageIds: Schema.optional(Strings),
  packageNamePrefixes: Schema.optional(Strings)
}).annotations({ identifier: "PackageMetadataFilter" })

export const TopologyStateFilter = Schema.Struct({
  participantIds: Schema.optional(Strings),
  synchronizerIds: Schema.optional(Strings)
}).annotations({ identifier: "TopologyStateFilter" })

export const ListVettedPackagesRequest = Schema.Struct({
  packageMetadataFilter: Schema.optional(PackageMetadataFilter),
  topologyStateFilter: Schema.optional(TopologyStateFilter),
  pageToken: Schema.optional(Schema.String),
  pageSize: Schema.optional(Schema.Int.pipe(Schema.nonNegative()))
}).annotations({ identifier: "ListVettedPackagesRequest" })

export const VettedPackage = Schema.Struct({
  packageId: Schema.String,
  validFromInclusive: Schema.optional(Schema.String),
  validUntilExclusive: Schema.optional(Schema.String),
  packageName: Schema.optional(Schema.String),
  packageVersion: Schema.optional(Schema.String)
}).annotations({ identifier: "VettedPackage" })

export const VettedPackages = Schema.Struct({
  packages: Schema.Array(VettedPackage),
  participantId: Schema.String,
  synchronizerId: Schema.String,
  topologySerial: Schema.Int
}).annotations({ identifier: "VettedPackages" })

export const ListVettedPackagesResponse = Schema.Struct({
  vettedPackages: Schema.Array(VettedPackages),
  nextPageToken: Schema.String
}).annotations({ identifier: "ListVettedPackagesResponse" })

export const PackageReference = Schema.Struct({
  packageId: Schema.String,
  packageName: Schema.String,
  packageVersion: Schema.String
}).annotations({ identifier: "PackageReference" })

export const PackagePreference = Schema.Struct({
  packageReference: PackageReference,
  synchronizerId: Schema.String
}).annotations({ identifier: "PackagePreference" })

export const GetPreferredPackageVersionResponse = Schema.Struct({
  packagePreference: Schema.optional(PackagePreference)
}).annotations({ identifier: "GetPreferredPackageVersionResponse" })

export const PackageVettingRequirement = Schema.Struct({
  parties: Strings,
  packageName: Schema.String
}).annotations({ identifier: "PackageVettingRequirement" })

export const GetPreferredPackagesRequest = Schema.Struct({
  packageVettingRequirements: Schema.Array(PackageVettingRequirement),
  synchronizerId: Schema.optional(Schema.String),
  vettingValidAt: Schema.optional(Schema.String)
}).annotations({ identifier: "GetPreferredPackagesRequest" })

export const GetPreferredPackagesResponse = Schema.Struct({
  packageReferences: Schema.Array(PackageReference),
  synchronizerId: Schema.String
}).annotations({ identifier: "GetPreferredPackagesResponse" })

const PreferredPackageVersionQuery = Schema.Struct({
  parties: Schema.optional(Strings),
  "package-name": Schema.String,
  vetting_valid_at: Schema.optional(Schema.String),
  "synchronizer-id": Schema.optional(Schema.String)
})

// =============================================================================================
// Endpoints
// =============================================================================================

export const ListVettedPackages = op(
  HttpApiEndpoint.post("listVettedPackages", "/v2/package-vetting/list").setPayload(ListVettedPackagesRequest).addSuccess(ListVettedPackagesResponse),
  "postV2Package-vettingList",
  "Lists which participant node vetted what packages on which synchronizer. Can be called by any authenticated user."
)
export const ListVettedPackagesDeprecated = op(
  HttpApiEndpoint.get("listVettedPackagesDeprecated", "/v2/package-vetting").addSuccess(ListVettedPackagesResponse),
  "getV2Package-vetting",
  "Deprecated: use POST /v2/package-vetting/list (this form takes the same ListVettedPackagesRequest as its JSON body)."
)
export const GetPreferredPackageVersion = op(
  HttpApiEndpoint.get("preferredPackageVersion", "/v2/interactive-submission/preferred-package-version")
    .setUrlParams(PreferredPackageVersionQuery)
    .addSuccess(GetPreferredPackageVersionResponse),
  "getV2Interactive-submissionPreferred-package-version",
  "Deprecated: use POST /v2/interactive-submission/preferred-packages. The preferred package of a package name for the given parties; no packagePreference when none is found."
)
export const GetPreferredPackages = op(
  HttpApiEndpoint.post("preferredPackages", "/v2/interactive-submission/preferred-packages")
    .setPayload(GetPreferredPackagesRequest)
    .addSuccess(GetPreferredPackagesResponse),
  "postV2Interactive-submissionPreferred-packages",
  "Compute the preferred packages (highest vetted version of each package name, vetted by the participants hosting the parties) for the vetting requirements in the request."
)

export const PackageVettingGroup = HttpApiGroup.make("packageVetting")
  .add(ListVettedPackages)
  .add(ListVettedPackagesDeprecated)
  .annotate(OpenApi.Title, "Package Vetting")

export const PreferredPackagesGroup = HttpApiGroup.make("preferredPackages")
  .add(GetPreferredPackageVersion)
  .add(GetPreferredPackages)
  .annotate(OpenApi.Title, "Interactive Submission Service: preferred packages")

// =============================================================================================
// Handlers
// =============================================================================================

/** `maxVettedPackagesPageSize` of /v2/version. */
export const MAX_VETTED_PACKAGES_PAGE_SIZE = 100

const run = <A>(node: LedgerNode, f: (engine: EngineInstance) => Either.Either<A, HandlerError>) =>
  node.runtime
    .run((engine) => Effect.sync(() => f(engine)))
    .pipe(Effect.flatMap((either) => orFail(either)))

const invalidArgument = (cause: string) =>
  new LedgerApiError({ code: "INVALID_ARGUMENT", category: "InvalidIndependentOfSystemState", cause })

const pageKey = (entry: { readonly synchronizerId: string; readonly participantId: string }) => `${entry.synchronizerId}\n${entry.participantId}`
const encodeToken = (key: string) => Buffer.from(key, "utf8").toString("base64url")
const decodeToken = (token: string): string | undefined => {
  const key = Buffer.from(token, "base64url").toString("utf8")
  return key.includes("\n") && encodeToken(key) === token ? key : undefined
}

const toVettedPackage = (p: LedgerApi.KnownPackage) => ({
  packageId: p.packageId,
  packageName: p.description.name,
  packageVersion: p.description.version
})

const listVetted = (node: LedgerNode, request: typeof ListVettedPackagesRequest.Type) =>
  Effect.gen(function* () {
    const requested = request.pageSize ?? 0
    if (requested > MAX_VETTED_PACKAGES_PAGE_SIZE) {
      return yield* Effect.fail(invalidArgument(`pageSize: ${requested} exceeds the maximum page size (${MAX_VETTED_PACKAGES_PAGE_SIZE})`))
    }
    const pageSize = requested === 0 ? MAX_VETTED_PACKAGES_PAGE_SIZE : requested
    const token = request.pageToken ?? ""
    const after = token === "" ? "" : decodeToken(token)
    if (after === undefined) return yield* Effect.fail(invalidArgument(`pageToken: invalid page token "${token}"`))
    const entries = yield* run(node, (engine) =>
      Either.right(
        LedgerApi.listVettedPackages(engine.network, engine.topology, {
          packageIds: request.packageMetadataFilter?.packageIds ?? [],
          packageNamePrefixes: request.packageMetadataFilter?.packageNamePrefixes ?? [],
          participantIds: request.topologyStateFilter?.participantIds ?? [],
          synchronizerIds: request.topologyStateFilter?.synchronizerIds ?? []
        })
      )
    )
    const remaining = entries.filter((e) => after === "" || pageKey(e) > after)
    const page = remaining.slice(0, pageSize)
    const last = page[page.length - 1]
    return {
      vettedPackages: page.map((e) => ({
        packages: e.packages.map(toVettedPackage),
        participantId: e.participantId,
        synchronizerId: e.synchronizerId,
        topologySerial: e.topologySerial
      })),
      nextPageToken: remaining.length > pageSize && last !== undefined ? encodeToken(pageKey(last)) : ""
    }
  })

/** The deprecated GET form: the request is the JSON body. */
const listVettedFromBody = (node: LedgerNode, http: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const text = yield* Effect.mapError(http.text, (error) => new InvalidRequest({ location: "body", detail: error.message }))
    const json = text.trim() === "" ? {} : yield* parseJsonText(text)
    const request = yield* Effect.mapError(
      Schema.decodeUnknown(ListVettedPackagesRequest, { errors: "all", onExcessProperty: "ignore" })(json),
      (error) => new InvalidRequest({ location: "body", detail: error.message })
    )
    return yield* listVetted(node, request)
  })

const checkTimestamp = (value: string | undefined, field: string, location: "body" | "query"): Effect.Effect<void, InvalidRequest> =>
  value === undefined || value === "" || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(value)
    ? Effect.void
    : Effect.fail(
        location === "body"
          ? invalidBody(field, `"${value}" is not an ISO-8601 timestamp`)
          : new InvalidRequest({ location: "query parameter", parameter: field, detail: `"${value}" is not an ISO-8601 timestamp` })
      )

const selectionFailed = (error: LedgerApi.PackageSelectionFailed) =>
  new LedgerApiError({ code: "PACKAGE_SELECTION_FAILED", category: "InvalidGivenCurrentSystemStateOther", cause: error.message })

const knownSynchronizer = (engine: EngineInstance, synchronizerId: string | undefined, field: string): Either.Either<string | undefined, HandlerError> =>
  synchronizerId === undefined || synchronizerId === ""
    ? Either.right(undefined)
    : engine.topology.synchronizer(synchronizerId) !== undefined
      ? Either.right(synchronizerId)
      : Either.left(invalidArgument(`${field}: synchronizer ${synchronizerId} is not connected to this participant`))

const preferred = (
  node: LedgerNode,
  requirements: ReadonlyArray<LedgerApi.PackageVettingRequirement>,
  synchronizerId: string | undefined,
  field: string
) =>
  run(node, (engine) =>
    Either.gen(function* () {
      const synchronizer = yield* knownSynchronizer(engine, synchronizerId, field)
      return LedgerApi.preferredPackages(engine.network, engine.topology, requirements, synchronizer as LedgerApi.PreferredPackages["synchronizerId"] | undefined)
    })
  )

const reference = (p: LedgerApi.KnownPackage) => ({ packageId: p.packageId, packageName: p.description.name, packageVersion: p.description.version })

const ledger = Surfaces.ledger

export const VETTING_ENDPOINTS = [ListVettedPackages, ListVettedPackagesDeprecated, GetPreferredPackageVersion, GetPreferredPackages] as const

export const VettingRoutes = engineRoutes(VETTING_ENDPOINTS, (node) =>
  mergeRoutes(
    bind(ledger, ListVettedPackages, ({ payload }) => listVetted(node, payload)),
    bind(ledger, ListVettedPackagesDeprecated, ({ request }) => listVettedFromBody(node, request)),
    bind(ledger, GetPreferredPackages, ({ payload }) =>
      Effect.gen(function* () {
        if (payload.packageVettingRequirements.length === 0) {
          return yield* Effect.fail(invalidBody("packageVettingRequirements", "must be non-empty"))
        }
        for (const [i, r] of payload.packageVettingRequirements.entries()) {
          if (r.packageName === "") return yield* Effect.fail(invalidBody(`packageVettingRequirements[${i}].packageName`, "must be non-empty"))
          if (r.parties.length === 0) return yield* Effect.fail(invalidBody(`packageVettingRequirements[${i}].parties`, "must be non-empty"))
        }
        yield* checkTimestamp(payload.vettingValidAt, "vettingValidAt", "body")
        const result = yield* preferred(node, payload.packageVettingRequirements, payload.synchronizerId, "synchronizerId")
        if (Either.isLeft(result)) {
          const error = result.left
          return yield* Effect.fail(error._tag === "PackageNamesNotFound" ? fromResolution(error) : selectionFailed(error))
        }
        return { packageReferences: result.right.packages.map(reference), synchronizerId: result.right.synchronizerId }
      })
    ),
    bind(ledger, GetPreferredPackageVersion, ({ urlParams }) =>
      Effect.gen(function* () {
        const packageName = urlParams["package-name"]
        if (packageName === "") {
          return yield* Effect.fail(new InvalidRequest({ location: "query parameter", parameter: "package-name", detail: "must be non-empty" }))
        }
        yield* checkTimestamp(urlParams.vetting_valid_at, "vetting_valid_at", "query")
        const result = yield* preferred(node, [{ packageName, parties: urlParams.parties ?? [] }], urlParams["synchronizer-id"], "synchronizer-id")
        if (Either.isLeft(result)) {
          const error = result.left
          if (error._tag === "PackageNamesNotFound") return yield* Effect.fail(fromResolution(error))
          return {}
        }
        const found = result.right.packages[0]
        return found === undefined ? {} : { packagePreference: { packageReference: reference(found), synchronizerId: result.right.synchronizerId } }
      })
    )
  )
)
