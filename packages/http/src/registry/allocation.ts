/**
 * The token standard's allocation APIs (token-standard-allocation-instruction-v1.yaml,
 * token-standard-allocation-v1.yaml), open like the rest of the registry:
 *
 *   POST /registry/allocation-instruction/v1/allocation-factory   FactoryWithChoiceContext
 *   POST /registry/allocations/v1/{allocationId}/choice-contexts/{execute-transfer,withdraw,cancel}   ChoiceContext
 *
 * The factory's body carries the arguments of the AllocationFactory_Allocate the client is about to
 * exercise; the answer is the factory (ExternalPartyCoinRules) and the choice context with the
 * contracts to disclose (ScanApi.allocationFactory); 404 for an instrument this registry does not
 * administer. An allocation's choice context (ScanApi.allocationChoiceContext): 400 for an id that
 * is not a contract id, 404 for one that is not an allocation, 409 while it is being reassigned.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { isContractId } from "@sandnet/core"
import { ScanApi as ScanReads } from "@sandnet/engine"
import { Effect, Schema } from "effect"
import { ChoiceContext, GetChoiceContextRequest } from "./index.ts"
import { InvalidRequest } from "../errors.ts"
import { registryContext, withScan } from "../scan/engine.ts"
import { mergeRoutes, Surfaces } from "../surface.ts"
import { bindWritable, boundOf, writesOf } from "../write-routes.ts"

/** What of AllocationFactory_Allocate's arguments the registry reads (the rest passes through unread). */
const AllocateChoiceArguments = Schema.Struct({
  expectedAdmin: Schema.String,
  allocation: Schema.Struct({
    transferLeg: Schema.Struct({ instrumentId: Schema.Struct({ admin: Schema.String, id: Schema.String }) })
  })
})

export const GetAllocationFactoryRequest = Schema.Struct({
  choiceArguments: AllocateChoiceArguments,
  excludeDebugFields: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "GetAllocationFactoryRequest" })

export const FactoryWithChoiceContext = Schema.Struct({
  factoryId: Schema.String,
  choiceContext: ChoiceContext
}).annotations({ identifier: "FactoryWithChoiceContext" })

const AllocationPath = Schema.Struct({ allocationId: Schema.String })

export const GetAllocationFactory = HttpApiEndpoint.post("getAllocationFactory", "/registry/allocation-instruction/v1/allocation-factory")
  .setPayload(GetAllocationFactoryRequest)
  .addSuccess(FactoryWithChoiceContext)

const allocationContext = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  HttpApiEndpoint.post(name, path).setPath(AllocationPath).setPayload(GetChoiceContextRequest).addSuccess(ChoiceContext)

export const GetAllocationTransferContext = allocationContext(
  "getAllocationTransferContext",
  "/registry/allocations/v1/:allocationId/choice-contexts/execute-transfer"
)
export const GetAllocationWithdrawContext = allocationContext("getAllocationWithdrawContext", "/registry/allocations/v1/:allocationId/choice-contexts/withdraw")
export const GetAllocationCancelContext = allocationContext("getAllocationCancelContext", "/registry/allocations/v1/:allocationId/choice-contexts/cancel")

export const AllocationGroup = HttpApiGroup.make("allocations")
  .add(GetAllocationFactory)
  .add(GetAllocationTransferContext)
  .add(GetAllocationWithdrawContext)
  .add(GetAllocationCancelContext)
  .annotate(OpenApi.Title, "Allocations")

const choiceContext =
  (choice: ScanReads.AllocationChoice) =>
  ({ path, payload }: { readonly path: { readonly allocationId: string }; readonly payload: typeof GetChoiceContextRequest.Type }) =>
    withScan(`POST /registry/allocations/v1/{id}/choice-contexts/${choice}`, (view) =>
      Effect.gen(function* () {
        const id = path.allocationId
        if (!isContractId(id)) {
          return yield* Effect.fail(
            new InvalidRequest({ location: "path parameter", parameter: "allocationId", detail: `expected a contract id, got ${JSON.stringify(id)}` })
          )
        }
        return yield* ScanReads.allocationChoiceContext(registryContext(view), id, choice, payload.excludeDebugFields ?? false)
      })
    )

/** The allocation factory and choice contexts, each bound and declared a write route (write-routes.ts) with one handler. */
const declared = [
  bindWritable(Surfaces.registry, GetAllocationFactory, ({ payload }) =>
    withScan("POST /registry/allocation-instruction/v1/allocation-factory", (view) => {
      const instrument = payload.choiceArguments.allocation.transferLeg.instrumentId
      return ScanReads.allocationFactory(registryContext(view), { instrumentAdmin: instrument.admin, instrumentId: instrument.id }, payload.excludeDebugFields ?? false)
    })
  ),
  bindWritable(Surfaces.registry, GetAllocationTransferContext, choiceContext("execute-transfer")),
  bindWritable(Surfaces.registry, GetAllocationWithdrawContext, choiceContext("withdraw")),
  bindWritable(Surfaces.registry, GetAllocationCancelContext, choiceContext("cancel"))
]

export const AllocationRoutes = mergeRoutes(...boundOf(declared))
export const AllocationWriteRoutes = writesOf(declared)
