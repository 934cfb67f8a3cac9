// The `sandnet` command from dist/sandnet.cjs, compiled with V8's code cache.
//
// Most of a start was compiling the bundle's ~2 MB of JavaScript (`node --cpu-prof`:
// compileSourceTextModule alone a quarter of the process's CPU), and every other command pays the
// same. Node 22 keeps compiled code for modules between runs (module.enableCompileCache); Node 20
// has no such cache for ES modules, but a script compiled by `vm.Script` can be given the code V8
// produced for it in an earlier run. So the command line is also built as one CommonJS script
// (build.mjs, from src/command-line.ts), compiled here with the cache of its build and command: a
// run without a usable cache writes one, a start once it is ready, any other command when it exits
// (the functions it compiled lazily are then in it).
//
// The cache is found by the script's build id (the SHA-256 of its content, on its first line),
// never by file times: V8 checks only the length of the source it is given, and code compiled
// for another build of the same length would run. V8 itself rejects a cache of another V8
// version or other flags; a rejected or missing cache only costs the compile it would have saved.
// The caches are kept beside the script (packages/cli/dist); SANDNET_CODE_CACHE=<dir> keeps them in
// <dir> instead (a directory only you can write: V8 runs the code it finds there), SANDNET_CODE_CACHE=off
// neither reads nor writes one (the start bench's uncached row).
import { readFileSync, renameSync, writeFileSync } from "node:fs"
import Module, { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import v8 from "node:v8"
import vm from "node:vm"
import { scriptPath } from "./stale.mjs"

/** The script's first line before the build puts its id in (same length as a SHA-256 in hex). */
export const BUILD_ID_PLACEHOLDER = "0".repeat(64)

/** The commands with a cache of their own (help.ts's; any other word shares "other", so that typos make no files). */
const COMMANDS = ["start", "simulate", "token", "bench", "time", "reset", "rebuild", "snapshot", "restore"]

// V8 rejects code cached under other flags: a run with a young generation of its own size (a large
// simulation's, src/simulation-heap.ts, or one given in NODE_OPTIONS, which execArgv does not list) keeps its own
const youngHeap = () => process.execArgv.some((flag) => flag.startsWith("--max-semi-space-size")) || /--max-semi-space-size\b/.test(process.env.NODE_OPTIONS ?? "")
const cacheName = (command, id) => `sandnet-${command}${youngHeap() ? "-youngheap" : ""}-${id}.cjs-cache`
export const isCodeCache = (name) => /^sandnet-[a-z]+(-youngheap)?-[0-9a-f]{64}\.cjs-cache$/.test(name)

/** The cached code of this build of the script, or undefined. */
const readCache = (path) => {
  try {
    return readFileSync(path)
  } catch {
    return undefined
  }
}

/** Written whole or not at all (several processes may run at once); a read-only install keeps none. */
const writeCache = (script, path) => {
  try {
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, script.createCachedData())
    renameSync(temporary, path)
  } catch {
    // no cache: the next run compiles again
  }
}

/** Where this command's cache of this build is kept, or undefined (none wanted, or an unbuilt script). */
const cachePathOf = (source, command) => {
  const setting = process.env.SANDNET_CODE_CACHE ?? ""
  const id = /^\/\/sandnet-build:([0-9a-f]{64})/.exec(source)?.[1]
  if (setting === "off" || id === undefined || id === BUILD_ID_PLACEHOLDER) return undefined
  return join(setting === "" ? dirname(scriptPath) : setting, cacheName(COMMANDS.includes(command) ? command : "other", id))
}

/** Runs `sandnet <args>` from the script (command-line.ts `runCommandLine`). */
export const runCommandLineCached = async (args) => {
  // Before anything is compiled: V8 rejects code cached under other flags, and PGlite's thread sets
  // this one as it compiles PostgreSQL (store/src/pglite-wasm.ts says why); set here first, to the
  // same value, every command's cache is written and read under it.
  v8.setFlagsFromString(`--wasm-num-compilation-tasks=${Math.max(1, availableParallelism() - 1)}`)
  // PGlite's thread first, as command-line.ts does: PostgreSQL starts while the script compiles
  if (args[0] === "start") {
    await import(pathToFileURL(join(dirname(scriptPath), "early-pglite.mjs")).href).then((early) => early.startPgliteEarlyFor(args.slice(1))).catch(() => undefined)
  }
  // ASCII (build.mjs checks it), so Latin-1 gives the same text: 28 against 36 ms in a fresh process
  const source = readFileSync(scriptPath, "latin1")
  const cachePath = cachePathOf(source, args[0])
  const cachedData = cachePath === undefined ? undefined : readCache(cachePath)
  const script = new vm.Script(Module.wrap(source), { filename: scriptPath, cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER })
  const module = { exports: {} }
  script.runInThisContext().call(module.exports, module.exports, createRequire(scriptPath), module, scriptPath, dirname(scriptPath))
  const wanted = cachePath !== undefined && (cachedData === undefined || script.cachedDataRejected === true)
  const write = () => writeCache(script, cachePath)
  // a start: once ready, after its ready lines went out; anything else: as it exits
  if (wanted && args[0] !== "start") process.once("exit", write)
  await module.exports.runCommandLine(args, wanted && args[0] === "start" ? () => setImmediate(write) : undefined)
}
