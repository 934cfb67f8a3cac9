/**
 * Ledger surface: packages, DARs and the API version.
 *
 * - `GET /v2/packages` (any user): the ids of the node's built-in packages (the coin model's
 *   PackageDefs, ids from their descriptions) and of uploaded ones, sorted.
 * - `POST /v2/packages` and `POST /v2/dars` (ParticipantAdmin, `application/octet-stream`): upload
 *   a DAR into the node's package registry (in memory, per engine; a reset drops it). With
 *   `vetAllPackages` (default true) the packages are vetted and checked for upgrade compatibility
 *   against the vetted ones; otherwise against all known packages. Answer `{}`.
 * - `POST /v2/dars/validate` (ParticipantAdmin): the same checks against the packages vetted on
 *   the (only) synchronizer; persists nothing, vets nothing. Answer 200, empty body.
 * - `GET /v2/packages/{package-id}` (any user): the package's `.dalf` bytes with
 *   `Canton-Package-Hash`; `/status`: PACKAGE_STATUS_REGISTERED or _UNSPECIFIED.
 * - `GET /v2/version` (any user).
 *
 * DAR errors keep Canton's codes (INVALID_DAR, DAR_PARSE_ERROR, KNOWN_DAR_VERSION,
 * DAR_NOT_VALID_UPGRADE, ...; category 8, HTTP 400, JSON body): they are what a client needs to
 * tell a corrupt archive from an incompatible upgrade.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { LedgerApi } from "@sandnet/engine"
import { Effect, Either, Layer, Schema } from "effect"
import { requireParticipantAdmin } from "../auth.ts"
import { LedgerApiError, type HandlerError } from "../errors.ts"
import { engineRoutes, fromPackageError, op, orFail, type LedgerNode } from "./context.ts"
import type { EngineInstance } from "@sandnet/node"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"

// =============================================================================================
// Shapes
// =============================================================================================

export const ListPackagesResponse = Schema.Struct({ packageIds: Schema.Array(Schema.String) }).annotations({
  identifier: "ListPackagesResponse"
})
export const UploadDarFileResponse = Schema.Struct({}).annotations({ identifier: "UploadDarFileResponse" })
export const GetPackageStatusResponse = Schema.Struct({
  packageStatus: Schema.Literal("PACKAGE_STATUS_UNSPECIFIED", "PACKAGE_STATUS_REGISTERED")
}).annotations({ identifier: "GetPackageStatusResponse" })

const DarBody = HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" })
const UploadQuery = Schema.Struct({
  vetAllPackages: Schema.optional(Schema.BooleanFromString),
  synchronizerId: Schema.optional(Schema.String)
})
const ValidateQuery = Schema.Struct({ synchronizerId: Schema.optional(Schema.String) })
const PackagePath = Schema.Struct({ packageId: Schema.String })

const DurationJson = Schema.Struct({ seconds: Schema.Int, nanos: Schema.Int }).annotations({ identifier: "Duration" })
const Supported = Schema.Struct({ supported: Schema.Boolean })
export const GetLedgerApiVersionResponse = Schema.Struct({
  version: Schema.String,
  features: Schema.Struct({
    experimental: Schema.Struct({ staticTime: Supported, commandInspectionService: Supported }),
    userManagement: Schema.Struct({ supported: Schema.Boolean, maxRightsPerUser: Schema.Int, maxUsersPageSize: Schema.Int }),
    partyManagement: Schema.Struct({ maxPartiesPageSize: Schema.Int }),
    offsetCheckpoint: Schema.Struct({ maxOffsetCheckpointEmissionDelay: DurationJson }),
    packageFeature: Schema.Struct({ maxVettedPackagesPageSize: Schema.Int })
  }).annotations({ identifier: "FeaturesDescriptor" })
}).annotations({ identifier: "GetLedgerApiVersionResponse" })

/** The ledger API version this node answers (the reference's, 3.5). */
export const LEDGER_API_VERSION = "3.5.10"

// =============================================================================================
// Endpoints
// =============================================================================================

export const ListPackages = op(
  HttpApiEndpoint.get("listPackages", "/v2/packages").addSuccess(ListPackagesResponse),
  "getV2Packages",
  "Returns the identifiers of all supported packages: the node's built-in packages and uploaded ones."
)
export const UploadPackages = op(
  HttpApiEndpoint.post("uploadPackages", "/v2/packages").setUrlParams(UploadQuery).setPayload(DarBody).addSuccess(UploadDarFileResponse),
  "postV2Packages",
  "Behaves the same as /dars: upload a DAR file to the participant (kept in memory)."
)
export const UploadDar = op(
  HttpApiEndpoint.post("uploadDar", "/v2/dars").setUrlParams(UploadQuery).setPayload(DarBody).addSuccess(UploadDarFileResponse),
  "postV2Dars",
  "Upload a DAR to the participant node (kept in memory)."
)
export const ValidateDar = op(
  HttpApiEndpoint.post("validateDar", "/v2/dars/validate").setUrlParams(ValidateQuery).setPayload(DarBody).addSuccess(HttpApiSchema.Empty(200)),
  "postV2DarsValidate",
  "Validates the DAR and checks the upgrade compatibility of its packages with the packages vetted on the target synchronizer. Persists nothing and vets nothing."
)
export const GetPackage = op(
  HttpApiEndpoint.get("getPackage", "/v2/packages/:packageId")
    .setPath(PackagePath)
    .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" })),
  "getV2PackagesPackage-id",
  "Returns the contents of a single package (its .dalf bytes); the Canton-Package-Hash header carries its hash."
)
export const GetPackageStatus = op(
  HttpApiEndpoint.get("getPackageStatus", "/v2/packages/:packageId/status").setPath(PackagePath).addSuccess(GetPackageStatusResponse),
  "getV2PackagesPackage-idStatus",
  "Returns the status of a single package."
)
export const GetVersion = op(
  HttpApiEndpoint.get("getVersion", "/v2/version").addSuccess(GetLedgerApiVersionResponse),
  "getV2Version",
  "Read the Ledger API version."
)

export const PackagesGroup = HttpApiGroup.make("packages")
  .add(ValidateDar)
  .add(UploadDar)
  .add(ListPackages)
  .add(UploadPackages)
  .add(GetPackage)
  .add(GetPackageStatus)
  .annotate(OpenApi.Title, "Package Service")

export const VersionGroup = HttpApiGroup.make("version").add(GetVersion).annotate(OpenApi.Title, "Version Service")

// =============================================================================================
// Handlers
// =============================================================================================

const run = <A>(node: LedgerNode, f: (engine: EngineInstance) => Either.Either<A, HandlerError>) =>
  node.runtime
    .run((engine) => Effect.sync(() => f(engine)))
    .pipe(Effect.flatMap((either) => orFail(either)))

const checkSynchronizer = (engine: EngineInstance, synchronizerId: string | undefined): Either.Either<void, HandlerError> =>
  synchronizerId === undefined || synchronizerId === "" || engine.topology.synchronizer(synchronizerId) !== undefined
    ? Either.void
    : Either.left(
        new LedgerApiError({
          code: "INVALID_ARGUMENT",
          category: "InvalidIndependentOfSystemState",
          cause: `synchronizerId: synchronizer ${synchronizerId} is not connected to this participant`
        })
      )

const packageNotFound = (packageId: string) =>
  new LedgerApiError({
    code: "PACKAGE_NOT_FOUND",
    category: "InvalidGivenCurrentSystemStateResourceMissing",
    cause: `Could not find package ${packageId}.`,
    resources: [["PACKAGE", packageId]]
  })

const upload = (node: LedgerNode, bytes: Uint8Array, query: typeof UploadQuery.Type) =>
  Effect.gen(function* () {
    yield* requireParticipantAdmin
    yield* run(node, (engine) =>
      Either.gen(function* () {
        yield* checkSynchronizer(engine, query.synchronizerId)
        return yield* Either.mapLeft(
          LedgerApi.uploadDar(engine.network, bytes, engine.clock.now, { vet: query.vetAllPackages ?? true }),
          fromPackageError
        )
      })
    )
    return {}
  })

const ledger = Surfaces.ledger

export const PACKAGE_ENDPOINTS = [ListPackages, UploadPackages, UploadDar, ValidateDar, GetPackage, GetPackageStatus] as const

const VersionRoute = bind(ledger, GetVersion, () =>
  Effect.succeed({
    version: LEDGER_API_VERSION,
    features: {
      experimental: { staticTime: { supported: false }, commandInspectionService: { supported: false } },
      userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
      partyManagement: { maxPartiesPageSize: 10_000 },
      offsetCheckpoint: { maxOffsetCheckpointEmissionDelay: { seconds: 0, nanos: 0 } },
      packageFeature: { maxVettedPackagesPageSize: 100 }
    }
  })
)

export const PackageRoutes = Layer.merge(VersionRoute, engineRoutes(PACKAGE_ENDPOINTS, (node) =>
  mergeRoutes(
    bind(ledger, ListPackages, () => run(node, (engine) => Either.right({ packageIds: LedgerApi.knownPackageIds(engine.network) }))),
    bind(ledger, UploadPackages, ({ payload, urlParams }) => upload(node, payload, urlParams)),
    bind(ledger, UploadDar, ({ payload, urlParams }) => upload(node, payload, urlParams)),
    bind(ledger, ValidateDar, ({ payload, urlParams }) =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        yield* run(node, (engine) =>
          Either.gen(function* () {
            yield* checkSynchronizer(engine, urlParams.synchronizerId)
            return yield* Either.mapLeft(LedgerApi.validateDar(engine.network, payload, { againstVetted: true }), fromPackageError)
          })
        )
      })
    ),
    bind(
      ledger,
      GetPackage,
      ({ path }) =>
        run(node, (engine) => {
          const archive = LedgerApi.packageArchive(engine.network, path.packageId)
          return archive === undefined ? Either.left(packageNotFound(path.packageId)) : Either.right(archive)
        }),
      { successHeaders: ({ path }) => ({ "canton-package-hash": (path as { readonly packageId: string }).packageId }) }
    ),
    bind(ledger, GetPackageStatus, ({ path }) =>
      run(node, (engine) =>
        Either.right({
          packageStatus: LedgerApi.knownPackageIds(engine.network).includes(path.packageId)
            ? ("PACKAGE_STATUS_REGISTERED" as const)
            : ("PACKAGE_STATUS_UNSPECIFIED" as const)
        })
      )
    )
  )
))
