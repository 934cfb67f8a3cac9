import { defineConfig } from "vitest/config"

const PACKAGES = ["core", "engine", "store", "node", "http", "sim", "cli", "web"]
const limits = { testTimeout: 60_000, hookTimeout: 60_000 }

// `npx vitest run --project <package>` runs one package's test/ folder (and `--project simulations`
// the runnable simulation programs, simulations/*.test.ts). Without --project, the whole suite is
// one project: the forks pool runs the files of one project after another's have all finished, so
// with a project per package each package waited for its own longest file (the web project for
// flows.test.ts, the cli project for its doc commands) while the other worker sat idle.
const selected = process.argv.some((arg) => arg === "--project" || arg.startsWith("--project="))

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
