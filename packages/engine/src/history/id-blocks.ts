/**
 * The indexes that grow with the history, in a checkpoint image as blocks of bytes: a scan's
 * verdict ids and event order (`idBlocks`: update ids, 32 bytes each), a participant's log
 * positions by update id and its decided commands, a wallet record book's finished places
 * (`indexBlocks`: a 16-byte key and a 4-byte number each). Once the history's segments were rows
 * of their own, these were most of what every engine checkpoint serialized again (7 of 18 MB after
 * 20,000 offers each withdrawn: docs/benchmarks.md, 2026-11-30 evening). In blocks of a fixed
 * number of entries, a block that holds the same entries is the same bytes in every checkpoint, so
 * a node stores it once (node checkpoint/segments.ts stores every byte array of a checkpoint that
 * large as a row of its own).
 *
 * A block holding an entry of another shape (a malformed id's, none that the engine makes) keeps
 * its entries as they are.
 */
import { invariant } from "@sandnet/core"

/** Ids per block: 64 KB of bytes. */
export const ID_BLOCK_ENTRIES = 2048

/** A block of ids: 32 bytes an id, or the ids themselves when one of them is not an update id. */
export type IdBlock = Uint8Array | ReadonlyArray<string>

const PREFIX = "1220"
const ID_BYTES = 32
const ID_LENGTH = PREFIX.length + 2 * ID_BYTES
/** The prefix's bytes (`1220` is itself hex: the multihash code of SHA-256 and its length). */
const PREFIX_BYTES = Buffer.from(PREFIX, "hex")
/**
 * An id's bytes, prefix included, read as hex in one call: a flat string, where the prefix
 * concatenated to the digits would be a string of two parts.
 */
const scratch = Buffer.concat([PREFIX_BYTES, Buffer.alloc(ID_BYTES)])

/**
 * A block of `ids`: their hex digits written at once and read back to check them (a character
 * that is no lowercase hex digit would not read back as written: the block keeps its strings).
 * One write and one read of the whole block, not one per id: a third of the time.
 */
const blockOf = (ids: ReadonlyArray<string>): IdBlock => {
  if (!ids.every((id) => id.length === ID_LENGTH && id.startsWith(PREFIX))) return ids
  const hex = ids.map((id) => id.substring(PREFIX.length)).join("")
  const block = new Uint8Array(ids.length * ID_BYTES)
  const view = Buffer.from(block.buffer, block.byteOffset, block.byteLength)
  if (view.write(hex, 0, "hex") !== block.byteLength || view.toString("hex") !== hex) return ids
  return block
}

/** Items in order, cut into runs of `entries` (the last one shorter), each made a block by `blockOf`. */
const inBlocks = <T, B>(items: Iterable<T>, entries: number, blockOf: (run: ReadonlyArray<T>) => B): Array<B> => {
  invariant(Number.isSafeInteger(entries) && entries >= 1, "a block holds at least one entry")
  const blocks: Array<B> = []
  let pending: Array<T> = []
  for (const item of items) {
    pending.push(item)
    if (pending.length === entries) {
      blocks.push(blockOf(pending))
      pending = []
    }
  }
  if (pending.length > 0) blocks.push(blockOf(pending))
  return blocks
}

/** The ids in order as blocks of `entries` ids (the last one shorter). */
export const idBlocks = (ids: Iterable<string>, entries: number = ID_BLOCK_ENTRIES): Array<IdBlock> => inBlocks(ids, entries, blockOf)

/** The ids of blocks, in order. */
export function* idsOfBlocks(blocks: ReadonlyArray<IdBlock>): Generator<string> {
  for (const block of blocks) {
    if (!(block instanceof Uint8Array)) {
      yield* block
      continue
    }
    invariant(block.byteLength % ID_BYTES === 0, () => `an id block of ${block.byteLength} bytes`)
    const view = Buffer.from(block.buffer, block.byteOffset, block.byteLength)
    for (let at = 0; at < block.byteLength; at += ID_BYTES) {
      view.copy(scratch, PREFIX_BYTES.length, at, at + ID_BYTES)
      yield scratch.toString("hex")
    }
  }
}

/**
 * An index of small numbers by 128-bit key in a checkpoint image (a participant's log positions by
 * update id key, history/update-id-index.ts; its decided commands by digest, participant
 * command-book.ts): blocks of `ID_BLOCK_ENTRIES` entries, their 16-character latin1 keys as 16
 * bytes then their values as 4 bytes each; or the entries themselves, for a block with a key of
 * another kind (a malformed id's) or a value that is no unsigned 32-bit integer.
 */
export type IndexBlock = Uint8Array | ReadonlyArray<readonly [string, number]>

const KEY_CHARS = 16
const VALUE_BYTES = 4
const ENTRY_BYTES = KEY_CHARS + VALUE_BYTES

/** A block of entries: the keys written as latin1 at once and read back to check them (a character above 255 would not read back). */
const indexBlockOf = (entries: ReadonlyArray<readonly [string, number]>): IndexBlock => {
  if (!entries.every(([key, at]) => key.length === KEY_CHARS && Number.isInteger(at) && at >= 0 && at <= 0xffff_ffff)) return entries
  const n = entries.length
  const keys = entries.map(([key]) => key).join("")
  const block = new Uint8Array(n * ENTRY_BYTES)
  const view = Buffer.from(block.buffer, block.byteOffset, block.byteLength)
  if (view.write(keys, 0, n * KEY_CHARS, "latin1") !== n * KEY_CHARS || view.toString("latin1", 0, n * KEY_CHARS) !== keys) return entries
  for (let i = 0; i < n; i++) view.writeUInt32LE(entries[i]![1], n * KEY_CHARS + i * VALUE_BYTES)
  return block
}

/** An index image's entries, in order, as blocks. */
export const indexBlocks = (image: Iterable<readonly [string, number]>, entries: number = ID_BLOCK_ENTRIES): Array<IndexBlock> =>
  inBlocks(image, entries, indexBlockOf)

/** The entries of blocks, in order. */
export function* entriesOfIndexBlocks(blocks: ReadonlyArray<IndexBlock>): Generator<readonly [string, number]> {
  for (const block of blocks) {
    if (!(block instanceof Uint8Array)) {
      yield* block
      continue
    }
    invariant(block.byteLength % ENTRY_BYTES === 0, () => `an index block of ${block.byteLength} bytes`)
    const n = block.byteLength / ENTRY_BYTES
    const view = Buffer.from(block.buffer, block.byteOffset, block.byteLength)
    for (let i = 0; i < n; i++) yield [view.toString("latin1", i * KEY_CHARS, (i + 1) * KEY_CHARS), view.readUInt32LE(n * KEY_CHARS + i * VALUE_BYTES)]
  }
}
