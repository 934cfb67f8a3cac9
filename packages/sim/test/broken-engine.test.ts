import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { micros, type ContractId, type Micros } from "@sandnet/core"
import {
  Coin,
  CoinRules_Transfer,
  Commands,
  dsoReference,
  ParticipantLogic,
  type Actor,
  type CoinPayload,
  type ProtocolRequest,
  type SynchronizerInfo
} from "@sandnet/engine"
import { checkAcsConverge, checkScansConverge, checkVerdicts, replaceLogic, type RunOptions, type SimContext } from "../src/index.ts"
import { run, small, violationsOf } from "./support.ts"

/** A deliberately broken participant: its confirmations ignore inactive and locked inputs. */
class CarelessParticipant extends ParticipantLogic {
  override checkView(request: ProtocolRequest, inputs: ReadonlyArray<ContractId>, requestId: Micros, synchronizer: SynchronizerInfo): string | undefined {
    return request.kind === "transaction" ? undefined : super.checkView(request, inputs, requestId, synchronizer)
  }
}

/** Every participant of the network becomes careless (before genesis, when they have only allocated their operators). */
const careless = (sim: SimContext) =>
  Effect.forEach(sim.handles, (handle) => replaceLogic(sim.network, sim.queue, handle, (old) => new CarelessParticipant(old.config, old.topology, old.registry)), { discard: true })

/**
 * A buggy wallet: two minutes into the run it spends one coin of the first validator's first party
 * twice, in two commands submitted at the same instant (both are interpreted against the same ACS).
 */
const doubleSpender = (sim: SimContext) =>
  Effect.gen(function* () {
    const actor: Actor = {
      address: "sim::double-spender",
      receive: () =>
        Effect.gen(function* () {
          const now = micros.fromNanos(yield* Clock.currentTimeNanos)
          const ref = dsoReference(sim.network, now)!
          const node = sim.network.validators[0]!.participant
          const coin = [...node.logic.acs.ofTemplate(Coin.templateId, [...node.logic.hostedParties()][1]!)].find(
            (c) => node.logic.acs.lockedBy(c.created.contractId) === undefined
          )!
          const owner = (coin.created.createArguments as unknown as CoinPayload).owner
          for (const commandId of ["double-spend-1", "double-spend-2"]) {
            yield* Effect.either(
              node.submit({
                actAs: [owner],
                commandId,
                commands: [
                  Commands.exercise(CoinRules_Transfer, ref.coinRules.created.contractId, {
                    transfer: {
                      sender: owner,
                      provider: owner,
                      inputs: [{ tag: "InputCoin", value: coin.created.contractId }],
                      outputs: [{ receiver: owner, receiverFeeRatio: "0", amount: "1" }],
                      beneficiaries: null
                    },
                    context: { openMiningRound: ref.openRound.created.contractId, featuredAppRight: null },
                    expectedDso: null
                  })
                ],
                disclosedContracts: [ref.coinRules, ref.openRound]
              })
            )
          }
        })
    }
    yield* sim.queue.register(actor)
    yield* sim.queue.schedule(actor.address, { _tag: "Spend" }, sim.clock.now + micros.minutes(2))
  })

const scenario = small({ minutes: 4, syncs: 1, parties: 4, perMinute: 10 })

describe("invariants against a broken engine", () => {
  it("an honest engine rejects the double spend, and every invariant holds", async () => {
    const result = await run(scenario, { seed: 5, setup: doubleSpender })
    expect(violationsOf(result)).toEqual([])
    const node = result.network.validators[0]!.participant.logic
    const outcomes = ["double-spend-1", "double-spend-2"].map((id) => {
      const c = [...node.hostedParties()].map((p) => node.completionOf(id, [p])).find((x) => x !== undefined)
      return c?._tag === "Failed" ? c.code : c?._tag
    })
    expect(outcomes.filter((o) => o === "Succeeded")).toHaveLength(1)
    expect(outcomes.filter((o) => o !== "Succeeded")).toEqual(["LOCAL_VERDICT_LOCKED_CONTRACTS"])
  }, 60_000)

  it("catches participants whose confirmations ignore inactive inputs: the delivery that committed the second spend", async () => {
    const options: RunOptions = { seed: 5, beforeGenesis: careless, setup: doubleSpender }
    const result = await run(scenario, options)
    expect(result.ok).toBe(false)
    expect(result.invariants["no-double-spend"]?.length).toBeGreaterThan(0)
    expect(result.invariants["conservation"]?.length).toBeGreaterThan(0)
    // Seen during the run, at the delivery where a node committed the second consumption.
    const first = result.firstFailure!
    expect(["no-double-spend", "conservation"]).toContain(first.invariant)
    expect(first.delivery).toBeGreaterThan(0)
    expect(first.delivery).toBeLessThan(result.summary.deliveries)
    expect(first.window.at(-1)?.n).toBe(first.delivery)
    expect(first.window.at(-1)?.message).toContain("ConfirmationResult transaction")

    // The failure replays exactly: same seed, stopped right after that delivery.
    const replay = await run(scenario, { ...options, stopAfter: first.delivery })
    expect(replay.stoppedAt).toBe(first.delivery)
    expect(replay.firstFailure?.delivery).toBe(first.delivery)
    expect(replay.firstFailure?.invariant).toBe(first.invariant)
    expect(replay.firstFailure?.historyHash).toBe(first.historyHash)
  }, 60_000)
})

describe("convergence invariants", () => {
  it("notice a node whose ACS lost a contract, or holds it elsewhere", async () => {
    const result = await run(small({ minutes: 2, syncs: 1, parties: 4, perMinute: 10 }), { seed: 9 })
    expect(violationsOf(result)).toEqual([])
    const node = result.network.validators[0]!.participant.logic
    const contract = [...node.acs.all()].find((c) => c.created.templateId === Coin.templateId)!
    node.acs.remove(contract.created.contractId)
    expect(checkAcsConverge(result.network).join("\n")).toContain(`has ${contract.created.contractId} active, ${node.config.name} (a stakeholder's participant) does not`)
    node.acs.add({ ...contract, synchronizerId: "elsewhere" })
    expect(checkAcsConverge(result.network).join("\n")).toContain(`has ${contract.created.contractId} active on elsewhere at counter 0`)
  }, 60_000)

  it("notice scans that differ: a verdict or an update one lacks or has more, a verdict with another result, one stored twice", async () => {
    const result = await run(small({ minutes: 2, svs: 3, syncs: 1, parties: 4, perMinute: 10 }), { seed: 9 })
    expect(violationsOf(result)).toEqual([])
    const [sv0, sv1, sv2] = result.network.superValidators
    const some = sv0!.scan.verdictLog.at(0)!
    const someUpdate = sv0!.scan.updates.at(0)!
    // the first scan has a verdict and an update no other has; the second one more update; the
    // third a second verdict for an update id, with another result
    sv0!.scan.verdictLog.push({ ...some, verdict: { ...some.verdict, updateId: "only-in-sv0" } })
    sv0!.scan.updates.push({ ...someUpdate, update: { ...someUpdate.update, updateId: "update-only-in-sv0" } })
    sv1!.scan.updates.push({ ...someUpdate, update: { ...someUpdate.update, updateId: "update-only-in-sv1" } })
    sv2!.scan.verdictLog.push({ ...some, verdict: { ...some.verdict, result: "VERDICT_RESULT_REJECTED" } })
    const id = some.verdict.updateId
    expect([...checkScansConverge(result.network)].sort()).toEqual([
      `${sv1!.name} scan has no verdict for only-in-sv0 (${sv0!.name} has ${some.verdict.result})`,
      `${sv1!.name} scan has update update-only-in-sv1 that ${sv0!.name} lacks`,
      `${sv1!.name} scan lacks update update-only-in-sv0 that ${sv0!.name} has`,
      `${sv2!.name} scan has no verdict for only-in-sv0 (${sv0!.name} has ${some.verdict.result})`,
      `${sv2!.name} scan lacks update update-only-in-sv0 that ${sv0!.name} has`,
      `${sv2!.name} scan's verdict for ${id} is VERDICT_RESULT_REJECTED, ${sv0!.name}'s is ${some.verdict.result}`
    ].sort())
    expect(checkVerdicts(result.network)).toContain(`${sv2!.name} scan stores two verdicts for ${id}`)
  }, 60_000)
})
