/**
 * A small typed client of the node's public HTTP APIs, for the pages: scan (`/api/scan`), wallet
 * (`/api/validator`), registry (`/registry`), the ledger's developer controls and users (`/v2`)
 * and the Sandnet reads behind the pages (`/sandnet`). Only the fields the pages use are typed.
 * Every call goes to the origin that served the page.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

/** The error text of a failed answer: `{error}`, a JsCantonError's `cause`, or the body. */
const errorText = (status: number, text: string): string => {
  try {
    const body = JSON.parse(text) as { error?: unknown; cause?: unknown; code?: unknown }
    if (typeof body.error === "string") return body.error
    if (typeof body.cause === "string") return typeof body.code === "string" ? `${body.code}: ${body.cause}` : body.cause
  } catch {
    // not JSON: the text itself
  }
  return text.trim() === "" ? `HTTP ${status}` : text
}

export interface CallOptions {
  readonly token?: string | undefined
  readonly body?: unknown
  readonly method?: string
}

export const call = async <A>(path: string, options: CallOptions = {}): Promise<A> => {
  const headers: Record<string, string> = {}
  if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`
  if (options.body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(path, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
  })
  const text = await response.text()
  if (!response.ok) throw new ApiError(response.status, errorText(response.status, text))
  return (text === "" ? undefined : JSON.parse(text)) as A
}

// ------------------------------------------------------------------------------------------------
// Shapes
// ------------------------------------------------------------------------------------------------

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type JsonObject = { readonly [key: string]: Json }

export interface Contract {
  readonly template_id: string
  readonly contract_id: string
  readonly payload: JsonObject
  readonly created_at: string
}
export interface ContractWithState {
  readonly contract: Contract
  readonly domain_id?: string
}

export interface Instrument {
  readonly id: string
  readonly name: string
  readonly symbol: string
  readonly totalSupply?: string
  readonly decimals: number
}

export interface NodeInfo {
  readonly name: string
  readonly role: "super validator" | "validator"
  readonly participant_id: string
  readonly operator_party: string
  readonly parties: ReadonlyArray<string>
}
export interface Overview {
  readonly network: string
  readonly dev_net: boolean
  readonly dev_tokens: boolean
  readonly ledger_time: string
  readonly dso_party: string
  readonly synchronizers: ReadonlyArray<{ readonly name: string; readonly synchronizer_id: string; readonly migration_id: number }>
  readonly nodes: ReadonlyArray<NodeInfo>
  readonly users: ReadonlyArray<{ readonly id: string; readonly primary_party: string }>
}

export interface LiveState {
  readonly generation: number
  readonly ledger_time: string
  readonly offsets: Readonly<Record<string, number>>
  readonly scan_updates: number
  readonly scan_verdicts: number
  readonly requests: number
}

export interface UserStatus {
  readonly party_id: string
  readonly user_onboarded: boolean
  readonly user_wallet_installed: boolean
  readonly has_featured_app_right: boolean
}
export interface Balance {
  readonly round: number
  readonly effective_unlocked_qty: string
  readonly effective_locked_qty: string
  readonly total_holding_fees: string
}
export interface Position {
  readonly contract: ContractWithState
  readonly round: number
  readonly accrued_holding_fee: string
  readonly effective_amount: string
}
export interface PartyAndAmount {
  readonly party: string
  readonly amount: string
}
export interface HistoryItem {
  readonly transaction_type: "transfer" | "balance_change" | "notification"
  readonly transaction_subtype: { readonly template_id: string; readonly choice: string; readonly coin_operation?: string; readonly amulet_operation?: string }
  readonly event_id: string
  readonly date: string
  readonly sender?: PartyAndAmount
  readonly receivers?: ReadonlyArray<PartyAndAmount>
  readonly holding_fees?: string
  readonly details?: string
  /** A token-standard transfer's receiver (its coin moves only when the receiver accepts). */
  readonly transfer_instruction_receiver?: string
}

export interface TreeEvent {
  readonly event_type: "created_event" | "exercised_event"
  readonly event_id: string
  readonly contract_id: string
  readonly template_id: string
  readonly choice?: string
  readonly child_event_ids?: ReadonlyArray<string>
  readonly consuming?: boolean
  readonly acting_parties?: ReadonlyArray<string>
  readonly signatories?: ReadonlyArray<string>
  readonly observers?: ReadonlyArray<string>
  readonly create_arguments?: Json
  readonly choice_argument?: Json
  readonly exercise_result?: Json
}
export interface UpdateItem {
  readonly update_id: string
  readonly migration_id?: number
  readonly record_time: string
  readonly synchronizer_id?: string
  readonly effective_at?: string
  readonly root_event_ids?: ReadonlyArray<string>
  readonly events_by_id?: Readonly<Record<string, TreeEvent>>
  readonly event?: JsonObject
}
export interface Verdict {
  readonly update_id: string
  readonly migration_id: number
  readonly record_time: string
  readonly verdict_result: "VERDICT_RESULT_UNSPECIFIED" | "VERDICT_RESULT_ACCEPTED" | "VERDICT_RESULT_REJECTED"
  readonly submitting_parties: ReadonlyArray<string>
  readonly submitting_participant_uid: string
  readonly finalization_time: string
}
export interface TrafficSummary {
  readonly total_traffic_cost: number
  readonly envelope_traffic_summaries: ReadonlyArray<{ readonly traffic_cost: number; readonly view_ids: ReadonlyArray<number> }>
}
export interface EventItem {
  readonly update?: UpdateItem
  readonly verdict?: Verdict
  readonly traffic_summary?: TrafficSummary
}

export interface SupplyPoint {
  readonly record_time: string
  readonly total_supply: string
  readonly cumulative_minted: string
  readonly cumulative_burned: string
}

/** Upstream scan's HoldingsSummary: initial amounts, and the fees accrued as of the response's round. */
export interface HoldingsSummary {
  readonly party_id: string
  readonly total_unlocked_coin: string
  readonly total_locked_coin: string
  readonly total_coin_holdings: string
  readonly accumulated_holding_fees_unlocked: string
  readonly accumulated_holding_fees_locked: string
  readonly accumulated_holding_fees_total: string
  readonly total_available_coin: string
}
export interface HoldingsSummaryResponse {
  readonly record_time: string
  readonly migration_id: number
  readonly computed_as_of_round: number
  readonly summaries: ReadonlyArray<HoldingsSummary>
}

export interface LedgerUser {
  readonly id: string
  readonly primaryParty: string
  readonly isDeactivated: boolean
  readonly identityProviderId: string
}
export interface Right {
  readonly kind: Readonly<Record<string, { readonly value?: { readonly party?: string; readonly identityProviderId?: string } }>>
}
export interface IdentityProvider {
  readonly identityProviderId: string
  readonly isDeactivated: boolean
  readonly issuer: string
  readonly jwksUrl: string
  readonly audience: string
}
export interface RequestLogEntry {
  readonly seq: number
  readonly at: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly millis: number
}
export interface Health {
  readonly ledger_time: string
  readonly nodes: ReadonlyArray<{ readonly name: string; readonly ledger_end: number; readonly pending_confirmations: number; readonly submitted: number; readonly committed: number; readonly rejected: number }>
  readonly synchronizers: ReadonlyArray<{ readonly name: string; readonly pending_confirmation_requests: number; readonly last_sequenced?: string }>
  readonly scan: { readonly updates: number; readonly verdicts: number }
  /** Automation steps that have failed: in all and since their last success, the last error, the engine time of the next try. */
  readonly automations: ReadonlyArray<AutomationStep>
}
export interface AutomationStep {
  readonly automation: string
  readonly step: string
  readonly failures: number
  readonly consecutive_failures: number
  readonly last_error?: string
  readonly retry_at?: string
}
export interface SnapshotInfo {
  readonly snapshotId: string
  readonly createdAt: string
  readonly bytes: number
}

// ------------------------------------------------------------------------------------------------
// Reads and commands
// ------------------------------------------------------------------------------------------------

export const sandnet = {
  overview: () => call<Overview>("/sandnet/overview"),
  devToken: (user: string) => call<{ token: string }>("/sandnet/dev-token", { body: { user } }).then((r) => r.token),
  health: () => call<Health>("/sandnet/health"),
  supply: () => call<{ points: ReadonlyArray<SupplyPoint> }>("/sandnet/supply").then((r) => r.points),
  requests: (after: number) => call<{ last: number; requests: ReadonlyArray<RequestLogEntry> }>(`/sandnet/requests?after=${after}`)
}

export const registry = {
  instruments: () => call<{ instruments: ReadonlyArray<Instrument> }>("/registry/metadata/v1/instruments").then((r) => r.instruments)
}

const W = "/api/validator/v0"

/** The wallet of the user whose token it holds. */
export const wallet = (token: string) => ({
  userStatus: () => call<UserStatus>(`${W}/wallet/user-status`, { token }),
  register: () => call<{ party_id: string }>(`${W}/register`, { token, body: {} }),
  balance: () => call<Balance>(`${W}/wallet/balance`, { token }),
  holdings: () => call<{ amulets: ReadonlyArray<Position>; locked_amulets: ReadonlyArray<Position> }>(`${W}/wallet/amulets`, { token }),
  offers: () => call<{ offers: ReadonlyArray<Contract> }>(`${W}/wallet/transfer-offers`, { token }).then((r) => r.offers),
  offer: (body: { receiver_party_id: string; amount: string; description: string; expires_at: number; tracking_id: string }) =>
    call<{ offer_contract_id: string }>(`${W}/wallet/transfer-offers`, { token, body }),
  decideOffer: (contractId: string, decision: "accept" | "reject" | "withdraw") =>
    call<unknown>(`${W}/wallet/transfer-offers/${encodeURIComponent(contractId)}/${decision}`, { token, body: {} }),
  transfers: () => call<{ transfers: ReadonlyArray<Contract> }>(`${W}/wallet/token-standard/transfers`, { token }).then((r) => r.transfers),
  transfer: (body: { receiver_party_id: string; amount: string; description: string; expires_at: number; tracking_id: string }) =>
    call<unknown>(`${W}/wallet/token-standard/transfers`, { token, body }),
  decideTransfer: (contractId: string, decision: "accept" | "reject" | "withdraw") =>
    call<unknown>(`${W}/wallet/token-standard/transfers/${encodeURIComponent(contractId)}/${decision}`, { token, body: {} }),
  send: (body: { receiver_party_id: string; amount: string; deduplication_id: string; description?: string }) =>
    call<{ update_id: string }>(`${W}/wallet/transfer-preapproval/send`, { token, body }),
  createPreapproval: () => call<{ transfer_preapproval_contract_id: string }>(`${W}/wallet/transfer-preapproval`, { token, body: {} }),
  history: (pageSize: number) => call<{ items: ReadonlyArray<HistoryItem> }>(`${W}/wallet/transactions`, { token, body: { page_size: pageSize } }).then((r) => r.items),
  appRewards: () => call<{ app_reward_coupons: ReadonlyArray<Contract> }>(`${W}/wallet/app-reward-coupons`, { token }).then((r) => r.app_reward_coupons),
  featureSelf: () => call<unknown>(`${W}/wallet/self-grant-feature-app-right`, { token, body: {} }),
  buyTraffic: (body: { receiving_validator_party_id: string; domain_id: string; traffic_amount: number; tracking_id: string; expires_at: number }) =>
    call<unknown>(`${W}/wallet/buy-traffic-requests`, { token, body }),
  tap: (amount: string) => call<unknown>(`${W}/wallet/tap`, { token, body: { amount } })
})

export type Wallet = ReturnType<typeof wallet>

const S = "/api/scan"

export const scan = {
  dso: () => call<{ dso_party_id: string; voting_threshold: number; latest_mining_round: ContractWithState; amulet_rules: ContractWithState; dso_rules: ContractWithState }>(`${S}/v0/dso`),
  rounds: () =>
    call<{ open_mining_rounds: Readonly<Record<string, ContractWithState>>; issuing_mining_rounds: Readonly<Record<string, ContractWithState>> }>(
      `${S}/v0/open-and-issuing-mining-rounds`,
      { body: { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] } }
    ),
  closedRounds: () => call<{ rounds: ReadonlyArray<Contract> }>(`${S}/v0/closed-rounds`).then((r) => r.rounds),
  events: (after: { after_migration_id: number; after_record_time: string } | undefined, pageSize: number) =>
    call<{ events: ReadonlyArray<EventItem> }>(`${S}/v0/events`, { body: { page_size: pageSize, ...(after === undefined ? {} : { after }) } }).then((r) => r.events),
  event: (updateId: string) => call<EventItem>(`${S}/v0/events/${encodeURIComponent(updateId)}`),
  featuredApps: () => call<{ featured_apps: ReadonlyArray<Contract> }>(`${S}/v0/featured-apps`).then((r) => r.featured_apps),
  voteRequests: () => call<{ dso_rules_vote_requests: ReadonlyArray<Contract> }>(`${S}/v0/admin/sv/voterequests`).then((r) => r.dso_rules_vote_requests),
  voteResults: () => call<{ dso_rules_vote_results: ReadonlyArray<JsonObject> }>(`${S}/v0/admin/sv/voteresults`, { body: { limit: 50 } }).then((r) => r.dso_rules_vote_results),
  acsSnapshot: (at: string) => call<{ record_time: string; object_refs: ReadonlyArray<{ url: string; digest: string }> }>(`${S}/v0/history/bulk/acs?at_or_before_record_time=${encodeURIComponent(at)}`),
  /** The owners' holdings in the latest ACS snapshot at or before `at`. */
  holdingsSummary: (migrationId: number, at: string, owners: ReadonlyArray<string>) =>
    call<HoldingsSummaryResponse>(`${S}/v0/holdings/summary`, {
      body: { migration_id: migrationId, record_time: at, record_time_match: "at_or_before", owner_party_ids: owners }
    }),
  preapproval: (party: string) => call<{ transfer_preapproval: ContractWithState }>(`${S}/v0/transfer-preapprovals/by-party/${encodeURIComponent(party)}`)
}

/** The ledger's developer controls, users and identity providers (an administrator's token). */
export const ledger = (token: string) => ({
  time: () => call<{ now: string; microseconds: number }>("/v2/sandnet/time", { token }),
  advance: (duration: string) => call<{ now: string }>("/v2/sandnet/time/advance", { token, body: { duration } }),
  reset: () => call<unknown>("/v2/sandnet/reset", { token, body: {} }),
  snapshot: () => call<{ snapshotId: string; entries: number; bytes: number }>("/v2/sandnet/snapshot", { token, body: {} }),
  snapshots: () => call<{ snapshots: ReadonlyArray<SnapshotInfo> }>("/v2/sandnet/snapshots", { token }).then((r) => r.snapshots),
  restore: (snapshotId: string) => call<unknown>("/v2/sandnet/restore", { token, body: { snapshotId } }),
  users: () => call<{ users: ReadonlyArray<LedgerUser> }>("/v2/users", { token }).then((r) => r.users),
  rights: (userId: string) => call<{ rights: ReadonlyArray<Right> }>(`/v2/users/${encodeURIComponent(userId)}/rights`, { token }).then((r) => r.rights),
  onboard: (name: string) => call<{ party_id: string }>(`${W}/admin/users`, { token, body: { name } }),
  /** Grants or revokes one right: `{kind: {CanActAs: {value: {party}}}}`, `{kind: {ParticipantAdmin: {}}}`, ... */
  changeRight: (userId: string, change: "grant" | "revoke", right: Right) =>
    call<unknown>(`/v2/users/${encodeURIComponent(userId)}/rights`, { token, method: change === "grant" ? "POST" : "PATCH", body: { userId, rights: [right] } }),
  idps: () => call<{ identityProviderConfigs: ReadonlyArray<IdentityProvider> }>("/v2/idps", { token }).then((r) => r.identityProviderConfigs),
  addIdp: (config: { identityProviderId: string; issuer: string; jwksUrl: string; audience: string }) =>
    call<unknown>("/v2/idps", { token, body: { identityProviderConfig: { ...config, isDeactivated: false } } })
})
