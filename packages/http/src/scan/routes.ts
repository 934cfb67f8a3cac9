/** Every route under /api/scan (one group of lazy-routes.ts, loaded at its first request; server.ts). */
import { mergeRoutes } from "../surface.ts"
import { ScanRoutes } from "./index.ts"
import { TrafficStatusRoutes } from "./traffic-status.ts"
import { ScanUpstreamRoutes } from "./upstream/index.ts"

export const AllScanRoutes = mergeRoutes(ScanRoutes, ScanUpstreamRoutes, TrafficStatusRoutes)
