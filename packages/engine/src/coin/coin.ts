/**
 * Coin: the UTXO holding. A party's balance is the sum of its coins' current amounts; a coin's
 * current amount is its initial amount minus the holding fee accrued since its creation round.
 * Coins implement the token standard's Holding interface.
 */
import { Schema } from "effect"
import { ContractIdRef, Party, Timestamp, amountOf, formatAmount, maxAmount, parseIso, type Amount, type Json } from "@sandnet/core"
import { defineChoice, defineInterface, defineTemplate, type UpdateContext } from "../ledger/template.ts"
import { OpenMiningRound } from "./config.ts"
import { CoinPackage, HoldingApiPackage } from "./packages.ts"
import { ExpiringAmount, roundNumber } from "./schemas.ts"
import { coinInstrumentId, EMPTY_META } from "./shared-views.ts"

export const HoldingInterface = defineInterface({ pkg: HoldingApiPackage, module: "Splice.Api.Token.HoldingV1", entity: "Holding" })

export { COIN_INSTRUMENT } from "./shared-views.ts"

export const CoinPayload = Schema.Struct({
  dso: Party,
  owner: Party,
  amount: ExpiringAmount
})
export type CoinPayload = typeof CoinPayload.Type

export const Coin = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Coin",
  entity: "Coin",
  payload: CoinPayload,
  signatories: (p) => [p.dso, p.owner],
  ensure: (p) => (amountOf(p.amount.initialAmount) > 0n ? undefined : "initialAmount must be positive"),
  interfaces: [
    {
      interfaceId: HoldingInterface.interfaceId,
      view: (p) => ({
        owner: p.owner,
        instrumentId: coinInstrumentId(p.dso),
        amount: p.amount.initialAmount,
        lock: null,
        meta: EMPTY_META
      })
    }
  ]
})

export const TimeLock = Schema.Struct({
  holders: Schema.Array(Party),
  expiresAt: Timestamp,
  optContext: Schema.NullOr(Schema.String)
})

export const LockedCoinPayload = Schema.Struct({
  coin: CoinPayload,
  lock: TimeLock
})
export type LockedCoinPayload = typeof LockedCoinPayload.Type

/** A coin locked to its lock holders until expiry (token-standard transfer instructions lock coin). */
export const LockedCoin = defineTemplate({
  pkg: CoinPackage,
  module: "Splice.Coin",
  entity: "LockedCoin",
  payload: LockedCoinPayload,
  signatories: (p) => [p.coin.dso, p.coin.owner, ...p.lock.holders],
  interfaces: [
    {
      interfaceId: HoldingInterface.interfaceId,
      view: (p) => ({
        owner: p.coin.owner,
        instrumentId: coinInstrumentId(p.coin.dso),
        amount: p.coin.amount.initialAmount,
        lock: { holders: [...p.lock.holders], expiresAt: p.lock.expiresAt, expiresAfter: null, context: p.lock.optContext },
        meta: EMPTY_META
      })
    }
  ]
})

/** Holding fee accrued by a coin up to `round` (never more than the coin holds). */
interface ParsedAmount {
  readonly initial: Amount
  readonly rate: Amount
  readonly createdAt: number
  /** The value at the round last asked for: wallets value every coin on every transfer, rounds change every tick. */
  valuedAt: number
  value: Amount
}

/** Payloads are immutable: each coin's amount is parsed once, however often it is valued. */
const parsedAmounts = new WeakMap<ExpiringAmount, ParsedAmount>()

const parsed = (amount: ExpiringAmount): ParsedAmount => {
  let value = parsedAmounts.get(amount)
  if (value === undefined) {
    value = { initial: amountOf(amount.initialAmount), rate: amountOf(amount.ratePerRound.rate), createdAt: roundNumber(amount.createdAt), valuedAt: -1, value: 0n }
    parsedAmounts.set(amount, value)
  }
  return value
}

/** The fee a coin has accrued by `round`, uncapped (rate times the rounds since its creation). */
const feeUntil = (p: ParsedAmount, round: number): Amount => p.rate * BigInt(Math.max(0, round - p.createdAt))

/** Holding fee accrued by a coin up to `round` (never more than the coin holds). */
export const accruedHoldingFee = (amount: ExpiringAmount, round: number): Amount => {
  const p = parsed(amount)
  const fee = feeUntil(p, round)
  return fee > p.initial ? p.initial : fee
}

/** The amount a coin is worth in `round`: initial amount minus accrued holding fees, at least zero. */
export const currentAmount = (amount: ExpiringAmount, round: number): Amount => {
  const p = parsed(amount)
  if (p.valuedAt !== round) {
    p.value = maxAmount(0n, p.initial - feeUntil(p, round))
    p.valuedAt = round
  }
  return p.value
}

/** A coin's initial amount (parsed once per payload, like its value). */
export const initialAmount = (amount: ExpiringAmount): Amount => parsed(amount).initial

/** Dust: a coin whose initial amount is below the fee it has accrued (it is worth nothing). */
export const isDust = (amount: ExpiringAmount, round: number): boolean => {
  const p = parsed(amount)
  return p.initial < feeUntil(p, round)
}

export const expiringAmount = (initial: Amount, round: number, ratePerRound: Amount) => ({
  initialAmount: formatAmount(initial),
  createdAt: { number: String(round) },
  ratePerRound: { rate: formatAmount(ratePerRound) }
})

// ---------------------------------------------------------------- choices

const dustRound = (ctx: UpdateContext, roundCid: string, dso: string): number => {
  const round = ctx.fetch(OpenMiningRound, roundCid).payload
  ctx.require(round.dso === dso, "the round belongs to another DSO")
  ctx.require((parseIso(round.opensAt) ?? 0) <= ctx.ledgerTime, `round ${round.round.number} is not open yet`)
  return roundNumber(round.round)
}

/**
 * The DSO archives a dust coin: its accrued holding fee exceeds its initial amount, so it is worth
 * nothing; the whole initial amount counts as burned holding fees of the round in the result.
 */
export const Coin_Expire = defineChoice(Coin, {
  name: "Coin_Expire",
  consuming: true,
  argument: Schema.Struct({ roundCid: ContractIdRef }),
  controllers: (p) => [p.dso],
  body: (ctx, self, arg): Json => {
    const round = dustRound(ctx, arg.roundCid, self.payload.dso)
    ctx.require(isDust(self.payload.amount, round), `coin ${self.contractId} is not dust in round ${round}`)
    return { expireSum: { owner: self.payload.owner, round: { number: String(round) }, expiredAmount: self.payload.amount.initialAmount } }
  }
})

/** The owner and every lock holder release the lock: the coin comes back unlocked, unchanged. */
export const LockedCoin_Unlock = defineChoice(LockedCoin, {
  name: "LockedCoin_Unlock",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.coin.owner, ...p.lock.holders],
  body: (ctx, self): Json => ({ coinCid: ctx.create(Coin, self.payload.coin) })
})

/** Once the lock expired the owner alone takes the coin back. */
export const LockedCoin_OwnerExpireLock = defineChoice(LockedCoin, {
  name: "LockedCoin_OwnerExpireLock",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.coin.owner],
  body: (ctx, self): Json => {
    ctx.require((parseIso(self.payload.lock.expiresAt) ?? 0) <= ctx.ledgerTime, "the lock has not expired yet")
    return { coinCid: ctx.create(Coin, self.payload.coin) }
  }
})

/** The DSO archives a locked coin whose lock expired and that became dust. */
export const LockedCoin_ExpireCoin = defineChoice(LockedCoin, {
  name: "LockedCoin_ExpireCoin",
  consuming: true,
  argument: Schema.Struct({ roundCid: ContractIdRef }),
  controllers: (p) => [p.coin.dso],
  body: (ctx, self, arg): Json => {
    const round = dustRound(ctx, arg.roundCid, self.payload.coin.dso)
    ctx.require((parseIso(self.payload.lock.expiresAt) ?? 0) <= ctx.ledgerTime, "the lock has not expired yet")
    ctx.require(isDust(self.payload.coin.amount, round), `locked coin ${self.contractId} is not dust in round ${round}`)
    return { expireSum: { owner: self.payload.coin.owner, round: { number: String(round) }, expiredAmount: self.payload.coin.amount.initialAmount } }
  }
})

/** First round in which a coin is dust (its accrued fee exceeds its initial amount). */
export const dustFromRound = (amount: ExpiringAmount): number => {
  // (Every SV's DSO automation asks this of every new holding: the parse is shared with valuations.)
  const p = parsed(amount)
  if (p.rate <= 0n) return Number.MAX_SAFE_INTEGER
  // fee(r) = rate * rounds > initial  <=>  rounds > initial / rate
  return p.createdAt + Number(p.initial / p.rate) + 1
}

