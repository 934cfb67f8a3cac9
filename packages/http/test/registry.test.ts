/**
 * Registry over real HTTP: the transfer-instruction choice contexts (R1 reject, and accept and
 * withdraw, on the v1 and v2 paths) for a token-standard transfer offer, used end to end by the
 * receiver with the disclosed contracts' blobs; 404 / 400 / 409 (during a reassignment); and the
 * metadata API.
 */
import { Effect } from "effect"
import { micros, type ActiveContract, type Micros } from "@sandnet/core"
import {
  COIN_INSTRUMENT,
  Coin,
  CoinTransferInstruction,
  ExternalPartyCoinRules,
  LedgerApi,
  LockedCoin_OwnerExpireLock,
  OpenMiningRound,
  TransferFactory_Transfer,
  TransferInstruction_Reject,
  TransferInstructionInterface,
  choiceContext,
  Commands,
  emptyMeta,
  type OpenMiningRoundPayload
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
  submit,
  submitOk,
  svContract,
  svContractsOf,
  startEngineNode,
  tap,
  validator,
  type EngineNode
} from "./scan-support.ts"

let node: EngineNode
let dso: string
let alice: string
let bob: string
let sync1: string
let sync2: string

beforeAll(async () => {
  node = await startEngineNode({
    network: { validators: 2, synchronizers: [{ name: "global-synchronizer" }, { name: "second-synchronizer" }] }
  })
  const engine = await node.engine()
  dso = engine.network.dso
  sync1 = engine.network.synchronizers[0]!.info.synchronizerId
  sync2 = engine.network.synchronizers[1]!.info.synchronizerId
  alice = await allocate(node, "alice", validator(0))
  bob = await allocate(node, "bob", validator(1))
})
afterAll(() => node.close())

const contextUrl = (id: string, choice: "accept" | "reject" | "withdraw", version: "v1" | "v2" = "v2") =>
  `${node.url}/registry/transfer-instruction/${version}/${id}/choice-contexts/${choice}`

/** The DisclosedContract shape of an active contract, exactly. */
const disclosedJson = (c: ActiveContract, debug = true) => ({
  templateId: c.created.templateId,
  contractId: c.created.contractId,
  createdEventBlob: LedgerApi.createdEventBlob(c),
  synchronizerId: c.synchronizerId,
  ...(debug ? { debugPackageName: c.created.packageName, debugPayload: c.created.createArguments, debugCreatedAt: iso(c.created.createdAt) } : {})
})

/** The newest open mining round that has opened (computed here independently of the registry). */
const usableRound = async (): Promise<ActiveContract> => {
  const engine = await node.engine()
  const rounds = (await svContractsOf(node, OpenMiningRound.templateId, dso)).filter(
    (r) => Date.parse((r.created.createArguments as unknown as OpenMiningRoundPayload).opensAt) * 1000 <= engine.clock.now
  )
  return rounds.sort((a, b) => Number((b.created.createArguments as unknown as OpenMiningRoundPayload).round.number) - Number((a.created.createArguments as unknown as OpenMiningRoundPayload).round.number))[0]!
}

/** Alice offers `amount` to Bob through the token standard; returns the instruction's contract. */
const offer = async (amount: string, executeIn: Micros = micros.days(1)): Promise<ActiveContract> => {
  const tapId = await tap(node, alice, "100", validator(0))
  const coin = (await svContractsOf(node, Coin.templateId, alice)).find((c) => c.createdInUpdateId === tapId)!
  const ref = await dsoRef(node)
  const rules = (await svContractsOf(node, ExternalPartyCoinRules.templateId, dso))[0]!
  const engine = await node.engine()
  const updateId = await submitOk(node, validator(0), {
    actAs: [alice],
    commandId: nextCommandId("offer"),
    commands: [
      Commands.exercise(TransferFactory_Transfer, rules.created.contractId, {
        expectedAdmin: dso,
        transfer: {
          sender: alice,
          receiver: bob,
          amount,
          instrumentId: { admin: dso, id: COIN_INSTRUMENT },
          requestedAt: iso(engine.clock.now),
          executeBefore: iso(engine.clock.now + executeIn),
          inputHoldingCids: [coin.created.contractId],
          meta: emptyMeta
        },
        extraArgs: { context: choiceContext(ref.coinRules.created.contractId, ref.openRound.created.contractId), meta: emptyMeta }
      })
    ],
    disclosedContracts: [rules, ref.coinRules, ref.openRound]
  })
  const instruction = (await svContractsOf(node, CoinTransferInstruction.templateId, dso)).find((c) => c.createdInUpdateId === updateId)
  expect(instruction).toBeDefined()
  return instruction!
}

const lockedOf = (instruction: ActiveContract) => svContract(node, (instruction.created.createArguments as { lockedCoin: string }).lockedCoin)

/** Delays every message to a synchronizer's sequencer (the assign of a reassignment waits). */
const delaySequencer = async (index: number, delay: Micros) => {
  const engine = await node.engine()
  const sequencer = engine.network.synchronizers[index]!.info.sequencer
  engine.queue.setLinkModel({ route: (_from, to, _message, now) => [to === sequencer ? now + delay : now] })
}
const undelay = async () => (await node.engine()).queue.setLinkModel({ route: (_from, _to, _message, now) => [now] })

describe("metadata", () => {
  it("GET /registry/metadata/v1/info names the DSO as admin", async () => {
    const reply = await get(`${node.url}/registry/metadata/v1/info`)
    expect(reply.status).toBe(200)
    expect(reply.json).toEqual({ adminId: dso, supportedApis: { "splice-api-token-metadata-v1": 1 } })
  })

  it("lists the coin instrument with its total supply; looks it up by id", async () => {
    await tap(node, alice, "25", validator(0))
    const engine = await node.engine()
    const expected = {
      id: "Coin",
      name: "Coin",
      symbol: "CC",
      totalSupply: "25.0000000000",
      totalSupplyAsOf: iso(engine.clock.now),
      decimals: 10,
      supportedApis: {
        "splice-api-token-holding-v1": 1,
        "splice-api-token-transfer-instruction-v1": 1,
        "splice-api-token-allocation-instruction-v1": 1,
        "splice-api-token-allocation-v1": 1
      }
    }
    expect((await get(`${node.url}/registry/metadata/v1/instruments`)).json).toEqual({ instruments: [expected] })
    expect((await get(`${node.url}/registry/metadata/v1/instruments?pageSize=5&pageToken=Coin`)).json).toEqual({ instruments: [] })
    expect((await get(`${node.url}/registry/metadata/v1/instruments/Coin`)).json).toEqual(expected)
    expect(expectError(await get(`${node.url}/registry/metadata/v1/instruments/Gold`), 404)).toBe("instrument Gold not found")
    expectError(await get(`${node.url}/registry/metadata/v1/instruments?pageSize=many`), 400)
  })
})

describe("R1 transfer-instruction choice contexts", () => {
  it("reject: the rules, the usable open round and the locked holding, as context values and disclosed contracts", async () => {
    const instruction = await offer("10")
    const locked = await lockedOf(instruction)
    const ref = await dsoRef(node)
    const round = await usableRound()
    const expected = {
      choiceContextData: {
        values: {
          "coin-rules": { tag: "AV_ContractId", value: ref.coinRules.created.contractId },
          "open-round": { tag: "AV_ContractId", value: round.created.contractId },
          "expire-lock": { tag: "AV_Bool", value: true }
        }
      },
      disclosedContracts: [disclosedJson(ref.coinRules), disclosedJson(round), disclosedJson(locked)]
    }
    const reply = await post(contextUrl(instruction.created.contractId, "reject"), {})
    expect(reply.status).toBe(200)
    expect(reply.json).toEqual(expected)
    expect(Object.keys(obj(reply.json))).toEqual(["choiceContextData", "disclosedContracts"])
    expect(locked.synchronizerId).toBe(sync1)

    // meta is accepted; the v1 path and the accept and withdraw contexts are the same here.
    expect((await post(contextUrl(instruction.created.contractId, "reject"), { meta: { "example.com/reason": "not mine" } })).json).toEqual(expected)
    expect((await post(contextUrl(instruction.created.contractId, "reject", "v1"), {})).json).toEqual(expected)
    expect((await post(contextUrl(instruction.created.contractId, "accept"), {})).json).toEqual(expected)
    expect((await post(contextUrl(instruction.created.contractId, "withdraw", "v1"), {})).json).toEqual(expected)

    // excludeDebugFields drops every debug* field.
    const lean = await post(contextUrl(instruction.created.contractId, "reject"), { excludeDebugFields: true })
    expect(lean.json).toEqual({
      ...expected,
      disclosedContracts: [disclosedJson(ref.coinRules, false), disclosedJson(round, false), disclosedJson(locked, false)]
    })
  })

  it("the receiver rejects with the context and the disclosed blobs; afterwards the instruction is unknown", async () => {
    const instruction = await offer("12")
    const reply = await post(contextUrl(instruction.created.contractId, "reject"), { excludeDebugFields: true })
    const context = obj(reply.json) as {
      choiceContextData: { values: Record<string, { tag: "AV_ContractId"; value: string } | { tag: "AV_Bool"; value: boolean }> }
      disclosedContracts: ReadonlyArray<{ createdEventBlob: string }>
    }
    const disclosed = context.disclosedContracts.map((d) => LedgerApi.decodeCreatedEventBlob(d.createdEventBlob)!)
    expect(disclosed.every((c) => c !== undefined)).toBe(true)
    const completion = await submit(node, validator(1), {
      actAs: [bob],
      commandId: nextCommandId("reject"),
      commands: [Commands.exercise(TransferInstruction_Reject, instruction.created.contractId, { extraArgs: { context: context.choiceContextData, meta: emptyMeta } })],
      disclosedContracts: disclosed
    })
    expect(completion._tag).toBe("Succeeded")
    // The scan shows the interface choice with its interface id; protobuf_json types its argument.
    const updateId = completion.updateId!
    const root = obj(obj(obj((await get(`${node.url}/api/scan/v1/updates/${updateId}`)).json)["events_by_id"])[`${updateId}:0`])
    expect(root).toMatchObject({
      event_type: "exercised_event",
      contract_id: instruction.created.contractId,
      template_id: CoinTransferInstruction.templateId,
      choice: "TransferInstruction_Reject",
      consuming: true,
      acting_parties: [bob],
      interface_id: TransferInstructionInterface.interfaceId()
    })
    const typed = obj(obj(obj((await get(`${node.url}/api/scan/v1/updates/${updateId}?contract_value_encoding=protobuf_json`)).json)["events_by_id"])[`${updateId}:0`])
    // extraArgs.context.values is a typed text map of variants (AnyValue), one per context key.
    const extraArgs = (obj(obj(typed["choice_argument"])["record"])["fields"] as Array<{ label: string; value: unknown }>)[0]!
    expect(extraArgs.label).toBe("extraArgs")
    const contextField = (obj(obj(extraArgs.value)["record"])["fields"] as Array<{ label: string; value: unknown }>)[0]!
    expect(contextField.label).toBe("context")
    const values = (obj(obj(contextField.value)["record"])["fields"] as Array<{ label: string; value: unknown }>)[0]!
    const entries = obj(obj(values.value)["textMap"])["entries"] as Array<{ key: string; value: { variant: { constructor: string } } }>
    expect(entries.map((e) => [e.key, e.value.variant.constructor])).toEqual(
      Object.keys(context.choiceContextData.values)
        .sort()
        .map((key) => [key, context.choiceContextData.values[key]!.tag])
    )
    expect(expectError(await post(contextUrl(instruction.created.contractId, "reject"), {}), 404)).toBe(
      `transfer instruction ${instruction.created.contractId} not found`
    )
  })

  it("once the lock is released: reject and withdraw only say expire-lock = false; accept is 404", async () => {
    const instruction = await offer("3", micros.minutes(1))
    const locked = await lockedOf(instruction)
    await node.advance(micros.minutes(2))
    await submitOk(node, validator(0), {
      actAs: [alice],
      commandId: nextCommandId("unlock"),
      commands: [Commands.exercise(LockedCoin_OwnerExpireLock, locked.created.contractId, {})]
    })
    const released = { choiceContextData: { values: { "expire-lock": { tag: "AV_Bool", value: false } } }, disclosedContracts: [] }
    expect((await post(contextUrl(instruction.created.contractId, "reject"), {})).json).toEqual(released)
    expect((await post(contextUrl(instruction.created.contractId, "withdraw"), {})).json).toEqual(released)
    expect(expectError(await post(contextUrl(instruction.created.contractId, "accept"), {}), 404)).toMatch(
      new RegExp(`^locked holding ${locked.created.contractId} of transfer instruction ${instruction.created.contractId} not found`)
    )
  })

  it("answers 409 while the instruction or its locked holding is being reassigned, and serves it once assigned", async () => {
    const instruction = await offer("5")
    const id = instruction.created.contractId
    await delaySequencer(1, micros.seconds(5))
    try {
      await node.run((engine) =>
        Effect.orDie(
          engine.network.validators[0]!.participant.reassign({ submitter: alice, commandId: nextCommandId("move"), contractId: id, targetSynchronizer: sync2 })
        )
      )
      const engine = await node.engine()
      expect(engine.network.superValidators[0]!.participant.logic.acs.inFlightOf(id)).toBeDefined()
      for (const choice of ["reject", "accept", "withdraw"] as const) {
        expect(expectError(await post(contextUrl(id, choice), {}), 409)).toMatch(/being reassigned/)
      }
      expectError(await post(contextUrl(id, "reject", "v1"), {}), 409)
    } finally {
      await undelay()
    }
    await node.advance(micros.seconds(6))
    expect((await svContract(node, id)).synchronizerId).toBe(sync2)
    const assigned = await post(contextUrl(id, "reject"), {})
    expect(assigned.status).toBe(200)
    expect((obj(assigned.json)["disclosedContracts"] as Array<{ synchronizerId: string }>).map((d) => d.synchronizerId)).toEqual([sync1, sync1, sync1])

    // The locked holding (a disclosed contract) in flight: 409 too.
    const locked = await lockedOf(instruction)
    await delaySequencer(1, micros.seconds(5))
    try {
      await node.run((engine) =>
        Effect.orDie(
          engine.network.validators[0]!.participant.reassign({
            submitter: alice,
            commandId: nextCommandId("move-lock"),
            contractId: locked.created.contractId,
            targetSynchronizer: sync2
          })
        )
      )
      expect(expectError(await post(contextUrl(id, "reject"), {}), 409)).toMatch(/locked holding .* is being reassigned/)
    } finally {
      await undelay()
    }
    await node.advance(micros.seconds(6))
    const after = await post(contextUrl(id, "reject"), {})
    expect((obj(after.json)["disclosedContracts"] as Array<{ synchronizerId: string }>).map((d) => d.synchronizerId)).toEqual([sync1, sync1, sync2])
  })

  it("answers 404 for an unknown instruction or another contract, 400 for a malformed id or body", async () => {
    const unknown = `00${"55".repeat(32)}`
    expect(expectError(await post(contextUrl(unknown, "reject"), {}), 404)).toBe(`transfer instruction ${unknown} not found`)
    const ref = await dsoRef(node)
    expectError(await post(contextUrl(ref.coinRules.created.contractId, "reject"), {}), 404)
    expect(expectError(await post(contextUrl("not-a-contract-id", "reject"), {}), 400)).toMatch(/transferInstructionId/)
    expect(expectError(await post(contextUrl(unknown, "reject"), { meta: { n: 1 } }), 400)).toContain("meta")
    expect(expectError(await post(contextUrl(unknown, "reject"), { excludeDebugFields: "yes" }), 400)).toContain("excludeDebugFields")
    expectError(await post(contextUrl(unknown, "reject"), "[1,"), 400)
  })
})
