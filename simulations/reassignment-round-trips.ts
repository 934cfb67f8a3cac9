/**
 * One coin travels between two synchronizers and back, twice. Each unassign raises the contract's
 * reassignment counter by one and the matching assign carries the same counter and the unassign id;
 * after four moves the coin is home again with counter 4, at every node that hosts a stakeholder
 * (its owner's validator and every super validator, the DSO being a signatory).
 *
 *   npx tsx simulations/reassignment-round-trips.ts --seed 3
 */
import { Effect, Either } from "effect"
import { micros, type ContractId, type PartyId } from "@sandnet/core"
import { Coin, type CoinPayload } from "@sandnet/engine"
import { defineSimulation, main, programActor } from "./support.ts"

const MOVES = 4

interface TripState {
  owner: PartyId | undefined
  coin: ContractId | undefined
  readonly moves: Array<string>
}

export const reassignmentRoundTrips = defineSimulation<TripState>({
  name: "reassignment-round-trips",
  description: `one coin moved between two synchronizers ${MOVES} times; counters 1..${MOVES}, home at the end`,
  scenario: `
name: reassignment-round-trips
seed: 1
duration: 8m
topology: { superValidators: 3, validators: 2, synchronizers: [global-synchronizer, app-synchronizer], parties: 4 }
network:
  latency: { min: 1ms, max: 30ms }
workload:
  initialTap: 50
settle: 2m
`,
  initial: () => ({ owner: undefined, coin: undefined, moves: [] }),
  options: (state) => ({
    setup: (sim) => {
      const [home, away] = sim.network.synchronizers.map((s) => s.info.synchronizerId) as [string, string]
      const validator = sim.network.validators[0]!
      const logic = validator.participant.logic
      const move = (i: number) => () =>
        Effect.gen(function* () {
          if (i === 0) {
            // The first coin (by id) of the first party (by id) hosted here that owns one.
            for (const party of [...logic.hostedParties()].sort()) {
              const coins = [...logic.acs.ofTemplate(Coin.templateId, party)]
                .filter((c) => (c.created.createArguments as unknown as CoinPayload).owner === party && c.synchronizerId === home)
                .map((c) => c.created.contractId)
                .sort()
              if (coins.length > 0) {
                state.owner = party
                state.coin = coins[0]
                break
              }
            }
          }
          if (state.owner === undefined || state.coin === undefined) return
          const target = i % 2 === 0 ? away : home
          const result = yield* Effect.either(
            validator.participant.reassign({ submitter: state.owner, commandId: `round-trip-${i + 1}`, contractId: state.coin, targetSynchronizer: target })
          )
          state.moves.push(Either.isRight(result) ? `move ${i + 1} to ${target}: submitted` : `move ${i + 1} to ${target}: refused (${result.left.message})`)
        })
      return programActor(
        sim,
        "program::reassignment-round-trips",
        Array.from({ length: MOVES }, (_, i) => ({ at: sim.clock.now + micros.minutes(2 + i), run: move(i) }))
      )
    }
  }),
  check: (result, state) => {
    if (state.coin === undefined) return ["no coin to move"]
    const failures = state.moves.filter((m) => !m.endsWith("submitted"))
    const home = result.network.synchronizers[0]!.info.synchronizerId
    const stakeholderNodes = [...result.network.superValidators, result.network.validators[0]!]
    for (const node of stakeholderNodes) {
      const logic = node.participant.logic
      const active = logic.acs.get(state.coin)
      if (active === undefined) failures.push(`${node.name}: the coin is not active at the end`)
      else {
        if (active.synchronizerId !== home) failures.push(`${node.name}: the coin ends on ${active.synchronizerId}, not home`)
        if (active.reassignmentCounter !== MOVES) failures.push(`${node.name}: reassignment counter ${active.reassignmentCounter}, expected ${MOVES}`)
      }
      // The node's history: unassign n then assign n, for n = 1..MOVES, each assign naming its unassign.
      const events = [...logic.log].flatMap((e) => (e.update.kind === "reassignment" && "event" in e.update && eventContract(e.update.event) === state.coin ? [e.update.event] : []))
      const counters = events.map((e) => `${e.kind}:${e.reassignmentCounter}`)
      const expected = Array.from({ length: MOVES }, (_, i) => [`unassign:${i + 1}`, `assign:${i + 1}`]).flat()
      if (counters.join(",") !== expected.join(",")) failures.push(`${node.name}: reassignment events ${counters.join(",")}, expected ${expected.join(",")}`)
      for (let i = 0; i + 1 < events.length; i += 2) {
        const [unassign, assign] = [events[i]!, events[i + 1]!]
        if (unassign.kind === "unassign" && assign.kind === "assign" && assign.unassignId !== unassign.unassignId) {
          failures.push(`${node.name}: assign ${assign.reassignmentCounter} carries unassign id ${assign.unassignId}, not ${unassign.unassignId}`)
        }
      }
    }
    return failures
  },
  report: (result, state) => {
    const active = state.coin === undefined ? undefined : result.network.validators[0]!.participant.logic.acs.get(state.coin)
    return [
      `coin              ${state.coin ?? "none"} of ${state.owner ?? "nobody"}`,
      ...state.moves.map((m) => `                  ${m}`),
      `at the end        ${active === undefined ? "not active" : `on ${active.synchronizerId}, reassignment counter ${active.reassignmentCounter}`}`
    ]
  }
})

type ReassignmentEvent = { readonly kind: "unassign"; readonly contractId: ContractId } | { readonly kind: "assign"; readonly createdEvent: { readonly contractId: ContractId } }

const eventContract = (event: ReassignmentEvent): ContractId => (event.kind === "unassign" ? event.contractId : event.createdEvent.contractId)

main(reassignmentRoundTrips, import.meta.url)
