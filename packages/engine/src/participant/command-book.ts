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
import { invariant, sha256Key128, type Micros } from "@sandnet/core"
import type { CommandEntry, DecidedCommand, InFlightCommand } from "./model.ts"

const digestOf = sha256Key128

const FAILED_BIT = 1

const packed = (entry: DecidedCommand): number => entry.completionAt * 2 + (entry.status === "failed" ? FAILED_BIT : 0)

export class CommandBook {
  private readonly inFlight = new Map<string, InFlightCommand>()
  /** In the order they were decided (a command decided again moves to the end): digest -> `packed`. */
  private readonly decided = new Map<string, number>()

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
      this.decided.delete(digest)
      this.decided.set(digest, packed(entry))
    }
  }

  /** Forgets decided commands, the earliest decided first, until `forget` says no. */
  forgetDecided(forget: (entry: DecidedCommand) => boolean): void {
    for (const [digest, entry] of this.decided) {
      if (!forget(this.unpacked(entry))) return
      this.decided.delete(digest)
    }
  }

  private unpacked(entry: number): DecidedCommand {
    const completionAt = Math.floor(entry / 2)
    return { status: entry % 2 === FAILED_BIT ? "failed" : "succeeded", completedAt: this.completedAtOf(completionAt), completionAt }
  }
}
