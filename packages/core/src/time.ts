/**
 * Ledger time is kept as integer microseconds since the Unix epoch (a JS number is exact up to
 * year 2255 at this resolution). The spec asks for ISO-8601 with microsecond resolution.
 */
import { invariant } from "./assert.ts"

export type Micros = number

export const MICROS_PER_MILLI = 1_000
export const MICROS_PER_SECOND = 1_000_000
export const MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND
export const MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE
export const MICROS_PER_DAY = 24 * MICROS_PER_HOUR

/** 2026-01-01T00:00:00Z: where every simulation's clock starts unless a scenario says otherwise. */
export const SIMULATION_EPOCH: Micros = Date.UTC(2026, 0, 1) * MICROS_PER_MILLI

export const micros = {
  seconds: (n: number): Micros => Math.round(n * MICROS_PER_SECOND),
  minutes: (n: number): Micros => Math.round(n * MICROS_PER_MINUTE),
  hours: (n: number): Micros => Math.round(n * MICROS_PER_HOUR),
  days: (n: number): Micros => Math.round(n * MICROS_PER_DAY),
  fromMillis: (ms: number): Micros => Math.round(ms * MICROS_PER_MILLI),
  fromNanos: (ns: bigint): Micros => Number(ns / 1000n)
}

/** ISO-8601 with exactly six fractional digits, e.g. 2026-01-01T00:00:00.000001Z. */
export const toIso = (t: Micros): string => {
  invariant(Number.isInteger(t), () => `time must be whole microseconds, got ${t}`)
  const millis = Math.floor(t / MICROS_PER_MILLI)
  const subMillis = t - millis * MICROS_PER_MILLI
  const iso = new Date(millis).toISOString() // yyyy-mm-ddThh:mm:ss.mmmZ
  return iso.slice(0, 23) + String(subMillis).padStart(3, "0") + "Z"
}

const ISO_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/

/**
 * Parsed texts: the engine parses the same few times (a round's opensAt, a preapproval's expiresAt)
 * on every transfer. Bounded: cleared when full (a pure memo, the result never depends on it).
 */
const parsedIso = new Map<string, Micros | undefined>()
const PARSED_ISO_LIMIT = 4096

/** Parses ISO-8601 date-times down to microseconds; returns undefined for anything else. */
export const parseIso = (text: string): Micros | undefined => {
  const known = parsedIso.get(text)
  if (known !== undefined || parsedIso.has(text)) return known
  if (parsedIso.size >= PARSED_ISO_LIMIT) parsedIso.clear()
  const value = parseIsoText(text)
  parsedIso.set(text, value)
  return value
}

const parseIsoText = (text: string): Micros | undefined => {
  const m = ISO_PATTERN.exec(text)
  if (m === null) return undefined
  const [, base, fraction = "", zone] = m
  const millis = Date.parse(`${base}${zone}`)
  if (Number.isNaN(millis)) return undefined
  const micro = Number((fraction + "000000").slice(0, 6))
  return millis * MICROS_PER_MILLI + micro
}
