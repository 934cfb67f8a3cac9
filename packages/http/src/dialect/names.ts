/**
 * Name tables: how the engine's names (the spec's vocabulary: Coin, CoinRules, `splice-coin`,
 * instrument `Coin`, `coin_operation`) read on the wire. The spec renamed the product of the real
 * network, Amulet, to "coin" word for word, so LocalNet's dialect is the same names with that one
 * word swapped back: `splice-coin` <-> `splice-amulet`, `Splice.CoinRules:CoinRules` <->
 * `Splice.AmuletRules:AmuletRules`, `LockedCoin_ExpireCoin` <-> `LockedAmulet_ExpireAmulet`,
 * `coinPrice` <-> `amuletPrice`, `locked_coins` <-> `locked_amulets`.
 *
 * The swap is done on whole words of identifier-like strings only (template and package ids,
 * choice and field names, instrument ids, party hints): a word is delimited by the identifier's
 * punctuation or a camel-case boundary, so `bitcoin` or `Coinbase` stay as they are, and free text
 * (anything with a space or a slash) and long opaque values (blobs, hashes) are never touched.
 * Applied to every key and string of a JSON value, inbound and outbound are inverse on the names
 * the engine uses, so one engine serves both dialects.
 */

/** Which names a node speaks: the spec's (default) or LocalNet's upstream names. */
export type DialectName = "spec" | "upstream"

export interface NameTable {
  readonly dialect: DialectName
  /** A name the engine uses, as the client reads it. */
  readonly outboundName: (name: string) => string
  /** A name the client sends, as the engine knows it. */
  readonly inboundName: (name: string) => string
}

/** Longest string treated as an identifier (a party id is at most 255 characters). */
const MAX_IDENTIFIER = 256
const IDENTIFIER = /^[#A-Za-z0-9_.:\-]+$/

interface WordSwap {
  readonly capitalized: RegExp
  readonly lower: RegExp
  readonly to: string
}

/**
 * `Word` anywhere a capitalized word may start (not followed by a lowercase letter); `word` only
 * at the start or after punctuation (not after a letter) and not followed by a lowercase letter;
 * either with an optional plural `s`.
 */
const swap = (from: string, to: string): WordSwap => {
  const cap = from[0]!.toUpperCase() + from.slice(1)
  return {
    capitalized: new RegExp(`${cap}(s?)(?![a-z])`, "g"),
    lower: new RegExp(`(^|[^A-Za-z])${from}(s?)(?![a-z])`, "g"),
    to
  }
}

const applySwap = (s: WordSwap, name: string): string => {
  if (name.length > MAX_IDENTIFIER || !IDENTIFIER.test(name)) return name
  const cap = s.to[0]!.toUpperCase() + s.to.slice(1)
  return name.replace(s.capitalized, (_m, plural: string) => `${cap}${plural}`).replace(s.lower, (_m, before: string, plural: string) => `${before}${s.to}${plural}`)
}

const identity = (name: string) => name

/** The spec's own names: nothing is translated. */
export const specNames: NameTable = { dialect: "spec", outboundName: identity, inboundName: identity }

const toUpstream = swap("coin", "amulet")
const toSpec = swap("amulet", "coin")

/**
 * Field names upstream itself spells with "coin" (scan's HoldingsSummary, the validator's external
 * party balance): already upstream's, so they leave as they are (scan-upstream.test.ts found them).
 */
const UPSTREAM_COIN_NAMES: ReadonlySet<string> = new Set(["total_unlocked_coin", "total_locked_coin", "total_coin_holdings", "total_available_coin"])

/** LocalNet's names (upstream Splice): Coin -> Amulet on the way out, Amulet -> Coin on the way in. */
export const upstreamNames: NameTable = {
  dialect: "upstream",
  outboundName: (name) => (UPSTREAM_COIN_NAMES.has(name) ? name : applySwap(toUpstream, name)),
  inboundName: (name) => applySwap(toSpec, name)
}

export const nameTableOf = (dialect: DialectName): NameTable => (dialect === "upstream" ? upstreamNames : specNames)

/** Every key and string of a JSON value, renamed (arrays and records are copied, the rest kept). */
export const renameJson = (value: unknown, rename: (name: string) => string): unknown => {
  if (typeof value === "string") return rename(value)
  if (Array.isArray(value)) return value.map((item) => renameJson(item, rename))
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[rename(key)] = renameJson(item, rename)
    return out
  }
  return value
}
