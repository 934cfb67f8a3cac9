/**
 * Coin amounts are Daml `Numeric 10` values: fixed point with ten decimal places. They are kept as
 * bigint units of 1e-10 so arithmetic is exact, and written as decimal strings with ten places
 * ("12.5000000000"), which is how the contract payloads carry them.
 */
import { invariant } from "./assert.ts"

export type Amount = bigint

export const AMOUNT_SCALE = 10
const UNIT = 10n ** BigInt(AMOUNT_SCALE)

const DECIMAL_PATTERN = /^-?\d{1,28}(\.\d{1,10})?$/

const CANONICAL_PATTERN = /^-?\d{1,28}\.\d{10}$/

export const isAmountString = (text: string): boolean => DECIMAL_PATTERN.test(text)

/** Parses "12", "12.5" or "12.5000000000"; undefined when not a decimal with at most 10 places. */
export const parseAmount = (text: string): Amount | undefined => {
  // Fast path: the canonical form this module writes ("12.5000000000").
  const dot = text.length - AMOUNT_SCALE - 1
  if (dot > 0 && text.charCodeAt(dot) === 46 && CANONICAL_PATTERN.test(text)) {
    return BigInt(text.slice(0, dot) + text.slice(dot + 1))
  }
  if (!DECIMAL_PATTERN.test(text)) return undefined
  const negative = text.startsWith("-")
  const body = negative ? text.slice(1) : text
  const [whole = "0", fraction = ""] = body.split(".")
  const units = BigInt(whole) * UNIT + BigInt((fraction + "0000000000").slice(0, AMOUNT_SCALE))
  return negative ? -units : units
}

/** The largest magnitude a Numeric 10 holds: 28 integer digits and 10 fractional ones. */
export const NUMERIC_10_MAX: Amount = 10n ** 38n - 1n

/**
 * The coin a party may hold in all, and a single amount a wallet accepts: a tenth of Numeric 10's
 * range, so that sums of a few holdings (merges, transfers, fees) stay within it.
 */
export const MAX_HOLDING_TOTAL: Amount = 10n ** 37n

export const inNumericRange = (value: Amount): boolean => value <= NUMERIC_10_MAX && value >= -NUMERIC_10_MAX

/**
 * Daml's ArithmeticError: a Numeric result outside Numeric 10's range. Thrown by the choices'
 * arithmetic; the interpreter turns it into a failed interpretation (the command is rejected),
 * as Canton rejects a transaction whose interpretation raised it.
 */
export class ArithmeticError extends Error {
  override readonly name = "ArithmeticError"
}

/** A Numeric result, checked against Numeric 10's range as Daml checks it. */
export const checkedAmount = (value: Amount, what: string): Amount => {
  if (!inNumericRange(value)) throw new ArithmeticError(`ArithmeticError while evaluating ${what}: ${formatAmount(value)} is outside Numeric 10's range`)
  return value
}

/**
 * Amounts the engine parsed: the same payload texts (rates, prices, coin amounts) are parsed on
 * every transfer. Bounded: cleared when full (a pure memo, the result never depends on it).
 */
const amountsOf = new Map<string, Amount>()
const AMOUNTS_OF_LIMIT = 8192

const OVERSIZED_PATTERN = /^-?\d{29,}(\.\d{1,10})?$/

/**
 * Like parseAmount, for values the engine itself wrote; a malformed one is a defect, but a
 * well-formed decimal beyond 28 integer digits is the result of arithmetic that overflowed.
 */
export const amountOf = (text: string): Amount => {
  const known = amountsOf.get(text)
  if (known !== undefined) return known
  const value = parseAmount(text)
  if (value === undefined && OVERSIZED_PATTERN.test(text)) throw new ArithmeticError(`ArithmeticError: ${text} is outside Numeric 10's range`)
  invariant(value !== undefined, () => `not a Numeric 10 amount: ${JSON.stringify(text)}`)
  if (amountsOf.size >= AMOUNTS_OF_LIMIT) amountsOf.clear()
  amountsOf.set(text, value)
  return value
}

export const formatAmount = (value: Amount): string => {
  const negative = value < 0n
  const abs = negative ? -value : value
  const whole = abs / UNIT
  const fraction = (abs % UNIT).toString().padStart(AMOUNT_SCALE, "0")
  return `${negative ? "-" : ""}${whole}.${fraction}`
}

export const amountFromNumber = (n: number): Amount => amountOf(n.toFixed(AMOUNT_SCALE))

export const amountToNumber = (value: Amount): number => Number(value) / Number(UNIT)

export const ZERO: Amount = 0n
export const ONE: Amount = UNIT

/** Division rounding half to even, as Daml's Numeric division does. */
const divRound = (numerator: bigint, denominator: bigint): bigint => {
  invariant(denominator !== 0n, "division by zero")
  const negative = numerator < 0n !== denominator < 0n
  const n = numerator < 0n ? -numerator : numerator
  const d = denominator < 0n ? -denominator : denominator
  let q = n / d
  const r = n % d
  const twice = r * 2n
  if (twice > d || (twice === d && q % 2n === 1n)) q += 1n
  return negative ? -q : q
}

export const mulAmount = (a: Amount, b: Amount): Amount => divRound(a * b, UNIT)
export const divAmount = (a: Amount, b: Amount): Amount => divRound(a * UNIT, b)
export const minAmount = (a: Amount, b: Amount): Amount => (a < b ? a : b)
export const maxAmount = (a: Amount, b: Amount): Amount => (a > b ? a : b)
export const sumAmounts = (values: Iterable<Amount>): Amount => {
  let total = 0n
  for (const v of values) total += v
  return total
}

/** Asserts a quantity that the model says can never be negative. */
export const nonNegative = (value: Amount, what: string): Amount => {
  invariant(value >= 0n, () => `${what} went negative: ${formatAmount(value)}`)
  return value
}
