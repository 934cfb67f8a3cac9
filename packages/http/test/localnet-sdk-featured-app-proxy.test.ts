/**
 * The Wallet SDK's documented 13-rewards-for-deposits (docs/wallet-integration-guide/examples/
 * scripts of splice-wallet-kernel) against --localnet: it uploads LocalNet's
 * splice-util-featured-app-proxies-1.1.0.dar, one of Splice's own DARs, which Sandnet serves
 * natively; the validator operator (the featured app provider) creates a DelegateProxy for the
 * treasury, and the treasury withdraws, rejects and accepts transfer instructions through it while
 * the provider's featured app right records FeaturedAppActivityMarkers. Then, beyond the example,
 * the proxy's allocation choices, and the provider's rewards: the DSO turns the markers into a
 * featured AppRewardCoupon and the validator's wallet mints it once its round issues.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectSdk, ensureSdkEnvironment, sdkConfig, damlLfDarNamed, type JsContractReader } from "./localnet-sdk-support.ts"
import { localNetToken, requestWithHost, startLocalNet, type LocalNetNode } from "./localnet-support.ts"
import { call } from "./support.ts"

/** The example's package id of splice-util-featured-app-proxies 1.1.0. */
const SPLICE_UTIL_PROXY_PACKAGE_ID = "81dd5a9e5c02d0de03208522a895fb85eeb12fbea4aca7c4ad0ad106f3b0bfce"
const PROXY_TEMPLATE_ID = "#splice-util-featured-app-proxies:Splice.Util.FeaturedApp.DelegateProxy:DelegateProxy"
const MARKER_TEMPLATE_ID = "#splice-amulet:Splice.Amulet:FeaturedAppActivityMarker"

type Sdk = Awaited<ReturnType<typeof connectSdk>>
type Submission = Parameters<Sdk["ledger"]["internal"]["submit"]>[0]
type Exercise = { readonly ExerciseCommand: { readonly templateId: string; readonly contractId: string; readonly choice: string; readonly choiceArgument: unknown } }


describe("the Wallet SDK's 13-rewards-for-deposits against --localnet", () => {
  let node: LocalNetNode
  beforeAll(async () => {
    ensureSdkEnvironment()
    node = await startLocalNet(6)
  })
  afterAll(() => node.close())
  /** alice of the example, whose preapproval proposal waits for the operator's coin. */
  let aliceParty = ""

  const postDar = async (bytes: Uint8Array) =>
    fetch(`http://127.0.0.1:${node.ports.appUserLedger}/v2/packages`, {
      method: "POST",
      headers: { authorization: `Bearer ${await localNetToken()}`, "content-type": "application/octet-stream" },
      body: bytes
    })

  it("splice-util-featured-app-proxies' DAR uploads (200)", async () => {
    const reply = await postDar(damlLfDarNamed("splice-util-featured-app-proxies", "1.1.0"))
    expect(reply.status).toBe(200)
  })

  it("13: as the example runs it: withdraw, reject and accept transfer instructions through the treasury's DelegateProxy", async () => {
    const sdk = await connectSdk(node)
    const registryUrl = sdkConfig(node).registryUrl
    const reader = sdk.ledger.acsReader as unknown as JsContractReader
    const aliceKeys = sdk.keys.generate()
    const treasuryKeys = sdk.keys.generate()
    const alice = await sdk.party.external.create(aliceKeys.publicKey, { partyHint: "v1-13-alice" }).sign(aliceKeys.privateKey).execute()
    const treasury = await sdk.party.external.create(treasuryKeys.publicKey, { partyHint: "v1-13-treasury" }).sign(treasuryKeys.privateKey).execute()
    const submit = async (party: { partyId: string }, keys: { privateKey: string }, commands: unknown, disclosedContracts?: unknown) =>
      sdk.ledger
        .prepare({ partyId: party.partyId, commands: commands as never, disclosedContracts: disclosedContracts as never })
        .sign(keys.privateKey)
        .execute({ partyId: party.partyId })

    await sdk.ledger.dar.upload(damlLfDarNamed("splice-util-featured-app-proxies", "1.1.0"), SPLICE_UTIL_PROXY_PACKAGE_ID)
    // alice's preapproval proposal, as the example makes it. Its provider, the validator operator,
    // pays the preapproval fee to accept it and has no coin yet (as on a LocalNet whose validator
    // has earned nothing): the proposal waits, and the treasury's transfer to alice below is a
    // two-step one, which _withdraw withdraws.
    aliceParty = alice.partyId
    const transferPreApprovalProposal = await sdk.amulet.preapproval.command.create({ parties: { receiver: alice.partyId } })
    await submit(alice, aliceKeys, transferPreApprovalProposal)

    const featuredAppRight = await sdk.amulet.featuredApp.grant()
    if (!featuredAppRight) throw new Error("featuredAppRightCid is undefined")

    const startingAmount = 20_000_000
    for (const [party, keys] of [[alice, aliceKeys], [treasury, treasuryKeys]] as const) {
      const [command, disclosed] = await sdk.amulet.tap(party.partyId, startingAmount.toString())
      await submit(party, keys, command, disclosed)
    }
    // The example's partiesUtxos: each party's holdings summed as the example sums them (acc + +amount).
    const partiesUtxos = async () => {
      const sum = async (partyId: string) => (await sdk.token.utxos.list({ partyId })).reduce((acc, utxo) => acc + +utxo.interfaceViewValue.amount, 0)
      return { senderUtxos: await sum(alice.partyId), treasuryUtxos: await sum(treasury.partyId) }
    }
    const proxyCid = async () => (await reader.readJsContracts({ parties: [treasury.partyId], templateIds: [PROXY_TEMPLATE_ID], filterByParty: true }))[0]!.contractId

    // _withdraw: the treasury's own transfer to alice, withdrawn through the proxy. (The commands'
    // registryUrl defaults to LocalNet's port 5003; this node's ports are shifted, so the test passes it.)
    await sdk.token.transfer.delegatedProxy.create(treasury.partyId)
    const [out, outDisclosed] = await sdk.token.transfer.create({ sender: treasury.partyId, recipient: alice.partyId, amount: "100", instrumentId: "Amulet", registryUrl })
    await submit(treasury, treasuryKeys, out, outDisclosed)
    const outgoing = (await sdk.token.transfer.pending(treasury.partyId))[0]!.contractId
    const [withdraw, withdrawDisclosed] = await sdk.token.transfer.delegatedProxy.commands.withdraw({ proxyCid: await proxyCid(), transferInstructionCid: outgoing, featuredAppRight, registryUrl })
    await submit(treasury, treasuryKeys, withdraw, withdrawDisclosed)
    expect(await partiesUtxos()).toEqual({ senderUtxos: startingAmount, treasuryUtxos: startingAmount })

    // setupIteration: a DelegateProxy again, alice sends 100 to the treasury, which answers through the proxy.
    const setupIteration = async () => {
      await sdk.token.transfer.delegatedProxy.create(treasury.partyId)
      const amountToSend = 100
      const [command, disclosed] = await sdk.token.transfer.create({ sender: alice.partyId, recipient: treasury.partyId, amount: amountToSend.toString(), instrumentId: "Amulet", registryUrl })
      await submit(alice, aliceKeys, command, disclosed)
      const commandArgs = { proxyCid: await proxyCid(), transferInstructionCid: (await sdk.token.transfer.pending(alice.partyId))[0]!.contractId, featuredAppRight, registryUrl }
      return { commandArgs, amountToSend }
    }

    // _reject
    const rejecting = await setupIteration()
    const [reject, rejectDisclosed] = await sdk.token.transfer.delegatedProxy.commands.reject(rejecting.commandArgs)
    await submit(treasury, treasuryKeys, reject, rejectDisclosed)
    expect(await partiesUtxos()).toEqual({ senderUtxos: startingAmount, treasuryUtxos: startingAmount })

    // _accept
    const accepting = await setupIteration()
    const [accept, acceptDisclosed] = await sdk.token.transfer.delegatedProxy.commands.accept(accepting.commandArgs)
    await submit(treasury, treasuryKeys, accept, acceptDisclosed)
    // After the accept alice holds 100.5555562800 (the first lock, returned by the reject),
    // 19999798.8888874400 and 0.5555562800 (what the second lock kept for holding fees): exactly
    // 19999900, but the example's float sum of these is 19999899.999999996, so here the Numeric 10
    // amounts are summed exactly. (Splice locks more, (fees + holding fees) x 4, and with LocalNet's
    // holding fee and price its float sum would be off as well, 19999900.000000004.)
    const exactly = async (partyId: string) =>
      Number((await sdk.token.utxos.list({ partyId })).reduce((sum, utxo) => sum + BigInt(utxo.interfaceViewValue.amount.replace(".", "")), 0n)) / 1e10
    expect({ senderUtxos: await exactly(alice.partyId), treasuryUtxos: await exactly(treasury.partyId) }).toEqual({
      senderUtxos: startingAmount - accepting.amountToSend,
      treasuryUtxos: startingAmount + accepting.amountToSend
    })
    expect(await sdk.token.transfer.pending(alice.partyId)).toEqual([])

    // Each proxied call recorded the provider's activity: one marker for the provider (the default beneficiary, weight 1).
    const markers = await reader.readJsContracts({ parties: [node.operator], templateIds: ["#splice-amulet:Splice.Amulet:FeaturedAppActivityMarker"], filterByParty: true })
    expect(markers.map((m) => m.createArgument)).toEqual(
      Array.from({ length: 3 }, () => expect.objectContaining({ provider: node.operator, beneficiary: node.operator, weight: "1.0000000000" }))
    )
    // alice's proposal still waits for the operator's coin.
    const proposals = await reader.readJsContracts({ parties: [alice.partyId], templateIds: ["#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal"], filterByParty: true })
    expect(proposals.map((p) => p.createArgument)).toEqual([expect.objectContaining({ receiver: alice.partyId, provider: node.operator })])

    // Beyond the example: only the delegate answers through the proxy (alice, no stakeholder of the
    // proxy, does not see it), and weights adding up to more than 1 are refused.
    const extra = (await setupIteration()).commandArgs
    const [byAlice, byAliceDisclosed] = await sdk.token.transfer.delegatedProxy.commands.accept(extra)
    await expect(submit(alice, aliceKeys, byAlice, byAliceDisclosed)).rejects.toMatchObject({ code: "CONTRACT_NOT_FOUND", cause: expect.stringContaining(extra.proxyCid) })
    // (The SDK adds the provider with the rest, -0.5; it refuses such weights itself only for withdraw.)
    const [overweight, overweightDisclosed] = await sdk.token.transfer.delegatedProxy.commands.reject({ ...extra, beneficiaries: [{ beneficiary: alice.partyId, weight: 1.5 }] })
    await expect(submit(treasury, treasuryKeys, overweight, overweightDisclosed)).rejects.toMatchObject({ cause: expect.stringContaining("beneficiary weights must be positive") })
  }, 180_000)
  // Upstream's DelegateProxy also proxies AllocationFactory_Allocate and Allocation_Withdraw; the SDK
  // has no commands for them, so the test wraps the SDK's allocation commands as a desk would.
  it("DelegateProxy's allocation choices: the delegate allocates and withdraws through the proxy, each call recording a marker", async () => {
    const sdk = await connectSdk(node)
    const reader = sdk.ledger.acsReader as unknown as JsContractReader
    const markers = async () => (await reader.readJsContracts({ parties: [node.operator], templateIds: [MARKER_TEMPLATE_ID], filterByParty: true })).length
    const [desk, bob, venue] = (await Promise.all(["desk", "bob", "venue"].map((p) => sdk.party.internal.allocate({ partyHint: `proxy-allocation-${p}` })))) as [string, string, string]
    await sdk.amulet.tapInternal("1000", { partyId: desk })
    await sdk.token.transfer.delegatedProxy.create(desk)
    const proxyCid = (await reader.readJsContracts({ parties: [desk], templateIds: [PROXY_TEMPLATE_ID], filterByParty: true }))[0]!.contractId
    const featuredAppRight = await sdk.amulet.featuredApp.grant()
    if (!featuredAppRight) throw new Error("no featured app right")
    const throughProxy = (command: unknown, choice: string): Exercise => {
      const { contractId, choiceArgument } = (command as Exercise).ExerciseCommand
      return {
        ExerciseCommand: {
          templateId: PROXY_TEMPLATE_ID,
          contractId: proxyCid,
          choice,
          choiceArgument: { cid: contractId, proxyArg: { choiceArg: choiceArgument, featuredAppRightCid: featuredAppRight.contract_id, beneficiaries: [{ beneficiary: node.operator, weight: "1.0" }] } }
        }
      }
    }
    // The provider's right is disclosed to the delegate, as the SDK's proxy commands do (createFeaturedAppDisclosedContract).
    const right = { templateId: featuredAppRight.template_id, contractId: featuredAppRight.contract_id, createdEventBlob: featuredAppRight.created_event_blob }
    const submit = (command: Exercise, disclosed: unknown, actAs: string) =>
      sdk.ledger.internal.submit({
        commands: [command as Submission["commands"][number]],
        disclosedContracts: [...(disclosed as NonNullable<Submission["disclosedContracts"]>), right],
        actAs: [actAs]
      })
    const before = await markers()
    const admin = ((await requestWithHost(node.ports.registry, "localhost", "/registry/metadata/v1/info")).json as { adminId: string }).adminId
    const asset = { id: "Amulet", displayName: "Amulet", symbol: "CC", registryUrl: sdkConfig(node).registryUrl, admin }
    const now = Date.now()
    const [allocate, allocateDisclosed] = await sdk.token.allocation.instruction.create({
      asset,
      allocationSpecification: {
        settlement: {
          executor: venue,
          settlementRef: { id: "proxy-trade", cid: null },
          requestedAt: new Date(now - 1000).toISOString(),
          allocateBefore: new Date(now + 600_000).toISOString(),
          settleBefore: new Date(now + 1_200_000).toISOString(),
          meta: { values: {} }
        },
        transferLegId: "leg-0",
        transferLeg: { sender: desk, receiver: bob, amount: "300", instrumentId: { admin, id: "Amulet" }, meta: { values: {} } }
      }
    })
    await submit(throughProxy(allocate, "DelegateProxy_AllocationFactory_Allocate"), allocateDisclosed, desk)
    const pending = await sdk.token.allocation.pending(desk)
    expect(pending.map((p) => p.interfaceViewValue.allocation.transferLeg.amount)).toEqual(["300.0000000000"])
    expect(await markers()).toBe(before + 1)

    const [withdraw, withdrawDisclosed] = (await sdk.token.allocation.withdraw({ allocationCid: pending[0]!.contractId, asset })) as unknown as readonly [unknown, unknown]
    // Only the delegate answers through the proxy: bob, no stakeholder of it, cannot.
    await expect(submit(throughProxy(withdraw, "DelegateProxy_Allocation_Withdraw"), withdrawDisclosed, bob)).rejects.toBeDefined()
    await submit(throughProxy(withdraw, "DelegateProxy_Allocation_Withdraw"), withdrawDisclosed, desk)
    expect(await sdk.token.allocation.pending(desk)).toEqual([])
    const holdings = await sdk.token.utxos.list({ partyId: desk })
    expect(holdings.every((u) => u.interfaceViewValue.lock === null)).toBe(true)
    expect(holdings.reduce((sum, u) => sum + BigInt(u.interfaceViewValue.amount.replace(".", "")), 0n)).toBe(1000n * 10n ** 10n)
    expect(await markers()).toBe(before + 2)
  }, 120_000)

  // Last: it moves ledger time past the wall clock, by which the SDK picks its open round.
  it("13, the rewards: the DSO converts the provider's markers into an app reward coupon, which the validator's wallet mints", async () => {
    const token = await localNetToken()
    const ledger = (path: string) => `http://127.0.0.1:${node.ports.appUserLedger}${path}`
    const wallet = (path: string) => `http://127.0.0.1:${node.ports.validator}/api/validator/v0/wallet${path}`
    const advance = async (duration: string) => expect((await call(ledger("/v2/sandnet/time/advance"), { token, body: { duration } })).status).toBe(200)
    const sdk = await connectSdk(node)
    const reader = sdk.ledger.acsReader as unknown as JsContractReader
    const markers = () => reader.readJsContracts({ parties: [node.operator], templateIds: ["#splice-amulet:Splice.Amulet:FeaturedAppActivityMarker"], filterByParty: true })
    // Three markers from the example, two from the allocations through the proxy (weight 1 each).
    expect(await markers()).toHaveLength(5)
    // The DSO's next tick (10 minutes apart) converts them into one coupon (1 USD at 0.005 USD per Amulet, per marker).
    await advance("10m")
    expect(await markers()).toEqual([])
    const coupons = await call(wallet("/app-reward-coupons"), { token })
    expect(coupons.status).toBe(200)
    const payloads = (coupons.json as { app_reward_coupons: Array<{ payload: Record<string, unknown> }> }).app_reward_coupons.map((c) => c.payload)
    expect(payloads).toEqual([expect.objectContaining({ provider: node.operator, beneficiary: node.operator, featured: true, amount: "1000.0000000000" })])
    // Once the coupon's round issues the validator's wallet mints it: a transfer using app rewards.
    await advance("1h")
    await advance("1h")
    expect((await call(wallet("/app-reward-coupons"), { token })).json).toEqual({ app_reward_coupons: [] })
    const history = await call(wallet("/transactions"), { token, body: { page_size: 100 } })
    const used = (history.json as { items: Array<{ app_rewards_used?: string }> }).items.map((i) => Number(i.app_rewards_used ?? "0"))
    expect(used.filter((amount) => amount > 0)).toHaveLength(1)
    // With coin of its own now, the operator has accepted alice's waiting preapproval proposal on a later poll.
    const preapprovals = await reader.readJsContracts({ parties: [aliceParty], templateIds: ["#splice-amulet:Splice.AmuletRules:TransferPreapproval"], filterByParty: true })
    expect(preapprovals.map((c) => c.createArgument)).toEqual([expect.objectContaining({ receiver: aliceParty, provider: node.operator })])
  }, 120_000)
})
