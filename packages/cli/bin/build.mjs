#!/usr/bin/env node
// Builds the `sandnet` command (packages/cli/dist): the workspace's TypeScript and its third-party
// dependencies in ES modules, so that the command starts in a fraction of the time it takes to
// resolve and load hundreds of modules. Packages with native or WebAssembly assets stay external.
// `npm ci` runs this (the root package's `prepare` script); bin/sandnet.js rebuilds when a source
// file is newer than the bundle (bin/stale.mjs).
//
// Start-up is dominated by compiling JavaScript, so what a command does not need is not loaded:
// - dist/sandnet.mjs holds the command line; each command's work is a chunk (dist/chunks/) that
//   is imported when that command runs (src/main.ts imports them lazily);
// - dist/token.mjs is the `sandnet token` command alone (no node, no database, no @effect/cli);
// - Scalar's API reference script (3.3 MB of the 8 MB that @effect/platform brought in) is a file
//   read when the node's HTTP modules load, not a string literal compiled at every start, and its
//   pages are built at their first request;
// - source maps are written beside the files but never loaded unless asked for
//   (`node --enable-source-maps`);
// - dist/sandnet.cjs is the command line again as one CommonJS script, which bin/script-cached.mjs
//   compiles with V8's code cache: Node 20 keeps no compiled code for ES modules between runs,
//   and compiling the bundle was the largest part of a start (see script-cached.mjs).
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { createHash } from "node:crypto"
import { bundlePath, scriptPath, tokenBundlePath } from "./stale.mjs"
import { BUILD_ID_PLACEHOLDER, isCodeCache } from "./script-cached.mjs"

export { bundlePath, isStale } from "./stale.mjs"

const here = dirname(fileURLToPath(import.meta.url))
const packages = join(here, "..", "..")
const dist = join(here, "..", "dist")
const scalarPath = join(dist, "scalar-api-reference.js")

/** The bundler, imported only when something is built (it costs ~0.4 s to load). */
const esbuild = () => import("esbuild")

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
    // @sandnet/<package> is its src/index.ts, @sandnet/<package>/<name> its src/<name>.ts (package.json's exports)
    b.onResolve({ filter: /^@sandnet\// }, (args) => {
      const [name, sub] = args.path.slice("@sandnet/".length).split(/\/(.*)/s)
      return { path: join(packages, name, "src", `${sub || "index"}.ts`) }
    })
  }
}

/**
 * For the token command's bundle: the workspace's modules are declared free of side effects, so
 * that importing one function from a package's index brings that function's modules only.
 */
const sideEffectFreeWorkspace = {
  name: "side-effect-free-workspace",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!args.importer.startsWith(packages) || args.importer.includes("node_modules")) return undefined
      return { path: join(dirname(args.importer), args.path), sideEffects: false }
    })
  }
}

/** Scalar's API reference script, taken out of the code (see the header), kept here until written. */
const scalar = { javascript: undefined }
const scalarPlugin = {
  name: "scalar-as-file",
  setup(b) {
    b.onLoad({ filter: /@effect[\\/]platform[\\/]dist[\\/]esm[\\/]internal[\\/]httpApiScalar\.js$/ }, async (args) => {
      scalar.javascript = (await import(pathToFileURL(args.path).href)).javascript
      // read (not compiled) when the http package's modules are evaluated
      // Read at the first page's request: the page interpolates it (`${source.source}`), which
      // calls toString; reading 3.3 MB at every start was ~20 ms of it (--cpu-prof).
      return {
        loader: "js",
        contents: `import { readFileSync } from "node:fs"
let text
export const javascript = { toString: () => (text ??= readFileSync(new URL("./${scalarPath.split(/[\\/]/).pop()}", import.meta.url), "utf8")) }`
      }
    })
  }
}

/**
 * Scalar's pages (one per surface: the OpenAPI document and the 3.3 MB script, encoded to bytes)
 * are built when the server starts; this makes @effect/platform's HttpApiScalar build each page at
 * its first request instead (about a tenth of a node's start-up). The source is matched exactly;
 * if a new version of the library changes it, the module is left as it is.
 */
const lazyScalarPagesPlugin = {
  name: "lazy-scalar-pages",
  setup(b) {
    b.onLoad({ filter: /@effect[\\/]platform[\\/]dist[\\/]esm[\\/]HttpApiScalar\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8")
      const head = "const makeHandler = options => {"
      if (!source.includes(head) || !source.includes("return Effect.succeed(response);\n};")) return undefined
      return {
        loader: "js",
        resolveDir: dirname(args.path),
        contents: source
          .replace(head, "const makeHandlerNow = options => {")
          .replace(
            "return Effect.succeed(response);\n};",
            "return Effect.succeed(response);\n};\nconst makeHandler = options => {\n  let page;\n  return Effect.suspend(() => (page ??= makeHandlerNow(options)));\n};"
          )
      }
    })
  }
}

/**
 * @effect/platform-node's HTTP server module imports its HTTP client (for `layerTest`), and with it
 * Undici.js, which re-exports the bundled undici: evaluating undici at every start was about a tenth
 * of `sandnet start --in-memory`'s CPU (--cpu-prof). Sandnet never uses that client (it serves with
 * node:http and calls out with fetch), so the bundle's Undici.js exports nothing; the client would
 * fail at its first use.
 */
const noUndiciPlugin = {
  name: "no-undici",
  setup(b) {
    b.onLoad({ filter: /@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]Undici\.js$/ }, () => ({
      loader: "js",
      contents: "// sandnet's bundle leaves undici out (see noUndiciPlugin in bin/build.mjs)\nexport default undefined\n"
    }))
  }
}

/**
 * effect's Schema and Arbitrary modules import fast-check (for arbitraries, used by property tests,
 * never by the command), so every start compiled and evaluated its ~60 modules. The bundle's
 * fast-check is a module of the same names that loads the real one at its first use.
 */
const lazyFastCheckPlugin = {
  name: "lazy-fast-check",
  setup(b) {
    b.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]esm[\\/]FastCheck\.js$/ }, async () => {
      const real = await import("fast-check")
      const lines = [
        "// sandnet's bundle loads fast-check at its first use (see lazyFastCheckPlugin in bin/build.mjs)",
        "let real",
        // a name the bundler does not follow: fast-check stays in node_modules, loaded by Node
        "const name = \"fast-check\"",
        "const load = () => (real ??= require(name))",
        "const lazy = (name) => function (...args) { return new.target === undefined ? load()[name].apply(this, args) : Reflect.construct(load()[name], args, new.target) }"
      ]
      for (const name of Object.keys(real)) {
        if (name === "default") continue
        const value = real[name]
        const symbolKey = typeof value === "symbol" ? Symbol.keyFor(value) : undefined
        if (typeof value === "symbol" && symbolKey === undefined) throw new Error(`fast-check's ${name} is a symbol of its own: the bundle cannot copy it`)
        lines.push(
          typeof value === "function"
            ? `export const ${name} = lazy(${JSON.stringify(name)})`
            : `export const ${name} = ${symbolKey === undefined ? JSON.stringify(value) : `Symbol.for(${JSON.stringify(symbolKey)})`}`
        )
      }
      return { loader: "js", contents: lines.join("\n") }
    })
  }
}

/**
 * @canton-network/core-ledger-proto (1 MB of generated protobuf bindings: every message type is an
 * object made when its module is evaluated) is used by the engine for PreparedTransaction and
 * HashingSchemeVersion only. Its modules are declared free of side effects (they only define
 * message types), so the bundle keeps the types those two need instead of the whole package.
 */
const sideEffectFreeLedgerProto = {
  name: "side-effect-free-ledger-proto",
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === "ledger-proto" || !(args.path.startsWith("@canton-network/core-ledger-proto") || /[\\/]@canton-network[\\/]core-ledger-proto[\\/]/.test(args.importer))) return undefined
      const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "ledger-proto" })
      return resolved.errors.length > 0 ? undefined : { ...resolved, sideEffects: false }
    })
  }
}

/**
 * @effect/sql-pg imports pg and pg-cursor, and pg's stream module probes for Cloudflare Workers when
 * it loads (`typeof Response`), which loads Node's fetch implementation (undici): together 60 to
 * 120 ms of every start (--cpu-prof), also of `start --in-memory`, which never opens a connection.
 * @effect/platform-node's HTTP server imports ws (~18 ms to load) for a websocket server it makes at
 * the first upgrade. For those importers they are modules of the same names that require the real
 * ones at their first use (all are CommonJS, or have a CommonJS build, so that is synchronous).
 * Likewise, what a start does not use before its first request (CPU marks between the bundle's
 * modules, compiling included): the engine's fflate (DAR archives, gzip of ACS snapshots; ~10 ms,
 * its tables are built when it loads) and Canton's protobuf bindings with their runtime (prepared
 * transactions of the interactive submission; 190 KB, ~15 ms), and platform-node's mime (37 KB,
 * types of the files the web pages serve).
 */
const ENGINE = /[\\/]packages[\\/]engine[\\/]src[\\/]/
const LAZY_COMMONJS = {
  pg: /[\\/]@effect[\\/]sql-pg[\\/]/,
  "pg-cursor": /[\\/]@effect[\\/]sql-pg[\\/]/,
  ws: /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]internal[\\/]httpServer\.js$/,
  fflate: ENGINE,
  "@canton-network/core-ledger-proto": ENGINE,
  mime: /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]internal[\\/]httpPlatform\.js$/
}
/**
 * pg's stream module probes for Cloudflare Workers as it loads: without a `navigator` global
 * (Node 21 and later have one) it constructs a fetch `Response`, which loads Node's fetch
 * implementation (undici): 40 to 45 of the 80 to 90 ms `require("pg")` takes on a slow VM, at
 * every start on a database (PGlite's too: the node reaches it through pg). The stub lends it a
 * `navigator` like Node 21's while pg loads, and takes it away after.
 */
const PROBES_CLOUDFLARE = new Set(["pg", "pg-cursor"])
const lazyPgPlugin = {
  name: "lazy-pg",
  setup(b) {
    const nodeRequire = createRequire(import.meta.url)
    b.onResolve({ filter: /^(pg|pg-cursor|ws|fflate|@canton-network\/core-ledger-proto|mime)$/ }, (args) => {
      // the stub's own require: loaded by Node from node_modules, not bundled
      if (args.namespace === "lazy-pg") return { path: args.path, external: true }
      return LAZY_COMMONJS[args.path]?.test(args.importer) === true ? { path: args.path, namespace: "lazy-pg", pluginData: args.resolveDir } : undefined
    })
    b.onLoad({ filter: /.*/, namespace: "lazy-pg" }, (args) => {
      const real = nodeRequire(nodeRequire.resolve(args.path, { paths: [args.pluginData] }))
      const lines = [
        `// sandnet's bundle loads ${args.path} at its first use (see lazyPgPlugin in bin/build.mjs)`,
        "let real",
        `const name = ${JSON.stringify(args.path)}`,
        ...(PROBES_CLOUDFLARE.has(args.path)
          ? [
              // its probe asks for `navigator` first, which Node 21 and later define
              "const asNode21 = (load) => { if (globalThis.navigator !== undefined) return load(); globalThis.navigator = { userAgent: \"Node.js\" }; try { return load() } finally { delete globalThis.navigator } }",
              "const load = () => (real ??= asNode21(() => require(name)))"
            ]
          : ["const load = () => (real ??= require(name))"]),
        "const at = (key) => (key === undefined ? load() : load()[key])",
        "const lazyFunction = (key) => new Proxy(function () {}, { apply: (_, self, args) => Reflect.apply(at(key), self, args), construct: (_, args) => Reflect.construct(at(key), args), get: (_, property) => at(key)[property] })",
        "const lazyObject = (key) => new Proxy({}, { get: (_, property) => at(key)[property], set: (_, property, value) => ((at(key)[property] = value), true), has: (_, property) => property in at(key) })"
      ]
      // pure: the bundle keeps the stubs of what its code imports only
      if (typeof real === "function") lines.push("export default /* @__PURE__ */ lazyFunction(undefined)")
      else if (real.__esModule !== true) lines.push("export default /* @__PURE__ */ lazyObject(undefined)")
      for (const key of Object.keys(real)) {
        const value = real[key]
        if (key === "default" || key === "__esModule") continue
        if (typeof value === "function") lines.push(`export const ${key} = /* @__PURE__ */ lazyFunction(${JSON.stringify(key)})`)
        else if (typeof value === "object" && value !== null) lines.push(`export const ${key} = /* @__PURE__ */ lazyObject(${JSON.stringify(key)})`)
        else lines.push(`export const ${key} = ${JSON.stringify(value)}`)
      }
      return { loader: "js", contents: lines.join("\n") }
    })
  }
}

/**
 * Writes into place by renaming: chunks first, entry points last (they import the chunks). The
 * entry points are dated when the build started, so that a source saved during the build is newer
 * than them and the next run rebuilds.
 */
const writeOutputs = (outputFiles, entries, startedAt = new Date()) => {
  const ordered = [...outputFiles].sort((a, b) => Number(entries.includes(a.path)) - Number(entries.includes(b.path)))
  for (const file of ordered) {
    mkdirSync(dirname(file.path), { recursive: true })
    const temporary = `${file.path}.${process.pid}.tmp`
    writeFileSync(temporary, file.contents)
    renameSync(temporary, file.path)
    if (entries.includes(file.path)) utimesSync(file.path, startedAt, startedAt)
  }
}

/** Chunks of earlier builds that this one no longer uses, left for an hour for processes still running. */
const pruneChunks = (outputFiles) => {
  const current = new Set(outputFiles.map((f) => f.path))
  for (const name of readdirSync(dist)) {
    const path = join(dist, name)
    if (!name.startsWith("chunk-") || current.has(path) || current.has(path.replace(/\.map$/, ""))) continue
    // Another process building at the same time may have pruned it already.
    try {
      if (statSync(path).mtimeMs < Date.now() - 3600_000) unlinkSync(path)
    } catch (error) {
      if (error?.code !== "ENOENT") throw error
    }
  }
}

/**
 * Several processes may find the bundle stale at once (e.g. a cluster's nodes started together):
 * each builds in memory and renames its files into place, so no process ever loads a half-written
 * bundle.
 */
export const buildBundle = async () => {
  const startedAt = new Date()
  const { build } = await esbuild()
  const [main, token, start] = await Promise.all([
    build({ ...bundleOptions, write: false }),
    build({ ...tokenOptions, write: false }),
    build({ ...scriptOptions, write: false })
  ])
  if (scalar.javascript !== undefined) writeOutputs([{ path: scalarPath, contents: new TextEncoder().encode(scalar.javascript) }], [])
  writeOutputs(main.outputFiles, [bundlePath], startedAt)
  writeOutputs(token.outputFiles, [tokenBundlePath], startedAt)
  writeOutputs(start.outputFiles.map(withBuildId), [scriptPath], startedAt)
  pruneChunks(main.outputFiles)
  pruneCodeCaches()
}

/**
 * The script's first line names its content (a SHA-256 in place of the placeholder, same length,
 * so the source map stays right): its code caches are looked up by it (script-cached.mjs).
 */
const withBuildId = (file) => {
  if (file.path !== scriptPath) return file
  const text = new TextDecoder().decode(file.contents)
  // script-cached.mjs reads the script as Latin-1 (a quarter faster than UTF-8), which is the same text only for ASCII;
  // esbuild writes ASCII (its default charset escapes everything else)
  const beyondAscii = /[^\x00-\x7f]/.exec(text)
  if (beyondAscii !== null) throw new Error(`the command line's script must be ASCII: character U+${beyondAscii[0].codePointAt(0).toString(16)} at ${beyondAscii.index}`)
  const id = createHash("sha256").update(text).digest("hex")
  return { path: file.path, contents: new TextEncoder().encode(text.replace(BUILD_ID_PLACEHOLDER, id)) }
}

/** Code caches of earlier builds' scripts (kept an hour for processes still running them). */
const pruneCodeCaches = () => {
  for (const name of readdirSync(dist)) {
    if (!isCodeCache(name)) continue
    try {
      if (statSync(join(dist, name)).mtimeMs < Date.now() - 3600_000) unlinkSync(join(dist, name))
    } catch (error) {
      if (error?.code !== "ENOENT") throw error
    }
  }
}

/** What the bundles (the command, the token command, the storage preparation) are built with. */
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
  // lazyPgPlugin before sideEffectFreeLedgerProto: the engine's imports of the bindings are lazy
  plugins: [workspacePlugin, scalarPlugin, lazyScalarPagesPlugin, noUndiciPlugin, lazyFastCheckPlugin, lazyPgPlugin, sideEffectFreeLedgerProto],
  // PGlite's thread (packages/store/src/pglite-host.ts), its early start (src/early-pglite.ts) and
  // the load bench's clients (src/bench/load.ts) are modules of their own beside the chunks
  entryPoints: {
    sandnet: join(here, "..", "src", "main.ts"),
    "pglite-thread": join(packages, "store", "src", "pglite-thread.ts"),
    // started by bin/script-cached.mjs before it compiles the command line script
    "early-pglite": join(here, "..", "src", "early-pglite.ts"),
    "load-clients": join(here, "..", "src", "bench", "load-clients.ts")
  },
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  splitting: true,
  chunkNames: "chunk-[hash]",
  sourcemap: "linked",
  minifySyntax: true,
  minifyWhitespace: true
}

/**
 * The command line as one CommonJS script (src/command-line.ts's `runCommandLine`), for the code
 * cache: everything it may load is in it (no chunks), `import.meta.url` is the script's own URL.
 */
const scriptOptions = {
  ...nodeBundle,
  plugins: bundleOptions.plugins,
  entryPoints: { sandnet: join(here, "..", "src", "command-line.ts") },
  format: "cjs",
  outdir: dist,
  outExtension: { ".js": ".cjs" },
  define: { "import.meta.url": "__sandnetScriptUrl" },
  banner: { js: `//sandnet-build:${BUILD_ID_PLACEHOLDER}\n"use strict";const __sandnetScriptUrl = require("node:url").pathToFileURL(__filename).href;` },
  sourcemap: "linked",
  minifySyntax: true,
  minifyWhitespace: true
}

export const tokenOptions = {
  ...nodeBundle,
  plugins: [workspacePlugin, sideEffectFreeWorkspace],
  entryPoints: { token: join(here, "..", "src", "token-entry.ts") },
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  minifySyntax: true
}

/**
 * Creates the PGlite template data directories once, at install time (initdb, 4 to 10 s, then the
 * store's migrations), and the migrated one's spare copy, so that the first `sandnet start` on a
 * machine copies nothing (see docs/storage.md). Runs a small bundle of the store's `prepareMigratedTemplate`; a failure only
 * warns (the first start then creates the initdb template and migrates).
 */
export const prepareStorage = async () => {
  const outfile = join(here, "..", "dist", "prepare-storage.mjs")
  const { build } = await esbuild()
  await build({
    stdin: {
      contents: [
        'import { Effect } from "effect"',
        'import { makeTemplateSpare, prepareMigratedTemplate } from "@sandnet/store"',
        "const result = await Effect.runPromise(prepareMigratedTemplate({ onStep: (step) => console.log(`sandnet: ${step}`) }))",
        'console.log(result.created ? `sandnet: PGlite template created in ${(result.ms / 1000).toFixed(1)} s (${result.template})` : `sandnet: PGlite template ready (${result.template})`)',
        "if (await makeTemplateSpare(result.template)) console.log(\"sandnet: and its spare copy, for the next new data directory\")"
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
  await (await import("../../web/build.mjs")).buildWeb()
  if (process.env.SANDNET_SKIP_PGLITE_TEMPLATE === undefined) await prepareStorage()
}
