// `sandnet start` from dist/start.cjs, compiled with V8's code cache.
//
// Most of a start was compiling the bundle's ~2 MB of JavaScript (`node --cpu-prof`:
// compileSourceTextModule alone a quarter of the process's CPU). Node 22 keeps compiled code for
// modules between runs (module.enableCompileCache); Node 20 has no such cache for ES modules, but
// a script compiled by `vm.Script` can be given the code V8 produced for it in an earlier run.
// So the start path is also built as one CommonJS script (build.mjs), compiled here with the
// cache of its build, and a start without a usable cache writes one once the node is ready (the
// functions compiled lazily during the start are then in it).
//
// The cache is found by the script's build id (the SHA-256 of its content, on its first line),
// never by file times: V8 checks only the length of the source it is given, and code compiled
// for another build of the same length would run. V8 itself rejects a cache of another V8
// version or other flags; a rejected or missing cache only costs the compile it would have saved.
// The caches are kept beside the script (packages/cli/dist); SANDNET_CODE_CACHE=<dir> keeps them in
// <dir> instead, SANDNET_CODE_CACHE=off neither reads nor writes one (the start bench's uncached row).
import { readFileSync, renameSync, writeFileSync } from "node:fs"
import Module, { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import vm from "node:vm"
import { startBundlePath } from "./stale.mjs"

/** The start script's first line before the build puts its id in (same length as a SHA-256 in hex). */
export const BUILD_ID_PLACEHOLDER = "0".repeat(64)

const cacheName = (id) => `start-${id}.cjs-cache`
export const isCodeCache = (name) => /^start-[0-9a-f]{64}\.cjs-cache$/.test(name)

/** The cached code of this build of the script, or undefined. */
const readCache = (path) => {
  try {
    return readFileSync(path)
  } catch {
    return undefined
  }
}

/** Written whole or not at all (several nodes may start at once); a read-only install keeps none. */
const writeCache = (script, path) => {
  try {
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, script.createCachedData())
    renameSync(temporary, path)
  } catch {
    // no cache: the next start compiles again
  }
}

/**
 * Runs `sandnet start` with `args` from the start script; false (nothing run) when the arguments
 * need the full command line (start-entry.ts `runStart`).
 */
export const runStartCached = async (args) => {
  // PGlite's thread first, as main.ts does: PostgreSQL starts while the script compiles
  await import(pathToFileURL(join(dirname(startBundlePath), "early-pglite.mjs")).href).then((early) => early.startPgliteEarlyFor(args)).catch(() => undefined)
  const source = readFileSync(startBundlePath, "utf8")
  const id = /^\/\/sandnet-build:([0-9a-f]{64})/.exec(source)?.[1]
  const setting = process.env.SANDNET_CODE_CACHE ?? ""
  const dir = setting === "" ? dirname(startBundlePath) : setting
  const cachePath = setting === "off" || id === undefined || id === BUILD_ID_PLACEHOLDER ? undefined : join(dir, cacheName(id))
  const cachedData = cachePath === undefined ? undefined : readCache(cachePath)
  const script = new vm.Script(Module.wrap(source), {
    filename: startBundlePath,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  const module = { exports: {} }
  script.runInThisContext().call(module.exports, module.exports, createRequire(startBundlePath), module, startBundlePath, dirname(startBundlePath))
  const wanted = cachePath !== undefined && (cachedData === undefined || script.cachedDataRejected === true)
  // once ready (the start's own code compiled), after the ready lines went out
  return module.exports.runStart(args, wanted ? () => setImmediate(() => writeCache(script, cachePath)) : undefined)
}
