/**
 * A map keyed by update id that keeps a 16-character key instead of the id. An update id is
 * `1220` and the 64 hex digits of a SHA-256 (core ids.ts); its first 128 bits, as 16 latin1
 * characters, are the key (a 32-byte string instead of an 88-byte one). Anything else, such as a
 * malformed id a client asks for, is keyed by itself behind a character no latin1 key holds, so
 * the two never meet.
 *
 * Why: the indexes by update id (a participant's committed updates, the mediator's decided
 * requests) were what kept each update id alive once its update was archived, about 0.1 KB per
 * transaction of a 5-minute soak (`sandnet bench --only memory`). 128 bits of a hash do not
 * collide by chance, as with the command book's digests.
 */
import { invariant, RecentlyMade } from "@sandnet/core"

/** The value of an ASCII code as a lowercase hex digit, else -1. */
const HEX_VALUE = new Int8Array(128).fill(-1)
for (let d = 0; d < 16; d++) HEX_VALUE["0123456789abcdef".charCodeAt(d)] = d
const hexValue = (code: number): number => (code < 128 ? HEX_VALUE[code]! : -1)

const UPDATE_ID_LENGTH = 68
const PREFIX = "1220"

/** The key's 16 character codes, reused by every call. */
const scratch = new Uint8Array(16)

/**
 * The last id keyed and its key, and the keys of the last `UPDATE_IDS_SHARED` ids. One update is
 * committed by every node that sees it, one after the other (twenty super validators in the large
 * scenario, their commits interleaved with other updates'), and looked up again around its commit:
 * the same key, the same string (whose hash V8 keeps), instead of a new one each time (the twenty
 * nodes' own keys were 2% of the large scenario's live heap).
 */
let lastId: string | undefined = undefined
let lastKey = ""
export const UPDATE_IDS_SHARED = 2048
const keyedRecently = new RecentlyMade<string, string>(UPDATE_IDS_SHARED)

/**
 * The key `UpdateIdIndex` files an update id under. By hand rather than a regular expression and
 * a Buffer: it runs on every commit and lookup, and those two were 1% of the smoke scenario's
 * profile (`node --cpu-prof`).
 */
export const updateIdKey = (updateId: string): string => {
  if (updateId === lastId) return lastKey
  let key = keyedRecently.get(updateId)
  if (key === undefined) {
    key = keyOf(updateId)
    keyedRecently.set(updateId, key)
  }
  lastId = updateId
  lastKey = key
  return key
}

const keyOf = (updateId: string): string => {
  if (updateId.length !== UPDATE_ID_LENGTH || !updateId.startsWith(PREFIX)) return `\u0100${updateId}`
  const k = scratch
  // the first 32 digits make the key; the rest only need to be digits
  for (let n = 0; n < 16; n++) {
    const high = hexValue(updateId.charCodeAt(PREFIX.length + 2 * n))
    const low = hexValue(updateId.charCodeAt(PREFIX.length + 2 * n + 1))
    if (high < 0 || low < 0) return `\u0100${updateId}`
    k[n] = high * 16 + low
  }
  for (let i = PREFIX.length + 32; i < UPDATE_ID_LENGTH; i++) if (hexValue(updateId.charCodeAt(i)) < 0) return `\u0100${updateId}`
  return String.fromCharCode(k[0]!, k[1]!, k[2]!, k[3]!, k[4]!, k[5]!, k[6]!, k[7]!, k[8]!, k[9]!, k[10]!, k[11]!, k[12]!, k[13]!, k[14]!, k[15]!)
}

export class UpdateIdIndex<V> {
  private readonly byKey = new Map<string, V>()

  get(updateId: string): V | undefined {
    return this.byKey.get(updateIdKey(updateId))
  }

  has(updateId: string): boolean {
    return this.byKey.has(updateIdKey(updateId))
  }

  set(updateId: string, value: V): void {
    this.byKey.set(updateIdKey(updateId), value)
  }

  get size(): number {
    return this.byKey.size
  }

  /** The index as data (an engine checkpoint's part): each key, not the update id, and its value, in the order set. */
  image(): Array<readonly [string, V]> {
    return [...this.byKey]
  }

  /** Takes an image into this empty index. */
  restore(image: ReadonlyArray<readonly [string, V]>): void {
    invariant(this.byKey.size === 0, "an update id index takes an image only when empty")
    for (const [key, value] of image) this.byKey.set(key, value)
  }
}
