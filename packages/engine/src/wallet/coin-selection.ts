/**
 * Coin selection: the coins of a party a command may spend (on the default synchronizer, not
 * reserved by another command of the wallet, not locked by a pending request) and the ones that
 * cover an amount.
 */
import { Either } from "effect"
import { formatAmount, type ActiveContract, type Amount, type ContractId, type PartyId } from "@sandnet/core"
import { Coin, currentAmount, type CoinPayload } from "../coin/index.ts"
import { payloadOf, type WalletContext } from "./context.ts"
import { InsufficientFunds } from "./errors.ts"

/** Spendable coins of a party on the default synchronizer, largest first (ties by contract id). */
export const spendable = (wallet: WalletContext, party: PartyId, round: number): ReadonlyArray<{ readonly contract: ActiveContract; readonly value: Amount }> => {
  const synchronizer = wallet.network.synchronizers[0]!.info.synchronizerId
  const acs = wallet.participant.logic.acs
  const coins: Array<{ contract: ActiveContract; value: Amount }> = []
  for (const c of acs.ofTemplate(Coin.templateId, party)) {
    const payload = payloadOf<CoinPayload>(c)
    const id = c.created.contractId
    if (payload.owner !== party || c.synchronizerId !== synchronizer || wallet.reservations.has(id) || acs.lockedBy(id) !== undefined) continue
    const value = currentAmount(payload.amount, round)
    if (value > 0n) coins.push({ contract: c, value })
  }
  return coins.sort((a, b) => (a.value === b.value ? (a.contract.created.contractId < b.contract.created.contractId ? -1 : 1) : a.value > b.value ? -1 : 1))
}

/**
 * Coins covering `amount` (largest first, at most 100): the order `spendable` gives, found by
 * picking the largest remaining coin while more is needed. Most transfers need one or two coins,
 * so this avoids sorting every holding of the party on every transfer.
 */
export const selectCoins = (wallet: WalletContext, party: PartyId, amount: Amount, round: number): Either.Either<ReadonlyArray<ContractId>, InsufficientFunds> => {
  const synchronizer = wallet.network.synchronizers[0]!.info.synchronizerId
  const acs = wallet.participant.logic.acs
  const ids: Array<ContractId> = []
  const values: Array<Amount> = []
  // The largest candidate is tracked on the way: it covers almost every transfer on its own, and
  // then the selection below (which would pick it first and stop) is skipped.
  let bestId: ContractId | undefined
  let bestValue = 0n
  // The ACS's own view of the party's coins, walked once (no list of them is built first).
  for (const c of acs.ofTemplate(Coin.templateId, party)) {
    const payload = payloadOf<CoinPayload>(c)
    const id = c.created.contractId
    if (payload.owner !== party || c.synchronizerId !== synchronizer || wallet.reservations.has(id) || acs.lockedBy(id) !== undefined) continue
    const value = currentAmount(payload.amount, round)
    if (value > 0n) {
      ids.push(id)
      values.push(value)
      if (bestId === undefined || value > bestValue || (value === bestValue && id < bestId)) {
        bestId = id
        bestValue = value
      }
    }
  }
  if (bestId !== undefined && amount > 0n && bestValue >= amount) return Either.right([bestId])
  const inputs: Array<ContractId> = []
  let total = 0n
  while (total < amount && inputs.length < 100 && ids.length > 0) {
    let best = 0
    for (let i = 1; i < ids.length; i++) {
      if (values[i]! > values[best]! || (values[i] === values[best] && ids[i]! < ids[best]!)) best = i
    }
    inputs.push(ids[best]!)
    total += values[best]!
    // Unordered removal: the remaining candidates are searched in full again.
    ids[best] = ids[ids.length - 1]!
    values[best] = values[values.length - 1]!
    ids.pop()
    values.pop()
  }
  return total >= amount ? Either.right(inputs) : Either.left(new InsufficientFunds({ party, required: formatAmount(amount), available: formatAmount(total) }, true))
}
