/**
 * `sandnet token` on its own (dist/token.mjs, see bin/build.mjs): prints a dev token without
 * loading the command line library, the node or a database, so it answers in about the time Node
 * takes to start. It handles the well-formed invocations only; anything else (`--help`, an unknown
 * flag, a missing value) is left to the full command line, which explains it.
 */
// dev-token.ts, not the package's index: the index reaches server.ts's import() of the surfaces, and
// a bundle without code splitting (this one) inlines every import() target it meets (4.7 MB, not 10 KB)
import { devTokenAt } from "@sandnet/http/dev-token"

/** The options of `sandnet token` (the same as main.ts declares). */
export interface TokenArguments {
  readonly user: string
  readonly secret: string
  readonly audience?: string
  readonly expiresInSeconds?: number
}

const FLAGS = ["--user", "--secret", "--audience", "--expires-in"] as const

/** The token command's arguments, or undefined when they need the full command line. */
export const parseTokenArguments = (args: ReadonlyArray<string>): TokenArguments | undefined => {
  const values = new Map<string, string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const equals = arg.indexOf("=")
    const flag = equals > 0 ? arg.slice(0, equals) : arg
    if (!(FLAGS as ReadonlyArray<string>).includes(flag) || values.has(flag)) return undefined
    const value = equals > 0 ? arg.slice(equals + 1) : args[++i]
    if (value === undefined || (equals < 0 && value.startsWith("--"))) return undefined
    values.set(flag, value)
  }
  const user = values.get("--user")
  const expires = values.get("--expires-in")
  if (user === undefined || (expires !== undefined && !/^-?\d+$/.test(expires))) return undefined
  const audience = values.get("--audience")
  return {
    user,
    secret: values.get("--secret") ?? "unsafe",
    ...(audience === undefined ? {} : { audience }),
    ...(expires === undefined ? {} : { expiresInSeconds: Number(expires) })
  }
}

/** Prints a dev token on stdout. */
export const printToken = async (options: TokenArguments): Promise<void> => {
  process.stdout.write(`${devTokenAt(options, Date.now())}\n`)
}

/** Prints the token and answers true, or answers false when the full command line should run. */
export const runToken = async (args: ReadonlyArray<string>): Promise<boolean> => {
  const parsed = parseTokenArguments(args)
  if (parsed === undefined) return false
  await printToken(parsed)
  return true
}
