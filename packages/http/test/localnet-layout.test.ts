/**
 * `sandnet start --localnet`: LocalNet's ports (shifted by a port offset), Host-based routing of
 * scan, LocalNet's tokens and user, the validator's scan proxy, and the two name tables of one
 * engine: upstream names (Amulet) in LocalNet's layout, the spec's (Coin) on a plain node.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, devToken, transferFactoryRequest } from "./support.ts"
import { localNetToken, requestWithHost, startLocalNet, type LocalNetNode } from "./localnet-support.ts"
import { startWalletNode, type WalletTestNode } from "./wallet-support.ts"

const local = (port: number, path: string) => `http://127.0.0.1:${port}${path}`

/** A transfer from the DSO party (the registry only reads the parties and the instrument). */
const factoryRequest = (dso: string, receiver: string, instrument: string) => transferFactoryRequest({ sender: dso, receiver, admin: dso, instrument })

type Factory = { factoryId: string; transferKind: string; choiceContext: { choiceContextData: { values: Record<string, { tag: string }> }; disclosedContracts: ReadonlyArray<{ templateId: string; contractId: string }> } }

describe("a node in LocalNet's layout", () => {
  let node: LocalNetNode
  let token: string
  beforeAll(async () => {
    node = await startLocalNet(0)
    token = await localNetToken()
  })
  afterAll(() => node.close())

  it("serves the app user's participant on 2975 and the super validator's on 3975 to ledger-api-user's audience token", async () => {
    const appUser = await call(local(node.ports.appUserLedger, "/v2/parties/participant-id"), { token })
    const sv = await call(local(node.ports.svLedger, "/v2/parties/participant-id"), { token })
    expect(appUser.status).toBe(200)
    expect(sv.status).toBe(200)
    expect((appUser.json as { participantId: string }).participantId).not.toBe((sv.json as { participantId: string }).participantId)
    const me = await call(local(node.ports.appUserLedger, "/v2/authenticated-user"), { token })
    expect(me.json).toMatchObject({ user: { id: "ledger-api-user", primaryParty: node.operator } })
  })

  it("submits on each ledger port as that port's participant, through the ledger's write routes too: sv1's on 3975, not on 2975", async () => {
    const engine = await Effect.runPromise(node.runtime.engine)
    const sv = engine.network.superValidators[0]!.operator
    const dso = engine.network.dso
    const user = await call(local(node.ports.svLedger, "/v2/users"), { token, body: { user: { id: "sv1-writer", primaryParty: sv }, rights: [{ kind: { CanActAs: { value: { party: sv } } } }] } })
    expect(user.status).toBe(200)
    const svToken = await localNetToken("sv1-writer")
    // a token is verified once, on the router's path; the write routes answer the callers known since
    for (const port of [node.ports.svLedger, node.ports.appUserLedger]) expect((await call(local(port, "/v2/authenticated-user"), { token: svToken })).status).toBe(200)
    const offer = (commandId: string) => ({
      commands: [
        {
          CreateCommand: {
            templateId: "#splice-wallet:Splice.Wallet.TransferOffer:TransferOffer",
            createArguments: { sender: sv, receiver: dso, dso, amount: { amount: "1.0000000000", unit: "AmuletUnit" }, description: "on 3975", expiresAt: "2027-01-01T00:00:00.000000Z", trackingId: commandId }
          }
        }
      ],
      commandId,
      actAs: [sv]
    })
    const onSv = await call(local(node.ports.svLedger, "/v2/commands/submit-and-wait"), { token: svToken, body: offer("sv1-offer-1") })
    expect(onSv.status).toBe(200)
    expect(onSv.json).toMatchObject({ updateId: expect.any(String) })
    // sv1's party is not hosted on the validator's participant: 2975 cannot submit for it
    const onValidator = await call(local(node.ports.appUserLedger, "/v2/commands/submit-and-wait"), { token: svToken, body: offer("sv1-offer-2") })
    expect(onValidator.status).toBeGreaterThanOrEqual(400)
    expect(onValidator.status).toBeLessThan(500)
  })

  it("refuses a token with an empty scope and no audience", async () => {
    const noAudience = await devToken("ledger-api-user", { scope: "" })
    expect((await call(local(node.ports.appUserLedger, "/v2/authenticated-user"), { token: noAudience })).status).toBe(401)
  })

  it("routes scan by Host on 4000, as LocalNet's proxy does", async () => {
    const scan = await requestWithHost(node.ports.scan, "scan.localhost", "/api/scan/v0/dso-party-id")
    expect(scan.status).toBe(200)
    expect(scan.json).toEqual({ dso_party_id: expect.stringContaining("::") })
    const other = await requestWithHost(node.ports.scan, "localhost", "/api/scan/v0/dso-party-id")
    expect(other.status).toBe(404)
  })

  it("answers the validator's scan proxy on 2000 with upstream names and shapes", async () => {
    const rules = await call(local(node.ports.validator, "/api/validator/v0/scan-proxy/amulet-rules"), { token })
    expect(rules.status).toBe(200)
    const contract = (rules.json as { amulet_rules: { contract: { template_id: string; payload: Record<string, unknown> }; domain_id: string } }).amulet_rules
    expect(contract.contract.template_id).toMatch(/:Splice\.AmuletRules:AmuletRules$/)
    expect(contract.domain_id).toEqual(expect.any(String))
    const rounds = await call(local(node.ports.validator, "/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds"), { token })
    const open = (rounds.json as { open_mining_rounds: ReadonlyArray<{ contract: { template_id: string; payload: { opensAt: string } } }> }).open_mining_rounds
    expect(open.length).toBeGreaterThan(0)
    expect(open[0]!.contract.template_id).toMatch(/:Splice\.Round:OpenMiningRound$/)
    expect(open[0]!.contract.payload.opensAt).toEqual(expect.any(String))
    const none = await call(local(node.ports.validator, `/api/validator/v0/scan-proxy/transfer-preapprovals/by-party/${encodeURIComponent(node.operator)}`), { token })
    expect(none.status).toBe(404)
    expect((await call(local(node.ports.validator, "/api/validator/v0/scan-proxy/amulet-rules"))).status).toBe(401)
  })

  it("names the instrument Amulet on the registry (5003) and through the scan proxy", async () => {
    const direct = await call(local(node.ports.registry, "/registry/metadata/v1/instruments"))
    expect(direct.status).toBe(200)
    expect((direct.json as { instruments: ReadonlyArray<{ id: string }> }).instruments.map((i) => i.id)).toEqual(["Amulet"])
    const proxied = await call(local(node.ports.validator, "/api/validator/v0/scan-proxy/registry/metadata/v1/instruments/Amulet"), { token })
    expect(proxied.status).toBe(200)
    expect(proxied.json).toMatchObject({ id: "Amulet", name: "Amulet" })
  })

  it("hands out the transfer factory with its choice context through the scan proxy, in upstream names", async () => {
    const dso = ((await call(local(node.ports.validator, "/api/validator/v0/scan-proxy/dso-party-id"), { token })).json as { dso_party_id: string }).dso_party_id
    const url = local(node.ports.validator, "/api/validator/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory")
    const reply = await call(url, { token, body: factoryRequest(dso, node.operator, "Amulet") })
    expect(reply.status).toBe(200)
    const factory = reply.json as Factory
    expect(factory.transferKind).toBe("offer")
    expect(Object.keys(factory.choiceContext.choiceContextData.values).sort()).toEqual(["amulet-rules", "open-round"])
    expect(factory.choiceContext.disclosedContracts.map((c) => c.templateId.split(":").slice(1).join(":"))).toEqual([
      "Splice.AmuletRules:AmuletRules",
      "Splice.Round:OpenMiningRound",
      "Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules"
    ])
    expect(factory.factoryId).toBe(factory.choiceContext.disclosedContracts[2]!.contractId)
    const unknown = await call(url, { token, body: factoryRequest(dso, node.operator, "Coin2") })
    expect(unknown.status).toBe(404)
    expect(unknown.json).toEqual({ error: expect.stringContaining("Coin2") })
  })

  it("hands out a direct transfer once the receiver has a preapproval: the preapproval joins the context", async () => {
    const dso = ((await call(local(node.ports.validator, "/api/validator/v0/scan-proxy/dso-party-id"), { token })).json as { dso_party_id: string }).dso_party_id
    const created = await call(local(node.ports.validator, "/api/validator/v0/wallet/transfer-preapproval"), { method: "POST", token })
    expect(created.status, created.text).toBe(200)
    const url = local(node.ports.validator, "/api/validator/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory")
    const factory = (await call(url, { token, body: factoryRequest(dso, node.operator, "Amulet") })).json as Factory
    expect(factory.transferKind).toBe("direct")
    const values = factory.choiceContext.choiceContextData.values
    expect(Object.keys(values).sort()).toEqual(["amulet-rules", "open-round", "transfer-preapproval"])
    const disclosed = factory.choiceContext.disclosedContracts.find((c) => c.contractId === (values["transfer-preapproval"] as unknown as { value: string }).value)
    expect(disclosed?.templateId).toMatch(/:Splice\.AmuletRules:TransferPreapproval$/)
  })

  it("reports a participant's traffic on scan, and 404 for an unknown member", async () => {
    const participant = ((await call(local(node.ports.appUserLedger, "/v2/parties/participant-id"), { token })).json as { participantId: string }).participantId
    const connected = await call(local(node.ports.appUserLedger, `/v2/state/connected-synchronizers?party=${encodeURIComponent(node.operator)}`), { token })
    const synchronizerId = (connected.json as { connectedSynchronizers: ReadonlyArray<{ synchronizerId: string }> }).connectedSynchronizers[0]!.synchronizerId
    const path = (member: string) => `/api/scan/v0/domains/${encodeURIComponent(synchronizerId)}/members/${encodeURIComponent(member)}/traffic-status`
    const status = await requestWithHost(node.ports.scan, "scan.localhost", path(`PAR::${participant}`))
    expect(status.status).toBe(200)
    const traffic = (status.json as { traffic_status: { actual: { total_consumed: number; total_limit: number }; target: { total_purchased: number } } }).traffic_status
    expect(traffic.actual.total_limit).toBeGreaterThan(0)
    expect(traffic.target.total_purchased).toBeGreaterThanOrEqual(traffic.actual.total_limit)
    expect(traffic.actual.total_consumed).toBeLessThanOrEqual(traffic.actual.total_limit)
    const unknown = await requestWithHost(node.ports.scan, "scan.localhost", path("PAR::nobody::1220aa"))
    expect(unknown.status).toBe(404)
    expect(unknown.json).toEqual({ error: expect.stringContaining("PAR::nobody::1220aa") })
  })

  it("accepts verbose: false next to updateFormat on /v2/updates/flats, refuses verbose: true", async () => {
    const updateFormat = { includeTransactions: { eventFormat: { filtersByParty: { [node.operator]: {} } }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" } }
    const url = local(node.ports.appUserLedger, "/v2/updates/flats")
    const quiet = await call(url, { token, body: { beginExclusive: 0, endInclusive: 1, updateFormat, verbose: false } })
    expect(quiet.status).toBe(200)
    expect(Array.isArray(quiet.json)).toBe(true)
    const verbose = await call(url, { token, body: { beginExclusive: 0, endInclusive: 1, updateFormat, verbose: true } })
    expect(verbose.status).toBe(400)
    expect(verbose.text).toContain("verbose: must be unset or false when updateFormat is set")
  })

  it("lists a tapped holding as splice-amulet's Amulet with instrument Amulet on the ledger", async () => {
    const tap = await call(local(node.ports.validator, "/api/validator/v0/wallet/tap"), { token, body: { amount: "100" } })
    expect(tap.status).toBe(200)
    const end = await call(local(node.ports.appUserLedger, "/v2/state/ledger-end"), { token })
    const offset = (end.json as { offset: number }).offset
    const holding = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
    const acs = await call(local(node.ports.appUserLedger, "/v2/state/active-contracts"), {
      token,
      body: {
        activeAtOffset: offset,
        eventFormat: {
          filtersByParty: {
            [node.operator]: {
              cumulative: [
                { identifierFilter: { TemplateFilter: { value: { templateId: "#splice-amulet:Splice.Amulet:Amulet", includeCreatedEventBlob: false } } } },
                { identifierFilter: { InterfaceFilter: { value: { interfaceId: holding, includeInterfaceView: true, includeCreatedEventBlob: false } } } }
              ]
            }
          },
          verbose: false
        }
      }
    })
    expect(acs.status).toBe(200)
    type Created = { templateId: string; packageName: string; interfaceViews: ReadonlyArray<{ viewValue: { amount: string; instrumentId: { id: string } } }> }
    const created = (acs.json as ReadonlyArray<{ contractEntry: { JsActiveContract: { createdEvent: Created } } }>).map((e) => e.contractEntry.JsActiveContract.createdEvent)
    const tapped = created.filter((c) => c.interfaceViews[0]?.viewValue.amount === "100.0000000000")
    expect(tapped.length).toBe(1)
    expect(tapped[0]).toMatchObject({ packageName: "splice-amulet", templateId: expect.stringMatching(/:Splice\.Amulet:Amulet$/) })
    expect(tapped[0]!.interfaceViews[0]!.viewValue.instrumentId.id).toBe("Amulet")
  })
})

describe("a plain node keeps the spec's names", () => {
  let node: WalletTestNode
  beforeAll(async () => {
    node = await startWalletNode()
  })
  afterAll(() => node.close())

  it("names the instrument Coin and the rules CoinRules, also on the scan proxy", async () => {
    const instruments = await call(`${node.url}/registry/metadata/v1/instruments`)
    expect((instruments.json as { instruments: ReadonlyArray<{ id: string }> }).instruments.map((i) => i.id)).toEqual(["Coin"])
    const rules = await call(`${node.url}/api/validator/v0/scan-proxy/amulet-rules`, { token: node.admin })
    expect(rules.status).toBe(200)
    expect((rules.json as { amulet_rules: { contract: { template_id: string } } }).amulet_rules.contract.template_id).toMatch(/:Splice\.CoinRules:CoinRules$/)
    const dso = ((await call(`${node.url}/api/scan/v0/dso-party-id`)).json as { dso_party_id: string }).dso_party_id
    const factory = await call(`${node.url}/registry/transfer-instruction/v1/transfer-factory`, { body: factoryRequest(dso, dso, "Coin") })
    expect(factory.status).toBe(200)
    expect((factory.json as Factory).transferKind).toBe("self")
    expect(Object.keys((factory.json as Factory).choiceContext.choiceContextData.values).sort()).toEqual(["coin-rules", "open-round"])
    expect((await call(`${node.url}/registry/transfer-instruction/v1/transfer-factory`, { body: factoryRequest(dso, dso, "Amulet") })).status).toBe(404)
  })
})
