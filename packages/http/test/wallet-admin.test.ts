/**
 * Validator administration (W3) over real HTTP: who may call it, onboarding (with the user's
 * ledger user), listing and offboarding users, and the operator's transfer preapprovals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TransferPreapproval } from "@sandnet/engine"
import { call, devToken } from "./support.ts"
import { expectError, ok, okEmpty, onboard, startWalletNode, tokenOf, wallet, type WalletTestNode } from "./wallet-support.ts"

let node: WalletTestNode
let operator: string
let synchronizerId: string

beforeAll(async () => {
  node = await startWalletNode()
  const engine = await node.engine()
  operator = engine.network.validators[0]!.operator
  synchronizerId = engine.network.synchronizers[0]!.info.synchronizerId
})
afterAll(() => node.close())

const ledgerUser = (id: string) => call(`${node.url}/v2/users/${id}`, { token: node.admin })
const ledgerRights = (id: string) => call(`${node.url}/v2/users/${id}/rights`, { token: node.admin })

describe("who may administer", () => {
  it("401 without a token; 403 for a token of an unknown user or of a user without the rights; participant_admin and the operator user may", async () => {
    expectError(await wallet(node, "GET", "/v0/admin/users", undefined), 401)
    expectError(await wallet(node, "POST", "/v0/admin/users", "garbage", { name: "x" }), 401)
    expect(expectError(await wallet(node, "GET", "/v0/admin/users", await tokenOf("stranger")), 403)).toMatch(/ledger user/)
    await onboard(node, "plain")
    // An onboarded wallet user has a ledger user acting as its own party only.
    expect(expectError(await wallet(node, "GET", "/v0/admin/users", await tokenOf("plain")), 403)).toMatch(/operator/)
    expectError(await wallet(node, "POST", "/v0/admin/external-party/topology/generate", await tokenOf("plain"), { party_hint: "x", public_key: "00" }), 403)
    ok(await wallet(node, "GET", "/v0/admin/users", node.admin))
    // The validator operator's user, as `sandnet start` creates it (here: CanActAs the operator party only).
    const created = await call(`${node.url}/v2/users`, {
      token: node.admin,
      body: { user: { id: "operator", primaryParty: operator }, rights: [{ kind: { CanActAs: { value: { party: operator } } } }] }
    })
    expect(created.status).toBe(200)
    ok(await wallet(node, "GET", "/v0/admin/users", await tokenOf("operator")))
  })
})

describe("POST /v0/admin/users, GET /v0/admin/users, POST /v0/admin/users/offboard", () => {
  it("onboards a user with a fresh party and its ledger user; idempotent; 409 with another party; 400 for bad input", async () => {
    const reply = ok<{ party_id: string }>(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "gina" }))
    expect(reply).toEqual({ party_id: expect.stringMatching(/^gina::1220[0-9a-f]{64}$/) })
    expect(ok(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "gina" }))).toEqual(reply)
    expect(ok(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "gina", party_id: reply.party_id }))).toEqual(reply)
    expect(ok(await ledgerUser("gina"))).toMatchObject({ user: { id: "gina", primaryParty: reply.party_id, isDeactivated: false } })
    expect(ok(await ledgerRights("gina"))).toEqual({
      rights: expect.arrayContaining([{ kind: { CanActAs: { value: { party: reply.party_id } } } }, { kind: { CanReadAs: { value: { party: reply.party_id } } } }])
    })
    // The wallet works at once for the new user.
    expect(ok(await wallet(node, "GET", "/v0/wallet/user-status", await tokenOf("gina")))).toMatchObject({ party_id: reply.party_id, user_onboarded: true })

    const other = ok<{ party_id: string }>(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "hugo" }))
    expect(expectError(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "gina", party_id: other.party_id }), 409)).toContain(reply.party_id)
    // A second user on an existing party of this validator.
    expect(ok(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "hugo-2", party_id: other.party_id }))).toEqual(other)
    // createPartyIfMissing allocates a named party in this validator's namespace.
    const namespace = reply.party_id.split("::")[1]!
    expect(ok(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "ivy", party_id: `ivy-party::${namespace}`, createPartyIfMissing: true }))).toEqual({
      party_id: `ivy-party::${namespace}`
    })
    expect(expectError(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "jo", party_id: `jo::${namespace}` }), 400)).toMatch(/not hosted/)
    expect(expectError(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "jo", party_id: "not a party" }), 400)).toContain("party_id")
    expect(expectError(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "no spaces allowed" }), 400)).toContain("name")
    expectError(await wallet(node, "POST", "/v0/admin/users", node.admin, {}), 400)
    expectError(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: 7 }), 400)
  })

  it("lists the onboarded users, sorted, with the operator's wallet user", async () => {
    const listed = ok<{ usernames: Array<string> }>(await wallet(node, "GET", "/v0/admin/users", node.admin))
    expect(listed.usernames).toEqual([...listed.usernames].sort())
    expect(listed.usernames).toEqual(expect.arrayContaining(["gina", "hugo", "hugo-2", "ivy", "operator", "plain"]))
  })

  it("offboards: the wallet and the ledger user go; 404 for an unknown user; the operator cannot be offboarded", async () => {
    await onboard(node, "kim")
    okEmpty(await wallet(node, "POST", "/v0/admin/users/offboard?username=kim", node.admin))
    expect(ok<{ usernames: Array<string> }>(await wallet(node, "GET", "/v0/admin/users", node.admin)).usernames).not.toContain("kim")
    expectError(await wallet(node, "GET", "/v0/wallet/balance", await tokenOf("kim")), 404)
    expect((await ledgerUser("kim")).status).toBe(404)
    expect(expectError(await wallet(node, "POST", "/v0/admin/users/offboard?username=kim", node.admin), 404)).toContain("kim")
    expect(expectError(await wallet(node, "POST", "/v0/admin/users/offboard?username=operator", node.admin), 400)).toContain("operator")
    expect(expectError(await wallet(node, "POST", "/v0/admin/users/offboard", node.admin), 400)).toContain("username")
    // Onboarding again gives the user back its wallet (the party stays the same name hint).
    expect(ok<{ party_id: string }>(await wallet(node, "POST", "/v0/admin/users", node.admin, { name: "kim" })).party_id).toMatch(/^kim/)
  })
})

describe("the operator's transfer preapprovals", () => {
  it("lists them, looks one up by receiver and cancels it", async () => {
    const lena = await onboard(node, "lena")
    const created = ok<{ transfer_preapproval_contract_id: string }>(await wallet(node, "POST", "/v0/wallet/transfer-preapproval", await tokenOf("lena")))
    const cid = created.transfer_preapproval_contract_id
    const expected = {
      contract: {
        template_id: TransferPreapproval.templateId,
        contract_id: cid,
        payload: expect.objectContaining({ receiver: lena, provider: operator }),
        created_event_blob: expect.any(String),
        created_at: expect.stringMatching(/^2026-01-01T/)
      },
      domain_id: synchronizerId
    }
    expect(ok(await wallet(node, "GET", "/v0/admin/transfer-preapprovals", node.admin))).toEqual({ contracts: [expected] })
    expect(ok(await wallet(node, "GET", `/v0/admin/transfer-preapprovals/by-party/${lena}`, node.admin))).toEqual({ transfer_preapproval: expected })
    expectError(await wallet(node, "GET", `/v0/admin/transfer-preapprovals/by-party/${operator}`, node.admin), 404)
    expectError(await wallet(node, "GET", `/v0/admin/transfer-preapprovals/by-party/${lena}`, await devToken("plain")), 403)
    okEmpty(await wallet(node, "DELETE", `/v0/admin/transfer-preapprovals/by-party/${lena}`, node.admin))
    expectError(await wallet(node, "GET", `/v0/admin/transfer-preapprovals/by-party/${lena}`, node.admin), 404)
    expectError(await wallet(node, "DELETE", `/v0/admin/transfer-preapprovals/by-party/${lena}`, node.admin), 404)
    expect(ok(await wallet(node, "GET", "/v0/admin/transfer-preapprovals", node.admin))).toEqual({ contracts: [] })
  })
})
