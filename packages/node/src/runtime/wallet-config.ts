/**
 * The wallets' configuration of a serving node (`sandnet start`): Splice's defaults, with the
 * traffic top-up LocalNet gives its validators (Splice's cluster/compose/localnet/env/splice.env:
 * TARGET_TRAFFIC_THROUGHPUT=20000, MIN_TRAFFIC_TOPUP_INTERVAL=1m). Without it a node's validator
 * lived on its genesis grant (50 MB, about 14,000 transactions of the load bench's mixed load) and
 * then on the base rate (400 kB per 20 minutes): a node used for long, or a soak of a few
 * minutes, answered nearly every command 503 SEQUENCER_TRAFFIC_EXCEEDED from then on.
 */
import { micros } from "@sandnet/core"
import { defaultWalletConfig, type WalletConfig } from "@sandnet/engine"

/** LocalNet's validators' top-up: 20,000 bytes per second, at most one top-up a minute (1.2 MB each). */
export const LOCALNET_TRAFFIC_TOPUP: WalletConfig["buyExtraTraffic"] = {
  targetThroughput: 20_000,
  minTopupInterval: micros.minutes(1),
  tapOnDevNet: true
}

/** What `sandnet start` gives its wallets: the operator's wallet user, and LocalNet's traffic top-up. */
export const servingWalletConfig = (validatorWalletUser: string): WalletConfig => ({
  ...defaultWalletConfig,
  validatorWalletUser,
  buyExtraTraffic: LOCALNET_TRAFFIC_TOPUP
})
