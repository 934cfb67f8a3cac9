/**
 * The scan proxy's registry paths (scan-proxy.ts), apart from its endpoints so that the node's
 * rewrite before routing (server.ts) does not load the wallet surface's modules at start.
 */
const SCAN_PROXY_REGISTRY = "/api/validator/v0/scan-proxy/registry/"

/** `/api/validator/v0/scan-proxy/registry/...` is the registry's `/registry/...`; other URLs stay. */
export const scanProxyRegistryPath = (url: string): string =>
  url.startsWith(SCAN_PROXY_REGISTRY) ? `/registry/${url.slice(SCAN_PROXY_REGISTRY.length)}` : url
