import { defineConfig } from "vitest/config"

// One project per package; each runs the files under its own test/ folder.
//
// Test files share their worker's module cache: loading Effect and the engine once per worker
// instead of once per file. `isolate: false` has to be said here, at the root, in
// `poolOptions.forks`: the forks pool reads it from the root config only, and a project's own
// `isolate: false` leaves every file in a fresh process (the engine project: 94 s with a fresh
// process per file, 14 s sharing one; most of it was collect). Tests must not rely on
// module-level state being fresh (the engine keeps none that a test could observe).
//
// Two workers even on two cores: many files spend their time waiting on nodes they spawn.
export default defineConfig({
  test: {
    pool: "forks",
    poolOptions: { forks: { isolate: false } },
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      ...["core", "engine", "store", "node", "http", "sim", "cli", "web"].map((name) => ({
        test: {
          name,
          root: `packages/${name}`,
          include: ["test/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          isolate: false
        }
      })),
      // The runnable simulation programs (simulations/*.ts), each run twice with one seed.
      { test: { name: "simulations", root: "simulations", include: ["*.test.ts"], testTimeout: 120_000, isolate: false } }
    ]
  }
})
