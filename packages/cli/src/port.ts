/** The port `sandnet start` listens on (its own module: start-entry.ts and cli.ts both read it). */
import { Effect, Option } from "effect"
import { UsageError } from "./failure.ts"

/** --port, else SANDNET_PORT, else 7575; a port is 0 to 65535. */
export const portOf = (option: Option.Option<number | string>): Effect.Effect<number, UsageError> => {
  const fromEnv = process.env["SANDNET_PORT"]
  const [source, text] = Option.isSome(option) ? ["--port", String(option.value)] : fromEnv !== undefined && fromEnv !== "" ? ["SANDNET_PORT", fromEnv] : ["--port", "7575"]
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN
  return Number.isInteger(port) && port >= 0 && port <= 65535
    ? Effect.succeed(port)
    : Effect.fail(new UsageError({ message: `${source} ${text} is not a port: give a number from 1 to 65535 (0 picks a free one)` }))
}

