/**
 * The `sandnet` command line, callable: help pages and the check of flags (help.ts) answer without
 * loading the command line library, and so does a well-formed `start` (start-entry.ts); everything
 * else runs in cli.ts. main.ts (the ES module bundle) and bin/script-cached.mjs (dist/sandnet.cjs,
 * compiled with V8's code cache) both run it. Each command's modules are imported when it runs.
 */
import { preflight } from "./help.ts"

/** The command's name as failure lines give it ("start", "time advance"). */
const commandOf = (args: ReadonlyArray<string>): string =>
  [args[0], args[0] === "time" && args[1] !== undefined && !args[1].startsWith("-") ? args[1] : undefined].filter((a) => a !== undefined).join(" ")

/** Runs `sandnet <args>`; resolves once the command is under way. `onStartReady`: a start's StartOptions.onReady. */
export const runCommandLine = async (args: ReadonlyArray<string>, onStartReady?: () => void): Promise<void> => {
  const command = commandOf(args)
  const checked = preflight(args)
  if (checked._tag === "help") {
    process.stdout.write(checked.text)
    return
  }
  if (checked._tag === "error") {
    process.stderr.write(`${checked.line}\n`)
    process.exitCode = 2
    return
  }
  // PGlite's thread starts while the rest loads (early-pglite.ts; a no-op when bin/ started it)
  if (command === "start") void import("./early-pglite.ts").then((early) => early.startPgliteEarlyFor(args.slice(1))).catch(() => undefined)
  if (command === "start" && (await import("./start-entry.ts")).runStart(args.slice(1), onStartReady)) return
  ;(await import("./cli.ts")).runCli(command)
}
