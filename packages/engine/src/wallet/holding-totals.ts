/**
 * A party's holding totals (unlocked, locked, holding fees) at a round, kept up to date as its
 * coins come and go instead of summed over every holding on each read: a balance read and every
 * transfer's holding-limit check asked for them, and a party that receives much (an exchange, the
 * load bench's users) holds hundreds of coins between two merges (`sandnet bench --only load`
 * profile: the sum was 5.7% of the node's CPU).
 *
 * A coin's value at a round is a function of the coin and the round alone (coin.ts
 * `currentAmount`), so totals computed at round R stay exact when each coin that becomes active or
 * stops being active for their party adds or takes away its own value at R. A read at another round
 * sums the party's holdings again, once. `sumHoldings` is that sum, the reference the property
 * test compares the kept totals with.
 */
import { invariant, type ActiveContract, type Amount, type PartyId } from "@sandnet/core"
import { Coin, currentAmount, initialAmount, LockedCoin, type CoinPayload, type ExpiringAmount, type LockedCoinPayload } from "../coin/index.ts"
import { stakeholdersOf, type ActiveContractSet } from "../ledger/acs.ts"

export interface HoldingTotals {
  readonly round: number
  readonly unlocked: Amount
  readonly locked: Amount
  readonly holdingFees: Amount
}

interface KeptTotals {
  round: number
  unlocked: Amount
  locked: Amount
  holdingFees: Amount
}

/** Parties whose totals are kept per ACS; past it they are all dropped and summed again on their next read. */
export const MAX_KEPT_HOLDING_TOTALS = 100_000

const coinOf = (contract: ActiveContract): { readonly owner: PartyId; readonly amount: ExpiringAmount } =>
  contract.created.templateId === Coin.templateId
    ? (contract.created.createArguments as unknown as CoinPayload)
    : (contract.created.createArguments as unknown as LockedCoinPayload).coin

/** The current amounts of the party's own holdings of one template at `round`, and the fees they accrued. */
const sumOfTemplate = (acs: ActiveContractSet, templateId: string, party: PartyId, round: number): { readonly value: Amount; readonly fees: Amount } => {
  let value = 0n
  let fees = 0n
  for (const c of acs.ofTemplate(templateId, party)) {
    const coin = coinOf(c)
    if (coin.owner !== party) continue
    const current = currentAmount(coin.amount, round)
    value += current
    fees += initialAmount(coin.amount) - current
  }
  return { value, fees }
}

/** The party's holding totals at `round`, summed over its active coins and locked coins. */
export const sumHoldings = (acs: ActiveContractSet, party: PartyId, round: number): HoldingTotals => {
  const unlocked = sumOfTemplate(acs, Coin.templateId, party, round)
  const locked = sumOfTemplate(acs, LockedCoin.templateId, party, round)
  const totals = { round, unlocked: unlocked.value, locked: locked.value, holdingFees: unlocked.fees + locked.fees }
  invariant(totals.unlocked >= 0n && totals.locked >= 0n && totals.holdingFees >= 0n, "balances are never negative")
  return totals
}

class KeptHoldingTotals {
  private readonly byParty = new Map<PartyId, KeptTotals>()

  constructor(private readonly acs: ActiveContractSet) {
    acs.watchTemplate(Coin.templateId, (contract, active) => this.change(contract, active, false))
    acs.watchTemplate(LockedCoin.templateId, (contract, active) => this.change(contract, active, true))
  }

  of(party: PartyId, round: number): HoldingTotals {
    const kept = this.byParty.get(party)
    if (kept !== undefined && kept.round === round) return { ...kept }
    if (this.byParty.size >= MAX_KEPT_HOLDING_TOTALS) this.byParty.clear()
    const summed = sumHoldings(this.acs, party, round)
    this.byParty.set(party, { ...summed })
    return summed
  }

  /** A coin of its owner's came or went: its value at the kept round moves the owner's totals (the sum counts a coin under its owner only when the owner is a stakeholder). */
  private change(contract: ActiveContract, active: boolean, isLocked: boolean): void {
    const coin = coinOf(contract)
    const kept = this.byParty.get(coin.owner)
    if (kept === undefined) return
    if (!stakeholdersOf(contract).includes(coin.owner)) return
    const value = currentAmount(coin.amount, kept.round)
    const fee = initialAmount(coin.amount) - value
    const sign = active ? 1n : -1n
    if (isLocked) kept.locked += sign * value
    else kept.unlocked += sign * value
    kept.holdingFees += sign * fee
    invariant(kept.unlocked >= 0n && kept.locked >= 0n && kept.holdingFees >= 0n, () => `the kept holding totals of ${coin.owner} went negative`)
  }
}

const kept = new WeakMap<ActiveContractSet, KeptHoldingTotals>()

/** The party's holding totals at `round`, from the totals kept for the ACS (started on first use). */
export const holdingTotalsOf = (acs: ActiveContractSet, party: PartyId, round: number): HoldingTotals => {
  let totals = kept.get(acs)
  if (totals === undefined) kept.set(acs, (totals = new KeptHoldingTotals(acs)))
  return totals.of(party, round)
}
