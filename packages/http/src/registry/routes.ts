/** Every route under /registry (one group of lazy-routes.ts, loaded at its first request; server.ts). */
import { mergeRoutes } from "../surface.ts"
import type { WriteRoute } from "../write-routes.ts"
import { AllocationRoutes, AllocationWriteRoutes } from "./allocation.ts"
import { ChoiceContextWriteRoutes, RegistryRoutes } from "./index.ts"
import { TransferFactoryRoutes, TransferFactoryWriteRoutes } from "./transfer-factory.ts"

export const AllRegistryRoutes = mergeRoutes(RegistryRoutes, TransferFactoryRoutes, AllocationRoutes)

/** The registry's POSTs answered without the platform's request pipeline (server.ts's NodeReadRoutes): the factories and choice contexts. */
export const RegistryWriteRoutes: ReadonlyArray<WriteRoute> = [...TransferFactoryWriteRoutes, ...ChoiceContextWriteRoutes, ...AllocationWriteRoutes]
