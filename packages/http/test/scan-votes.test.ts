/**
 * Scan S1 (POST /v0/admin/sv/voteresults) over real HTTP on a four-SV network: vote requests are
 * accepted, rejected and expired through DsoRules, closed by the DSO, and listed newest effective
 * date first with filters and keyset paging.
 */
import { micros, type CreatedNode, type TransactionUpdate } from "@sandnet/core"
import {
  CoinRules_DevNet_FeatureApp,
  Commands,
  DsoRules,
  DsoRules_CastVote,
  DsoRules_CloseVoteRequest,
  DsoRules_RequestVote,
  FeaturedAppRight,
  VoteRequest,
  type ActionRequiringConfirmation
} from "@sandnet/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  allocate,
  asDso,
  dsoRef,
  expectError,
  iso,
  nextCommandId,
  obj,
  post,
  scanUpdate,
  startEngineNode,
  submitOk,
  superValidator,
  svContract,
  svContractsOf,
  validator,
  START,
  type EngineNode
} from "./scan-support.ts"

let node: EngineNode
let dso: string
let svParties: ReadonlyArray<string>
let dsoRulesId: string
let provider: string

const createdIn = async (updateId: string, templateId: string): Promise<CreatedNode> => {
  const update = (await scanUpdate(node, updateId)).update as TransactionUpdate
  const created = update.nodes.find((n): n is CreatedNode => n.kind === "created" && n.templateId === templateId)
  if (created === undefined) throw new Error(`no ${templateId} created in ${updateId}`)
  return created
}

const grant = (party: string): ActionRequiringConfirmation => ({
  tag: "ARC_DsoRules",
  value: { dsoAction: { tag: "SRARC_GrantFeaturedAppRight", value: { provider: party } } }
})
const revoke = (rightCid: string): ActionRequiringConfirmation => ({
  tag: "ARC_DsoRules",
  value: { dsoAction: { tag: "SRARC_RevokeFeaturedAppRight", value: { rightCid } } }
})

/** SV `i` requests a vote; returns the VoteRequest's contract id. */
const requestVote = async (i: number, action: ActionRequiringConfirmation, timeout?: number): Promise<string> => {
  const updateId = await submitOk(node, superValidator(i), {
    actAs: [svParties[i]!],
    commandId: nextCommandId("request"),
    commands: [
      Commands.exercise(DsoRules_RequestVote, dsoRulesId, {
        requester: svParties[i]!,
        action,
        reason: { url: "", body: `request by sv${i + 1}` },
        voteRequestTimeout: timeout === undefined ? null : { microseconds: String(timeout) },
        targetEffectiveAt: null
      })
    ]
  })
  return (await createdIn(updateId, VoteRequest.templateId)).contractId
}

/** SV `i` votes; the request is re-created with the vote: returns its new contract id. */
const castVote = async (i: number, requestCid: string, accept: boolean): Promise<string> => {
  const request = await svContract(node, requestCid)
  const updateId = await submitOk(node, superValidator(i), {
    actAs: [svParties[i]!],
    commandId: nextCommandId("vote"),
    commands: [
      Commands.exercise(DsoRules_CastVote, dsoRulesId, {
        requestCid,
        vote: { sv: svParties[i]!, accept, reason: { url: "", body: accept ? "yes" : "no" } }
      })
    ],
    disclosedContracts: [request]
  })
  return (await createdIn(updateId, VoteRequest.templateId)).contractId
}

/** The DSO closes the request (unless an automation already did). */
const close = async (requestCid: string): Promise<void> => {
  const engine = await node.engine()
  if (engine.network.superValidators[0]!.participant.logic.acs.get(requestCid) === undefined) return
  await asDso(node, [Commands.exercise(DsoRules_CloseVoteRequest, dsoRulesId, { requestCid })])
}

const tenMinutes = micros.minutes(10)
const at = (minutesAfterStart: number) => iso(START + micros.minutes(minutesAfterStart))

beforeAll(async () => {
  node = await startEngineNode({ network: { superValidators: 4 } })
  const engine = await node.engine()
  dso = engine.network.dso
  svParties = engine.network.superValidators.map((sv) => sv.operator)
  dsoRulesId = (await svContractsOf(node, DsoRules.templateId, dso))[0]!.created.contractId
  provider = await allocate(node, "provider")
  const ref = await dsoRef(node)
  await submitOk(node, validator(), {
    actAs: [provider],
    commandId: nextCommandId("feature"),
    commands: [Commands.exercise(CoinRules_DevNet_FeatureApp, ref.coinRules.created.contractId, { provider })],
    disclosedContracts: [ref.coinRules]
  })
  const right = (await svContractsOf(node, FeaturedAppRight.templateId, provider))[0]!.created.contractId

  // A (10:30): sv1's grant, accepted by sv2 and sv3.
  let a = await requestVote(0, grant(provider))
  a = await castVote(1, a, true)
  a = await castVote(2, a, true)
  await close(a)
  // B (10:40): sv2's grant, rejected by sv1 and sv3.
  await node.advance(tenMinutes)
  let b = await requestVote(1, grant(provider))
  b = await castVote(0, b, false)
  b = await castVote(2, b, false)
  await close(b)
  // C (11:00): sv1's revoke, expired undecided (requested at 10:50 with a one-minute timeout).
  await node.advance(tenMinutes)
  const c = await requestVote(0, revoke(right), micros.minutes(1))
  await node.advance(tenMinutes)
  await close(c)
  // D (11:10): sv3's revoke, accepted by sv1 and sv2.
  await node.advance(tenMinutes)
  let d = await requestVote(2, revoke(right))
  d = await castVote(0, d, true)
  d = await castVote(1, d, true)
  await close(d)
  // E (11:20): sv2's grant, accepted by sv1 and sv3 (sv4 abstains).
  await node.advance(tenMinutes)
  let e = await requestVote(1, grant(provider))
  e = await castVote(0, e, true)
  e = await castVote(2, e, true)
  await close(e)
})
afterAll(() => node.close())

const url = () => `${node.url}/api/scan/v0/admin/sv/voteresults`

interface Item {
  readonly request: { readonly requester: string; readonly action: ActionRequiringConfirmation }
  readonly completedAt: string
  readonly offboardedVoters: ReadonlyArray<string>
  readonly abstainingSvs: ReadonlyArray<string>
  readonly outcome: { readonly tag: string; readonly value: { readonly effectiveAt?: string } }
}

const list = async (body: Record<string, unknown>) => {
  const reply = await post(url(), body)
  expect(reply.status).toBe(200)
  const page = obj(reply.json)
  return { items: page["dso_rules_vote_results"] as ReadonlyArray<Item>, token: page["next_page_token"] as number | undefined, page }
}

/** A short label per result: requester, action, outcome, effective minute. */
const label = (item: Item): string =>
  `${item.request.requester}:${item.request.action.value.dsoAction.tag.replace("SRARC_", "").replace("FeaturedAppRight", "")}:${item.outcome.tag.replace("VRO_", "")}:${item.outcome.tag === "VRO_Accepted" ? item.outcome.value.effectiveAt : item.completedAt}`

const E = `sv2:Grant:Accepted:${at(50)}`
const D = `sv3:Revoke:Accepted:${at(40)}`
const C = `sv1:Revoke:Expired:${at(30)}`
const B = `sv2:Grant:Rejected:${at(10)}`
const A = `sv1:Grant:Accepted:${at(0)}`

describe("S1 POST /v0/admin/sv/voteresults", () => {
  it("lists every result newest effective date first, as DsoRules_CloseVoteRequestResult", async () => {
    const { items, token, page } = await list({ limit: 10 })
    expect(Object.keys(page)).toEqual(["dso_rules_vote_results"])
    expect(token).toBeUndefined()
    expect(items.map(label)).toEqual([E, D, C, B, A])
    const newest = items[0]!
    expect(Object.keys(newest)).toEqual(["request", "completedAt", "offboardedVoters", "abstainingSvs", "outcome"])
    expect(newest.outcome).toEqual({ tag: "VRO_Accepted", value: { effectiveAt: at(50) } })
    expect(newest.completedAt).toBe(at(50))
    expect(newest.offboardedVoters).toEqual([])
    expect(newest.abstainingSvs).toEqual([svParties[3]])
    expect(newest.request).toMatchObject({ dso, requester: "sv2", action: grant(provider), reason: { url: "", body: "request by sv2" } })
    expect(Object.keys(obj(newest.request)["votes"] as object).sort()).toEqual(["sv1", "sv2", "sv3"])
    expect(items[2]!.outcome).toEqual({ tag: "VRO_Expired", value: {} })
    expect(items[3]!.outcome).toEqual({ tag: "VRO_Rejected", value: {} })
  })

  it("pages with next_page_token until the last page, which has none", async () => {
    const first = await list({ limit: 2 })
    expect(first.items.map(label)).toEqual([E, D])
    expect(first.token).toEqual(expect.any(Number))
    const second = await list({ limit: 2, pageToken: first.token })
    expect(second.items.map(label)).toEqual([C, B])
    const third = await list({ limit: 2, pageToken: second.token })
    expect(third.items.map(label)).toEqual([A])
    expect(third.token).toBeUndefined()
    expect(Object.keys(third.page)).toEqual(["dso_rules_vote_results"])
    // An exact fit has no further page either.
    expect((await list({ limit: 5 })).token).toBeUndefined()
    expect((await list({ limit: 4 })).token).toEqual(expect.any(Number))
  })

  it("filters by accepted, action name, requester and effective dates (inclusive), and pages within a filter", async () => {
    expect((await list({ limit: 10, accepted: true })).items.map(label)).toEqual([E, D, A])
    expect((await list({ limit: 10, accepted: false })).items.map(label)).toEqual([C, B])
    expect((await list({ limit: 10, actionName: "SRARC_RevokeFeaturedAppRight" })).items.map(label)).toEqual([D, C])
    expect((await list({ limit: 10, actionName: "Grant" })).items.map(label)).toEqual([E, B, A])
    expect((await list({ limit: 10, requester: "sv2" })).items.map(label)).toEqual([E, B])
    expect((await list({ limit: 10, effectiveFrom: at(10), effectiveTo: at(40) })).items.map(label)).toEqual([D, C, B])
    expect((await list({ limit: 10, effectiveFrom: at(41) })).items.map(label)).toEqual([E])
    expect((await list({ limit: 10, effectiveTo: at(9) })).items.map(label)).toEqual([A])
    expect((await list({ limit: 10, requester: "nobody" })).items).toEqual([])
    const first = await list({ limit: 1, accepted: true, actionName: "Grant" })
    expect(first.items.map(label)).toEqual([E])
    const second = await list({ limit: 1, accepted: true, actionName: "Grant", pageToken: first.token })
    expect(second.items.map(label)).toEqual([A])
    expect(second.token).toBeUndefined()
  })

  it("answers 400 for a missing or out-of-range limit, a malformed date or an unknown page token", async () => {
    expect(expectError(await post(url(), {}), 400)).toContain("limit")
    expect(expectError(await post(url(), { limit: 0 }), 400)).toMatch(/limit.*1 to 1000/)
    expect(expectError(await post(url(), { limit: 1001 }), 400)).toMatch(/limit.*1 to 1000/)
    expectError(await post(url(), { limit: 1.5 }), 400)
    expectError(await post(url(), { limit: "10" }), 400)
    expect(expectError(await post(url(), { limit: 10, effectiveFrom: "yesterday" }), 400)).toMatch(/effectiveFrom/)
    expect(expectError(await post(url(), { limit: 10, effectiveTo: "2026-13-45" }), 400)).toMatch(/effectiveTo/)
    expect(expectError(await post(url(), { limit: 10, pageToken: 999 }), 400)).toMatch(/pageToken/)
    expectError(await post(url(), { limit: 10, accepted: "yes" }), 400)
    expect((await post(url(), { limit: 1000 })).status).toBe(200)
  })
})
