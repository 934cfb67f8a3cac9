/**
 * Two transfers spending one coin, submitted by its owner in the same instant (a client that lost
 * track of what it spent). Both interpret against the same active contract set and both are
 * sequenced; the confirming participants lock the coin for the first request, so the second is
 * rejected (locked or, once the first commits, inactive). Exactly one commits: no double spend.
 *
 *   npx tsx simulations/double-spend-race.ts --seed 7
 */
import { Effect, Either } from "effect"
import { micros, type ContractId, type PartyId } from "@sandnet/core"
import { Coin, Commands, DsoView, ErrorCodes, TransferPreapproval_Send, type CoinPayload } from "@sandnet/engine"
import { defineSimulation, main, programActor } from "./support.ts"

interface RaceState {
  sender: PartyId | undefined
  coin: ContractId | undefined
  readonly commandIds: Array<string>
  readonly submitted: Array<string>
  readonly refused: Array<string>
  skipped: string | undefined
}

export const doubleSpendRace = defineSimulation<RaceState>({
  name: "double-spend-race",
  description: "two transfers of one coin submitted at once; exactly one commits",
  scenario: `
name: double-spend-race
seed: 1
duration: 5m
topology: { superValidators: 4, validators: 2, synchronizers: [global-synchronizer], parties: 8 }
network:
  latency: { min: 1ms, max: 40ms }
workload:
  initialTap: 100
  transfers: { perMinute: 20, minAmount: 1, maxAmount: 10 }
settle: 2m
`,
  initial: () => ({ sender: undefined, coin: undefined, commandIds: [], submitted: [], refused: [], skipped: undefined }),
  options: (state) => ({
    setup: (sim) =>
      programActor(sim, "program::double-spend-race", [
        {
          // After onboarding and the initial taps have committed.
          at: sim.clock.now + micros.minutes(2),
          run: () =>
            Effect.gen(function* () {
              const now = sim.clock.now
              const validator = sim.network.validators[0]!
              const logic = validator.participant.logic
              const dso = DsoView.of(sim.network)
              const home = sim.network.synchronizers[0]!.info.synchronizerId
              const rules = dso.coinRules()
              const round = dso.latestOpenRound(now)
              // Receivers with a preapproval, on the other validator (sorted: ids, not insertion order).
              const receivers = [...(sim.network.validators[1] ?? validator).participant.logic.hostedParties()]
                .sort()
                .filter((p) => dso.preapprovalOf(p, now) !== undefined)
              const owned = (party: PartyId) =>
                [...logic.acs.ofTemplate(Coin.templateId, party)]
                  .filter((c) => (c.created.createArguments as unknown as CoinPayload).owner === party && c.synchronizerId === home && logic.acs.lockedBy(c.created.contractId) === undefined)
                  .map((c) => c.created.contractId)
                  .sort()
              const sender = [...logic.hostedParties()].sort().find((p) => !receivers.includes(p) && owned(p).length > 0)
              if (rules === undefined || round === undefined || sender === undefined || receivers.length === 0) {
                state.skipped = "no sender with a coin, no receiver with a preapproval, or no open round"
                return
              }
              const coin = owned(sender)[0]!
              state.sender = sender
              state.coin = coin
              for (const [i, receiver] of [receivers[0]!, receivers[1] ?? receivers[0]!].entries()) {
                const preapproval = dso.preapprovalOf(receiver, now)!
                const commandId = `double-spend-race-${i + 1}`
                state.commandIds.push(commandId)
                const result = yield* Effect.either(
                  validator.participant.submit({
                    actAs: [sender],
                    commandId,
                    commands: [
                      Commands.exercise(TransferPreapproval_Send, preapproval.contract.created.contractId, {
                        sender,
                        coinRules: rules.contract.created.contractId,
                        context: { openMiningRound: round.contract.created.contractId, featuredAppRight: null },
                        inputs: [{ tag: "InputCoin" as const, value: coin }],
                        amount: "1.0000000000",
                        description: "the same coin, twice"
                      })
                    ],
                    disclosedContracts: [rules.contract, round.contract, preapproval.contract]
                  })
                )
                if (Either.isRight(result)) state.submitted.push(result.right.updateId)
                else state.refused.push(`${commandId}: ${result.left.message}`)
              }
            })
        }
      ])
  }),
  check: (result, state) => {
    if (state.skipped !== undefined) return [`the race did not run: ${state.skipped}`]
    if (state.submitted.length !== 2) return [`both submissions should be accepted for sequencing, got ${state.submitted.length}: ${state.refused.join("; ")}`]
    const logic = result.network.validators[0]!.participant.logic
    const completions = state.commandIds.map((id) => logic.completionOf(id, [state.sender!]))
    const succeeded = completions.filter((c) => c?._tag === "Succeeded")
    const failed = completions.filter((c) => c?._tag === "Failed")
    const failures: Array<string> = []
    if (succeeded.length !== 1 || failed.length !== 1) {
      failures.push(`exactly one of the two should commit, got ${succeeded.length} succeeded and ${failed.length} failed`)
    }
    for (const c of failed) {
      if (c?._tag === "Failed" && c.code !== ErrorCodes.lockedContracts && c.code !== ErrorCodes.inactiveContracts) {
        failures.push(`the losing submission should be rejected for its input, got ${c.code}: ${c.reason}`)
      }
    }
    // The coin was consumed by one update, at every node that saw it.
    for (const node of [...result.network.superValidators, ...result.network.validators]) {
      const consumedBy = [...node.participant.logic.log].filter(
        (e) => e.update.kind === "transaction" && e.update.nodes.some((n) => n.kind === "exercised" && n.consuming && n.contractId === state.coin)
      )
      if (consumedBy.length > 1) failures.push(`${node.name} consumed ${state.coin} ${consumedBy.length} times`)
    }
    return failures
  },
  report: (result, state) => {
    const logic = result.network.validators[0]!.participant.logic
    const lines = state.commandIds.map((id) => {
      const c = logic.completionOf(id, [state.sender!])
      return `${id.padEnd(22)}${c === undefined ? "no completion" : c._tag === "Succeeded" ? `committed at offset ${c.offset}` : `rejected: ${c.code}`}`
    })
    return [`coin              ${state.coin ?? "none"} of ${state.sender ?? "nobody"}`, ...lines, `verdicts          ${result.summary.verdictsAccepted} accepted, ${result.summary.verdictsRejected} rejected`]
  }
})

main(doubleSpendRace, import.meta.url)
