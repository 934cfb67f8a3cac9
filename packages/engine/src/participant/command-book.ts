/**
 * A participant's commands by command key: the ones in flight, and the decided ones kept for
 * deduplication (`MAX_DEDUPLICATION`). A decided command is filed under a 128-bit digest of its key
 * instead of the key itself: keys are a submitter's party id and a command id (a wallet's carry a
 * contract id), about 250 characters, and a 5-minute soak kept 320 bytes per transaction for them.
 * A digest that long does not collide by chance; Canton itself deduplicates by a hash of the
 * change id.
 *
 * A decided command is one number, its completion record's index and its status in the lowest bit
 * (a small integer): when it was decided is its completion record's `completedAt`, read back when
 * asked (`completedAtOf`). An object with its time boxed was another 60 bytes per transaction.
 */
import { invariant, PairQueue, sha256Key128, type Micros } from "@sandnet/core"
import { entriesOfIndexBlocks, indexBlocks, type IndexBlock } from "../history/id-blocks.ts"
import type { CommandEntry, DecidedCommand, InFlightCommand } from "./model.ts"

const digestOf = sha256Key128

export interface CommandBookImage {
  readonly inFlight: ReadonlyArray<readonly [string, InFlightCommand]>
  /** Digest and packed number, as blocks (history/id-blocks.ts: a block that did not change is the same bytes). */
  readonly decided: ReadonlyArray<IndexBlock>
}

const FAILED_BIT = 1

const packed = (entry: DecidedCommand): number => entry.completionAt * 2 + (entry.status === "failed" ? FAILED_BIT : 0)

export class CommandBook {
  private readonly inFlight = new Map<string, InFlightCommand>()
  /** Digest -> `packed`. */
  private readonly decided = new Map<string, number>()
  /**
   * Every decision in the order it was made: digest and `packed`; kept from the first forgetting on
   * (a participant forgets only past 200,000 commands, completions.ts), built then from the map's
   * order. An entry whose digest now maps to another number (decided again later, or submitted
   * again) is stale and skipped. Walking the map from its oldest entry instead passed every command
   * forgotten since, on each completion (PairQueue says why).
   */
  private decidedOrder: PairQueue<string, number> | undefined = undefined

  /** `completedAtOf(completionAt)`: when the command whose completion record is at that index was decided. */
  constructor(private readonly completedAtOf: (completionAt: number) => Micros) {}

  get size(): number {
    return this.inFlight.size + this.decided.size
  }

  get(commandKey: string): CommandEntry | undefined {
    const flying = this.inFlight.get(commandKey)
    if (flying !== undefined) return flying
    const entry = this.decided.get(digestOf(commandKey))
    return entry === undefined ? undefined : this.unpacked(entry)
  }

  has(commandKey: string): boolean {
    return this.inFlight.has(commandKey) || this.decided.has(digestOf(commandKey))
  }

  set(commandKey: string, entry: CommandEntry): void {
    const digest = digestOf(commandKey)
    if (entry.status === "inFlight") {
      this.decided.delete(digest)
      this.inFlight.set(commandKey, entry)
    } else {
      invariant(Number.isSafeInteger(entry.completionAt) && entry.completionAt >= 0, "a decided command names its completion record")
      invariant(this.completedAtOf(entry.completionAt) === entry.completedAt, "a decided command's time is its completion record's")
      this.inFlight.delete(commandKey)
      const value = packed(entry)
      // delete first: a command decided again moves to the end of the map's order
      this.decided.delete(digest)
      this.decided.set(digest, value)
      this.decidedOrder?.push(digest, value)
    }
  }

  /** Forgets decided commands, the earliest decided first (a command decided again counts from then), until `forget` says no. */
  forgetDecided(forget: (entry: DecidedCommand) => boolean): void {
    if (this.decidedOrder === undefined) {
      this.decidedOrder = new PairQueue()
      for (const [digest, value] of this.decided) this.decidedOrder.push(digest, value)
    }
    const order = this.decidedOrder
    while (order.length > 0) {
      const digest = order.firstKey()!
      const value = order.firstValue()!
      if (this.decided.get(digest) === value) {
        if (!forget(this.unpacked(value))) return
        this.decided.delete(digest)
      }
      order.shift()
    }
  }

  /**
   * The book as data (an engine checkpoint's part): the commands in flight by key, the decided
   * ones as digest and packed number in blocks, each in its map's order. The order of decisions is not in
   * it: built from the decided map's order it forgets the same commands (a stale entry of the
   * order is skipped anyway).
   */
  image(): CommandBookImage {
    return { inFlight: [...this.inFlight], decided: indexBlocks(this.decided) }
  }

  /** Takes an image into this empty book. */
  restore(image: CommandBookImage): void {
    invariant(this.size === 0, "a command book takes an image only when empty")
    for (const [key, entry] of image.inFlight) this.inFlight.set(key, entry)
    for (const [digest, value] of entriesOfIndexBlocks(image.decided)) {
      invariant(Number.isSafeInteger(value) && value >= 0, "a decided command is a packed completion index")
      this.decided.set(digest, value)
    }
  }

  private unpacked(entry: number): DecidedCommand {
    const completionAt = Math.floor(entry / 2)
    return { status: entry % 2 === FAILED_BIT ? "failed" : "succeeded", completedAt: this.completedAtOf(completionAt), completionAt }
  }
}
