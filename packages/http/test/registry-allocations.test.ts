/**
 * The registry's allocation endpoints in the spec's names (a plain node): the allocation factory
 * (ExternalPartyCoinRules, instrument `Coin`) with its choice context, an allocation made with it,
 * its withdraw context (the locked holding disclosed), the withdrawal, and 404 afterwards.
 * localnet-sdk-allocations.test.ts runs the same against LocalNet's names through the Wallet SDK.
 */
import { micros } from "@sandnet/core"
import {
  AllocationFactory_Allocate,
  Allocation_Withdraw,
  COIN_INSTRUMENT,
  Coin,
  CoinAllocation,
  CoinRules,
  ExternalPartyCoinRules,
  LedgerApi,
  LockedCoin,
  OpenMiningRound,
  Commands,
  emptyMeta
} from "@sandnet/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { allocate, expectError, iso, nextCommandId, obj, post, submitOk, svContractsOf, startEngineNode, tap, validator, type EngineNode } from "./scan-support.ts"

let node: EngineNode
let dso: string
let alice: string
let bob: string

beforeAll(async () => {
  node = await startEngineNode({ network: { validators: 2 } })
  dso = (await node.engine()).network.dso
  alice = await allocate(node, "alice", validator(0))
  bob = await allocate(node, "bob", validator(1))
})
afterAll(() => node.close())

type Context = {
  choiceContextData: { values: Record<string, { tag: string; value: unknown }> }
  disclosedContracts: ReadonlyArray<{ templateId: string; createdEventBlob: string }>
}

const factoryUrl = () => `${node.url}/registry/allocation-instruction/v1/allocation-factory`
const contextUrl = (id: string, choice: "execute-transfer" | "withdraw" | "cancel") => `${node.url}/registry/allocations/v1/${id}/choice-contexts/${choice}`
const entity = (templateId: string) => templateId.split(":").slice(1).join(":")

describe("registry allocations (spec names)", () => {
  it("the allocation factory: ExternalPartyCoinRules with the coin rules and open round; 404 for another instrument", async () => {
    const reply = await post(factoryUrl(), { choiceArguments: { expectedAdmin: dso, allocation: { transferLeg: { instrumentId: { admin: dso, id: COIN_INSTRUMENT } } } } })
    expect(reply.status).toBe(200)
    const body = obj(reply.json) as { factoryId: string; choiceContext: Context }
    const factory = (await svContractsOf(node, ExternalPartyCoinRules.templateId, dso))[0]!
    expect(body.factoryId).toBe(factory.created.contractId)
    expect(Object.keys(body.choiceContext.choiceContextData.values).sort()).toEqual(["coin-rules", "open-round"])
    expect(body.choiceContext.disclosedContracts.map((d) => entity(d.templateId))).toEqual([
      entity(CoinRules.templateId),
      entity(OpenMiningRound.templateId),
      entity(ExternalPartyCoinRules.templateId)
    ])
    const other = await post(factoryUrl(), { choiceArguments: { expectedAdmin: dso, allocation: { transferLeg: { instrumentId: { admin: dso, id: "Amulet" } } } } })
    expect(other.status).toBe(404)
  })

  it("allocate with the factory's context, withdraw with the allocation's context; then the contexts are 404", async () => {
    const tapId = await tap(node, alice, "100", validator(0))
    const coin = (await svContractsOf(node, Coin.templateId, alice)).find((c) => c.createdInUpdateId === tapId)!
    const factory = obj((await post(factoryUrl(), { choiceArguments: { expectedAdmin: dso, allocation: { transferLeg: { instrumentId: { admin: dso, id: COIN_INSTRUMENT } } } } })).json) as {
      factoryId: string
      choiceContext: Context
    }
    const now = (await node.engine()).clock.now
    const updateId = await submitOk(node, validator(0), {
      actAs: [alice],
      commandId: nextCommandId("allocate"),
      commands: [
        Commands.exercise(AllocationFactory_Allocate, factory.factoryId, {
          expectedAdmin: dso,
          allocation: {
            settlement: {
              executor: bob,
              settlementRef: { id: "trade" },
              requestedAt: iso(now),
              allocateBefore: iso(now + micros.hours(1)),
              settleBefore: iso(now + micros.hours(2)),
              meta: emptyMeta
            },
            transferLegId: "0",
            transferLeg: { sender: alice, receiver: bob, amount: "40", instrumentId: { admin: dso, id: COIN_INSTRUMENT }, meta: emptyMeta }
          },
          requestedAt: iso(now),
          inputHoldingCids: [coin.created.contractId],
          extraArgs: { context: factory.choiceContext.choiceContextData as never, meta: emptyMeta }
        })
      ],
      disclosedContracts: factory.choiceContext.disclosedContracts.map((d) => LedgerApi.decodeCreatedEventBlob(d.createdEventBlob)!)
    })
    const allocation = (await svContractsOf(node, CoinAllocation.templateId, dso)).find((c) => c.createdInUpdateId === updateId)!
    expect(allocation).toBeDefined()
    const id = allocation.created.contractId
    const withdraw = obj((await post(contextUrl(id, "withdraw"), { excludeDebugFields: true })).json) as Context
    expect(withdraw.disclosedContracts.map((d) => entity(d.templateId))).toEqual([
      entity(CoinRules.templateId),
      entity(OpenMiningRound.templateId),
      entity(LockedCoin.templateId)
    ])
    expect(withdraw.choiceContextData.values["expire-lock"]).toEqual({ tag: "AV_Bool", value: true })
    await submitOk(node, validator(0), {
      actAs: [alice],
      commandId: nextCommandId("withdraw"),
      commands: [Commands.exercise(Allocation_Withdraw, id, { extraArgs: { context: withdraw.choiceContextData as never, meta: emptyMeta } })],
      disclosedContracts: []
    })
    expect(await svContractsOf(node, LockedCoin.templateId, alice)).toEqual([])
    for (const choice of ["execute-transfer", "withdraw", "cancel"] as const) {
      expect(expectError(await post(contextUrl(id, choice), {}), 404)).toBe(`allocation ${id} not found`)
    }
    // A contract that is not an allocation is 404 as well; a malformed id 400.
    expect(expectError(await post(contextUrl(coin.created.contractId, "cancel"), {}), 404)).toBe(`allocation ${coin.created.contractId} not found`)
    expectError(await post(contextUrl("not-a-contract-id", "cancel"), {}), 400)
  })
})
