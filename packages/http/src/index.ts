/**
 * @sandnet/http: the node's HTTP surfaces (scan, wallet, registry, ledger JSON), authentication,
 * error mapping and OpenAPI documents. See docs/auth.md.
 */
export * as Auth from "./auth.ts"
export {
  AuthConfig,
  AuthenticatedSubject,
  AuthenticatedUser,
  Authenticator,
  requireActAs,
  requireExecuteAs,
  requireIdentityProviderAdmin,
  requireParticipantAdmin,
  requireReadAs,
  type AuthSettings,
  type Subject,
  type UserAccess
} from "./auth.ts"
export { devTokenAt, makeDevToken, type DevTokenOptions } from "./dev-token.ts"
export * as Errors from "./errors.ts"
export {
  ErrorCategories,
  ErrorResponse,
  InvalidRequest,
  JsCantonError,
  LedgerApiError,
  NotImplemented,
  PayloadTooLarge,
  PermissionDenied,
  RouteNotFound,
  Unauthenticated,
  describe,
  errorResponse,
  type HandlerError,
  type SurfaceName
} from "./errors.ts"
export * as Ledger from "./ledger/index.ts"
export { DEFAULT_LEDGER_API_SETTINGS, LedgerApiConfig, type LedgerApiSettings } from "./ledger/context.ts"
export * as Scan from "./scan/index.ts"
export * as Wallet from "./wallet/index.ts"
export * as Registry from "./registry/index.ts"
export { DocsRoutes, SurfaceApis, openApiDocument } from "./openapi.ts"
export {
  bind,
  handleEndpoint,
  HttpNodeConfig,
  notImplemented,
  reserved,
  surfaceNotFound,
  Surfaces,
  type AuthMode,
  type BindOptions,
  type HttpNodeSettings,
  type Surface
} from "./surface.ts"
export { baseUrl, layerMemory, NodeReadRoutes, NodeRoutes, serve, type ServeOptions } from "./server.ts"
export { readRoute, type ReadRoute } from "./read-routes.ts"
export { SandnetStorageGroup, StorageRoutes } from "./sandnet-storage.ts"
export { Dialect, nameTableOf, specNames, upstreamNames, type DialectName, type NameTable } from "./dialect/index.ts"
export {
  LOCALNET_AUDIENCE,
  LOCALNET_PORTS,
  LOCALNET_SECRET,
  LOCALNET_USER,
  localNetPorts,
  SCAN_HOST,
  serveLocalNet,
  type LocalNetOptions,
  type LocalNetPorts
} from "./localnet/layout.ts"
export { ScanProxyGroup, ScanProxyRoutes } from "./wallet/scan-proxy.ts"
