/**
 * What `sandnet start` takes from this package, without the surfaces' modules: importing the
 * package's index evaluates every surface's Schemas, which `NodeRoutes` loads at their first
 * request instead (lazy-routes.ts). The bundle's start therefore imports this module, not the index.
 */
export { makeDevToken } from "./dev-token.ts"
export { LedgerApiConfig } from "./ledger/context.ts"
export { LOCALNET_AUDIENCE, LOCALNET_USER, localNetPorts, SCAN_HOST, serveLocalNet } from "./localnet/layout.ts"
export { StorageRoutes } from "./sandnet-storage.ts"
export { baseUrl, NodeReadRoutes, NodeRoutes, serve } from "./server.ts"
