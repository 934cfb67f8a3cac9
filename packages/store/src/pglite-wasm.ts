/**
 * PGlite's WebAssembly module, compiled once per process. At run time this module loads nothing but Node
 * built-ins, so a driver can start the compilation before it loads anything else.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as v8 from "node:v8"
import type { PGliteOptions } from "@electric-sql/pglite"

/** PGlite's compiled module (`WebAssembly.Module`; named through PGlite's options so that this file does not depend on a DOM lib). */
export type PgliteWasmModule = NonNullable<PGliteOptions["pgliteWasmModule"]>

/** Where the installed @electric-sql/pglite lives, and its version. */
export const pglitePackage = (): { readonly root: string; readonly version: string } => {
  let dir = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"))
  for (;;) {
    const manifest = path.join(dir, "package.json")
    if (fs.existsSync(manifest)) {
      const parsed: unknown = JSON.parse(fs.readFileSync(manifest, "utf8"))
      if (typeof parsed === "object" && parsed !== null && "name" in parsed && parsed.name === "@electric-sql/pglite") {
        const version = "version" in parsed && typeof parsed.version === "string" ? parsed.version : "unknown"
        return { root: dir, version }
      }
    }
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error("cannot locate the @electric-sql/pglite package")
    dir = parent
  }
}

// The WebAssembly global exists in Node; this project's `lib` (ES2022, no DOM) does not declare it.
const wasmApi = (globalThis as unknown as {
  readonly WebAssembly: { readonly compile: (bytes: Uint8Array) => Promise<PgliteWasmModule> }
}).WebAssembly

let compiling: Promise<PgliteWasmModule> | undefined

/**
 * How many of V8's background threads may compile WebAssembly at once: all cores but one. V8's
 * default (128, that is every thread of its pool, four in Node) let PostgreSQL's start tier its hot
 * functions up to optimized code on four threads at once, and on two cores they took the CPU the
 * start itself needed: a reopen's process used 2.3 to 2.7 s of CPU for 1.5 to 1.8 s of wall time,
 * 0.9 to 1.1 s of it on V8's pool threads (per-thread CPU from /proc, docs/benchmarks.md). The
 * functions still tier up, on fewer threads at a time. V8 reads it when it plans a compilation.
 * Code cached under other flags is rejected: the command line sets the same value before it compiles
 * its script (cli/bin/script-cached.mjs), so that this setting, made in PGlite's thread meanwhile,
 * changes nothing for it.
 */
const limitWasmCompilationThreads = (): void => {
  v8.setFlagsFromString(`--wasm-num-compilation-tasks=${Math.max(1, os.availableParallelism() - 1)}`)
}

/**
 * Starts compiling PGlite's WebAssembly module (about 9 MB; a few hundred ms) on V8's background
 * threads and keeps it for the rest of the process. The PGlite layer calls it first thing, so that compilation
 * overlaps the data directory's preparation; a driver can call it even earlier (before importing
 * the rest of the program) to hide it completely. Every PGlite opened in the process reuses it.
 */
export const precompilePglite = (): Promise<PgliteWasmModule> => {
  if (compiling === undefined) {
    // Read at once (a few ms), so that the compilation starts now: read asynchronously, it waited
    // for the event loop, which the program's loading keeps busy (measured: the module was ready
    // 9-26 ms after a 450 ms busy start when read at once, 160-220 ms after when read asynchronously).
    let started: Promise<PgliteWasmModule>
    limitWasmCompilationThreads()
    try {
      started = wasmApi.compile(fs.readFileSync(path.join(pglitePackage().root, "dist", "pglite.wasm")))
    } catch (error) {
      started = Promise.reject(error)
    }
    // A failure is not cached: PGlite then compiles its own copy and reports the real error.
    compiling = started.catch((error: unknown) => {
      compiling = undefined
      throw error
    })
  }
  return compiling
}

