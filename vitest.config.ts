import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"


// The longest files (about 15 to 60 s each when the machine is quiet; the Wallet SDK files shrank below
// them once the SDK's pauses were shortened, localnet-sdk-support.ts) start first, so that
// the two workers finish together. vitest orders files by their last duration, but only from its
// cache (node_modules/.vite), which a fresh checkout lacks: then it starts the largest files first,
// and the docs' tests (small files, long runs) came last.
// The order of 2026-11-28 (by that day's durations, the browser's flows beside the documents' commands),
// then every other file of 8 s or more in a whole-suite run of 2026-11-29, longest first (one left
// out then, pglite.test.ts at 18 s, had started last and run 10 s past the other worker's end; it has
// since shrunk to 5 s). Ordered by duration alone, the documents' three files started side by side
// and each spawned its simulations beside the other's: docs-commands-scenarios took 36 to 52 s in
// five runs against 21 to 23 s in this order.
const LONGEST = [
  "packages/web/test/flows.test.ts",
  "packages/cli/test/docs-commands.test.ts",
  "packages/store/test/pglite-node.test.ts",
  "packages/web/test/pages.test.ts",
  "packages/cli/test/docs-commands-economy.test.ts",
  "packages/cli/test/docs-commands-scenarios.test.ts",
  "packages/web/test/localnet.test.ts",
  "packages/cli/test/cluster.test.ts",
  "packages/cli/test/storage-commands.test.ts",
  "packages/cli/test/crash.test.ts",
  "packages/sim/test/economy.test.ts",
  "packages/cli/test/command-line.test.ts",
  "packages/cli/test/simulation-heap.test.ts",
  "packages/sim/test/swarm-crash.test.ts",
  "packages/sim/test/determinism.test.ts"
]

class LongestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification): number => {
      const i = LONGEST.findIndex((long) => file.moduleId.endsWith(long))
      return i < 0 ? LONGEST.length : i
    }
    return sorted.map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file)
  }
}

// Test files share their worker's module cache: loading Effect and the engine once per worker
// instead of once per file. `isolate: false` has to be said at the root, in `poolOptions.forks`:
// the forks pool reads it from the root config only, and a project's own `isolate: false` leaves
// every file in a fresh process (the engine project: 94 s with a fresh process per file, 15 s
// sharing one; most of it was collect). Tests must not rely on module-level state being fresh
// (the engine keeps none that a test could observe).
//
// Two workers even on two cores: many files spend their time waiting on nodes they spawn. The
// longest files start first (vitest orders files by their last duration, kept in its cache).
//
// The workers run with a larger young generation (semi-spaces of 64 MB, as a long or large
// `sandnet simulate` run gets): the files that simulate in the worker's own process scavenge less. Alternated whole suites on 2026-12-01: 221.8 s
// without, 220.8 and 216.4 s with; the sim package's files 52.4 s -> 49.1 and 48.4 s.
export default defineConfig({
  test: {
    pool: "forks",
    poolOptions: { forks: { isolate: false, execArgv: ["--max-semi-space-size=64"] } },
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    minWorkers: 1
  }
})
