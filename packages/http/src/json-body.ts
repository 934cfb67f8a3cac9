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
 * count). Linear in the text's length; it stops at the first level over the limit.
 */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) {
      inString = true
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
