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

const args = process.argv.slice(2)
const command = [args[0], args[0] === "time" && args[1] !== undefined && !args[1].startsWith("-") ? args[1] : undefined].filter((a) => a !== undefined).join(" ")
const checked = preflight(args)
if (checked._tag === "help") process.stdout.write(checked.text)
else if (checked._tag === "error") {
  process.stderr.write(`${checked.line}\n`)
  process.exitCode = 2
} else {
  // A start on the embedded database compiles PGlite's WebAssembly (~0.2 s) on V8's background
  // threads while the rest of the program loads, instead of after it (pglite-wasm.ts loads nothing else).
  if (command === "start" && embeddedDatabase(args)) void import("@sandnet/store/pglite-wasm").then((wasm) => wasm.precompilePglite()).catch(() => undefined)
  if (!(command === "start" && (await import("./start-entry.ts")).runStart(args.slice(1)))) (await import("./cli.ts")).runCli(command)
}
