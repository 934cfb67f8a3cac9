import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

const PACKAGES = ["core", "engine", "store", "node", "http", "sim", "cli", "web"]
const limits = { testTimeout: 60_000, hookTimeout: 60_000 }

// `npx vitest run --project <package>` runs one package's test/ folder (and `--project simulations`
// the runnable simulation programs, simulations/*.test.ts). Without --project, the whole suite is
// one project: the forks pool runs the files of one project after another's have all finished, so
// with a project per package each package waited for its own longest file (the web project for
// flows.test.ts, the cli project for its doc commands) while the other worker sat idle.
const selected = process.argv.some((arg) => arg === "--project" || arg.startsWith("--project="))

// The longest files (about 25 to 70 s each; the rest of the 150 take under 25 s) start first, so that
// the two workers finish together. vitest orders files by their last duration, but only from its
// cache (node_modules/.vite), which a fresh checkout lacks: then it starts the largest files first,
// and the docs' tests (small files, long runs) came last.
const LONGEST = [
  "packages/cli/test/cluster.test.ts",
  "packages/cli/test/docs-commands.test.ts",
  "packages/http/test/localnet-sdk-parties.test.ts",
  "packages/cli/test/docs-commands-economy.test.ts",
  "packages/web/test/flows.test.ts",
  "packages/http/test/localnet-sdk.test.ts",
  "packages/cli/test/docs-commands-scenarios.test.ts"
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
export default defineConfig({
  test: {
    pool: "forks",
    poolOptions: { forks: { isolate: false } },
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    minWorkers: 1,
    ...(selected
      ? {
          projects: [
            ...PACKAGES.map((name) => ({ test: { name, root: `packages/${name}`, include: ["test/**/*.test.ts"], isolate: false, ...limits } })),
            // the simulations' tests give their own timeout (120 s)
            { test: { name: "simulations", root: "simulations", include: ["*.test.ts"], isolate: false, ...limits } }
          ]
        }
      : { include: ["packages/*/test/**/*.test.ts", "simulations/*.test.ts"], isolate: false, ...limits })
  }
})
