import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { amountOf, formatAmount, micros, toIso, type ActiveContract } from "@sandnet/core"
import {
  AllocationFactory_Allocate,
  Allocation_Cancel,
  Allocation_ExecuteTransfer,
  Allocation_Withdraw,
  choiceContext,
  Coin,
  CoinAllocation,
  Commands,
  DsoView,
  LockedCoin,
  LockedCoin_OwnerExpireLock,
  type CoinAllocationPayload
} from "../../src/index.ts"
import { makeEconomy, op, type Economy } from "../wallet/support.ts"

type Ending = "execute" | "withdraw" | "cancel"

const coinsOf = (e: Economy, template: string, party: string): ReadonlyArray<ActiveContract> => [
  ...e.network.validators[0]!.participant.logic.acs.ofTemplate(template, party)
]
const ownedTotal = (e: Economy, template: string, party: string): bigint =>
  coinsOf(e, template, party)
    .filter((c) => ((c.created.createArguments as { owner?: string; coin?: { owner: string } }).owner ?? (c.created.createArguments as { coin: { owner: string } }).coin.owner) === party)
    .reduce((sum, c) => {
      const args = c.created.createArguments as { amount?: { initialAmount: string }; coin?: { amount: { initialAmount: string } } }
      return sum + amountOf((args.amount ?? args.coin!.amount).initialAmount)
    }, 0n)

/** alice (sender), bob (receiver) and venue (executor) on one validator; alice allocates 100 coin to the leg. */
const allocated = Effect.gen(function* () {
  const e = yield* makeEconomy()
  const w1 = e.wallets[0]!
  const alice = (yield* op(e, w1.onboardUser({ name: "alice" }))).party_id
  const bob = (yield* op(e, w1.onboardUser({ name: "bob" }))).party_id
  const venue = (yield* op(e, w1.onboardUser({ name: "venue" }))).party_id
  yield* op(e, w1.tap("alice", { amount: "500" }))
  const view = DsoView.of(e.network)
  const factory = view.externalPartyCoinRules()!
  const rules = view.coinRules()!.contract
  const round = view.latestOpenRound(e.clock.now)!.contract
  const dso = e.network.dso
  const before = ownedTotal(e, Coin.templateId, alice)
  const now = e.clock.now
  const submit = (actAs: ReadonlyArray<string>, commandId: string, command: ReturnType<typeof Commands.exercise>) =>
    e.run(e.network.validators[0]!.participant.submit({ actAs: [...actAs], commandId, commands: [command], disclosedContracts: [rules, round, factory] }))
  const context = choiceContext(rules.created.contractId, round.created.contractId)
  yield* submit(
    [alice],
    "allocate",
    Commands.exercise(AllocationFactory_Allocate, factory.created.contractId, {
      expectedAdmin: dso,
      allocation: {
        settlement: {
          executor: venue,
          settlementRef: { id: "trade-1" },
          requestedAt: toIso(now),
          allocateBefore: toIso(now + micros.minutes(10)),
          settleBefore: toIso(now + micros.minutes(20)),
          meta: { values: {} }
        },
        transferLegId: "leg-0",
        transferLeg: { sender: alice, receiver: bob, amount: "100", instrumentId: { admin: dso, id: "Coin" }, meta: { values: {} } }
      },
      requestedAt: toIso(now),
      inputHoldingCids: coinsOf(e, Coin.templateId, alice).map((c) => c.created.contractId),
      extraArgs: { context, meta: { values: {} } }
    })
  )
  yield* e.settle
  return { e, alice, bob, venue, before, submit, context }
})

describe("token-standard allocation (AllocationFactory_Allocate on ExternalPartyCoinRules)", () => {
  it.effect("locks the sender's coin in a CoinAllocation for the leg", () =>
    Effect.gen(function* () {
      const { e, alice, bob, venue, before } = yield* allocated
      const allocations = coinsOf(e, CoinAllocation.templateId, alice)
      expect(allocations).toHaveLength(1)
      const payload = allocations[0]!.created.createArguments as unknown as CoinAllocationPayload
      expect(payload.allocation.transferLeg).toMatchObject({ sender: alice, receiver: bob, amount: "100.0000000000" })
      expect(payload.allocation.settlement.executor).toBe(venue)
      const locked = coinsOf(e, LockedCoin.templateId, alice)
      expect(locked.map((c) => c.created.contractId)).toEqual([payload.lockedCoin])
      // Locked plus unlocked change never exceed what alice had (the lock reserves fees, the transfer may charge some).
      const after = ownedTotal(e, Coin.templateId, alice) + ownedTotal(e, LockedCoin.templateId, alice)
      expect(after <= before).toBe(true)
      expect(ownedTotal(e, LockedCoin.templateId, alice) >= amountOf("100")).toBe(true)
    })
  )

  for (const ending of ["execute", "withdraw", "cancel"] as const satisfies ReadonlyArray<Ending>) {
    it.effect(`${ending}: releases the lock and conserves coin`, () =>
      Effect.gen(function* () {
        const { e, alice, bob, venue, submit, context } = yield* allocated
        const allocation = coinsOf(e, CoinAllocation.templateId, alice)[0]!
        const lockedAmount = ownedTotal(e, LockedCoin.templateId, alice)
        const unlockedBefore = ownedTotal(e, Coin.templateId, alice)
        const extraArgs = { extraArgs: { context, meta: { values: {} } } }
        const cid = allocation.created.contractId
        if (ending === "execute") yield* submit([venue, alice, bob], "execute", Commands.exercise(Allocation_ExecuteTransfer, cid, extraArgs))
        else if (ending === "withdraw") yield* submit([alice], "withdraw", Commands.exercise(Allocation_Withdraw, cid, extraArgs))
        else yield* submit([venue, alice, bob], "cancel", Commands.exercise(Allocation_Cancel, cid, extraArgs))
        yield* e.settle
        expect(coinsOf(e, CoinAllocation.templateId, alice)).toHaveLength(0)
        expect(coinsOf(e, LockedCoin.templateId, alice)).toHaveLength(0)
        const received = ownedTotal(e, Coin.templateId, bob)
        const unlockedAfter = ownedTotal(e, Coin.templateId, alice)
        if (ending === "execute") {
          expect(formatAmount(received)).toBe("100.0000000000")
          // Conservation: what alice had locked is now bob's 100 and alice's change, less at most the transfer's fees.
          expect(unlockedAfter - unlockedBefore + received <= lockedAmount).toBe(true)
          expect(unlockedAfter - unlockedBefore + received > lockedAmount - amountOf("5")).toBe(true)
        } else {
          expect(received).toBe(0n)
          // The locked coin comes back to alice whole.
          expect(unlockedAfter - unlockedBefore).toBe(lockedAmount)
        }
      })
    )
  }

  it.effect("withdraw is the sender's alone: the executor cannot withdraw", () =>
    Effect.gen(function* () {
      const { e, alice, venue, submit, context } = yield* allocated
      const cid = coinsOf(e, CoinAllocation.templateId, alice)[0]!.created.contractId
      const refused = yield* Effect.either(submit([venue], "withdraw-venue", Commands.exercise(Allocation_Withdraw, cid, { extraArgs: { context, meta: { values: {} } } })))
      expect(Either.isLeft(refused)).toBe(true)
      expect(coinsOf(e, CoinAllocation.templateId, alice)).toHaveLength(1)
    })
  )

  it.effect("once the lock expired and its owner took the coin back, withdraw with expire-lock false closes the allocation", () =>
    Effect.gen(function* () {
      const { e, alice, submit, context } = yield* allocated
      const cid = coinsOf(e, CoinAllocation.templateId, alice)[0]!.created.contractId
      const locked = coinsOf(e, LockedCoin.templateId, alice)[0]!
      const lockedAmount = ownedTotal(e, LockedCoin.templateId, alice)
      const unlockedBefore = ownedTotal(e, Coin.templateId, alice)
      yield* e.advance(micros.minutes(22))
      yield* submit([alice], "expire-lock", Commands.exercise(LockedCoin_OwnerExpireLock, locked.created.contractId, {}))
      yield* e.settle
      expect(ownedTotal(e, Coin.templateId, alice) - unlockedBefore).toBe(lockedAmount)
      // The usual context would unlock a coin that is gone: refused.
      const refused = yield* Effect.either(submit([alice], "withdraw-locked", Commands.exercise(Allocation_Withdraw, cid, { extraArgs: { context, meta: { values: {} } } })))
      expect(Either.isLeft(refused)).toBe(true)
      const released = { values: { "expire-lock": { tag: "AV_Bool" as const, value: false } } }
      yield* submit([alice], "withdraw-released", Commands.exercise(Allocation_Withdraw, cid, { extraArgs: { context: released, meta: { values: {} } } }))
      yield* e.settle
      expect(coinsOf(e, CoinAllocation.templateId, alice)).toHaveLength(0)
      expect(ownedTotal(e, Coin.templateId, alice) - unlockedBefore).toBe(lockedAmount)
    })
  )
})
