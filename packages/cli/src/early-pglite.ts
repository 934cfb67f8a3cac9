/**
 * A start on the embedded database starts PGlite in its own thread before the program loads
 * (pglite-host.ts loads nothing else): PostgreSQL's start (~0.8 s of CPU) runs on the second core
 * while the rest of the program loads, and the store adopts it when it opens the same data
 * directory. command-line.ts calls this first; so does bin/script-cached.mjs, from dist/early-pglite.mjs
 * (an entry of its own in the bundle), before it compiles the start script.
 */
import { startPgliteEarly } from "@sandnet/store/pglite-host"
import { preflight } from "./help.ts"

/** Whether `start` with these flags opens the embedded database (PGlite), as start.ts's `storageChoice` decides: a --data-dir beats DATABASE_URL. */
const embeddedDatabase = (args: ReadonlyArray<string>): boolean => {
  const flags = args.map((arg) => arg.split("=")[0]!)
  const elsewhere = ["--in-memory", "--database-url", "--cluster"]
  if (flags.some((flag) => elsewhere.includes(flag))) return false
  return flags.includes("--data-dir") || (process.env["DATABASE_URL"] ?? "") === ""
}

/** `start`'s data directory as given (`--data-dir DIR` or `--data-dir=DIR`), else undefined (the default). */
const dataDirOf = (args: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--data-dir" && args[i + 1] !== undefined) return args[i + 1]!
    if (args[i]!.startsWith("--data-dir=")) return args[i]!.slice("--data-dir=".length)
  }
  return undefined
}

/** Starts PGlite's thread at once when `sandnet start <args>` will open the embedded database (not for help or a mistake). */
export const startPgliteEarlyFor = (args: ReadonlyArray<string>): void => {
  if (preflight(["start", ...args])._tag === "run" && embeddedDatabase(args)) startPgliteEarly(dataDirOf(args))
}
