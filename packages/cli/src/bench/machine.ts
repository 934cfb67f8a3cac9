/** What the benchmarks ran on, printed with every figure. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export interface MachineInfo {
  readonly cpu: string
  readonly cores: number
  readonly memoryGiB: number
  readonly node: string
  readonly platform: string
  readonly date: string
}

export const machineInfo = (): MachineInfo => ({
  cpu: os.cpus()[0]?.model.trim() ?? "unknown",
  cores: os.cpus().length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  platform: `${os.type()} ${os.release()} ${os.arch()}`,
  date: new Date().toISOString().slice(0, 10)
})

/** Best of n: benchmarks report the fastest of several runs (the least disturbed by other load). */
export const bestOf = async <A>(n: number, run: () => Promise<A>, better: (a: A, b: A) => boolean): Promise<A> => {
  let best = await run()
  for (let i = 1; i < n; i++) {
    const next = await run()
    if (better(next, best)) best = next
  }
  return best
}

/** A figure as the reports print it: thousands separated, `digits` decimals. */
export const fmt = (n: number, digits = 0): string => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** Bytes as MiB, one decimal (the memory sections). */
export const mib = (bytes: number): string => fmt(bytes / 2 ** 20, 1)

/** Bytes per transaction as kB, one decimal (without the unit). */
export const kbPerTx = (bytes: number, transactions: number): string => fmt(bytes / transactions / 1000, 1)

/** Runs `use` with a new directory under the system's temporary one, removed after it whatever happens. */
export const withTempDir = async <A>(prefix: string, use: (dir: string) => Promise<A>): Promise<A> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  try {
    return await use(dir)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The PostgreSQL server the benches use: SANDNET_BENCH_POSTGRES_URL, else DATABASE_URL, else the local test server. */
export const postgresUrl = (): string => process.env["SANDNET_BENCH_POSTGRES_URL"] ?? process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

/**
 * The V8 heap flags this bench runs under (`node --max-semi-space-size=64 .../sandnet.js bench`
 * measures nodes under them), passed on to the `sandnet` processes a bench spawns so that they run
 * as its in-process nodes do. Only the heap's sizes: a loader such as tsx's `--import` or a
 * profiler's flags stay in this process.
 */
export const heapFlags = (execArgv: ReadonlyArray<string> = process.execArgv): Array<string> =>
  execArgv.filter((flag) => /^--(max-semi-space-size|min-semi-space-size|max-old-space-size)=\d+$/.test(flag))
