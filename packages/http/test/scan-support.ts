/**
 * Test helpers for the scan and registry surfaces: a node with an engine (NodeRuntime on a manual
 * clock) on a free port, and engine drivers (allocate parties, tap coin, submit commands as a
 * party or as the DSO) that run through the runtime like HTTP commands do.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import { toIso, type ActiveContract, type ContractId, type Micros, type PartyId } from "@sandnet/core"
import {
  CoinRules_DevNet_Tap,
  Commands,
  dsoReference,
  type Command,
  type CoinNetworkConfig,
  type Completion,
  type ParticipantNode,
  type SubmitRequest
} from "@sandnet/engine"
import { expect } from "vitest"
import * as Node from "@sandnet/node"
import * as Http from "../src/index.ts"

/** 2026-01-01T10:30:00Z: half past an hour, so hourly snapshot boundaries fall between updates. */
export const START: Micros = Date.UTC(2026, 0, 1, 10, 30) * 1000

export interface EngineNode {
  readonly url: string
  readonly runtime: Node.NodeRuntimeService
  /** Runs an engine operation through the runtime (alone, then delivers what fell due). */
  readonly run: <A, E>(operation: (engine: Node.EngineInstance) => Effect.Effect<A, E, never>) => Promise<A>
  readonly engine: () => Promise<Node.EngineInstance>
  readonly advance: (by: Micros) => Promise<Micros>
  readonly close: () => Promise<void>
}

export const startEngineNode = async (options: { readonly network?: Partial<CoinNetworkConfig>; readonly start?: Micros } = {}): Promise<EngineNode> => {
  const scope = Effect.runSync(Scope.make())
  const layer = Http.layerMemory({ http: { port: 0, logRequests: false } }).pipe(
    Layer.provideMerge(
      Node.nodeRuntimeLayer({
        clock: { _tag: "manual", start: options.start ?? START },
        tickIntervalMillis: 20,
        ...(options.network === undefined ? {} : { network: options.network })
      })
    )
  )
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const url = Effect.runSync(Effect.provide(Http.baseUrl, context))
  const runtime = Effect.runSync(Effect.provide(Node.NodeRuntime, context))
  return {
    url,
    runtime,
    run: (operation) => Effect.runPromise(runtime.run((engine) => operation(engine))),
    engine: () => Effect.runPromise(runtime.engine),
    advance: (by) => Effect.runPromise(Effect.map(runtime.advanceTime(by), (advanced) => advanced.now)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

let commandCounter = 0
export const nextCommandId = (prefix: string): string => `${prefix}-${++commandCounter}`

/** Submits and returns the completion (the runtime delivers everything before it returns). */
export const submit = async (node: EngineNode, participant: (engine: Node.EngineInstance) => ParticipantNode, request: SubmitRequest): Promise<Completion> => {
  await node.run((engine) => Effect.asVoid(Effect.orDie(participant(engine).submit(request))))
  const engine = await node.engine()
  const completion = participant(engine).logic.completionOf(request.commandId, request.actAs)
  if (completion === undefined) throw new Error(`command ${request.commandId} has not completed`)
  return completion
}

/** Submits and expects success; returns the update id. */
export const submitOk = async (node: EngineNode, participant: (engine: Node.EngineInstance) => ParticipantNode, request: SubmitRequest): Promise<string> => {
  const completion = await submit(node, participant, request)
  if (completion._tag !== "Succeeded") throw new Error(`command ${request.commandId} failed: ${completion.reason}`)
  return completion.updateId
}

export const validator = (i = 0) => (engine: Node.EngineInstance): ParticipantNode => engine.network.validators[i]!.participant
export const superValidator = (i = 0) => (engine: Node.EngineInstance): ParticipantNode => engine.network.superValidators[i]!.participant

export const allocate = (node: EngineNode, hint: string, on = validator()): Promise<PartyId> =>
  node.run((engine) => Effect.orDie(on(engine).allocateParty(hint)))

/** The DSO's CoinRules and newest usable open round, as disclosed contracts. */
export const dsoRef = async (node: EngineNode) => {
  const engine = await node.engine()
  const ref = dsoReference(engine.network, engine.clock.now)
  if (ref === undefined) throw new Error("no DSO reference")
  return ref
}

/** Taps `amount` coin for `party` (hosted on `on`); returns the update id. */
export const tap = async (node: EngineNode, party: PartyId, amount: string, on = validator(), extra: ReadonlyArray<Command> = []): Promise<string> => {
  const ref = await dsoRef(node)
  return submitOk(node, on, {
    actAs: [party],
    commandId: nextCommandId("tap"),
    commands: [
      ...extra,
      Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, { receiver: party, amount, openRound: ref.openRound.created.contractId })
    ],
    disclosedContracts: [ref.coinRules, ref.openRound]
  })
}

/** Submits as the DSO from the first super validator (genesis does the same). */
export const asDso = async (node: EngineNode, commands: ReadonlyArray<Command>, disclosedContracts: ReadonlyArray<ActiveContract> = []): Promise<string> => {
  const engine = await node.engine()
  return submitOk(node, superValidator(0), { actAs: [engine.network.dso], commandId: nextCommandId("dso"), commands, disclosedContracts })
}

/** An active contract of sv1's ACS by id. */
export const svContract = async (node: EngineNode, contractId: ContractId, sv = 0): Promise<ActiveContract> => {
  const engine = await node.engine()
  const contract = engine.network.superValidators[sv]!.participant.logic.acs.get(contractId)
  if (contract === undefined) throw new Error(`contract ${contractId} is not active at sv${sv + 1}`)
  return contract
}

/** Active contracts of a template (package-id form) where `party` is a stakeholder, at sv1. */
export const svContractsOf = async (node: EngineNode, templateId: string, party: PartyId): Promise<ReadonlyArray<ActiveContract>> => {
  const engine = await node.engine()
  return [...engine.network.superValidators[0]!.participant.logic.acs.ofTemplate(templateId, party)]
}

/** The scan's update entry by id (sv1 by default). */
export const scanUpdate = async (node: EngineNode, updateId: string, sv = 0) => {
  const engine = await node.engine()
  const entry = engine.network.superValidators[sv]!.scan.updateById(updateId)
  if (entry === undefined) throw new Error(`update ${updateId} not in the scan of sv${sv + 1}`)
  return entry
}

export interface Reply {
  readonly status: number
  readonly contentType: string
  readonly json: unknown
}

export const get = async (url: string): Promise<Reply> => {
  const response = await fetch(url)
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", json }
}

export const post = async (url: string, body: unknown): Promise<Reply> => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) })
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", json }
}

/** Expects an `{error}` body with this status; returns the message. */
export const expectError = (reply: Reply, status: number): string => {
  expect(reply.status).toBe(status)
  expect(reply.contentType).toMatch(/application\/json/)
  expect(reply.json).toEqual({ error: expect.any(String) })
  return (reply.json as { error: string }).error
}

export const iso = toIso

/** JSON object access for assertions. */
export const obj = (value: unknown): Record<string, unknown> => {
  expect(typeof value === "object" && value !== null && !Array.isArray(value)).toBe(true)
  return value as Record<string, unknown>
}
