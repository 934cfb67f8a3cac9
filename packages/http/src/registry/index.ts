/**
 * Token standard registry surface (`/registry`, open), served from the first super validator's
 * view of the DSO's contracts (the coin's registry is the DSO's scan, as in Splice):
 *
 *   POST /registry/transfer-instruction/v{1,2}/{transferInstructionId}/choice-contexts/{accept,reject,withdraw}
 *   GET  /registry/metadata/v1/info
 *   GET  /registry/metadata/v1/instruments
 *   GET  /registry/metadata/v1/instruments/{instrumentId}
 *
 * Choice contexts are built by the engine (ScanApi.transferInstructionChoiceContext): 400 for a
 * malformed id or body, 404 for an unknown instruction, 409 while the instruction or a contract to
 * disclose is being reassigned between synchronizers.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { isContractId } from "@sandnet/core"
import { ScanApi as ScanReads } from "@sandnet/engine"
import { Effect, Schema } from "effect"
import { InvalidRequest } from "../errors.ts"
import { JsonObject } from "../scan/index.ts"
import { registryContext, withScan } from "../scan/engine.ts"
import { bind, surfaceNotFound, Surfaces, mergeRoutes } from "../surface.ts"
import { bindWritable, boundOf, writesOf } from "../write-routes.ts"

// ---------------------------------------------------------------------------------------------
// Shapes (token-standard-transfer-instruction-v1/v2.yaml, token-standard-metadata-v1.yaml)
// ---------------------------------------------------------------------------------------------

/** The body of the choice-context requests: `meta` is passed to the choice; `excludeDebugFields` (default false) drops debug* fields. */
export const GetChoiceContextRequest = Schema.Struct({
  meta: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  excludeDebugFields: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "GetChoiceContextRequest" })

export const DisclosedContract = Schema.Struct({
  templateId: Schema.String,
  contractId: Schema.String,
  createdEventBlob: Schema.String,
  synchronizerId: Schema.String,
  debugPackageName: Schema.optional(Schema.String),
  debugPayload: Schema.optional(JsonObject),
  debugCreatedAt: Schema.optional(Schema.String)
}).annotations({ identifier: "DisclosedContract" })

export const AnyValue = Schema.Union(
  Schema.Struct({ tag: Schema.Literal("AV_ContractId"), value: Schema.String }),
  Schema.Struct({ tag: Schema.Literal("AV_Bool"), value: Schema.Boolean }),
  Schema.Struct({ tag: Schema.Literal("AV_Text"), value: Schema.String })
).annotations({ identifier: "AnyValue" })

export const ChoiceContext = Schema.Struct({
  choiceContextData: Schema.Struct({ values: Schema.Record({ key: Schema.String, value: AnyValue }) }),
  disclosedContracts: Schema.Array(DisclosedContract)
}).annotations({ identifier: "ChoiceContext" })

const SupportedApis = Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({ identifier: "SupportedApis" })

export const GetRegistryInfoResponse = Schema.Struct({
  adminId: Schema.String,
  supportedApis: SupportedApis
}).annotations({ identifier: "GetRegistryInfoResponse" })

export const Instrument = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  symbol: Schema.String,
  totalSupply: Schema.optional(Schema.String),
  totalSupplyAsOf: Schema.optional(Schema.String),
  decimals: Schema.Int,
  supportedApis: SupportedApis
}).annotations({ identifier: "Instrument" })

export const ListInstrumentsResponse = Schema.Struct({
  instruments: Schema.Array(Instrument),
  nextPageToken: Schema.optional(Schema.String)
}).annotations({ identifier: "ListInstrumentsResponse" })

// ---------------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------------

const InstructionPath = Schema.Struct({ transferInstructionId: Schema.String })

const choiceContextEndpoint = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  HttpApiEndpoint.post(name, path).setPath(InstructionPath).setPayload(GetChoiceContextRequest).addSuccess(ChoiceContext)

export const GetTransferInstructionRejectContext = choiceContextEndpoint(
  "getTransferInstructionRejectContext",
  "/registry/transfer-instruction/v2/:transferInstructionId/choice-contexts/reject"
)
export const GetTransferInstructionAcceptContext = choiceContextEndpoint(
  "getTransferInstructionAcceptContext",
  "/registry/transfer-instruction/v2/:transferInstructionId/choice-contexts/accept"
)
export const GetTransferInstructionWithdrawContext = choiceContextEndpoint(
  "getTransferInstructionWithdrawContext",
  "/registry/transfer-instruction/v2/:transferInstructionId/choice-contexts/withdraw"
)
export const GetTransferInstructionRejectContextV1 = choiceContextEndpoint(
  "getTransferInstructionRejectContextV1",
  "/registry/transfer-instruction/v1/:transferInstructionId/choice-contexts/reject"
)
export const GetTransferInstructionAcceptContextV1 = choiceContextEndpoint(
  "getTransferInstructionAcceptContextV1",
  "/registry/transfer-instruction/v1/:transferInstructionId/choice-contexts/accept"
)
export const GetTransferInstructionWithdrawContextV1 = choiceContextEndpoint(
  "getTransferInstructionWithdrawContextV1",
  "/registry/transfer-instruction/v1/:transferInstructionId/choice-contexts/withdraw"
)

export const GetRegistryInfo = HttpApiEndpoint.get("getRegistryInfo", "/registry/metadata/v1/info").addSuccess(GetRegistryInfoResponse)

export const ListInstruments = HttpApiEndpoint.get("listInstruments", "/registry/metadata/v1/instruments")
  .setUrlParams(
    Schema.Struct({
      pageSize: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.positive())),
      pageToken: Schema.optional(Schema.String)
    })
  )
  .addSuccess(ListInstrumentsResponse)

export const GetInstrument = HttpApiEndpoint.get("getInstrument", "/registry/metadata/v1/instruments/:instrumentId")
  .setPath(Schema.Struct({ instrumentId: Schema.String }))
  .addSuccess(Instrument)

export const RegistryGroup = HttpApiGroup.make("registry")
  .add(GetTransferInstructionRejectContext)
  .add(GetTransferInstructionAcceptContext)
  .add(GetTransferInstructionWithdrawContext)
  .add(GetTransferInstructionRejectContextV1)
  .add(GetTransferInstructionAcceptContextV1)
  .add(GetTransferInstructionWithdrawContextV1)
  .add(GetRegistryInfo)
  .add(ListInstruments)
  .add(GetInstrument)
  .annotate(OpenApi.Title, "Transfer instruction and metadata")

/** The registry surface's API declaration (for the OpenAPI document). */
export const RegistryApi = HttpApi.make("registry").add(RegistryGroup).annotate(OpenApi.Title, "Registry API (Sandnet)")

// ---------------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------------

const choiceContext =
  (choice: ScanReads.TransferInstructionChoice, version: "v1" | "v2") =>
  ({ path, payload }: { readonly path: { readonly transferInstructionId: string }; readonly payload: typeof GetChoiceContextRequest.Type }) =>
    // Validated under withScan: a node without an engine answers 501 to every request.
    withScan(`POST /registry/transfer-instruction/${version}/{id}/choice-contexts/${choice}`, (view) =>
      Effect.gen(function* () {
        const id = path.transferInstructionId
        if (!isContractId(id)) {
          return yield* Effect.fail(
            new InvalidRequest({
              location: "path parameter",
              parameter: "transferInstructionId",
              detail: `expected a contract id, got ${JSON.stringify(id)}`
            })
          )
        }
        return yield* ScanReads.transferInstructionChoiceContext(registryContext(view), id, choice, payload.excludeDebugFields ?? false)
      })
    )

/** The transfer instructions' choice contexts, each bound and declared a write route (write-routes.ts) with one handler. */
const choiceContexts = [
  bindWritable(Surfaces.registry, GetTransferInstructionRejectContext, choiceContext("reject", "v2")),
  bindWritable(Surfaces.registry, GetTransferInstructionAcceptContext, choiceContext("accept", "v2")),
  bindWritable(Surfaces.registry, GetTransferInstructionWithdrawContext, choiceContext("withdraw", "v2")),
  bindWritable(Surfaces.registry, GetTransferInstructionRejectContextV1, choiceContext("reject", "v1")),
  bindWritable(Surfaces.registry, GetTransferInstructionAcceptContextV1, choiceContext("accept", "v1")),
  bindWritable(Surfaces.registry, GetTransferInstructionWithdrawContextV1, choiceContext("withdraw", "v1"))
]

export const ChoiceContextWriteRoutes = writesOf(choiceContexts)

export const RegistryRoutes = mergeRoutes(
  surfaceNotFound(Surfaces.registry),
  ...boundOf(choiceContexts),

  bind(Surfaces.registry, GetRegistryInfo, () =>
    withScan("GET /registry/metadata/v1/info", (view) =>
      Effect.succeed({ adminId: view.engine.network.dso, supportedApis: ScanReads.REGISTRY_SUPPORTED_APIS })
    )
  ),

  bind(Surfaces.registry, ListInstruments, ({ urlParams }) =>
    withScan("GET /registry/metadata/v1/instruments", (view) => {
      // One instrument: the first page holds it; any later page (a page token) is empty.
      const first = urlParams.pageToken === undefined
      return Effect.succeed({ instruments: first ? [ScanReads.coinInstrument(registryContext(view))] : [] })
    })
  ),

  bind(Surfaces.registry, GetInstrument, ({ path }) =>
    withScan("GET /registry/metadata/v1/instruments", (view) => {
      const instrument = ScanReads.coinInstrument(registryContext(view))
      return instrument.id === path.instrumentId
        ? Effect.succeed(instrument)
        : Effect.fail(new ScanReads.InstrumentNotFound({ instrumentId: path.instrumentId }))
    })
  )
)
