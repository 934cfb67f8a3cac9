/**
 * PGlite's WebAssembly module, compiled once per process. At run time this module loads nothing but Node
 * built-ins, so a driver can start the compilation before it loads anything else.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
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

