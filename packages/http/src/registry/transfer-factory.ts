/**
 * The token standard's transfer factory (token-standard-transfer-instruction-v1.yaml,
 * getTransferFactory), open like the rest of the registry:
 *
 *   POST /registry/transfer-instruction/v1/transfer-factory   TransferFactoryWithChoiceContext
 *
 * The body carries the arguments of the TransferFactory_Transfer the client is about to exercise;
 * the answer is the factory to exercise it on and the choice context with the contracts to
 * disclose (ScanApi.transferFactory). 404 for an instrument this registry does not administer.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ScanApi as ScanReads } from "@sandnet/engine"
import { Schema } from "effect"
import { ChoiceContext } from "./index.ts"
import { registryContext, withScan } from "../scan/engine.ts"
import { Surfaces, mergeRoutes } from "../surface.ts"
import { bindWritable, boundOf, writesOf } from "../write-routes.ts"

/** What of TransferFactory_Transfer's arguments the registry reads (the rest passes through unread). */
const FactoryChoiceArguments = Schema.Struct({
  expectedAdmin: Schema.String,
  transfer: Schema.Struct({
    sender: Schema.String,
    receiver: Schema.String,
    instrumentId: Schema.Struct({ admin: Schema.String, id: Schema.String })
  })
})

export const GetFactoryRequest = Schema.Struct({
  choiceArguments: FactoryChoiceArguments,
  excludeDebugFields: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "GetFactoryRequest" })

export const TransferFactoryWithChoiceContext = Schema.Struct({
  factoryId: Schema.String,
  transferKind: Schema.Literal("self", "direct", "offer"),
  choiceContext: ChoiceContext
}).annotations({ identifier: "TransferFactoryWithChoiceContext" })

export const GetTransferFactory = HttpApiEndpoint.post("getTransferFactory", "/registry/transfer-instruction/v1/transfer-factory")
  .setPayload(GetFactoryRequest)
  .addSuccess(TransferFactoryWithChoiceContext)

export const TransferFactoryGroup = HttpApiGroup.make("transferFactory").add(GetTransferFactory).annotate(OpenApi.Title, "Transfer factory")

/** The transfer factory, bound and declared a write route (write-routes.ts) with one handler. */
const declared = [
  bindWritable(Surfaces.registry, GetTransferFactory, ({ payload }) =>
    withScan("POST /registry/transfer-instruction/v1/transfer-factory", (view) => {
      const transfer = payload.choiceArguments.transfer
      return ScanReads.transferFactory(
        registryContext(view),
        { instrumentAdmin: transfer.instrumentId.admin, instrumentId: transfer.instrumentId.id, sender: transfer.sender, receiver: transfer.receiver },
        payload.excludeDebugFields ?? false
      )
    })
  )
]

export const TransferFactoryRoutes = mergeRoutes(...boundOf(declared))
export const TransferFactoryWriteRoutes = writesOf(declared)
