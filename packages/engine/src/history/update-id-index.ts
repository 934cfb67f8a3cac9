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
import { isUpdateId } from "@sandnet/core"

/** The key `UpdateIdIndex` files an update id under. */
export const updateIdKey = (updateId: string): string =>
  isUpdateId(updateId) ? Buffer.from(updateId.slice(4, 36), "hex").toString("latin1") : `\u0100${updateId}`

export class UpdateIdIndex<V> {
  private readonly byKey = new Map<string, V>()

  get size(): number {
    return this.byKey.size
  }

  get(updateId: string): V | undefined {
    return this.byKey.get(updateIdKey(updateId))
  }

  has(updateId: string): boolean {
    return this.byKey.has(updateIdKey(updateId))
  }

  set(updateId: string, value: V): void {
    this.byKey.set(updateIdKey(updateId), value)
  }

  delete(updateId: string): boolean {
    return this.byKey.delete(updateIdKey(updateId))
  }
}
