/**
 * The token standard's allocation APIs (token-standard-allocation-instruction-v1.yaml,
 * token-standard-allocation-v1.yaml), which this node does not serve yet: declared, routed and
 * documented, answered 501 in the registry's `{error}` shape, so that a wallet calling them (the
 * Wallet SDK's `token.allocation.*`) learns that they are missing rather than getting a 404.
 *
 *   POST /registry/allocation-instruction/v1/allocation-factory
 *   POST /registry/allocations/v1/{allocationId}/choice-contexts/{execute-transfer,withdraw,cancel}
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Layer, Schema } from "effect"
import { ChoiceContext, GetChoiceContextRequest } from "./index.ts"
import { mergeRoutes, notImplemented, reserved, Surfaces } from "../surface.ts"

export const GetAllocationFactoryRequest = Schema.Struct({
  choiceArguments: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  excludeDebugFields: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "GetAllocationFactoryRequest" })

export const FactoryWithChoiceContext = Schema.Struct({
  factoryId: Schema.String,
  choiceContext: ChoiceContext
}).annotations({ identifier: "FactoryWithChoiceContext" })

const AllocationPath = Schema.Struct({ allocationId: Schema.String })

const allocationContext = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  reserved(HttpApiEndpoint.post(name, path).setPath(AllocationPath).setPayload(GetChoiceContextRequest).addSuccess(ChoiceContext))

export const RESERVED_ALLOCATION_ENDPOINTS = [
  reserved(
    HttpApiEndpoint.post("getAllocationFactory", "/registry/allocation-instruction/v1/allocation-factory")
      .setPayload(GetAllocationFactoryRequest)
      .addSuccess(FactoryWithChoiceContext)
  ),
  allocationContext("getAllocationTransferContext", "/registry/allocations/v1/:allocationId/choice-contexts/execute-transfer"),
  allocationContext("getAllocationWithdrawContext", "/registry/allocations/v1/:allocationId/choice-contexts/withdraw"),
  allocationContext("getAllocationCancelContext", "/registry/allocations/v1/:allocationId/choice-contexts/cancel")
] as const

export const AllocationGroup = (RESERVED_ALLOCATION_ENDPOINTS as ReadonlyArray<HttpApiEndpoint.HttpApiEndpoint.Any>)
  .reduce<HttpApiGroup.HttpApiGroup<"allocations", HttpApiEndpoint.HttpApiEndpoint.Any>>(
    (group, endpoint) => group.add(endpoint),
    HttpApiGroup.make("allocations") as unknown as HttpApiGroup.HttpApiGroup<"allocations", HttpApiEndpoint.HttpApiEndpoint.Any>
  )
  .annotate(OpenApi.Title, "Allocations (not served yet: 501)")

export const AllocationRoutes = mergeRoutes(Layer.empty, ...RESERVED_ALLOCATION_ENDPOINTS.map((endpoint) => notImplemented(Surfaces.registry, endpoint)))
