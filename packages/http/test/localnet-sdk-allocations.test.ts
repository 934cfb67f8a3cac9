/**
 * The token standard's allocations against a node in LocalNet's layout (upstream names): the
 * Wallet SDK's `token.allocation.*` (the registry's allocation factory, AllocationFactory_Allocate
 * by its interface id, the allocation choice contexts, Allocation_ExecuteTransfer and
 * Allocation_Withdraw), and Allocation_Cancel sent by hand to the ledger JSON API with the
 * registry's choice context, as a settlement app does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectSdk, ensureSdkEnvironment, sdkConfig } from "./localnet-sdk-support.ts"
import { localNetToken, requestWithHost, startLocalNet, type LocalNetNode } from "./localnet-support.ts"

type Sdk = Awaited<ReturnType<typeof connectSdk>>
type Submission = Parameters<Sdk["ledger"]["internal"]["submit"]>[0]
/** The SDK types an allocation choice's answer loosely (a list of command-or-disclosures): as it is built, a command and its disclosures. */
type Prepared = readonly [Submission["commands"][number], NonNullable<Submission["disclosedContracts"]>]

const ALLOCATION_INTERFACE = "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation"

describe("token-standard allocations against --localnet", () => {
  let node: LocalNetNode
  beforeAll(async () => {
    ensureSdkEnvironment()
    node = await startLocalNet(5)
  })
  afterAll(() => node.close())

  const amulet = async () => {
    const info = await requestWithHost(node.ports.registry, "localhost", "/registry/metadata/v1/info")
    const admin = (info.json as { adminId: string }).adminId
    return { id: "Amulet", displayName: "Amulet", symbol: "CC", registryUrl: sdkConfig(node).registryUrl, admin }
  }

  const total = async (sdk: Sdk, party: string) =>
    (await sdk.token.utxos.list({ partyId: party })).reduce((sum, u) => sum + Number(u.interfaceViewValue.amount), 0)

  /** alice (sender), bob (receiver), venue (executor); alice taps 1000 and allocates 300 to the leg through the SDK. */
  const allocate = async (sdk: Sdk, hint: string) => {
    const asset = await amulet()
    const [alice, bob, venue] = await Promise.all(["alice", "bob", "venue"].map((p) => sdk.party.internal.allocate({ partyHint: `${hint}-${p}` })))
    await sdk.amulet.tapInternal("1000", { partyId: alice! })
    const now = Date.now()
    const [command, disclosed] = await sdk.token.allocation.instruction.create({
      asset,
      allocationSpecification: {
        settlement: {
          executor: venue!,
          settlementRef: { id: `${hint}-trade`, cid: null },
          requestedAt: new Date(now - 1000).toISOString(),
          allocateBefore: new Date(now + 600_000).toISOString(),
          settleBefore: new Date(now + 1_200_000).toISOString(),
          meta: { values: {} }
        },
        transferLegId: "leg-0",
        transferLeg: { sender: alice!, receiver: bob!, amount: "300", instrumentId: { admin: asset.admin, id: "Amulet" }, meta: { values: {} } }
      }
    })
    expect("ExerciseCommand" in command ? command.ExerciseCommand.templateId : undefined).toBe("#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory")
    await sdk.ledger.internal.submit({ commands: [command], disclosedContracts: disclosed, actAs: [alice!] })
    const pending = await sdk.token.allocation.pending(alice!)
    expect(pending.map((p) => [p.activeContract.createdEvent.templateId.split(":").slice(1).join(":"), p.interfaceViewValue.allocation.transferLeg.amount])).toEqual([
      ["Splice.AmuletAllocation:AmuletAllocation", "300.0000000000"]
    ])
    return { asset, alice: alice!, bob: bob!, venue: venue!, allocationCid: pending[0]!.contractId }
  }

  it("allocate, then execute the transfer: the receiver gets the amount, the lock is released", async () => {
    const sdk = await connectSdk(node)
    const { asset, alice, bob, venue, allocationCid } = await allocate(sdk, "exec")
    const [execute, disclosed] = (await sdk.token.allocation.execute({ allocationCid, asset })) as unknown as Prepared
    await sdk.ledger.internal.submit({ commands: [execute], disclosedContracts: disclosed, actAs: [venue, alice, bob] })
    expect(await sdk.token.allocation.pending(alice)).toEqual([])
    const received = await sdk.token.utxos.list({ partyId: bob })
    expect(received.map((u) => [u.interfaceViewValue.instrumentId.id, u.interfaceViewValue.amount, u.interfaceViewValue.lock])).toEqual([["Amulet", "300.0000000000", null]])
    const left = await sdk.token.utxos.list({ partyId: alice })
    expect(left.every((u) => u.interfaceViewValue.lock === null)).toBe(true)
    // Coin is conserved up to the transfer's fees: alice's 1000 is bob's 300 and alice's change.
    const sum = (await total(sdk, alice)) + (await total(sdk, bob))
    expect(sum).toBeLessThanOrEqual(1000)
    expect(sum).toBeGreaterThan(990)
  })

  it("allocate, then withdraw (the sender): the sender gets the holdings back whole", async () => {
    const sdk = await connectSdk(node)
    const { asset, alice, bob, allocationCid } = await allocate(sdk, "wdr")
    const [withdraw, disclosed] = (await sdk.token.allocation.withdraw({ allocationCid, asset })) as unknown as Prepared
    await sdk.ledger.internal.submit({ commands: [withdraw], disclosedContracts: disclosed, actAs: [alice] })
    expect(await sdk.token.allocation.pending(alice)).toEqual([])
    expect(await sdk.token.utxos.list({ partyId: bob })).toEqual([])
    const back = await sdk.token.utxos.list({ partyId: alice })
    expect(back.every((u) => u.interfaceViewValue.lock === null)).toBe(true)
    expect(await total(sdk, alice)).toBe(1000)
  })

  it("cancel by the interface id over the ledger JSON API, with the registry's choice context (through the scan proxy)", async () => {
    const sdk = await connectSdk(node)
    const { alice, bob, venue, allocationCid } = await allocate(sdk, "cnl")
    const token = await localNetToken()
    const context = await requestWithHost(node.ports.validator, "localhost", `/api/validator/v0/scan-proxy/registry/allocations/v1/${allocationCid}/choice-contexts/cancel`, {
      token,
      body: { excludeDebugFields: true }
    })
    expect(context.status).toBe(200)
    const { choiceContextData, disclosedContracts } = context.json as { choiceContextData: unknown; disclosedContracts: ReadonlyArray<{ templateId: string }> }
    expect(disclosedContracts.map((c) => c.templateId.split(":").slice(1).join(":")).sort()).toEqual([
      "Splice.Amulet:LockedAmulet",
      "Splice.AmuletRules:AmuletRules",
      "Splice.Round:OpenMiningRound"
    ])
    const exercise = (actAs: ReadonlyArray<string>, commandId: string) =>
      requestWithHost(node.ports.appUserLedger, "localhost", "/v2/commands/submit-and-wait", {
        token,
        body: {
          commands: [{ ExerciseCommand: { templateId: ALLOCATION_INTERFACE, contractId: allocationCid, choice: "Allocation_Cancel", choiceArgument: { extraArgs: { context: choiceContextData, meta: { values: {} } } } } }],
          commandId,
          actAs,
          disclosedContracts
        }
      })
    // Cancelling needs the executor, the sender and the receiver.
    const bySenderAlone = await exercise([alice], "cancel-alice")
    expect(bySenderAlone.status).toBeGreaterThanOrEqual(400)
    const cancelled = await exercise([venue, alice, bob], "cancel-all")
    expect(cancelled.status).toBe(200)
    expect(await sdk.token.allocation.pending(alice)).toEqual([])
    expect(await total(sdk, alice)).toBe(1000)
    // Once the allocation is gone its contexts are 404.
    const gone = await requestWithHost(node.ports.registry, "localhost", `/registry/allocations/v1/${allocationCid}/choice-contexts/execute-transfer`, { body: {} })
    expect(gone.status).toBe(404)
  })
})
