/**
 * The `sandnet` command line's entry. Help pages and the check of flags (help.ts) answer without
 * loading the command line library, and so does a well-formed `start` (start-entry.ts); everything
 * else runs in cli.ts.
 */
import { preflight } from "./help.ts"

/** Whether `start` with these flags opens the embedded database (PGlite). */
function embeddedDatabase(args: ReadonlyArray<string>): boolean {
  const elsewhere = ["--in-memory", "--database-url", "--cluster"]
  return !args.some((arg) => elsewhere.includes(arg.split("=")[0]!)) && (process.env["DATABASE_URL"] ?? "") === ""
}

/** `start`'s data directory as given (`--data-dir DIR` or `--data-dir=DIR`), else undefined (the default). */
function dataDirOf(args: ReadonlyArray<string>): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--data-dir" && args[i + 1] !== undefined) return args[i + 1]!
    if (args[i]!.startsWith("--data-dir=")) return args[i]!.slice("--data-dir=".length)
  }
  return undefined
}

const args = process.argv.slice(2)
const command = [args[0], args[0] === "time" && args[1] !== undefined && !args[1].startsWith("-") ? args[1] : undefined].filter((a) => a !== undefined).join(" ")
const checked = preflight(args)
if (checked._tag === "help") process.stdout.write(checked.text)
else if (checked._tag === "error") {
  process.stderr.write(`${checked.line}\n`)
  process.exitCode = 2
} else {
  // A start on the embedded database starts PGlite in its own thread at once (pglite-host.ts loads
  // nothing else): PostgreSQL's start (~0.8 s of CPU) runs on the second core while the rest of the
  // program loads, and the store adopts it when it opens the same data directory.
  if (command === "start" && embeddedDatabase(args)) {
    const dataDir = dataDirOf(args.slice(1))
    void import("@sandnet/store/pglite-host").then((host) => host.startPgliteEarly(dataDir)).catch(() => undefined)
  }
  if (!(command === "start" && (await import("./start-entry.ts")).runStart(args.slice(1)))) (await import("./cli.ts")).runCli(command)
}
