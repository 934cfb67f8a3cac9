/** Every route under /registry (one group of lazy-routes.ts, loaded at its first request; server.ts). */
import { mergeRoutes } from "../surface.ts"
import { AllocationRoutes } from "./allocation.ts"
import { RegistryRoutes } from "./index.ts"
import { TransferFactoryRoutes } from "./transfer-factory.ts"

export const AllRegistryRoutes = mergeRoutes(RegistryRoutes, TransferFactoryRoutes, AllocationRoutes)
