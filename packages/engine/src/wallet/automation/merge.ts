/**
 * Merging: a party with more holdings than configured gets its smallest coins merged, by itself,
 * or for users who delegated merging, by the operator, several users per transaction.
 */
import { Effect } from "effect"
import { inNumericRange, type ActiveContract, type Amount, type ContractId, type PartyId } from "@sandnet/core"
import { BatchMergeUtility_MergeHoldings, Coin, CoinRules_Transfer } from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { ok, type AutomationState } from "./state.ts"

type MergeRef = { readonly rules: ActiveContract; readonly round: ActiveContract; readonly roundNumber: number }

/** A user's merge the operator does under the user's MergeDelegation. */
interface DelegatedMerge {
  readonly delegationCid: ContractId
  readonly owner: PartyId
  readonly inputs: ReadonlyArray<ContractId>
}

/**
 * The smallest coins (the list is largest first) whose sum stays a Numeric 10 amount: a merge
 * only merges what fits. Kept in the list's order.
 */
const fitting = (coins: ReadonlyArray<{ readonly contract: ActiveContract; readonly value: Amount }>): ReadonlyArray<ContractId> => {
  let total = 0n
  let first = coins.length
  while (first > 0 && inNumericRange(total + coins[first - 1]!.value)) total += coins[--first]!.value
  return coins.slice(first).map((c) => c.contract.created.contractId)
}

/** Files a coin: its owner's holdings changed, look at merging them. */
export const fileCoin = (auto: AutomationState, owner: PartyId): void => {
  if (auto.hosts(owner)) auto.mergeDirty.add(owner)
}

/** Merges the holdings of the parties that have too many. */
export const merge = (auto: AutomationState, ref: MergeRef): Effect.Effect<void> =>
  Effect.gen(function* () {
    const delegated = yield* mergeOwn(auto, ref)
    yield* mergeDelegated(auto, ref, delegated)
  })

/** Merges for the parties that merge themselves; returns the merges of those who delegated it. */
const mergeOwn = (auto: AutomationState, ref: MergeRef): Effect.Effect<ReadonlyArray<DelegatedMerge>> =>
  Effect.gen(function* () {
    const { maxHoldings, batchSize } = auto.config.merge
    const delegated: Array<DelegatedMerge> = []
    const acs = auto.wallet.participant.logic.acs
    for (const party of [...auto.mergeDirty]) {
      auto.mergeDirty.delete(party)
      if (acs.countOf(Coin.templateId, party) <= maxHoldings) continue
      const coins = auto.wallet.spendable(party, ref.roundNumber)
      if (coins.length <= maxHoldings) continue
      // The smallest coins first: they are the ones holding fees would turn into dust.
      const inputs = fitting(coins.slice(-batchSize))
      if (inputs.length < 2) continue
      const delegation = party === auto.operator ? undefined : auto.wallet.mergeDelegationOf(party)
      if (delegation !== undefined) {
        delegated.push({ delegationCid: delegation, owner: party, inputs })
        continue
      }
      yield* auto.run(
        [party],
        [],
        `auto:merge:${party}:${inputs[0]}`,
        [
          Commands.exercise(CoinRules_Transfer, ref.rules.created.contractId, {
            transfer: { sender: party, provider: party, inputs: inputs.map((value) => ({ tag: "InputCoin" as const, value })), outputs: [], beneficiaries: null },
            context: { openMiningRound: ref.round.created.contractId, featuredAppRight: null },
            expectedDso: auto.wallet.network.dso
          })
        ],
        [ref.rules, ref.round],
        inputs,
        ok(() => {
          auto.stats.mergeTransactions++
          auto.stats.holdingsMerged += inputs.length
        })
      )
    }
    return delegated
  })

/** Users who delegated merging: the operator merges several of them per transaction (up to a batch of inputs). */
const mergeDelegated = (auto: AutomationState, ref: MergeRef, delegated: ReadonlyArray<DelegatedMerge>): Effect.Effect<void> =>
  Effect.gen(function* () {
    const { batchSize } = auto.config.merge
    let batch: Array<DelegatedMerge> = []
    let size = 0
    const flush = () =>
      Effect.gen(function* () {
        if (batch.length === 0) return
        const merges = batch
        batch = []
        size = 0
        const inputs = merges.flatMap((m) => m.inputs)
        yield* auto.run(
          [auto.operator],
          merges.map((m) => m.owner),
          `auto:batch-merge:${inputs[0]}`,
          [
            Commands.createAndExercise(BatchMergeUtility_MergeHoldings, { operator: auto.operator }, {
              merges: merges.map((m) => ({ delegationCid: m.delegationCid, inputs: m.inputs.map((value) => ({ tag: "InputCoin" as const, value })) })),
              context: auto.context(ref)
            })
          ],
          [ref.rules, ref.round],
          inputs,
          ok(() => {
            auto.stats.mergeTransactions++
            auto.stats.holdingsMerged += inputs.length
          })
        )
      })
    for (const merge of delegated) {
      if (size + merge.inputs.length > batchSize) yield* flush()
      batch.push(merge)
      size += merge.inputs.length
    }
    yield* flush()
  })
