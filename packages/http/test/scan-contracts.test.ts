/**
 * Scan S4-S8 over real HTTP: the rules contracts with their caching semantics (and the upstream
 * external-party-amulet-rules path), transfer preapprovals by party, vote requests and featured
 * app rights by contract id. Contracts carry the ledger API's created-event blob.
 */
import { Effect } from "effect"
import { micros, type ActiveContract, type Micros } from "@sandnet/core"
import {
  AnsRules,
  CoinRules_CreateTransferPreapproval,
  CoinRules_DevNet_FeatureApp,
  Commands,
  DsoRules,
  DsoRules_RequestVote,
  ExternalPartyCoinRules,
  FeaturedAppRight,
  LedgerApi,
  TransferPreapproval,
  VoteRequest
} from "@sandnet/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  allocate,
  dsoRef,
  expectError,
  get,
  iso,
  nextCommandId,
  obj,
  post,
  submitOk,
  superValidator,
  svContract,
  svContractsOf,
  startEngineNode,
  validator,
  type EngineNode
} from "./scan-support.ts"

let node: EngineNode
let dso: string
let sync1: string
let sync2: string

beforeAll(async () => {
  node = await startEngineNode({ network: { synchronizers: [{ name: "global-synchronizer" }, { name: "second-synchronizer" }] } })
  const engine = await node.engine()
  dso = engine.network.dso
  sync1 = engine.network.synchronizers[0]!.info.synchronizerId
  sync2 = engine.network.synchronizers[1]!.info.synchronizerId
})
afterAll(() => node.close())

const scanUrl = (path: string) => `${node.url}/api/scan${path}`

/** The Contract shape of an active contract, exactly. */
const contractJson = (c: ActiveContract) => ({
  template_id: c.created.templateId,
  contract_id: c.created.contractId,
  payload: c.created.createArguments,
  created_event_blob: LedgerApi.createdEventBlob(c),
  created_at: iso(c.created.createdAt)
})

const only = async (templateId: string): Promise<ActiveContract> => {
  const contracts = await svContractsOf(node, templateId, dso)
  expect(contracts).toHaveLength(1)
  return contracts[0]!
}

/** Delays every message to a synchronizer's sequencer (the assign of a reassignment waits). */
const delaySequencer = async (index: number, delay: Micros) => {
  const engine = await node.engine()
  const sequencer = engine.network.synchronizers[index]!.info.sequencer
  engine.queue.setLinkModel({ route: (_from, to, _message, now) => [to === sequencer ? now + delay : now] })
}
const undelay = async () => (await node.engine()).queue.setLinkModel({ route: (_from, _to, _message, now) => [now] })

describe("S4 POST /v0/external-party-coin-rules", () => {
  const url = () => scanUrl("/v0/external-party-coin-rules")

  it("returns the current contract and its synchronizer; omits the contract when the cached id is current", async () => {
    const rules = await only(ExternalPartyCoinRules.templateId)
    const full = await post(url(), {})
    expect(full.status).toBe(200)
    expect(full.json).toEqual({ external_party_coin_rules_update: { contract: contractJson(rules), domain_id: sync1 } })
    expect(Object.keys(obj(obj(obj(full.json)["external_party_coin_rules_update"])["contract"]))).toEqual([
      "template_id",
      "contract_id",
      "payload",
      "created_event_blob",
      "created_at"
    ])
    // The blob is the ledger's: it reads back into the same contract.
    expect(LedgerApi.decodeCreatedEventBlob(contractJson(rules).created_event_blob)).toEqual(rules)
    expect(obj(obj(obj(full.json)["external_party_coin_rules_update"])["contract"])["payload"]).toEqual({ dso })

    const cached = await post(url(), { cached_external_party_coin_rules_contract_id: rules.created.contractId, cached_external_party_coin_rules_domain_id: sync1 })
    expect(cached.json).toEqual({ external_party_coin_rules_update: { domain_id: sync1 } })
    const stale = await post(url(), { cached_external_party_coin_rules_contract_id: `00${"11".repeat(32)}`, cached_external_party_coin_rules_domain_id: sync1 })
    expect(stale.json).toEqual(full.json)
  })

  it("serves the upstream path and field names", async () => {
    const rules = await only(ExternalPartyCoinRules.templateId)
    const full = await post(scanUrl("/v0/external-party-amulet-rules"), {})
    expect(full.json).toEqual({ external_party_amulet_rules_update: { contract: contractJson(rules), domain_id: sync1 } })
    const cached = await post(scanUrl("/v0/external-party-amulet-rules"), { cached_external_party_amulet_rules_contract_id: rules.created.contractId })
    expect(cached.json).toEqual({ external_party_amulet_rules_update: { domain_id: sync1 } })
  })

  it("has no domain_id while the contract is being reassigned, and the new one once it is assigned", async () => {
    const rules = await only(ExternalPartyCoinRules.templateId)
    await delaySequencer(1, micros.seconds(5))
    try {
      await node.run((engine) =>
        Effect.orDie(
          engine.network.superValidators[0]!.participant.reassign({
            submitter: engine.network.dso,
            commandId: nextCommandId("move-rules"),
            contractId: rules.created.contractId,
            targetSynchronizer: sync2
          })
        )
      )
      const inFlight = await post(url(), {})
      expect(inFlight.json).toEqual({ external_party_coin_rules_update: { contract: contractJson(rules) } })
      const cached = await post(url(), { cached_external_party_coin_rules_contract_id: rules.created.contractId })
      expect(cached.json).toEqual({ external_party_coin_rules_update: {} })
    } finally {
      await undelay()
    }
    await node.advance(micros.seconds(6))
    const moved = await svContract(node, rules.created.contractId)
    expect(moved.synchronizerId).toBe(sync2)
    const after = await post(url(), { cached_external_party_coin_rules_contract_id: rules.created.contractId })
    expect(after.json).toEqual({ external_party_coin_rules_update: { domain_id: sync2 } })
  })

  it("answers 400 for a malformed body", async () => {
    expect(expectError(await post(url(), { cached_external_party_coin_rules_contract_id: 7 }), 400)).toContain("cached_external_party_coin_rules_contract_id")
    expectError(await post(url(), "{"), 400)
  })
})

describe("S5 POST /v0/ans-rules", () => {
  const url = () => scanUrl("/v0/ans-rules")

  it("returns the current AnsRules; omits the contract for the cached id", async () => {
    const rules = await only(AnsRules.templateId)
    expect((await post(url(), {})).json).toEqual({ ans_rules_update: { contract: contractJson(rules), domain_id: sync1 } })
    expect((await post(url(), { cached_ans_rules_contract_id: rules.created.contractId, cached_ans_rules_domain_id: sync1 })).json).toEqual({
      ans_rules_update: { domain_id: sync1 }
    })
    expect((await post(url(), { cached_ans_rules_contract_id: `00${"22".repeat(32)}` })).json).toEqual({
      ans_rules_update: { contract: contractJson(rules), domain_id: sync1 }
    })
    expect(rules.created.createArguments).toMatchObject({ dso })
  })

  it("answers 400 for a malformed body", async () => {
    expectError(await post(url(), { cached_ans_rules_domain_id: false }), 400)
  })
})

describe("S6 GET /v0/transfer-preapprovals/by-party/{party}", () => {
  it("finds the receiver's preapproval with its synchronizer; 404 for anyone else", async () => {
    const bob = await allocate(node, "bob")
    const engine = await node.engine()
    const operator = engine.network.validators[0]!.operator
    const ref = await dsoRef(node)
    await submitOk(node, validator(), {
      actAs: [bob, operator],
      commandId: nextCommandId("preapproval"),
      commands: [
        Commands.exercise(CoinRules_CreateTransferPreapproval, ref.coinRules.created.contractId, {
          receiver: bob,
          provider: operator,
          expiresAt: iso(engine.clock.now + micros.days(90))
        })
      ],
      disclosedContracts: [ref.coinRules]
    })
    const [preapproval] = await svContractsOf(node, TransferPreapproval.templateId, bob)
    expect(preapproval).toBeDefined()
    const reply = await get(scanUrl(`/v0/transfer-preapprovals/by-party/${encodeURIComponent(bob)}`))
    expect(reply.status).toBe(200)
    expect(reply.json).toEqual({ transfer_preapproval: { contract: contractJson(preapproval!), domain_id: sync1 } })
    expect(obj(obj(obj(reply.json)["transfer_preapproval"])["contract"])["payload"]).toMatchObject({ receiver: bob, provider: operator, dso })
    // The provider is a stakeholder but not the receiver.
    expect(expectError(await get(scanUrl(`/v0/transfer-preapprovals/by-party/${encodeURIComponent(operator)}`)), 404)).toBe(
      `no TransferPreapproval for receiver ${operator}`
    )
    expectError(await get(scanUrl(`/v0/transfer-preapprovals/by-party/nobody`)), 404)
  })
})

describe("S7 GET /v0/voterequests/{vote_request_contract_id}", () => {
  it("finds a VoteRequest by contract id; 404 for other ids, 400 for a malformed one", async () => {
    const engine = await node.engine()
    const sv1 = engine.network.superValidators[0]!.operator
    const [rules] = await svContractsOf(node, DsoRules.templateId, dso)
    const alice = await allocate(node, "alice-s7")
    await submitOk(node, superValidator(0), {
      actAs: [sv1],
      commandId: nextCommandId("vote"),
      commands: [
        Commands.exercise(DsoRules_RequestVote, rules!.created.contractId, {
          requester: sv1,
          action: { tag: "ARC_DsoRules", value: { dsoAction: { tag: "SRARC_GrantFeaturedAppRight", value: { provider: alice } } } },
          reason: { url: "https://example.com", body: "feature alice" },
          voteRequestTimeout: null,
          targetEffectiveAt: null
        })
      ]
    })
    const requests = await svContractsOf(node, VoteRequest.templateId, dso)
    const request = requests[requests.length - 1]!
    const reply = await get(scanUrl(`/v0/voterequests/${request.created.contractId}`))
    expect(reply.status).toBe(200)
    expect(reply.json).toEqual({ dso_rules_vote_request: contractJson(request) })
    expect(obj(obj(obj(reply.json)["dso_rules_vote_request"])["payload"])["requester"]).toBe("sv1")

    expect(expectError(await get(scanUrl(`/v0/voterequests/${rules!.created.contractId}`)), 404)).toBe(`VoteRequest ${rules!.created.contractId} not found`)
    expectError(await get(scanUrl(`/v0/voterequests/00${"33".repeat(32)}`)), 404)
    expect(expectError(await get(scanUrl(`/v0/voterequests/xyz`)), 400)).toMatch(/vote_request_contract_id/)
  })
})

describe("S8 GET /v0/featured-apps/by-contract-id/{contract_id}", () => {
  it("returns the FeaturedAppRight, or an empty object when there is none", async () => {
    const provider = await allocate(node, "provider")
    const ref = await dsoRef(node)
    await submitOk(node, validator(), {
      actAs: [provider],
      commandId: nextCommandId("feature"),
      commands: [Commands.exercise(CoinRules_DevNet_FeatureApp, ref.coinRules.created.contractId, { provider })],
      disclosedContracts: [ref.coinRules]
    })
    const [right] = await svContractsOf(node, FeaturedAppRight.templateId, provider)
    expect(right).toBeDefined()
    const reply = await get(scanUrl(`/v0/featured-apps/by-contract-id/${right!.created.contractId}`))
    expect(reply.status).toBe(200)
    expect(reply.json).toEqual({ featured_app_right: contractJson(right!) })
    expect(obj(obj(reply.json)["featured_app_right"])["payload"]).toEqual({ dso, provider })

    expect((await get(scanUrl(`/v0/featured-apps/by-contract-id/00${"44".repeat(32)}`))).json).toEqual({})
    // Another template's contract is not a featured app right.
    expect((await get(scanUrl(`/v0/featured-apps/by-contract-id/${ref.coinRules.created.contractId}`))).json).toEqual({})
    const malformed = await get(scanUrl(`/v0/featured-apps/by-contract-id/not-a-contract`))
    expect(malformed.status).toBe(200)
    expect(malformed.json).toEqual({})
  })
})
