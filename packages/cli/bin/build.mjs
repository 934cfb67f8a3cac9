#!/usr/bin/env node
// Builds the `sandnet` bundle (packages/cli/dist/sandnet.mjs): the workspace's TypeScript and its
// third-party dependencies in one ES module, so that the command starts in a fraction of the time
// it takes to resolve and load hundreds of modules. Packages with native or WebAssembly assets stay
// external. `npm ci` runs this (the root package's `prepare` script); bin/sandnet.js rebuilds when a
// source file is newer than the bundle.
import { build } from "esbuild"
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { buildWeb } from "../../web/build.mjs"

const here = dirname(fileURLToPath(import.meta.url))
const packages = join(here, "..", "..")
export const bundlePath = join(here, "..", "dist", "sandnet.mjs")

const EXTERNAL = [
  "@electric-sql/pglite",
  "@electric-sql/pglite-socket",
  "pg",
  "pg-native",
  "esbuild",
  "tsx",
  "msgpackr",
  "msgpackr-extract",
  "ioredis",
  "lmdb",
  "playwright-core"
]

const workspacePlugin = {
  name: "workspace",
  setup(b) {
    b.onResolve({ filter: /^@sandnet\// }, (args) => ({ path: join(packages, args.path.slice("@sandnet/".length), "src", "index.ts") }))
  }
}

export const newestSource = () => {
  let newest = 0
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs)
    }
  }
  for (const pkg of readdirSync(packages)) {
    const src = join(packages, pkg, "src")
    if (existsSync(src)) walk(src)
  }
  return newest
}

export const isStale = () => !existsSync(bundlePath) || statSync(bundlePath).mtimeMs < newestSource()

/**
 * Several processes may find the bundle stale at once (e.g. a cluster's nodes started together):
 * each builds in memory and renames its files into place, so no process ever loads a half-written
 * bundle.
 */
export const buildBundle = async () => {
  const result = await build({ ...bundleOptions, write: false })
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true })
    const temporary = `${file.path}.${process.pid}.tmp`
    writeFileSync(temporary, file.contents)
    renameSync(temporary, file.path)
  }
}

/** What both bundles (the command, the storage preparation) are built with. */
const nodeBundle = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: EXTERNAL,
  // Some bundled CommonJS dependencies call require(); give the ES module one.
  banner: { js: "import { createRequire as __sandnetRequire } from 'node:module'; const require = __sandnetRequire(import.meta.url);" },
  plugins: [workspacePlugin],
  logLevel: "error"
}

const bundleOptions = {
  ...nodeBundle,
  entryPoints: [join(here, "..", "src", "main.ts")],
  outfile: bundlePath,
  sourcemap: "linked",
  minifySyntax: true
}

/**
 * Creates the PGlite template data directories once, at install time (initdb, 4 to 10 s, then the
 * store's migrations), so that the first `sandnet start` on a machine only copies one (see
 * docs/storage.md). Runs a small bundle of the store's `prepareMigratedTemplate`; a failure only
 * warns (the first start then creates the initdb template and migrates).
 */
export const prepareStorage = async () => {
  const outfile = join(here, "..", "dist", "prepare-storage.mjs")
  await build({
    stdin: {
      contents: [
        'import { Effect } from "effect"',
        'import { prepareMigratedTemplate } from "@sandnet/store"',
        "const result = await Effect.runPromise(prepareMigratedTemplate({ onStep: (step) => console.log(`sandnet: ${step}`) }))",
        'console.log(result.created ? `sandnet: PGlite template created in ${(result.ms / 1000).toFixed(1)} s (${result.template})` : `sandnet: PGlite template ready (${result.template})`)'
      ].join("\n"),
      resolveDir: here,
      loader: "ts"
    },
    ...nodeBundle,
    outfile
  })
  try {
    await import(pathToFileURL(outfile).href)
  } catch (error) {
    console.warn(`sandnet: the PGlite template was not created (${error instanceof Error ? error.message : String(error)}); the first start will create it`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildBundle()
  await buildWeb()
  if (process.env.SANDNET_SKIP_PGLITE_TEMPLATE === undefined) await prepareStorage()
}
