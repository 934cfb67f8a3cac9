/**
 * What `sandnet start --localnet` prints about LocalNet's layout (packages/http/src/localnet/layout.ts).
 */
import { LOCALNET_AUDIENCE, LOCALNET_USER, localNetPorts, SCAN_HOST } from "@sandnet/http/serve"

/** The addresses of the layout, as LocalNet's clients configure them. */
export const localNetLines = (offset: number): ReadonlyArray<string> => {
  const ports = localNetPorts(offset)
  return [
    `  layout     LocalNet${offset === 0 ? "" : ` shifted by ${offset}`} (upstream names: Amulet, AmuletRules, splice-amulet, ...)`,
    `  ledger     http://localhost:${ports.appUserLedger} (app user's participant), http://localhost:${ports.svLedger} (super validator's)`,
    `  validator  http://localhost:${ports.validator}/api/validator (scan proxy: /api/validator/v0/scan-proxy)`,
    `  scan       http://${SCAN_HOST}:${ports.scan}/api/scan (routed by Host)`,
    `  registry   http://localhost:${ports.registry}/registry`,
    `  auth       HS256 secret "unsafe", audience ${LOCALNET_AUDIENCE}, user ${LOCALNET_USER}`
  ]
}
