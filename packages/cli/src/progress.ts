/**
 * The progress line on stderr while simulations run: how far the current run has got in simulated
 * time, how many transactions were committed and how fast (per wall-clock second), and for swarms
 * how many seeds are done and failed. Redrawn in place on a terminal (at most ten times a second);
 * elsewhere (CI logs) written as a plain line every few seconds. Wall-clock time is read here, in
 * the CLI, never in the simulation.
 */
import { formatDuration } from "@sandnet/sim"

export interface ProgressState {
  readonly label: string
  /** Seeds done and total (swarms), or undefined for one run. */
  readonly seedsDone?: number
  readonly seedsTotal?: number
  readonly failed?: number
  /** The current run's simulated time and duration (microseconds). */
  readonly simulated: number
  readonly duration: number
  /** Transactions committed so far (all runs of a swarm). */
  readonly transactions: number
}

const fmt = (n: number): string => Math.round(n).toLocaleString("en-US")

const clock = (seconds: number): string => {
  const s = Math.max(0, Math.round(seconds))
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, "0")}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`
}

export class ProgressBar {
  private readonly started = performance.now()
  private lastDraw = 0
  private drawn = false
  private readonly tty: boolean

  constructor(
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly enabled = true
  ) {
    this.tty = out.isTTY === true
  }

  render(state: ProgressState, width = 24): string {
    const elapsed = (performance.now() - this.started) / 1000
    const runShare = state.duration > 0 ? Math.min(1, state.simulated / state.duration) : 1
    const share = state.seedsTotal !== undefined && state.seedsTotal > 0 ? Math.min(1, ((state.seedsDone ?? 0) + runShare) / state.seedsTotal) : runShare
    const filled = Math.round(share * width)
    const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`
    const parts = [bar]
    if (state.seedsTotal !== undefined) parts.push(`${state.seedsDone ?? 0}/${state.seedsTotal} seeds${(state.failed ?? 0) > 0 ? `, ${state.failed} FAILED` : ""}`)
    if (state.duration > 0) parts.push(`${state.label} ${formatDuration(Math.max(0, state.simulated))}/${formatDuration(state.duration)} simulated`)
    parts.push(`${fmt(state.transactions)} tx, ${fmt(state.transactions / Math.max(0.001, elapsed))} tx/s`)
    const left = share > 0.01 ? (elapsed / share) * (1 - share) : undefined
    parts.push(`${clock(elapsed)} elapsed${left === undefined ? "" : `, ~${clock(left)} left`}`)
    return parts.join("  ")
  }

  update(state: ProgressState, force = false): void {
    if (!this.enabled) return
    const now = performance.now()
    if (now - this.lastDraw < (this.tty ? (force ? 0 : 100) : 5000)) return
    this.lastDraw = now
    const line = this.render(state)
    if (this.tty) {
      const columns = this.out.columns ?? 120
      this.out.write(`\r${line.slice(0, columns - 1).padEnd(Math.min(columns - 1, line.length))}\x1b[K`)
      this.drawn = true
    } else this.out.write(line + "\n")
  }

  /** Clears the line (before other output). */
  clear(): void {
    if (this.tty && this.drawn) {
      this.out.write("\r\x1b[K")
      this.drawn = false
    }
  }

  get elapsedSeconds(): number {
    return (performance.now() - this.started) / 1000
  }
}
