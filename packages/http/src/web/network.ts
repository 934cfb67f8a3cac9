/**
 * What the landing page and the developer console show of the running network: its nodes and their
 * parties, the ledger time, the dev users (GET /sandnet/overview); each node's ledger end and the
 * confirmations in flight (GET /sandnet/health); and the coin supply over time (GET
 * /sandnet/supply). Reads run under the runtime's lock through `withScan`.
 */
import { HttpApiEndpoint } from "@effect/platform"
import { toIso } from "@sandnet/core"
import { nodesHealth, synchronizersHealth, type CoinNetwork } from "@sandnet/engine"
import { Schema } from "effect"
import type { ScanView } from "../scan/engine.ts"
import { renderPoint, supplyHistory, thin } from "./supply.ts"

const Strings = Schema.Array(Schema.String)

const NodeInfo = Schema.Struct({
  name: Schema.String,
  role: Schema.Literal("super validator", "validator"),
  participant_id: Schema.String,
  operator_party: Schema.String,
  parties: Strings
}).annotations({ identifier: "SandnetNodeInfo" })

export const Overview = Schema.Struct({
  network: Schema.String,
  dev_net: Schema.Boolean,
  /** Dev tokens can be had from POST /sandnet/dev-token (the node uses the public dev secret). */
  dev_tokens: Schema.Boolean,
  ledger_time: Schema.String,
  dso_party: Schema.String,
  synchronizers: Schema.Array(Schema.Struct({ name: Schema.String, synchronizer_id: Schema.String, migration_id: Schema.Int })),
  nodes: Schema.Array(NodeInfo),
  users: Schema.Array(Schema.Struct({ id: Schema.String, primary_party: Schema.String }))
}).annotations({ identifier: "SandnetOverview" })

export const GetOverview = HttpApiEndpoint.get("getSandnetOverview", "/overview").addSuccess(Overview)

export const Health = Schema.Struct({
  ledger_time: Schema.String,
  nodes: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      ledger_end: Schema.Int,
      pending_confirmations: Schema.Int,
      submitted: Schema.Int,
      committed: Schema.Int,
      rejected: Schema.Int
    })
  ),
  synchronizers: Schema.Array(Schema.Struct({ name: Schema.String, pending_confirmation_requests: Schema.Int, last_sequenced: Schema.optional(Schema.String) })),
  scan: Schema.Struct({ updates: Schema.Int, verdicts: Schema.Int }),
  /** Automation steps that failed (issue 15): each one's count, last error and engine-time retry. */
  automations: Schema.Array(
    Schema.Struct({
      automation: Schema.String,
      step: Schema.String,
      failures: Schema.Int,
      consecutive_failures: Schema.Int,
      last_error: Schema.optional(Schema.String),
      retry_at: Schema.optional(Schema.String)
    })
  )
}).annotations({ identifier: "SandnetHealth" })

export const GetHealth = HttpApiEndpoint.get("getSandnetHealth", "/health").addSuccess(Health)

export const Supply = Schema.Struct({
  points: Schema.Array(
    Schema.Struct({ record_time: Schema.String, total_supply: Schema.String, cumulative_minted: Schema.String, cumulative_burned: Schema.String })
  )
}).annotations({ identifier: "SandnetSupply" })

export const GetSupply = HttpApiEndpoint.get("getSandnetSupply", "/supply")
  .setUrlParams(Schema.Struct({ points: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(2, 5000))) }))
  .addSuccess(Supply)

/** Super validators first, then validators, each with the parties its participant hosts. */
const nodesOf = (network: CoinNetwork) =>
  nodesHealth(network).map((n) => ({ name: n.name, role: n.role, participant_id: n.participantUid, operator_party: n.operator, parties: n.hostedParties }))

export const overviewOf = (view: ScanView, devTokens: boolean, users: ReadonlyArray<{ readonly id: string; readonly primaryParty: string }>) => {
  const network = view.engine.network
  return {
    network: network.config.name,
    dev_net: network.config.isDevNet,
    dev_tokens: devTokens,
    ledger_time: toIso(view.now),
    dso_party: network.dso as string,
    synchronizers: network.synchronizers.map((s) => ({ name: s.info.name, synchronizer_id: s.info.synchronizerId as string, migration_id: s.info.migrationId })),
    nodes: nodesOf(network),
    users: users.map((u) => ({ id: u.id, primary_party: u.primaryParty }))
  }
}

const automationsOf = (view: ScanView) =>
  [...view.engine.dsoAutomations.flatMap((a) => a.status()), ...view.engine.wallets.flatMap((w) => w.automation?.status() ?? [])].map((s) => ({
    automation: s.automation,
    step: s.step,
    failures: s.failures,
    consecutive_failures: s.consecutiveFailures,
    ...(s.lastError === undefined ? {} : { last_error: s.lastError }),
    ...(s.retryAt > 0 ? { retry_at: toIso(s.retryAt) } : {})
  }))

export const healthOf = (view: ScanView) => {
  const network = view.engine.network
  return {
    ledger_time: toIso(view.now),
    nodes: nodesHealth(network).map((n) => ({
      name: n.name,
      ledger_end: n.ledgerEnd,
      pending_confirmations: n.pendingConfirmations,
      submitted: n.submitted,
      committed: n.committed,
      rejected: n.rejected
    })),
    synchronizers: synchronizersHealth(network).map((s) => ({
      name: s.name,
      pending_confirmation_requests: s.pendingConfirmationRequests,
      ...(s.lastSequenced > 0 ? { last_sequenced: toIso(s.lastSequenced) } : {})
    })),
    scan: { updates: view.sv.scan.updates.length, verdicts: view.sv.scan.verdictLog.length },
    automations: automationsOf(view)
  }
}

export const supplyOf = (view: ScanView, points: number) => ({ points: thin(supplyHistory(view.sv.scan), points).map(renderPoint) })
