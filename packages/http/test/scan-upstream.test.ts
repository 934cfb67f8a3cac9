/**
 * The upstream scan reads (src/scan/upstream, and the validator's scan proxy) answer in upstream's
 * shapes: every read the pages and the Wallet SDK use is fetched from a running node and its body
 * type-checked against the response type that `@canton-network/core-splice-client` generates from
 * Splice's scan and scan-proxy OpenAPI documents (upstream-types.ts), on a node speaking the spec's
 * names and on one speaking LocalNet's; so are the validator admin reads the Wallet SDK uses
 * (validator-internal.d.ts: users, preapprovals, external party balance and setup proposals).
 * Also: paging of /v2/updates and /v0/events by (migration id, record time), and the
 * cached-contract semantics of the rounds endpoint.
 */
import { Effect } from "effect"
import { micros, type ContractId, type PartyId } from "@sandnet/core"
import { Commands, DsoRules_RequestVote } from "@sandnet/engine"
import { rmSync } from "node:fs"
import { dirname } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support.ts"
import { checkUpstreamTypes, type Sample } from "./upstream-types.ts"
import { newKeys, ok, onboard, startWalletNode, tapFor, tokenOf, wallet, type WalletTestNode } from "./wallet-support.ts"

/** A node with alice's coin, preapproval and featured app right, closed rounds, an ACS snapshot and vote requests. */
interface Fixture {
  readonly node: WalletTestNode
  readonly alice: string
  /** An external party hosted on the validator, with a setup proposal. */
  readonly external: string
}

let spec: Fixture

const scanOn = (f: Fixture) => (path: string, body?: unknown) => call(`${f.node.url}/api/scan${path}`, body === undefined ? {} : { body })
const scan = (path: string, body?: unknown) => scanOn(spec)(path, body)
const NO_CACHE = { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] }

type Read = Omit<Sample, "body"> & { readonly url: string; readonly token?: string; readonly request?: unknown }

/** The reads, with their upstream operation: the scan's under /api/scan, the proxy's under /api/validator. */
const reads = async (f: Fixture): Promise<ReadonlyArray<Read>> => {
  const { node, alice, external } = f
  const scan = scanOn(f)
  const s = (method: "get" | "post", path: string, url: string, request?: unknown): Read => ({
    name: `${method.toUpperCase()} /api/scan${url}`,
    document: "Scan",
    path,
    method,
    url: `${node.url}/api/scan${url}`,
    request
  })
  const p = (path: string, url: string, document: "ScanProxy" | "ValidatorInternal" = "ScanProxy"): Read => ({
    name: `GET /api/validator${url}`,
    document,
    path,
    method: "get",
    url: `${node.url}/api/validator${url}`,
    token: node.admin
  })
  const events = (await scan("/v0/events", { page_size: 1000 })).json as { events: ReadonlyArray<{ update: { update_id: string; record_time: string } }> }
  const last = events.events.at(-1)!.update
  const featured = (await scan("/v0/featured-apps")).json as { featured_apps: ReadonlyArray<{ contract_id: string }> }
  const snapshot = (await scan(`/v0/history/bulk/acs?at_or_before_record_time=${encodeURIComponent(last.record_time)}`)).json as { record_time: string }
  const overview = (await call(`${node.url}/sandnet/overview`)).json as { synchronizers: ReadonlyArray<{ synchronizer_id: string }>; nodes: ReadonlyArray<{ participant_id: string }> }
  const rounds = (await scan("/v0/open-and-issuing-mining-rounds", NO_CACHE)).json as { open_mining_rounds: Record<string, unknown> }
  const cachedRound = { ...NO_CACHE, cached_open_mining_round_contract_ids: Object.keys(rounds.open_mining_rounds).slice(0, 1) }
  const votes = (await scan("/v0/admin/sv/voterequests")).json as { dso_rules_vote_requests: ReadonlyArray<{ contract_id: string }> }
  const party = encodeURIComponent(alice)
  return [
    s("get", "/v0/dso", "/v0/dso"),
    s("get", "/v0/dso-party-id", "/v0/dso-party-id"),
    s("post", "/v0/open-and-issuing-mining-rounds", "/v0/open-and-issuing-mining-rounds", NO_CACHE),
    { ...s("post", "/v0/open-and-issuing-mining-rounds", "/v0/open-and-issuing-mining-rounds", cachedRound), name: "POST /api/scan/v0/open-and-issuing-mining-rounds (one cached)" },
    s("get", "/v0/closed-rounds", "/v0/closed-rounds"),
    s("get", "/v0/featured-apps", "/v0/featured-apps"),
    s("get", "/v0/featured-apps/by-contract-id/{contract_id}", `/v0/featured-apps/by-contract-id/${encodeURIComponent(featured.featured_apps[0]!.contract_id)}`),
    s("get", "/v0/admin/sv/voterequests", "/v0/admin/sv/voterequests"),
    s("get", "/v0/voterequests/{vote_request_contract_id}", `/v0/voterequests/${votes.dso_rules_vote_requests[0]!.contract_id}`),
    s("post", "/v0/admin/sv/voteresults", "/v0/admin/sv/voteresults", { limit: 50 }),
    s("post", "/v2/updates", "/v2/updates", { page_size: 1000 }),
    s("get", "/v1/updates/{update_id}", `/v1/updates/${last.update_id}`),
    s("get", "/v0/updates/{update_id}", `/v0/updates/${last.update_id}`),
    s("post", "/v0/events", "/v0/events", { page_size: 1000 }),
    s("get", "/v0/events/{update_id}", `/v0/events/${last.update_id}`),
    s("get", "/v0/history/bulk/acs", `/v0/history/bulk/acs?at_or_before_record_time=${encodeURIComponent(last.record_time)}`),
    s("post", "/v0/holdings/summary", "/v0/holdings/summary", { migration_id: 0, record_time: snapshot.record_time, owner_party_ids: [alice] }),
    s("get", "/v0/transfer-preapprovals/by-party/{party}", `/v0/transfer-preapprovals/by-party/${party}`),
    s("post", "/v0/external-party-amulet-rules", "/v0/external-party-amulet-rules", {}),
    s("post", "/v0/ans-rules", "/v0/ans-rules", { request: {} }),
    s(
      "get",
      "/v0/domains/{domain_id}/members/{member_id}/traffic-status",
      `/v0/domains/${encodeURIComponent(overview.synchronizers[0]!.synchronizer_id)}/members/${encodeURIComponent(overview.nodes[0]!.participant_id)}/traffic-status`
    ),
    p("/v0/scan-proxy/dso-party-id", "/v0/scan-proxy/dso-party-id"),
    p("/v0/scan-proxy/amulet-rules", "/v0/scan-proxy/amulet-rules"),
    p("/v0/scan-proxy/open-and-issuing-mining-rounds", "/v0/scan-proxy/open-and-issuing-mining-rounds"),
    p("/v0/scan-proxy/transfer-preapprovals/by-party/{party}", `/v0/scan-proxy/transfer-preapprovals/by-party/${party}`),
    p("/v0/scan-proxy/featured-apps/{provider_party_id}", `/v0/scan-proxy/featured-apps/${party}`),
    p("/v0/validator-user", "/v0/validator-user", "ValidatorInternal"),
    p("/v0/admin/users", "/v0/admin/users", "ValidatorInternal"),
    p("/v0/admin/transfer-preapprovals", "/v0/admin/transfer-preapprovals", "ValidatorInternal"),
    p("/v0/admin/transfer-preapprovals/by-party/{receiver-party}", `/v0/admin/transfer-preapprovals/by-party/${party}`, "ValidatorInternal"),
    p("/v0/admin/external-party/balance", `/v0/admin/external-party/balance?party_id=${encodeURIComponent(external)}`, "ValidatorInternal"),
    p("/v0/admin/external-party/setup-proposal", "/v0/admin/external-party/setup-proposal", "ValidatorInternal")
  ]
}

/** Fetches each read; every one must answer 200. */
const samples = async (f: Fixture): Promise<ReadonlyArray<Sample>> => {
  const answered = await Promise.all(
    (await reads(f)).map(async ({ url, token, request, ...sample }) => {
      const reply = await call(url, { token, ...(request === undefined ? {} : { body: request }) })
      return { ...sample, status: reply.status, body: reply.json }
    })
  )
  expect(answered.filter((a) => a.status !== 200).map((a) => `${a.name}: ${a.status} ${JSON.stringify(a.body)}`)).toEqual([])
  return answered
}

const mismatchesOf = (checked: ReturnType<typeof checkUpstreamTypes>) => checked.mismatches.map((m) => `${m.sample} | ${m.line} | ${m.message}`)

/** sv1 asks the DSO to feature alice: a VoteRequest for the vote reads to list (no HTTP surface files one). */
const requestVote = async (f: Fixture, name: string) => {
  const { node, alice } = f
  const scan = scanOn(f)
  const dso = (await scan("/v0/dso")).json as { sv_party_id: string; dso_rules: { contract: { contract_id: string } } }
  const sv1 = dso.sv_party_id as PartyId
  const request = {
    actAs: [sv1],
    commandId: `scan-upstream-vote-${name}`,
    commands: [
      Commands.exercise(DsoRules_RequestVote, dso.dso_rules.contract.contract_id as ContractId, {
        requester: sv1,
        action: { tag: "ARC_DsoRules", value: { dsoAction: { tag: "SRARC_GrantFeaturedAppRight", value: { provider: alice } } } },
        reason: { url: "https://example.com", body: `feature alice (${name})` },
        voteRequestTimeout: null,
        targetEffectiveAt: null
      })
    ]
  }
  await Effect.runPromise(node.runtime.run((engine) => Effect.asVoid(Effect.orDie(engine.network.superValidators[0]!.participant.submit(request)))))
}

/** Hosts an external party (its topology signed with a fresh key) and proposes its setup. */
const hostExternalParty = async (node: WalletTestNode): Promise<string> => {
  const admin = (path: string, body: unknown) => wallet(node, "POST", `/v0/admin/external-party${path}`, node.admin, body)
  const keys = newKeys()
  const generated = ok<{ party_id: string; topology_txs: ReadonlyArray<{ topology_tx: string; hash: string }> }>(
    await admin("/topology/generate", { party_hint: "ext-wallet", public_key: keys.publicHex })
  )
  const signed = generated.topology_txs.map((t) => ({ topology_tx: t.topology_tx, signed_hash: keys.sign(t.hash) }))
  ok(await admin("/topology/submit", { public_key: keys.publicHex, signed_topology_txs: signed }))
  ok(await admin("/setup-proposal", { user_party_id: generated.party_id }))
  return generated.party_id
}

const setUp = async (dialect: "spec" | "upstream"): Promise<Fixture> => {
  const node = await startWalletNode({ dialect })
  const f = { node, alice: await onboard(node, "alice"), external: await hostExternalParty(node) }
  const aliceToken = await tokenOf("alice")
  await tapFor(node, aliceToken, "25")
  await tapFor(node, aliceToken, "5")
  ok(await wallet(node, "POST", "/v0/wallet/transfer-preapproval", aliceToken))
  ok(await wallet(node, "POST", "/v0/wallet/self-grant-feature-app-right", aliceToken))
  await requestVote(f, "expired")
  await node.advance(micros.minutes(90)) // closes rounds, takes an hourly ACS snapshot, lets the vote expire
  await tapFor(node, aliceToken, "1")
  await requestVote(f, "open")
  return f
}

/** Every read answers 200 with upstream's type; the lists are not empty (an empty one would type-check vacuously). */
const expectUpstreamTypes = async (f: Fixture) => {
  const fetched = await samples(f)
  const lengthOf = (sample: string, field: string) => (fetched.find((x) => x.name.endsWith(sample))!.body as Record<string, ReadonlyArray<unknown>>)[field]!.length
  const lists = [
    ["/v0/closed-rounds", "rounds"],
    ["/v0/featured-apps", "featured_apps"],
    ["/v0/admin/sv/voterequests", "dso_rules_vote_requests"],
    ["/v0/admin/sv/voteresults", "dso_rules_vote_results"],
    ["/v2/updates", "transactions"],
    ["/v0/events", "events"],
    ["/v0/admin/transfer-preapprovals", "contracts"],
    ["/v0/admin/external-party/setup-proposal", "contracts"]
  ] as const
  expect(lists.filter(([sample, field]) => lengthOf(sample, field) === 0)).toEqual([])
  const checked = checkUpstreamTypes(fetched)
  expect(mismatchesOf(checked), `type-checked ${checked.file}`).toEqual([])
}

beforeAll(async () => {
  spec = await setUp("spec")
})
afterAll(() => spec.node.close())

describe("upstream's response types", () => {
  it("every upstream scan and scan-proxy read has the type core-splice-client declares for it", () => expectUpstreamTypes(spec))

  it("the check fails on a body that is not upstream's: a missing required field, an unknown enum value, a number as a string, a misspelled field", async () => {
    const dso = (await scan("/v0/dso")).json as Record<string, unknown>
    const events = (await scan("/v0/events", { page_size: 1 })).json as { events: ReadonlyArray<{ verdict: Record<string, unknown> }> }
    const { dso_party_id: _dropped, ...withoutParty } = dso
    const wrongVerdict = { events: [{ ...events.events[0], verdict: { ...events.events[0]!.verdict, verdict_result: "VERDICT_RESULT_MAYBE" } }] }
    const stringThreshold = { ...dso, voting_threshold: String(dso["voting_threshold"]) }
    const round = dso["latest_mining_round"] as { contract: unknown; domain_id: string }
    const misspelled = { ...dso, latest_mining_round: { contract: round.contract, domainId: round.domain_id } }
    const checked = checkUpstreamTypes([
      { name: "dso without dso_party_id", document: "Scan", path: "/v0/dso", method: "get", body: withoutParty },
      { name: "events with an unknown verdict", document: "Scan", path: "/v0/events", method: "post", body: wrongVerdict },
      { name: "dso with a string threshold", document: "Scan", path: "/v0/dso", method: "get", body: stringThreshold },
      { name: "dso with domainId for domain_id", document: "Scan", path: "/v0/dso", method: "get", body: misspelled },
      { name: "the unchanged dso", document: "Scan", path: "/v0/dso", method: "get", body: dso }
    ])
    const bySample = (name: string) => checked.mismatches.filter((m) => m.sample === name).map((m) => m.message)
    expect(bySample("dso without dso_party_id").join("\n")).toContain("dso_party_id")
    expect(bySample("events with an unknown verdict").join("\n")).toContain('"VERDICT_RESULT_MAYBE"')
    expect(bySample("dso with a string threshold").join("\n")).toMatch(/string.*number/s)
    expect(bySample("dso with domainId for domain_id").join("\n")).toContain("domainId")
    expect(bySample("the unchanged dso")).toEqual([])
    rmSync(dirname(checked.file), { recursive: true })
  })
})

describe("upstream scan reads", () => {
  it("/v0/dso names the party /v0/dso-party-id names", async () => {
    const dso = await scan("/v0/dso")
    expect(dso.status).toBe(200)
    const party = await scan("/v0/dso-party-id")
    expect((dso.json as { dso_party_id: string }).dso_party_id).toBe((party.json as { dso_party_id: string }).dso_party_id)
  })

  it("POST /v0/open-and-issuing-mining-rounds leaves out the contracts the caller has cached", async () => {
    const first = await scan("/v0/open-and-issuing-mining-rounds", NO_CACHE)
    const open = (first.json as { open_mining_rounds: Record<string, { contract?: unknown }> }).open_mining_rounds
    const ids = Object.keys(open)
    expect(ids.length).toBeGreaterThan(0)
    expect(open[ids[0]!]!.contract).toBeDefined()
    const cached = await scan("/v0/open-and-issuing-mining-rounds", { cached_open_mining_round_contract_ids: [ids[0]], cached_issuing_round_contract_ids: [] })
    expect((cached.json as { open_mining_rounds: Record<string, { contract?: unknown }> }).open_mining_rounds[ids[0]!]!.contract).toBeUndefined()
  })

  it("POST /v2/updates and /v0/events page by record time, in order", async () => {
    const all = await scan("/v2/updates", { page_size: 1000 })
    const transactions = (all.json as { transactions: ReadonlyArray<{ update_id: string; record_time: string; migration_id: number }> }).transactions
    expect(transactions.length).toBeGreaterThan(2)
    const times = transactions.map((t) => t.record_time)
    expect([...times].sort()).toEqual(times)
    const after = { after_migration_id: transactions[0]!.migration_id, after_record_time: transactions[0]!.record_time }
    const rest = await scan("/v2/updates", { page_size: 2, after })
    expect((rest.json as { transactions: ReadonlyArray<{ update_id: string }> }).transactions.map((t) => t.update_id)).toEqual(transactions.slice(1, 3).map((t) => t.update_id))
    const events = await scan("/v0/events", { page_size: 1000 })
    const items = (events.json as { events: ReadonlyArray<{ verdict?: { verdict_result: string } }> }).events
    expect(items.length).toBeGreaterThanOrEqual(transactions.length)
    expect(items.every((e) => e.verdict?.verdict_result === "VERDICT_RESULT_ACCEPTED")).toBe(true)
  })

  it("refuses a page size out of range and an after time that is no time", async () => {
    expect((await scan("/v2/updates", { page_size: 0 })).status).toBe(400)
    expect((await scan("/v0/events", { page_size: 10, after: { after_migration_id: 0, after_record_time: "yesterday" } })).status).toBe(400)
  })
})

// Last, on a node of its own: the spec node's idle keep-alive connections are not left waiting through it.
describe("upstream's response types in LocalNet's names", () => {
  it("hold too (upstream's own *_coin fields stay as they are)", async () => {
    const localNet = await setUp("upstream")
    try {
      await expectUpstreamTypes(localNet)
    } finally {
      await localNet.node.close()
    }
  })
})
