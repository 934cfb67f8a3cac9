/**
 * How a failed command ends: one line on stderr saying what went wrong and what to do, and a
 * non-zero exit code (2 for a mistake in the command line, 1 otherwise), never a stack trace.
 */
import { Cause, Data, Option } from "effect"

/** A mistake in the command line found by a command (the line says what and what to do). */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

export interface Failure {
  /** Absent when the command line library printed it already, or for an interruption (Ctrl-C). */
  readonly line?: string
  readonly exitCode: number
}

/** The messages and error codes of an error and the errors it wraps (`cause`, `error`). */
const chain = (error: unknown): { readonly messages: ReadonlyArray<string>; readonly codes: ReadonlyArray<string> } => {
  const messages: Array<string> = []
  const codes: Array<string> = []
  let current: unknown = error
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (typeof current !== "object") {
      messages.push(String(current))
      break
    }
    const record = current as { message?: unknown; code?: unknown; cause?: unknown; error?: unknown }
    if (typeof record.message === "string" && record.message !== "") messages.push(record.message)
    if (typeof record.code === "string") codes.push(record.code)
    current = record.cause ?? (record.error instanceof Error ? record.error : undefined)
  }
  return { messages, codes }
}

const DATABASE_HINT = "start it or correct --database-url (or DATABASE_URL)"

/** Known causes, in the words of the command line. */
const known = (text: string, codes: ReadonlyArray<string>): string | undefined => {
  const inUse = /EADDRINUSE[^\d]*(?:[\w.:[\]]*:)?(\d+)/.exec(text)
  if (inUse !== null || codes.includes("EADDRINUSE")) {
    const port = inUse?.[1] ?? "the port"
    return `port ${port} is already in use (another sandnet?): stop what uses it, or choose another port with --port or SANDNET_PORT`
  }
  if (/listen EACCES/.test(text)) return `listening was refused (${text.split("\n")[0]}): choose a port above 1023 with --port`
  const missing = /database "([^"]+)" does not exist/.exec(text)
  if (missing !== null) return `the PostgreSQL database "${missing[1]}" does not exist: create it (createdb ${missing[1]}) or correct --database-url (or DATABASE_URL)`
  if (/password authentication failed|no pg_hba.conf entry|role "[^"]+" does not exist/.test(text)) {
    return `the PostgreSQL server refused the login (${/(password authentication failed[^,;]*|no pg_hba.conf entry[^,;]*|role "[^"]+" does not exist)/.exec(text)?.[1]}): correct the user or password in --database-url (or DATABASE_URL)`
  }
  const unreachable = /(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|getaddrinfo \w+)\s*([\w.:-]*)/.exec(text)
  if (unreachable !== null && /Pg|PostgreSQL|postgres|connect/i.test(text)) {
    return `cannot reach the PostgreSQL server${unreachable[2] ? ` at ${unreachable[2]}` : ""} (${unreachable[1]}): ${DATABASE_HINT}`
  }
  return undefined
}

/** The line and exit code of a failed command. */
export const describeFailure = (cause: Cause.Cause<unknown>, command: string): Failure => {
  if (Cause.isInterruptedOnly(cause)) return { exitCode: 0 }
  const failure = Cause.failureOption(cause)
  const error: unknown = Option.isSome(failure) ? failure.value : Cause.squash(cause)
  if (typeof error === "object" && error !== null && "_tag" in error) {
    const tag = (error as { _tag: unknown })._tag
    if (tag === "UsageError") return { line: `sandnet ${command}: ${(error as UsageError).message}`, exitCode: 2 }
    // @effect/cli's ValidationError: it printed its message already
    if (typeof tag === "string" && /^(InvalidValue|InvalidArgument|MissingValue|MissingFlag|MissingSubcommand|CommandMismatch|CorrectedFlag|MultipleValuesDetected|NoBuiltInMatch|UnclusteredFlag|HelpRequested)$/.test(tag)) {
      return { exitCode: 2 }
    }
  }
  const { messages, codes } = chain(error)
  const text = messages.join(": ")
  const line = known(text, codes) ?? (messages.filter((m) => m !== "An error has occurred").join(": ") || String(error))
  return { line: `sandnet ${command}: ${line.split("\n")[0]}`, exitCode: 1 }
}
