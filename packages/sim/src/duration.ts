/** Durations in scenario files: "250ms", "30s", "10m", "1h", "2d" (or a number of seconds). */
import { MICROS_PER_DAY, MICROS_PER_HOUR, MICROS_PER_MILLI, MICROS_PER_MINUTE, MICROS_PER_SECOND, type Micros } from "@sandnet/core"

const UNITS: Record<string, number> = {
  us: 1,
  ms: MICROS_PER_MILLI,
  s: MICROS_PER_SECOND,
  m: MICROS_PER_MINUTE,
  h: MICROS_PER_HOUR,
  d: MICROS_PER_DAY
}

export const parseDuration = (text: string | number): Micros | undefined => {
  if (typeof text === "number") return Number.isFinite(text) && text >= 0 ? Math.round(text * MICROS_PER_SECOND) : undefined
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|m|h|d)\s*$/.exec(text)
  if (m === null) return undefined
  return Math.round(Number(m[1]) * UNITS[m[2]!]!)
}

export const formatDuration = (t: Micros): string => {
  if (t >= MICROS_PER_DAY && t % MICROS_PER_HOUR === 0) return `${t / MICROS_PER_HOUR}h`
  if (t >= MICROS_PER_HOUR) return `${(t / MICROS_PER_HOUR).toFixed(2).replace(/\.?0+$/, "")}h`
  if (t >= MICROS_PER_MINUTE) return `${(t / MICROS_PER_MINUTE).toFixed(2).replace(/\.?0+$/, "")}m`
  if (t >= MICROS_PER_SECOND) return `${(t / MICROS_PER_SECOND).toFixed(2).replace(/\.?0+$/, "")}s`
  return `${(t / MICROS_PER_MILLI).toFixed(3).replace(/\.?0+$/, "")}ms`
}
