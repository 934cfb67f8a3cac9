/**
 * The length of a value's JSON text, `JSON.stringify(value).length`, without building the text.
 * Interpretation sizes every created and exercised node by it (the sizes become message sizes,
 * hence traffic), so it must equal the stringified length exactly; it walks the value instead of
 * allocating a string per node that is thrown away at once.
 *
 * Covers what JSON.stringify does with plain data: own enumerable keys in order, `undefined`,
 * functions and symbols left out of objects and `null` in arrays, `toJSON`, non-finite numbers as
 * `null`, escapes of quotes, backslashes, control characters and lone surrogates; a bigint throws
 * as JSON.stringify does. (Boxed primitives are not data the engine builds.)
 */

/** Strings with nothing JSON escapes: their text is the string in quotes. */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/

/** Control characters JSON writes as two characters (\b \t \n \f \r); the others take six (\u00XX). */
const SHORT_ESCAPES = new Set([8, 9, 10, 12, 13])

const escapedLength = (s: string): number => {
  let n = s.length + 2
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20) n += SHORT_ESCAPES.has(c) ? 1 : 5
    else if (c === 0x22 || c === 0x5c) n += 1
    else if (c >= 0xd800 && c <= 0xdfff) {
      // A high surrogate followed by a low one is a pair, written as is; a lone one is escaped (\uDXXX).
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++
      else n += 5
    }
  }
  return n
}

export const jsonStringLength = (s: string): number => (PLAIN.test(s) ? s.length + 2 : escapedLength(s))

const hasOwn = Object.prototype.hasOwnProperty

/** `JSON.stringify(value).length` for a value JSON.stringify writes (not undefined, a function or a symbol at the top). */
export const jsonLength = (value: unknown): number => Math.max(0, lengthOf(value))

/** The length of a value's text, or -1 when it has none (left out of an object, `null` in an array). */
const lengthOf = (value: unknown): number => {
  switch (typeof value) {
    case "string":
      return jsonStringLength(value)
    case "number":
      return Number.isFinite(value) ? String(value).length : 4
    case "boolean":
      return value ? 4 : 5
    case "bigint":
      throw new TypeError("Do not know how to serialize a BigInt")
    case "object":
      return value === null ? 4 : objectLength(value)
    default:
      return -1
  }
}

const objectLength = (value: object): number => {
  const toJSON = (value as { readonly toJSON?: unknown }).toJSON
  if (typeof toJSON === "function") return lengthOf(toJSON.call(value, ""))
  if (Array.isArray(value)) {
    let n = value.length === 0 ? 2 : value.length + 1
    for (const item of value as ReadonlyArray<unknown>) {
      const length = lengthOf(item)
      n += length < 0 ? 4 : length
    }
    return n
  }
  let n = 2
  let first = true
  const record = value as Readonly<Record<string, unknown>>
  for (const key in record) {
    if (!hasOwn.call(record, key)) continue
    const length = lengthOf(record[key])
    if (length < 0) continue
    n += (first ? 0 : 1) + jsonStringLength(key) + 1 + length
    first = false
  }
  return n
}
