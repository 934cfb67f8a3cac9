import { defineWorkspace } from "vitest/config"

// The projects of the suite; the options every project shares (the pool, workers, the order of the
// files) are in vitest.config.ts. `npx vitest run --project <package>` runs one package's test/
// folder (and `--project simulations` the runnable simulation programs, simulations/*.test.ts).
// Without --project the whole suite is one project: the forks pool starts a project's files only
// once the previous project's have all finished, so with a project per package each package waited
// for its own longest file while the other worker sat idle.
const PACKAGES = ["core", "engine", "store", "node", "http", "sim", "cli", "web"]
const limits = { testTimeout: 60_000, hookTimeout: 60_000, isolate: false }
const selected = process.argv.some((arg) => arg === "--project" || arg.startsWith("--project="))

export default defineWorkspace(
  selected
    ? [
        ...PACKAGES.map((name) => ({ test: { name, root: `packages/${name}`, include: ["test/**/*.test.ts"], ...limits } })),
        // the simulations' tests give their own timeout (120 s)
        { test: { name: "simulations", root: "simulations", include: ["*.test.ts"], ...limits } }
      ]
    : [{ test: { name: "sandnet", include: ["packages/*/test/**/*.test.ts", "simulations/*.test.ts"], ...limits } }]
)
