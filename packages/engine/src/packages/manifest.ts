/**
 * META-INF/MANIFEST.MF of a DAR: a JAR manifest (RFC 822 style `Key: value` lines, at most 72
 * bytes per line, continuation lines start with one space). Daml reads `Main-Dalf`, `Dalfs`
 * (comma-separated, the main dalf included) and `Format` (must be `daml-lf`).
 */
import { Either } from "effect"

export const MANIFEST_PATH = "META-INF/MANIFEST.MF"
export const DAR_FORMAT = "daml-lf"

export interface DarManifest {
  readonly mainDalf: string
  /** Every dalf named by `Dalfs`, in order (the main one included when listed). */
  readonly dalfs: ReadonlyArray<string>
  readonly format: string
  readonly name: string | undefined
  readonly sdkVersion: string | undefined
  /** All main-section attributes, keys as written. */
  readonly attributes: Readonly<Record<string, string>>
}

const MAX_LINE_BYTES = 72

/** Wraps one `key: value` header at 72 UTF-8 bytes per line, continuation lines starting with a space. */
const wrap = (line: string): string => {
  const out: Array<string> = []
  let current = ""
  let limit = MAX_LINE_BYTES
  for (const ch of line) {
    if (Buffer.byteLength(current + ch) > limit) {
      out.push(current)
      current = " "
      limit = MAX_LINE_BYTES
    }
    current += ch
  }
  out.push(current)
  return out.join("\r\n")
}

/** Serialises a manifest's main section; attributes in the order given. */
export const writeManifest = (attributes: ReadonlyArray<readonly [string, string]>): Uint8Array =>
  new TextEncoder().encode(attributes.map(([k, v]) => wrap(`${k}: ${v}`) + "\r\n").join("") + "\r\n")

/** Reads the main section (up to the first blank line). */
export const parseManifest = (bytes: Uint8Array): Either.Either<DarManifest, string> => {
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return Either.left("not UTF-8")
  }
  const lines = text.split(/\r\n|\r|\n/)
  const logical: Array<string> = []
  for (const line of lines) {
    if (line === "") break
    if (line.startsWith(" ")) {
      if (logical.length === 0) return Either.left("continuation line without a header")
      logical[logical.length - 1] += line.slice(1)
    } else logical.push(line)
  }
  const attributes: Record<string, string> = {}
  const lower = new Map<string, string>()
  for (const line of logical) {
    const colon = line.indexOf(": ")
    if (colon <= 0) return Either.left(`invalid header line "${line.slice(0, 60)}"`)
    const key = line.slice(0, colon)
    attributes[key] = line.slice(colon + 2)
    lower.set(key.toLowerCase(), line.slice(colon + 2).trim())
  }
  const get = (key: string) => lower.get(key.toLowerCase())
  const mainDalf = get("Main-Dalf")
  const dalfsText = get("Dalfs")
  const format = get("Format")
  if (mainDalf === undefined || mainDalf === "") return Either.left("Cannot find attribute: Main-Dalf")
  if (dalfsText === undefined) return Either.left("Cannot find attribute: Dalfs")
  if (format === undefined) return Either.left("Cannot find attribute: Format")
  if (format !== DAR_FORMAT) return Either.left(`Unsupported format: ${format}`)
  const dalfs = dalfsText
    .split(",")
    .map((d) => d.trim())
    .filter((d) => d !== "")
  return Either.right({ mainDalf, dalfs, format, name: get("Name"), sdkVersion: get("Sdk-Version"), attributes })
}
