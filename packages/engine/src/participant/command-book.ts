/**
 * A participant's commands by command key: the ones in flight, and the decided ones kept for
 * deduplication (`MAX_DEDUPLICATION`). A decided command is filed under a 128-bit digest of its key
 * instead of the key itself: keys are a submitter's party id and a command id (a wallet's carry a
 * contract id), about 250 characters, and a 5-minute soak kept 320 bytes per transaction for them.
 * A digest that long does not collide by chance; Canton itself deduplicates by a hash of the
 * change id.
 */
import { sha256Key128 } from "@sandnet/core"
import type { CommandEntry, DecidedCommand, InFlightCommand } from "./model.ts"

const digestOf = sha256Key128

export class CommandBook {
  private readonly inFlight = new Map<string, InFlightCommand>()
  /** In the order they were decided (a command decided again moves to the end). */
  private readonly decided = new Map<string, DecidedCommand>()

  get size(): number {
    return this.inFlight.size + this.decided.size
  }

  get(commandKey: string): CommandEntry | undefined {
    return this.inFlight.get(commandKey) ?? this.decided.get(digestOf(commandKey))
  }

  has(commandKey: string): boolean {
    return this.get(commandKey) !== undefined
  }

  set(commandKey: string, entry: CommandEntry): void {
    const digest = digestOf(commandKey)
    if (entry.status === "inFlight") {
      this.decided.delete(digest)
      this.inFlight.set(commandKey, entry)
    } else {
      this.inFlight.delete(commandKey)
      this.decided.delete(digest)
      this.decided.set(digest, entry)
    }
  }

  /** Forgets decided commands, the earliest decided first, until `forget` says no. */
  forgetDecided(forget: (entry: DecidedCommand) => boolean): void {
    for (const [digest, entry] of this.decided) {
      if (!forget(entry)) return
      this.decided.delete(digest)
    }
  }
}
