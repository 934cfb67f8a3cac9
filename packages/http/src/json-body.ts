/**
 * Parsing a request's JSON text, guarded against hostile nesting.
 *
 * `JSON.parse` itself copes with deep nesting, but everything after it recurses over the value
 * (Schema decoding, formatting a decode error, renaming names between dialects): a body nested a
 * few thousand levels overflowed the stack there (a 500), and a 10 MB one kept the node busy for
 * seconds. A linear pre-scan of the text counts the nesting of `[` and `{` outside strings and
 * refuses a body deeper than `MAX_JSON_DEPTH` before anything is parsed: one pass, no allocation.
 */
import { Either } from "effect"
import { InvalidRequest } from "./errors.ts"

/** The deepest nesting of arrays and objects a request body may have (no Canton or Splice request comes near it). */
export const MAX_JSON_DEPTH = 512

const OPEN_BRACKET = 0x5b // [
const OPEN_BRACE = 0x7b // {
const CLOSE_BRACKET = 0x5d // ]
const CLOSE_BRACE = 0x7d // }
const QUOTE = 0x22 // "
const BACKSLASH = 0x5c // \

/**
 * Whether `text` nests arrays and objects deeper than `limit` (brackets inside strings do not
 * count). One pass over the text, stopping at the first level over the limit; a string's contents
 * are skipped with `indexOf` (a quote ends it unless an odd run of backslashes precedes it).
 */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  const length = text.length
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      let end = i
      for (;;) {
        end = text.indexOf('"', end + 1)
        if (end === -1) return false // an unterminated string: JSON.parse refuses it
        let backslashes = 0
        while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++
        if (backslashes % 2 === 0) break
      }
      i = end
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--
    }
  }
  return false
}

/** Parses a request's JSON text: 400 (InvalidRequest, body) when it nests too deep or is not JSON. */
export const parseJsonText = (text: string): Either.Either<unknown, InvalidRequest> => {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return Either.left(
      new InvalidRequest({ location: "body", detail: `the JSON nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` })
    )
  }
  try {
    return Either.right(JSON.parse(text) as unknown)
  } catch (error) {
    return Either.left(
      new InvalidRequest({ location: "body", detail: `malformed JSON: ${error instanceof Error ? error.message : String(error)}` })
    )
  }
}
