/** Every route under /api/validator (one group of lazy-routes.ts, loaded at its first request; server.ts). */
import { mergeRoutes } from "../surface.ts"
import { WalletRoutes } from "./index.ts"
import { ScanProxyRoutes } from "./scan-proxy.ts"

export const AllWalletRoutes = mergeRoutes(WalletRoutes, ScanProxyRoutes)
