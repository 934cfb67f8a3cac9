/**
 * The `sandnet` command line's entry. Help pages and the check of flags (help.ts) answer without
 * loading the command line library, and so does a well-formed `start` (start-entry.ts); everything
 * else runs in cli.ts.
 */
import { preflight } from "./help.ts"

const args = process.argv.slice(2)
const command = [args[0], args[0] === "time" && args[1] !== undefined && !args[1].startsWith("-") ? args[1] : undefined].filter((a) => a !== undefined).join(" ")
const checked = preflight(args)
if (checked._tag === "help") process.stdout.write(checked.text)
else if (checked._tag === "error") {
  process.stderr.write(`${checked.line}\n`)
  process.exitCode = 2
} else {
  // PGlite's thread starts while the rest loads (early-pglite.ts)
  if (command === "start") void import("./early-pglite.ts").then((early) => early.startPgliteEarlyFor(args.slice(1))).catch(() => undefined)
  if (!(command === "start" && (await import("./start-entry.ts")).runStart(args.slice(1)))) (await import("./cli.ts")).runCli(command)
}
