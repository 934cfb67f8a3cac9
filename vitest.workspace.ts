import { defineWorkspace } from "vitest/config"

// One project per package; each runs the files under its own test/ folder. Test files share their
// worker's module cache (isolate: false): loading Effect and the engine once per worker instead of
// once per file keeps the suite within its time budget on two cores. Tests must not rely on
// module-level state being fresh (the engine keeps none that a test could observe).
export default defineWorkspace([
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
])
