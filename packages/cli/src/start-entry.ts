/**
 * `sandnet start` without the command line library: a well-formed `start` (the flags of
 * help.ts's page, each once, `--flag value` or `--flag=value`) is parsed here and started at once.
 * Loading and running @effect/cli (its modules, the command tree, the parse) was a tenth of a
 * node's start-up in `node --cpu-prof`. Anything else (a value that is not a number, a switch
 * given a value, a repeated flag, an argument) is left to the full command line, which explains it.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Option } from "effect"
import { describeFailure } from "./failure.ts"
import { COMMANDS } from "./help.ts"
import { portOf } from "./port.ts"
import { start, type StartOptions } from "./start.ts"

const SWITCHES = ["in-memory", "log-requests", "localnet"] as const
const TEXTS = ["host", "secret", "validator-wallet-user", "cluster", "data-dir", "database-url", "schema", "node-name"] as const
const INTEGERS = ["port", "port-offset", "super-validators", "validators"] as const

/** A default as `sandnet start --help` states it (help.ts is the one place defaults are written for this parse). */
const defaultOf = (name: string): string => {
  const value = COMMANDS.find((command) => command.name === "start")?.flags.find((flag) => flag.name === name)?.default
  if (value === undefined) throw new Error(`sandnet start's help states no default for --${name}`)
  return value
}

/** The flags as given (a switch as ""), or undefined when they need the full command line. */
const flagsOf = (args: ReadonlyArray<string>): Map<string, string> | undefined => {
  const flags = new Map<string, string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith("--")) return undefined
    const equals = arg.indexOf("=")
    const name = arg.slice(2, equals > 0 ? equals : undefined)
    if (flags.has(name)) return undefined
    if ((SWITCHES as ReadonlyArray<string>).includes(name)) {
      if (equals > 0) return undefined
      flags.set(name, "")
      continue
    }
    if (!(TEXTS as ReadonlyArray<string>).includes(name) && !(INTEGERS as ReadonlyArray<string>).includes(name)) return undefined
    const value = equals > 0 ? arg.slice(equals + 1) : args[++i]
    if (value === undefined || value.startsWith("-")) return undefined
    if ((INTEGERS as ReadonlyArray<string>).includes(name) && !/^\d{1,15}$/.test(value)) return undefined
    flags.set(name, value)
  }
  return flags
}

/** `start`'s options (the port not yet checked), or undefined when the full command line should parse them. */
export const parseStartArguments = (args: ReadonlyArray<string>): (Omit<StartOptions, "port"> & { readonly port: Option.Option<number> }) | undefined => {
  const flags = flagsOf(args)
  if (flags === undefined) return undefined
  const text = (name: string) => Option.fromNullable(flags.get(name))
  const integer = (name: string) => Option.map(text(name), Number)
  return {
    port: integer("port"),
    host: flags.get("host") ?? defaultOf("host"),
    secret: flags.get("secret") ?? defaultOf("secret"),
    validatorWalletUser: flags.get("validator-wallet-user") ?? defaultOf("validator-wallet-user"),
    logRequests: flags.has("log-requests"),
    cluster: text("cluster"),
    localnet: flags.has("localnet"),
    portOffset: Option.getOrElse(integer("port-offset"), () => 0),
    superValidators: Option.getOrUndefined(integer("super-validators")),
    validators: Option.getOrUndefined(integer("validators")),
    dataDir: text("data-dir"),
    inMemory: flags.has("in-memory"),
    databaseUrl: text("database-url"),
    schema: text("schema"),
    nodeName: flags.get("node-name") ?? defaultOf("node-name")
  }
}

/** Starts the node and answers true, or answers false when the full command line should run. `onReady`: StartOptions's. */
export const runStart = (args: ReadonlyArray<string>, onReady?: () => void): boolean => {
  const parsed = parseStartArguments(args)
  if (parsed === undefined) return false
  Effect.flatMap(portOf(parsed.port), (port) => start({ ...parsed, port, onReady })).pipe(
    Effect.catchAllCause((cause) =>
      Effect.sync(() => {
        const failure = describeFailure(cause, "start")
        if (failure.line !== undefined) process.stderr.write(`${failure.line}\n`)
        process.exitCode = failure.exitCode
      })
    ),
    NodeRuntime.runMain({ disableErrorReporting: true })
  )
  return true
}
