/**
 * `sandnet start --log-requests`: one line per HTTP request (time, method, path, status, duration)
 * in place of the multi-line entries of Effect's pretty logger; other log entries get one line too.
 */
import { HashMap, List, Logger, Option } from "effect"

const time = (date: Date): string => date.toISOString().slice(11, 23)

export const oneLineLogger = Logger.make(({ logLevel, message, annotations, spans, date }) => {
  const annotation = (key: string): string | undefined => Option.getOrUndefined(Option.map(HashMap.get(annotations, key), String))
  const method = annotation("http.method")
  const text = (Array.isArray(message) ? message : [message]).map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join(" ")
  if (method !== undefined) {
    const span = List.head(spans)
    const took = Option.isSome(span) ? ` ${date.getTime() - span.value.startTime} ms` : ""
    globalThis.console.log(`${time(date)} ${method} ${annotation("http.url") ?? ""} ${annotation("http.status") ?? ""}${took}`)
  } else {
    globalThis.console.log(`${time(date)} ${logLevel.label} ${text}`)
  }
})

/** Replaces the pretty logger that the Node runtime installs (and the default one, where it is not). */
export const oneLineLogging = Logger.replace(Logger.prettyLoggerDefault, oneLineLogger)
